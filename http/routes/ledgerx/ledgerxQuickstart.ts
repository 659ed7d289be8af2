// The ledgerX quick start: POST answers 202 with the record of its steps (all PENDING) and runs
// them after the answer; GET reads the record while it runs (each step PENDING, RUNNING, DONE or
// FAILED, with what it made, and for a failed join the role and its last log lines).
import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../route.ts';
import { IdParam } from '../schemas.ts';
import { NotFoundError, ValidationError } from '../../../domain/shared/errors.ts';
import { defaultKeyProviderId, getKeyProvider } from '../../../projections/keyProviders.ts';
import { keySpecFromInput } from '../../keys/keySpecInput.ts';
import { readLedgerXQuickstart, startLedgerXQuickstart, ledgerXQuickstartRunning } from '../../../application/ledgerx/ledgerxQuickstart.ts';
import type { LedgerXQuickstart } from '../../../domain/ledgerx/ledgerxQuickstart.ts';

const tags = ['ledgerx'];
const Nullable = <T extends import('@sinclair/typebox').TSchema>(t: T) => Type.Union([t, Type.Null()]);

const QuickstartView = Type.Object({
  id: Type.Integer(),
  network_name: Type.String(),
  status: Type.String({ description: 'IN_PROGRESS, COMPLETED or FAILED' }),
  network_id: Nullable(Type.Integer({ description: 'once the network step is done' })),
  creation_id: Nullable(Type.Integer({ description: 'its create on /creations: GET /creations/{id} lists what it made (organizations, nodes, network) and the failed step; when FAILED, POST /creations/{id}/undo removes all of it' })),
  error: Nullable(Type.String({ description: 'FAILED: the failed step and why' })),
  steps: Type.Array(Type.Object({
    kind: Type.String({ description: 'organization, orderer-group, committer, network, join-orderer-group, join-committer' }),
    name: Type.String({ description: 'the mspId, node name or network name' }),
    status: Type.String({ description: 'PENDING, RUNNING, DONE or FAILED' }),
    resource_id: Nullable(Type.Integer({ description: 'the organization, node or network made or joined' })),
    message: Nullable(Type.String()),
    role: Nullable(Type.String({ description: 'a failed join: the role that did not come up' })),
    role_node_id: Nullable(Type.Integer()),
    log_tail: Type.Array(Type.String(), { description: 'a failed join: the role\'s last log lines' }),
    started_at: Nullable(Type.String()),
    finished_at: Nullable(Type.String()),
  })),
  created_at: Type.String(),
  finished_at: Nullable(Type.String()),
});

function view(q: LedgerXQuickstart) {
  // A record left IN_PROGRESS by a stop of the service will not move again: say so.
  const cut = q.status === 'IN_PROGRESS' && !ledgerXQuickstartRunning(q.quickstartId);
  return {
    id: q.quickstartId, network_name: q.networkName, status: cut ? 'FAILED' : q.status, network_id: q.networkId, creation_id: q.creationId,
    error: cut ? 'The service stopped while this quick start ran; what its finished steps made is kept (POST /creations/{creation_id}/undo removes it).' : q.error,
    steps: q.steps.map((s) => ({ kind: s.kind, name: s.name, status: s.status, resource_id: s.resourceId, message: s.message, role: s.role, role_node_id: s.roleNodeId, log_tail: s.logTail, started_at: s.startedAt, finished_at: s.finishedAt })),
    created_at: q.createdAt, finished_at: q.finishedAt,
  };
}

export const ledgerXQuickstartRoutes = [
  defineRoute({
    method: 'post', path: '/networks/ledgerx/quickstart', summary: 'Quick start: organizations, an orderer group per organization, a committer, the network, and the joins, in one call', tags, permission: 'NETWORK_CREATE',
    description: 'Checks the request (names, mspIds, the Fabric-X programs) and answers 202 with the record of its steps; the steps then run one after the other: each organization (CAs and admin), an orderer group per organization named <name>-orderer<i> (one party each), a committer <name>-committer of the first organization, the network (genesis block), each group\'s join and the committer\'s join (each role awaited up to LNM_LEDGERX_JOIN_TIMEOUT_SECONDS, 240 s). Read the progress with GET /networks/ledgerx/quickstart/{id}. A failed step ends the quick start FAILED and says why (a join: the role that did not come up and its last log lines); what the steps before it made is kept, listed on its create (creation_id: GET /creations/{id}, the failed step and the organizations, nodes and network made, each recorded before it was made), and POST /creations/{id}/undo removes all of it. A second quick start of the same name while one runs is a 409.',
    body: Type.Object({
      name: Type.String({ maxLength: 64, description: 'the network; the nodes are named after it' }),
      channelName: Type.Optional(Type.String({ maxLength: 249, description: 'default: the name in lower case' })),
      organizations: Type.Array(Type.Object({
        name: Type.String({ minLength: 1, maxLength: 200 }),
        mspId: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$' }),
        domain: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$', maxLength: 40 })),
      }, { additionalProperties: false }), { minItems: 1, maxItems: 4, description: 'made here (an mspId that exists is a 409); one orderer group (party) each: one works, four tolerate one fault' }),
      providerId: Type.Optional(Type.Integer({ minimum: 1, description: 'key provider of the organizations (default: the default provider)' })),
      externalIp: Type.Optional(Type.String({ maxLength: 45, description: 'IPv4 address of every node (default 127.0.0.1)' })),
      committerDatabaseUrl: Type.Optional(Type.String({ maxLength: 2000, description: 'the committer\'s PostgreSQL database, postgres://user:password@host:port/database, checked before anything is made (the password is a secret: never shown); left out: made in the service\'s own PostgreSQL' })),
      grpcPort: Type.Optional(Type.Integer({ minimum: 1024, maximum: 65000, description: 'orderer group i gets gRPC base grpcPort + 10 i, the committer grpcPort + 10 n (monitoring ports base + 100..); left out: each allocated from its default' })),
    }, { additionalProperties: false }),
    responses: { 202: { description: 'started: the record, steps PENDING', schema: QuickstartView }, 400: { description: 'invalid (a name or channel name, ports), or the Fabric-X programs missing (PROGRAM_MISSING); every check runs first and one refusal lists every problem in details, nothing made' }, 409: { description: 'an mspId, node name or network name taken' }, 503: { description: 'ledgerX is not configured' } },
    async handler(input) {
      const { deps, body } = input;
      if (body.providerId !== undefined && !(await getKeyProvider(deps.pool, body.providerId))) throw new ValidationError(`Key provider ${body.providerId} does not exist.`, [{ field: 'providerId', message: 'no such key provider' }]);
      const providerId = body.providerId ?? (await defaultKeyProviderId(deps.pool));
      const id = await startLedgerXQuickstart(input, { ...body, providerId, spec: keySpecFromInput({}) });
      return { status: 202, body: view((await readLedgerXQuickstart(input, id))!), headers: { Location: `/api/v1/networks/ledgerx/quickstart/${id}` } };
    },
  }),
  defineRoute({
    method: 'get', path: '/networks/ledgerx/quickstart/:id', summary: 'Read a quick start: its status and each step\'s', tags, permission: 'NETWORK_READ', params: IdParam,
    responses: { 200: { description: 'the quick start', schema: QuickstartView }, 404: { description: 'no such quick start' } },
    async handler(input) {
      const q = await readLedgerXQuickstart(input, input.params.id);
      if (!q) throw new NotFoundError('Quick start', input.params.id);
      return { body: view(q) };
    },
  }),
];
