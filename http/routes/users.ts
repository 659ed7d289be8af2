import { Type } from '@sinclair/typebox';
import { defineRoute } from '../route.ts';
import { runCommand } from '../../application/commands.ts';
import { Page, PageQuery, page, pageRequest } from '../pagination.ts';
import { IdParam, PasswordSchema, RoleSchema, UserSchema } from './schemas.ts';
import { USERS_STREAM, assertUsername, userDirectory } from '../../domain/users/userDirectory.ts';
import { NotFoundError, ValidationError } from '../../domain/shared/errors.ts';
import { getUser, listUsers } from '../../projections/users.ts';
import type { AppDeps } from '../../application/deps.ts';
import { createUser } from '../../application/users/userCreate.ts';
import { passwordPolicyIssues } from '../../domain/users/passwordPolicy.ts';
import { assertAccountDelegable } from '../../domain/users/delegation.ts';
import { ROLES } from '../../domain/users/roles.ts';

export function assertPassword(password: string, username: string, field = 'password'): void {
  const issues = passwordPolicyIssues(password, { username, field });
  if (issues.length) throw new ValidationError(`${field} ${issues.map((i) => i.message).join('; ')}.`, issues);
}

async function userOr404(deps: AppDeps, id: number) {
  const u = await getUser(deps.pool, id);
  if (!u) throw new NotFoundError('User', id);
  return u;
}

const tags = ['users'];
const at = (deps: AppDeps) => deps.clock().toISOString();

export const userRoutes = [
  defineRoute({
    method: 'get', path: '/users', summary: 'List users', tags, permission: 'USER_READ',
    query: Type.Object({ ...PageQuery, role: Type.Optional(RoleSchema) }, { additionalProperties: false }),
    responses: { 200: { description: 'a page of users', schema: Page(UserSchema) } },
    async handler({ deps, query }) {
      const { limit, offset } = pageRequest(deps.config, query);
      const r = await listUsers(deps.pool, limit, offset, query.role);
      return { body: page(r.items, r.total, limit, offset) };
    },
  }),
  defineRoute({
    method: 'post', path: '/users', summary: 'Create a user', tags, permission: 'USER_CREATE',
    body: Type.Object({ username: Type.String({ maxLength: 64 }), password: PasswordSchema, role: Type.Optional(RoleSchema), email: Type.Optional(Type.Union([Type.String({ format: 'email', maxLength: 254 }), Type.Null()])) }, { additionalProperties: false }),
    responses: { 403: { description: 'DELEGATION_EXCEEDED: asked with an API key that lacks a permission of the role, or expires' }, 201: { description: 'created', schema: UserSchema }, 409: { description: 'username taken' } },
    async handler(input) {
      const { deps, body } = input;
      const userId = await createUser(input, body);
      return { status: 201, body: await userOr404(deps, userId), headers: { Location: `/api/v1/users/${userId}` } };
    },
  }),
  defineRoute({
    method: 'get', path: '/users/:id', summary: 'Read a user', tags, permission: 'USER_READ', params: IdParam,
    responses: { 200: { description: 'the user', schema: UserSchema }, 404: { description: 'no such user' } },
    async handler({ deps, params }) {
      return { body: await userOr404(deps, params.id) };
    },
  }),
  defineRoute({
    method: 'put', path: '/users/:id', summary: "Update a user's username or email (role and password have their own endpoints)", tags, permission: 'USER_UPDATE', params: IdParam,
    body: Type.Object({ username: Type.Optional(Type.String({ maxLength: 64 })), email: Type.Optional(Type.Union([Type.String({ format: 'email', maxLength: 254 }), Type.Null()])) }, { additionalProperties: false }),
    responses: { 200: { description: 'the updated user', schema: UserSchema }, 404: { description: 'no such user' }, 409: { description: 'username taken' } },
    async handler(input) {
      const { deps, params, body } = input;
      if (body.username !== undefined) assertUsername(body.username);
      await runCommand(input, USERS_STREAM, userDirectory, { type: 'UpdateUser', userId: params.id, username: body.username, email: body.email, at: at(deps) });
      return { body: await userOr404(deps, params.id) };
    },
  }),
  defineRoute({
    method: 'delete', path: '/users/:id', summary: 'Delete a user (not the last ADMIN); their sessions and API keys stop working', tags, permission: 'USER_DELETE', params: IdParam,
    responses: { 204: { description: 'deleted' }, 404: { description: 'no such user' }, 409: { description: 'the last ADMIN' } },
    async handler(input) {
      const { deps, params } = input;
      await runCommand(input, USERS_STREAM, userDirectory, { type: 'DeleteUser', userId: params.id, at: at(deps) });
      await deps.security.sessions.revokeAllForUser(params.id, deps.clock());
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'put', path: '/users/:id/password', summary: "Set a user's password (ends that user's sessions)", tags, permission: 'USER_PASSWORD_RESET', params: IdParam,
    body: Type.Object({ password: PasswordSchema }, { additionalProperties: false }),
    responses: { 403: { description: 'DELEGATION_EXCEEDED: asked with an API key that lacks a permission of the role, or expires' }, 204: { description: 'changed' }, 404: { description: 'no such user' } },
    async handler(input) {
      const { deps, params, body } = input;
      const user = await userOr404(deps, params.id);
      assertAccountDelegable(input.identity, user.role);
      assertPassword(body.password, user.username);
      const passwordHash = await deps.security.passwords.hash(body.password);
      await runCommand(input, USERS_STREAM, userDirectory, { type: 'ChangePassword', userId: params.id, passwordHash, byUserId: input.identity?.userId ?? null, at: at(deps) });
      await deps.security.sessions.revokeAllForUser(params.id, deps.clock());
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'put', path: '/users/:id/role', summary: "Change a user's role (the last ADMIN cannot be demoted; a downgrade ends that user's sessions)", tags, permission: 'USER_ROLE_ASSIGN', params: IdParam,
    body: Type.Object({ role: RoleSchema }, { additionalProperties: false }),
    responses: { 403: { description: 'DELEGATION_EXCEEDED: asked with an API key that lacks a permission of the role, or expires' }, 200: { description: 'the updated user', schema: UserSchema }, 404: { description: 'no such user' }, 409: { description: 'the last ADMIN' } },
    async handler(input) {
      const { deps, params, body } = input;
      // Raising an account's role with an API key: only to a role the key holds whole.
      if (ROLES.indexOf(body.role) < ROLES.indexOf((await userOr404(deps, params.id)).role)) assertAccountDelegable(input.identity, body.role);
      await runCommand(input, USERS_STREAM, userDirectory, { type: 'ChangeRole', userId: params.id, role: body.role, at: at(deps) });
      return { body: await userOr404(deps, params.id) };
    },
  }),
];
