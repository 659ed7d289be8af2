// Schemas shared by several routers.
import { Type } from '@sinclair/typebox';

/** The create a call belongs to (a client-driven create started by POST /creations): what the call makes is recorded on it. */
export const CreationIdField = { creationId: Type.Optional(Type.Integer({ minimum: 1, description: 'the create (POST /creations) this call is a step of: what it makes is recorded on that create first, so that POST /creations/{id}/undo removes it; an unknown id is a 400, an ended create a 409, nothing made' })) };
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
