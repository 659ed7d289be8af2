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

/** Where a node goes (POST /nodes `config`), the one shape of a placement (docs/hosts.md). */
export const HostPlacementFields = {
  hostId: Type.Optional(Type.Integer({ minimum: 1, description: 'evm, consortium and ledgerX orderer groups (a Kubernetes cluster only): the node host (GET /hosts) it runs on, under that host\'s Docker Engine, or (evm anvil nodes) as a StatefulSet of that Kubernetes cluster, its ports NodePorts (30000-32767); left out: this service\'s machine (docs/hosts.md, docs/kubernetes.md)' })),
  hostLabels: Type.Optional(Type.Record(Type.String({ maxLength: 63 }), Type.String({ maxLength: 200 }), { maxProperties: 20, description: 'evm and consortium, instead of hostId: placed on the reachable, not full host carrying every label given that has the fewest nodes (docs/hosts.md)' })),
};

/** A network's placement: the same fields and rules for every node the network's start or quick start makes. */
export const PlacementSchema = (what: string) => Type.Object(HostPlacementFields, {
  additionalProperties: false,
  description: `where ${what} go: {hostId} (a node host or Kubernetes cluster, GET /hosts) or {hostLabels} (the placement rule), not both; the same rules and codes as POST /nodes config.hostId/hostLabels (400 UNKNOWN_HOST, 409 HOST_UNREACHABLE, HOST_FULL when the host has no room for them all, NO_HOST_FITS), checked before anything is made (docs/hosts.md)`,
});
