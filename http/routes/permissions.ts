import { Type } from '@sinclair/typebox';
import { defineRoute } from '../route.ts';
import { permissionCatalog, rolePermissions } from '../../domain/users/permissions.ts';

export const permissionRoutes = [
  defineRoute({
    method: 'get', path: '/permissions', summary: 'Every permission and which roles hold it', tags: ['users'], permission: 'ROLE_READ',
    responses: {
      200: {
        description: 'the permission catalog and the role table',
        schema: Type.Object({
          permissions: Type.Array(Type.Object({ name: Type.String(), description: Type.String(), roles: Type.Array(Type.String()) })),
          roles: Type.Record(Type.String(), Type.Array(Type.String())),
        }),
      },
    },
    async handler() {
      const roles = Object.keys(rolePermissions) as Array<keyof typeof rolePermissions>;
      return {
        body: {
          permissions: Object.entries(permissionCatalog).map(([name, description]) => ({ name, description, roles: roles.filter((r) => (rolePermissions[r] as readonly string[]).includes(name)) })),
          roles: rolePermissions,
        },
      };
    },
  }),
];
