// Consortium networks (one network is one channel): create (genesis block built here), import,
// list, read (by id and name), delete, member nodes (list, add), and joins of orderers
// (channel participation API, mutual TLS) and peers (JoinChain signed by the organization's
// admin). Joins are idempotent and recorded as events. Each handler validates, calls one use
// case of application/consortium/ and shapes the answer.
import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../route.ts';
import { Page, PageQuery, page, pageRequest } from '../../pagination.ts';
import { CreationIdField, IdParam, PlacementSchema } from '../schemas.ts';
import { consortiumNetworkMembers, listConsortiumNetworks } from '../../../projections/consortium/consortiumNetworks.ts';
import { listNodes } from '../../../projections/nodes.ts';
import { createConsortiumNetwork, importConsortiumNetwork } from '../../../application/consortium/consortiumNetworkCreate.ts';
import { consortiumNetworkByNameOr404, consortiumNetworkOr404 } from '../../../application/consortium/consortiumChannelAccess.ts';
import { deleteConsortiumNetwork } from '../../../application/consortium/consortiumNetworkDelete.ts';
import { checkConsortiumQuickstart } from '../../../application/consortium/consortiumQuickstartCheck.ts';
import { addConsortiumNetworkNode } from '../../../application/consortium/consortiumNetworkNodeAdd.ts';
import { joinOrdererToChannel, type ChannelJoined } from '../../../application/consortium/consortiumOrdererJoin.ts';
import { joinPeerToChannel } from '../../../application/consortium/consortiumPeerJoin.ts';
import { leaveOrdererFromChannel, leavePeerFromChannel } from '../../../application/consortium/consortiumNodeLeave.ts';
import { consortiumNodeView, ConsortiumNodeViewSchema } from '../../consortium/consortiumNodeView.ts';
import { consortiumNetworkView, ConsortiumNetworkView } from '../../consortium/consortiumNetworkView.ts';

const tags = ['consortium networks'];
const NodeIds = (description: string) => Type.Array(Type.Integer({ minimum: 1 }), { maxItems: 100, description });
/** The SmartBFT options of a channel (smartbft.Options), each optional: at creation (defaults for those left out) and in PUT .../config (those left out kept). */
export const SmartBftOptionFields = {
  requestBatchMaxCount: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'default 100' })),
  requestBatchMaxBytes: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'default 10485760' })),
  requestBatchMaxInterval: Type.Optional(Type.String({ maxLength: 20, description: 'default 200ms' })),
  incomingMessageBufferSize: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'default 200' })),
  requestPoolSize: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'default 100000' })),
  requestForwardTimeout: Type.Optional(Type.String({ maxLength: 20, description: 'default 5s' })),
  requestComplainTimeout: Type.Optional(Type.String({ maxLength: 20, description: 'default 20s' })),
  requestAutoRemoveTimeout: Type.Optional(Type.String({ maxLength: 20, description: 'default 3m0s' })),
  requestMaxBytes: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'default 10485760 (requestBatchMaxBytes)' })),
  viewChangeResendInterval: Type.Optional(Type.String({ maxLength: 20, description: 'default 5s' })),
  viewChangeTimeout: Type.Optional(Type.String({ maxLength: 20, description: 'default 20s' })),
  leaderHeartbeatTimeout: Type.Optional(Type.String({ maxLength: 20, description: 'default 1m0s' })),
  leaderHeartbeatCount: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'default 10' })),
  collectTimeout: Type.Optional(Type.String({ maxLength: 20, description: 'default 1s' })),
  syncOnStart: Type.Optional(Type.Boolean({ description: 'default false' })),
  speedUpViewChange: Type.Optional(Type.Boolean({ description: 'default false' })),
};
const CreateBody = Type.Object({
  name: Type.String({ maxLength: 64, description: 'unique; letters, digits and hyphens' }),
  channelName: Type.String({ maxLength: 249, description: 'the channel this network is: lower case letters, digits, "." and "-", starting with a letter' }),
  description: Type.Optional(Type.Union([Type.String({ maxLength: 1000 }), Type.Null()])),
  organizationIds: Type.Optional(Type.Array(Type.Integer({ minimum: 1 }), { maxItems: 50, description: 'application (peer) organizations of the channel; default: the organizations of peerIds' })),
  ordererIds: NodeIds('CONSORTIUM_ORDERER nodes: the raft consenters and orderer endpoints of the channel (their organizations become its orderer organizations)'),
  peerIds: Type.Optional(NodeIds('CONSORTIUM_PEER nodes recorded as members (they still join with POST .../peers/{peerId}/join)')),
  consensus: Type.Optional(Type.Union([Type.Literal('etcdraft'), Type.Literal('smartbft')], { description: 'etcdraft (default), or smartbft: Byzantine fault tolerant ordering on Fabric 3.x orderers (at least 4: n orderers tolerate floor((n-1)/3) faulty ones; each created with a 3.x config.fabricVersion), docs/consortium.md' })),
  smartBftOptions: Type.Optional(Type.Object(SmartBftOptionFields, { additionalProperties: false, description: 'smartbft only: the channel\'s SmartBFT options; each left out takes its default (Fabric 3.1 configtx.yaml; docs/consortium.md). Leader rotation is off, as Fabric 3.1 requires.' })),
  batchTimeout: Type.Optional(Type.String({ description: 'orderer batch timeout, default 2s' })),
  maxMessageCount: Type.Optional(Type.Integer({ minimum: 1, maximum: 100000, description: 'default 500' })),
  absoluteMaxBytes: Type.Optional(Type.Integer({ minimum: 1024, maximum: 100 * 1024 * 1024, description: 'default 10 MiB' })),
  preferredMaxBytes: Type.Optional(Type.Integer({ minimum: 1024, maximum: 100 * 1024 * 1024, description: 'default 2 MiB' })),
  ...CreationIdField,
}, { additionalProperties: false });

