// Creates that make several things (docs/architecture.md, "Creates that make several things"):
// a client-driven one (the console's consortium quick start) is started here, its calls carry its
// id, it is ended here; a failed create, of any kind, names its step and what it made, and one
// call removes all of that (POST /creations/{id}/undo).
import { Type } from '@sinclair/typebox';
import { defineRoute } from '../route.ts';
import { IdParam } from './schemas.ts';
import { creationOr404, endClientCreation, startClientCreation } from '../../application/creations.ts';
import { undoCreation } from '../../application/creationUndo.ts';
import type { CreationRow } from '../../projections/creations.ts';
import { ValidationError } from '../../domain/shared/errors.ts';

const tags = ['creations'];

const Resource = Type.Object({
  resource: Type.Union([Type.Literal('key'), Type.Literal('organization'), Type.Literal('node'), Type.Literal('network')]),
  id: Type.Integer(),
  reason: Type.Optional(Type.String({ description: 'left: why it could not be removed' })),
});

export const CreationView = Type.Object({
  id: Type.Integer(),
  kind: Type.Union([Type.Literal('evm-network'), Type.Literal('consortium-quickstart'), Type.Literal('ledgerx-quickstart')]),
  name: Type.String({ description: 'the name of the network being created' }),
  status: Type.Union([Type.Literal('IN_PROGRESS'), Type.Literal('COMPLETED'), Type.Literal('FAILED'), Type.Literal('UNDONE')], { description: 'UNDONE: failed, and everything it made is removed' }),
  step: Type.Union([Type.String(), Type.Null()], { description: 'FAILED: the step that failed' }),
  message: Type.Union([Type.String(), Type.Null()], { description: 'FAILED: why' }),
  interrupted: Type.Boolean({ description: 'failed because the service stopped mid-way' }),
  made: Type.Array(Resource, { description: 'everything the create made, in order (each recorded before it was made)' }),
  removed: Type.Array(Resource, { description: 'what of it is removed' }),
  left: Type.Array(Resource, { description: 'what of it could not be removed (with why); POST /creations/{id}/undo tries again' }),
  remaining: Type.Array(Resource, { description: 'made, not removed: what POST /creations/{id}/undo removes' }),
  resource_id: Type.Union([Type.Integer(), Type.Null()], { description: 'COMPLETED: the network made' }),
  started_at: Type.String({ format: 'date-time' }),
  finished_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

export function creationView(c: CreationRow) {
  const gone = new Set(c.removed.map((r) => `${r.resource}:${r.id}`));
  return {
    id: c.id, kind: c.kind, name: c.name, status: c.status, step: c.step, message: c.message, interrupted: c.interrupted,
    made: c.made, removed: c.removed, left: c.left, remaining: c.made.filter((r) => !gone.has(`${r.resource}:${r.id}`)),
    resource_id: c.resourceId, started_at: c.startedAt, finished_at: c.finishedAt,
  };
}

export const creationRoutes = [
  defineRoute({
    method: 'post', path: '/creations', summary: 'Start the record of a create a client drives step by step (the console\'s consortium quick start)', tags, permission: 'NETWORK_CREATE',
    description: 'Claims the name (a second open create of it is a 409). The create\'s calls (POST /organizations, POST /nodes, POST /networks/consortium) carry its id as creationId: each records what it makes on it before making it. The client ends it with POST /creations/{id}/end; a failed one keeps what it made, listed, until POST /creations/{id}/undo removes it.',
    body: Type.Object({
      kind: Type.Literal('consortium-quickstart'),
      name: Type.String({ minLength: 1, maxLength: 64, description: 'the network the create makes' }),
    }, { additionalProperties: false }),
    responses: { 201: { description: 'the create, IN_PROGRESS', schema: CreationView }, 409: { description: 'a create of this name is in progress' } },
    async handler(input) {
      const id = await startClientCreation(input, input.body.kind, input.body.name);
      return { status: 201, body: creationView(await creationOr404(input, id)), headers: { Location: `/api/v1/creations/${id}` } };
    },
  }),
  defineRoute({
    method: 'get', path: '/creations/:id', summary: 'Read a create: its status, the step that failed and why, what it made, removed and left', tags, permission: 'NETWORK_READ', params: IdParam,
    responses: { 200: { description: 'the create', schema: CreationView }, 404: { description: 'no such create' } },
    async handler(input) {
      return { body: creationView(await creationOr404(input, input.params.id)) };
    },
  }),
  defineRoute({
    method: 'post', path: '/creations/:id/end', summary: 'End a create a client drives: COMPLETED with the network made, or FAILED at a step (what it made is kept, listed)', tags, permission: 'NETWORK_CREATE', params: IdParam,
    body: Type.Object({
      outcome: Type.Union([Type.Literal('COMPLETED'), Type.Literal('FAILED')]),
      resourceId: Type.Optional(Type.Integer({ minimum: 1, description: 'COMPLETED: the network made' })),
      step: Type.Optional(Type.String({ minLength: 1, maxLength: 300, description: 'FAILED: the step that failed, as the client names it' })),
      message: Type.Optional(Type.String({ maxLength: 2000, description: 'FAILED: why' })),
    }, { additionalProperties: false }),
    responses: { 200: { description: 'the create', schema: CreationView }, 400: { description: 'not a client-driven create, or a field the outcome needs is missing' }, 409: { description: 'the create has ended' } },
    async handler(input) {
      const { body, params } = input;
      if (body.outcome === 'COMPLETED') {
        if (body.resourceId === undefined) throw new ValidationError('A completed create names the network it made.', [{ field: 'resourceId', message: 'is required with COMPLETED' }]);
        await endClientCreation(input, params.id, { outcome: 'COMPLETED', resourceId: body.resourceId });
      } else {
        if (body.step === undefined) throw new ValidationError('A failed create names the step that failed.', [{ field: 'step', message: 'is required with FAILED' }]);
        await endClientCreation(input, params.id, { outcome: 'FAILED', step: body.step, message: body.message ?? 'failed' });
      }
      return { body: creationView(await creationOr404(input, params.id)) };
    },
  }),
  defineRoute({
    method: 'post', path: '/creations/:id/undo', summary: 'Remove everything a failed create made (nodes, network, organizations with their keys, keys), each removal audited', tags, permission: 'NETWORK_DELETE', params: IdParam,
    description: 'Only a FAILED create. Removes, in this order, its nodes, its network, its organizations (with deleteKeys: their CAs, admin and the keys of their nodes) and the keys it made, through the same use cases as the single deletes; what is already gone counts as removed. It deletes keys, so it also needs KEY_DELETE (403 before anything is removed). The answer is the create: UNDONE when nothing is left, else FAILED with left naming what could not be removed and why (undo again to retry).',
    responses: { 200: { description: 'the create after the undo', schema: CreationView }, 403: { description: 'without KEY_DELETE' }, 404: { description: 'no such create' }, 409: { description: 'the create did not fail (in progress, completed) or is already undone' } },
    async handler(input) {
      return { body: creationView(await undoCreation(input, input.params.id)) };
    },
  }),
];
