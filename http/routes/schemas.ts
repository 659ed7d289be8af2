// Schemas shared by several routers.
import { Type } from '@sinclair/typebox';

export const IdParam = Type.Object({ id: Type.Integer({ minimum: 1, description: 'record id' }) }, { additionalProperties: false });
export const RoleSchema = Type.Union([Type.Literal('ADMIN'), Type.Literal('OPERATOR'), Type.Literal('VIEWER')], { description: 'ADMIN, OPERATOR or VIEWER' });
export const UserSchema = Type.Object({
  id: Type.Integer(),
  username: Type.String(),
  role: RoleSchema,
  email: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
  lastLoginAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
export const PasswordSchema = Type.String({ minLength: 1, maxLength: 1024, description: 'write-only; at least 12 characters, not the username' });