const JoinParams = (node: 'peerId' | 'ordererId') => Type.Object({ id: Type.Integer({ minimum: 1 }), [node]: Type.Integer({ minimum: 1 }) }, { additionalProperties: false });
const JoinView = Type.Object({
  network_id: Type.Integer(), channel_name: Type.String(), node_id: Type.Integer(), role: Type.String(), joined: Type.Literal(true),
  already_joined: Type.Boolean({ description: 'the node had the channel before this call (joining twice changes nothing)' }),
  orderer: Type.Optional(Type.Object({ status: Type.String(), consensus_relation: Type.String(), height: Type.Integer() }, { description: 'what the orderer\'s channel participation API reports' })),
});

const joinView = (r: ChannelJoined) => ({ network_id: r.network.id, channel_name: r.network.channelName, node_id: r.node.id, role: r.node.role, joined: true as const, already_joined: r.alreadyJoined });

const QuickstartCheckBody = Type.Object({
  name: Type.String({ maxLength: 64, description: 'the network to make' }),
  channelName: Type.String({ maxLength: 249, description: 'its channel' }),
  organizations: Type.Array(Type.Object({
    name: Type.String({ maxLength: 200 }),
    mspId: Type.String({ maxLength: 200 }),
    providerId: Type.Optional(Type.Integer({ minimum: 1, description: 'key provider of its keys; default: the default provider' })),
  }, { additionalProperties: false }), { minItems: 1, maxItems: 20 }),
  nodes: Type.Array(Type.Object({
    name: Type.String({ maxLength: 63 }),
    nodeType: Type.Union([Type.Literal('CONSORTIUM_ORDERER'), Type.Literal('CONSORTIUM_PEER')]),
  }, { additionalProperties: false }), { minItems: 1, maxItems: 100 }),
  engine: Type.Optional(Type.Union([Type.Literal('process'), Type.Literal('docker')], { description: 'the engine its nodes will run under; default: the service\'s' })),
  fabricVersion: Type.Optional(Type.String({ maxLength: 40, description: 'the Fabric release its nodes will run (process engine); default: the newest found; one not found is a 400 naming those that are' })),
  consensus: Type.Optional(Type.Union([Type.Literal('etcdraft'), Type.Literal('smartbft')], { description: 'smartbft: at least 4 orderers, on Fabric 3.x' })),
  placement: Type.Optional(PlacementSchema('all its peers and orderers (each POST /nodes of the quick start then carries it as config.hostId or config.hostLabels); the host must have room for every node planned; no Fabric program is needed here then')),
}, { additionalProperties: false });

