// LedgerX networks (one network is one Fabric-X channel ordered by Arma): create (genesis block
// built here from the orderer groups named), list, read by id or name, delete, members, and the
// join of an orderer group (its roles get the block and start, consenter first, router last).
import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../route.ts';
import { Page, PageQuery, page, pageRequest } from '../../pagination.ts';
import { IdParam } from '../schemas.ts';
import { AppError, NotFoundError } from '../../../domain/shared/errors.ts';
import { getLedgerXNetwork, listLedgerXNetworks, type LedgerXNetworkRow } from '../../../projections/ledgerx/ledgerxNetworks.ts';
import { getNode, listNodes } from '../../../projections/nodes.ts';
import { createLedgerXNetwork, joinLedgerXCommitter, joinLedgerXOrdererGroup, ledgerXNetworkOr404 } from '../../../application/ledgerx/ledgerxNetworkCreate.ts';
import { deleteLedgerXNetwork } from '../../../application/ledgerx/ledgerxNetworkDelete.ts';
import { ledgerXNodeView, LedgerXNodeViewSchema } from '../../ledgerx/ledgerxNodeView.ts';
import type { AppDeps } from '../../../application/deps.ts';

const tags = ['ledgerx'];

const duration = (description: string) => Type.Optional(Type.String({ maxLength: 32, description: `${description} (a Go duration: "500ms", "10s", "1m30s")` }));
const count = (description: string, maximum = Number.MAX_SAFE_INTEGER) => Type.Optional(Type.Integer({ minimum: 0, maximum, description }));
// The Arma shared config's settings (fabric-x-orderer 1.0, ordererpb.SmartBFTConfig and
// BatchingConfig); what is left out takes the orderer's defaults. Checked as arma checks them
// (domain/ledgerx/ledgerxConsensus.ts): a bad value is a 400 naming the field.
const SmartBftSettings = Type.Object({
  requestBatchMaxCount: count('requests in a batch proposed at once (default 100)'),
  requestBatchMaxBytes: count('bytes of a batch proposed at once (default 10485760)'),
  requestBatchMaxInterval: duration('longest a batch waits before it is proposed (default 500ms)'),
  incomingMessageBufferSize: count('messages buffered before processing (default 10000)'),
  requestPoolSize: count('pending requests a consenter keeps (default 50000)'),
  requestForwardTimeout: duration('until a request is forwarded to the leader (default 10s)'),
  requestComplainTimeout: duration('then until the leader is complained about (default 20s)'),
  requestAutoRemoveTimeout: duration('then until the request is dropped (default 3m0s)'),
  viewChangeResendInterval: duration('resend of a ViewChange message (default 5s)'),
  viewChangeTimeout: duration('until a higher view is tried (default 20s)'),
  leaderHeartbeatTimeout: duration('silence of the leader before a complaint (default 1m0s)'),
  leaderHeartbeatCount: count('heartbeats per leaderHeartbeatTimeout (default 10)'),
  numOfTicksBehindBeforeSyncing: count('ticks behind the leader before a sync (default 10)'),
  collectTimeout: duration('state transfer collection (default 1s)'),
  syncOnStart: Type.Optional(Type.Boolean({ description: 'sync on start (default false)' })),
  speedUpViewChange: Type.Optional(Type.Boolean({ description: 'join a view change on f+1 messages (default false)' })),
  leaderRotation: Type.Optional(Type.Boolean({ description: 'rotate the leader (default false)' })),
  decisionsPerLeader: count('decisions before the leader rotates: > 0 with leaderRotation, 0 without (default 0)'),
  requestMaxBytes: count('bytes of one request (default 1048576)'),
  requestPoolSubmitTimeout: duration('longest a client waits to submit into the pool (default 5s)'),
}, { additionalProperties: false, description: 'SmartBFT settings of the consenters' });
const BatchingSettings = Type.Object({
  batchCreationTimeout: duration('longest a batch waits before it is created (default 500ms)'),
  firstStrikeThreshold: duration('a request unbatched this long is forwarded to the primary batcher (default 10s)'),
  secondStrikeThreshold: duration('then a complaint about the primary goes to consensus (default 10s)'),
  autoRemoveTimeout: duration('then the request leaves the memory pool (default 10s)'),
  maxMessageCount: count('requests in a batch (default 10000)', 0xffffffff),
  absoluteMaxBytes: count('bytes of a batch (default 10485760)', 0xffffffff),
  requestMaxBytes: count('bytes of one request (default 1048576)'),
}, { additionalProperties: false, description: 'batching settings of the batchers' });