export const consortiumNetworkRoutes = [
  defineRoute({
    method: 'post', path: '/networks/consortium/quickstart/check', summary: 'Check a consortium quick start before anything is made', tags, permission: 'NETWORK_CREATE',
    description: 'The console\'s consortium quick start asks this before its first step. Every check runs and nothing is written: the network name and channel, the mspIds, the node names, each organization\'s key provider, and the Fabric programs of each role (PROGRAM_MISSING names them and LNM_FABRIC_BIN). One refusal lists every problem in details, with the first problem\'s status and code.',
    body: QuickstartCheckBody,
    responses: { 204: { description: 'everything the quick start needs is here and free' }, 400: { description: 'invalid, or a program missing (PROGRAM_MISSING), or a placement naming no registered host (UNKNOWN_HOST) or both hostId and hostLabels; nothing written' }, 409: { description: 'a name or mspId taken, or the placement\'s host unreachable (HOST_UNREACHABLE), without room for every node planned (HOST_FULL), or no host fitting its labels (NO_HOST_FITS)' } },
    async handler(input) {
      await checkConsortiumQuickstart(input, input.body);
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'get', path: '/networks/consortium', summary: 'List consortium networks', tags, permission: 'NETWORK_READ',
    query: Type.Object(PageQuery, { additionalProperties: false }),
    responses: { 200: { description: 'a page of networks', schema: Page(ConsortiumNetworkView) } },
    async handler({ deps, query }) {
      const { limit, offset } = pageRequest(deps.config, query);
      const r = await listConsortiumNetworks(deps.pool, limit, offset);
      return { body: page(await Promise.all(r.items.map((n) => consortiumNetworkView(deps, n))), r.total, limit, offset) };
    },
  }),
  defineRoute({
    method: 'post', path: '/networks/consortium', summary: 'Create a consortium network (one channel): the service builds its genesis block', tags, permission: 'NETWORK_CREATE',
    description: 'Builds block 0 of the channel (orderer and application groups, each organization\'s MSP, ImplicitMeta and signature policies, capabilities V2_0, raft consenters with their TLS certificates; smartbft: Orderer type BFT with every SmartBFT option, the ConsenterMapping with each orderer\'s identity and TLS certificates, BlockValidation by a quorum of consenter signatures, channel capability V3_0, orderer endpoints per organization only) and records it. Nodes then join it with the join endpoints.',
    body: CreateBody,
    responses: { 201: { description: 'the network', schema: ConsortiumNetworkView }, 400: { description: 'invalid (unknown node or organization, a peer of another organization, a channel name Fabric refuses; smartbft: fewer than 4 orderers, an orderer not on Fabric 3.x, options Fabric refuses)' }, 409: { description: 'name or channel taken' } },
    async handler(input) {
      const id = await createConsortiumNetwork(input, input.body);
      return { status: 201, body: await consortiumNetworkView(input.deps, await consortiumNetworkOr404(input.deps, id)), headers: { Location: `/api/v1/networks/consortium/${id}` } };
    },
  }),
  defineRoute({
    method: 'post', path: '/networks/consortium/import', summary: 'Import an existing channel from its genesis or config block (recorded unchanged)', tags, permission: 'NETWORK_CREATE',
    body: Type.Object({
      name: Type.String({ maxLength: 64 }),
      description: Type.Optional(Type.Union([Type.String({ maxLength: 1000 }), Type.Null()])),
      channelName: Type.Optional(Type.String({ maxLength: 249, description: 'checked against the block' })),
      block: Type.String({ maxLength: 700_000, description: 'base64 of the channel\'s genesis or latest config block' }),
      ordererEndpoints: Type.Array(Type.String({ maxLength: 300 }), { maxItems: 50, description: 'host:port of the channel\'s orderers' }),
    }, { additionalProperties: false }),
    responses: { 201: { description: 'the network', schema: ConsortiumNetworkView }, 400: { description: 'not a config block, or endpoints missing' }, 409: { description: 'name or channel taken' } },
    async handler(input) {
      const id = await importConsortiumNetwork(input, input.body);
      return { status: 201, body: await consortiumNetworkView(input.deps, await consortiumNetworkOr404(input.deps, id)), headers: { Location: `/api/v1/networks/consortium/${id}` } };
    },
  }),
  defineRoute({
    method: 'get', path: '/networks/consortium/by-name/:name', summary: 'Read a consortium network by its name', tags, permission: 'NETWORK_READ',
    params: Type.Object({ name: Type.String({ maxLength: 64 }) }, { additionalProperties: false }),
    responses: { 200: { description: 'the network', schema: ConsortiumNetworkView }, 404: { description: 'no such network' } },
    async handler({ deps, params }) {
      return { body: await consortiumNetworkView(deps, await consortiumNetworkByNameOr404(deps, params.name)) };
    },
  }),
  defineRoute({
    method: 'get', path: '/networks/consortium/:id', summary: 'Read a consortium network', tags, permission: 'NETWORK_READ', params: IdParam,
    responses: { 200: { description: 'the network', schema: ConsortiumNetworkView }, 404: { description: 'no such network' } },
    async handler({ deps, params }) {
      return { body: await consortiumNetworkView(deps, await consortiumNetworkOr404(deps, params.id)) };
    },
  }),
  defineRoute({
    method: 'delete', path: '/networks/consortium/:id', summary: 'Delete a consortium network (refused while nodes that joined its channel remain); its chaincode servers are deleted with it', tags, permission: 'NETWORK_DELETE', params: IdParam,
    responses: { 204: { description: 'deleted, with its chaincode records and chaincode server nodes' }, 404: { description: 'no such network' }, 409: { description: 'nodes joined its channel: delete them first (the message names them)' } },
    async handler(input) {
      await deleteConsortiumNetwork(input, input.params.id);
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'get', path: '/networks/consortium/:id/nodes', summary: 'The network\'s member nodes, with whether each joined the channel', tags, permission: 'NETWORK_READ', params: IdParam,
    responses: { 200: { description: 'nodes', schema: Type.Object({ items: Type.Array(ConsortiumNodeViewSchema) }) }, 404: { description: 'no such network' } },
    async handler({ deps, params }) {
      await consortiumNetworkOr404(deps, params.id);
      const members = await consortiumNetworkMembers(deps.pool, params.id);
      const rows = (await listNodes(deps.pool, { limit: 10_000, offset: 0, ids: members.map((m) => m.nodeId) })).items;
      return { body: { items: await Promise.all(rows.map((r) => consortiumNodeView(deps, r))) } };
    },
  }),
  defineRoute({
    method: 'post', path: '/networks/consortium/:id/nodes', summary: 'Create a peer or orderer as a member of the network (it starts; join it afterwards)', tags, permission: 'NODE_CREATE', params: IdParam,
    body: Type.Object({
      name: Type.String({ maxLength: 63 }),
      nodeType: Type.Union([Type.Literal('CONSORTIUM_PEER'), Type.Literal('CONSORTIUM_ORDERER')]),
      organizationId: Type.Optional(Type.Integer({ minimum: 1, description: 'default: the network\'s first organization (peers) or first orderer organization (orderers)' })),
      fabricVersion: Type.Optional(Type.String({ maxLength: 32, description: 'the Fabric release it runs, one the service finds (GET /nodes/defaults/consortium-peer fabricReleases; default the newest), as config.fabricVersion of POST /nodes: a SmartBFT network\'s orderers need 3.x' })),
    }, { additionalProperties: false }),
    responses: { 201: { description: 'the node, after its first start attempt', schema: ConsortiumNodeViewSchema }, 400: { description: 'invalid' }, 404: { description: 'no such network' } },
    async handler(input) {
      const node = await addConsortiumNetworkNode(input, input.params.id, input.body);
      return { status: 201, body: await consortiumNodeView(input.deps, node), headers: { Location: `/api/v1/nodes/${node.id}` } };
    },
  }),
  defineRoute({
    method: 'post', path: '/networks/consortium/:id/orderers/:ordererId/join', summary: 'Join an orderer to the channel through its channel participation API (mutual TLS); joining twice changes nothing', tags, permission: 'NETWORK_UPDATE',
    params: JoinParams('ordererId'),
    responses: { 200: { description: 'joined', schema: JoinView }, 400: { description: 'not an orderer of an orderer organization of the channel' }, 404: { description: 'no such network or orderer' }, 409: { description: 'the orderer is not running' } },
    async handler(input) {
      const r = await joinOrdererToChannel(input, input.params.id, input.params.ordererId);
      return { body: { ...joinView(r), orderer: { status: r.orderer!.status, consensus_relation: r.orderer!.consensusRelation, height: r.orderer!.height } } };
    },
  }),
  defineRoute({
    method: 'post', path: '/networks/consortium/:id/orderers/:ordererId/leave', summary: 'An orderer leaves the channel: removed from the raft consenters first when it is one (the consenter rules checked), then the channel removed through its channel participation API (osnadmin channel remove)', tags, permission: 'NETWORK_UPDATE',
    params: JoinParams('ordererId'),
    responses: {
      200: { description: 'left; the steps taken, in order', schema: Type.Object({ network_id: Type.Integer(), node_id: Type.Integer(), channel_name: Type.String(), steps: Type.Array(Type.String()), consenter_removed: Type.Union([Type.Object({ sequence: Type.Integer(), block_number: Type.Union([Type.Integer(), Type.Null()]), diff: Type.Array(Type.Object({ path: Type.String(), before: Type.Unknown(), after: Type.Unknown() })) }), Type.Null()]) }) },
      400: { description: 'not an orderer, or it has not joined the channel' }, 404: { description: 'no such network or orderer' },
      409: { description: 'the orderer is not running; a consenter removal refused by its rule (consenter-quorum, last-consenter) or for missing signatures: nothing done' },
    },
    async handler(input) {
      const r = await leaveOrdererFromChannel(input, input.params.id, input.params.ordererId);
      const c = r.consenterRemoved;
      return { body: { network_id: r.network.id, node_id: r.node.id, channel_name: r.network.channelName, steps: r.steps, consenter_removed: c ? { sequence: c.sequence, block_number: c.blockNumber, diff: c.diff } : null } };
    },
  }),
  defineRoute({
    method: 'post', path: '/networks/consortium/:id/peers/:peerId/leave', summary: 'A peer leaves the channel: removed from its organization\'s anchor peers first when it is one, then stopped, `peer node unjoin -c <channel>` run with its own config, and started again (the peer restarts)', tags, permission: 'NETWORK_UPDATE',
    params: JoinParams('peerId'),
    responses: {
      200: { description: 'left; the steps taken, in order (the peer was stopped and restarted)', schema: Type.Object({ network_id: Type.Integer(), node_id: Type.Integer(), channel_name: Type.String(), steps: Type.Array(Type.String()), restarted: Type.Boolean(), anchor_peers_updated: Type.Union([Type.Object({ sequence: Type.Integer(), block_number: Type.Union([Type.Integer(), Type.Null()]), diff: Type.Array(Type.Object({ path: Type.String(), before: Type.Unknown(), after: Type.Unknown() })) }), Type.Null()]) }) },
      400: { description: 'not a peer' }, 404: { description: 'no such network or peer' },
      409: { description: 'the peer has not joined the channel, is not running, or the unjoin failed or did not end in time (Fabric\'s last line or the reason; the peer is started again)' },
    },
    async handler(input) {
      const r = await leavePeerFromChannel(input, input.params.id, input.params.peerId);
      const a = r.anchorPeersUpdated;
      return { body: { network_id: r.network.id, node_id: r.node.id, channel_name: r.network.channelName, steps: r.steps, restarted: r.restarted, anchor_peers_updated: a ? { sequence: a.sequence, block_number: a.blockNumber, diff: a.diff } : null } };
    },
  }),
  defineRoute({
    method: 'post', path: '/networks/consortium/:id/peers/:peerId/join', summary: 'Join a peer to the channel (JoinChain signed by its organization\'s admin); joining twice changes nothing', tags, permission: 'NETWORK_UPDATE',
    params: JoinParams('peerId'),
    responses: { 200: { description: 'joined', schema: JoinView }, 400: { description: 'a peer of an organization that is not in the channel' }, 404: { description: 'no such network or peer' }, 409: { description: 'the peer is not running' } },
    async handler(input) {
      return { body: joinView(await joinPeerToChannel(input, input.params.id, input.params.peerId)) };
    },
  }),
];