const NetworkView = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  platform: Type.Literal('LEDGERX'),
  channel_name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  orderer_type: Type.Literal('arma'),
  nodes: Type.Array(Type.Object({ node_id: Type.Integer(), name: Type.String(), role: Type.String(), party_id: Type.Union([Type.Integer(), Type.Null()]), organization_id: Type.Integer(), msp_id: Type.String(), joined: Type.Boolean(), joined_at: Type.Union([Type.String(), Type.Null()]) })),
  created_at: Type.String(),
  updated_at: Type.String(),
});

async function networkView(deps: AppDeps, n: LedgerXNetworkRow) {
  return {
    id: n.id, name: n.name, platform: 'LEDGERX' as const, channel_name: n.channelName, description: n.description, orderer_type: 'arma' as const,
    nodes: await Promise.all(n.nodes.map(async (m) => ({ node_id: m.nodeId, name: (await getNode(deps.pool, m.nodeId))?.name ?? String(m.nodeId), role: m.role, party_id: m.partyId, organization_id: m.organizationId, msp_id: m.mspId, joined: m.joinedAt !== null, joined_at: m.joinedAt }))),
    created_at: n.createdAt, updated_at: n.updatedAt,
  };
}

export const ledgerXNetworkRoutes = [
  defineRoute({
    method: 'get', path: '/networks/ledgerx', summary: 'List ledgerX networks', tags, permission: 'NETWORK_READ',
    query: Type.Object(PageQuery, { additionalProperties: false }),
    responses: { 200: { description: 'a page of networks', schema: Page(NetworkView) } },
    async handler({ deps, query }) {
      const { limit, offset } = pageRequest(deps.config, query);
      const r = await listLedgerXNetworks(deps.pool, { limit, offset });
      return { body: page(await Promise.all(r.items.map((n) => networkView(deps, n))), r.total, limit, offset) };
    },
  }),
  defineRoute({
    method: 'post', path: '/networks/ledgerx', summary: 'Create a ledgerX network (one Fabric-X channel): the service builds its genesis block from the orderer groups named', tags, permission: 'NETWORK_CREATE',
    description: 'The service encodes block 0 of the channel itself (no Fabric-X program is needed): orderer type arma with the shared config of the parties (each group is one party, ids 1..n in the order given: its router, batcher, consenter and assembler endpoints and certificates), the SmartBFT and batching settings given (fabric-x-orderer\'s defaults for the rest), channel capabilities V3_0. Groups then join it with POST /networks/ledgerx/{id}/orderer-groups/{nodeId}/join.',
    body: Type.Object({
      name: Type.String({ maxLength: 64 }),
      channelName: Type.Optional(Type.String({ maxLength: 249, description: 'default: the name in lower case' })),
      description: Type.Optional(Type.String({ maxLength: 1000 })),
      ordererGroupIds: Type.Array(Type.Integer({ minimum: 1 }), { maxItems: 32, description: 'LEDGERX_ORDERER_GROUP nodes, one party each (one works; four tolerate one fault)' }),
      smartBft: Type.Optional(SmartBftSettings),
      batching: Type.Optional(BatchingSettings),
    }, { additionalProperties: false }),
    responses: { 201: { description: 'the network', schema: NetworkView }, 400: { description: 'invalid (no orderer group, not an orderer group, a group whose roles\' certificates are missing, a channel name Fabric refuses, a SmartBFT or batching setting arma would refuse: the field is named)' }, 409: { description: 'name taken, or a group already in a network' }, 422: { description: 'the genesis block could not be built' } },
    async handler(input) {
      const id = await createLedgerXNetwork(input, input.body);
      return { status: 201, body: await networkView(input.deps, await ledgerXNetworkOr404(input, id)), headers: { Location: `/api/v1/networks/ledgerx/${id}` } };
    },
  }),
  defineRoute({
    method: 'get', path: '/networks/ledgerx/by-name/:name', summary: 'Read a ledgerX network by its name', tags, permission: 'NETWORK_READ',
    params: Type.Object({ name: Type.String({ maxLength: 64 }) }, { additionalProperties: false }),
    responses: { 200: { description: 'the network', schema: NetworkView }, 404: { description: 'no such network' } },
    async handler({ deps, params }) {
      const n = await getLedgerXNetwork(deps.pool, { name: params.name });
      if (!n) throw new NotFoundError('Network', params.name);
      return { body: await networkView(deps, n) };
    },
  }),
  defineRoute({
    method: 'get', path: '/networks/ledgerx/:id', summary: 'Read a ledgerX network', tags, permission: 'NETWORK_READ', params: IdParam,
    responses: { 200: { description: 'the network', schema: NetworkView }, 404: { description: 'no such network' } },
    async handler(input) {
      return { body: await networkView(input.deps, await ledgerXNetworkOr404(input, input.params.id)) };
    },
  }),
  defineRoute({
    method: 'get', path: '/networks/ledgerx/:id/genesis', summary: 'The network\'s genesis block (base64)', tags, permission: 'NETWORK_READ', params: IdParam,
    responses: { 200: { description: 'the block' }, 404: { description: 'no such network' } },
    async handler(input) {
      await ledgerXNetworkOr404(input, input.params.id);
      const r = await input.deps.pool.query('SELECT genesis_block FROM ledgerx_networks WHERE id = $1', [input.params.id]);
      return { body: { block: r.rows[0].genesis_block as string } };
    },
  }),
  defineRoute({
    method: 'delete', path: '/networks/ledgerx/:id', summary: 'Delete a ledgerX network (refused while an orderer group of it runs)', tags, permission: 'NETWORK_DELETE', params: IdParam,
    responses: { 204: { description: 'deleted; its groups forget its block' }, 404: { description: 'no such network' }, 409: { description: 'an orderer group of it is running: stop or delete it first' } },
    async handler(input) {
      await deleteLedgerXNetwork(input, input.params.id);
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'get', path: '/networks/ledgerx/:id/nodes', summary: 'The network\'s orderer groups and their role nodes', tags, permission: 'NETWORK_READ', params: IdParam,
    responses: { 200: { description: 'nodes', schema: Type.Object({ items: Type.Array(LedgerXNodeViewSchema) }) }, 404: { description: 'no such network' } },
    async handler(input) {
      const { deps, params } = input;
      const n = await ledgerXNetworkOr404(input, params.id);
      const groups = (await listNodes(deps.pool, { limit: 10_000, offset: 0, ids: n.nodes.map((m) => m.nodeId) })).items;
      const roleIds = groups.flatMap((g) => Object.values((g.config as unknown as { roleNodeIds?: Record<string, number> }).roleNodeIds ?? {}));
      const roles = roleIds.length ? (await listNodes(deps.pool, { limit: 10_000, offset: 0, ids: roleIds })).items : [];
      return { body: { items: await Promise.all([...groups, ...roles].map((r) => ledgerXNodeView(deps, r))) } };
    },
  }),
  defineRoute({
    method: 'post', path: '/networks/ledgerx/:id/orderer-groups/:nodeId/join', summary: 'Join an orderer group to the network: its roles get the genesis block and start (consenter, batcher, assembler, router), each awaited up to the join timeout', tags, permission: 'NETWORK_UPDATE',
    params: Type.Object({ id: Type.Integer({ minimum: 1 }), nodeId: Type.Integer({ minimum: 1 }) }, { additionalProperties: false }),
    responses: { 200: { description: 'the group, running', schema: LedgerXNodeViewSchema }, 400: { description: 'not an orderer group of this network, or arma missing' }, 404: { description: 'no such network or node' }, 409: { description: 'already joined' }, 422: { description: 'a role did not come up: the message names it and its last log lines' } },
    async handler(input) {
      const { deps, params } = input;
      const row = await joinLedgerXOrdererGroup(input, params.id, params.nodeId);
      if (row.status !== 'running') throw new AppError(422, 'JOIN_FAILED', `Orderer group ${row.name} joined network ${params.id} but did not come up (${row.status}): ${row.error ?? 'no reason recorded'}`, { extra: { nodeId: row.id, status: row.status } });
      return { body: await ledgerXNodeView(deps, row) };
    },
  }),
  defineRoute({
    method: 'post', path: '/networks/ledgerx/:id/committers/:nodeId/join', summary: 'Join a committer to the network: its sidecar gets the genesis block (the orderers are read from it) and its services start (vc, verifier, query, coordinator, sidecar), each awaited up to the join timeout', tags, permission: 'NETWORK_UPDATE',
    params: Type.Object({ id: Type.Integer({ minimum: 1 }), nodeId: Type.Integer({ minimum: 1 }) }, { additionalProperties: false }),
    responses: { 200: { description: 'the committer, running', schema: LedgerXNodeViewSchema }, 400: { description: 'not a committer' }, 404: { description: 'no such network or node' }, 409: { description: 'already joined' }, 422: { description: 'a service did not come up: the message names it and its last log lines' } },
    async handler(input) {
      const { deps, params } = input;
      const row = await joinLedgerXCommitter(input, params.id, params.nodeId);
      if (row.status !== 'running') throw new AppError(422, 'JOIN_FAILED', `Committer ${row.name} joined network ${params.id} but did not come up (${row.status}): ${row.error ?? 'no reason recorded'}`, { extra: { nodeId: row.id, status: row.status } });
      return { body: await ledgerXNodeView(deps, row) };
    },
  }),
];
