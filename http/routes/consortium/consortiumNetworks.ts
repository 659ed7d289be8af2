// Consortium networks (one network is one channel): create (genesis block built here), import,
// list, read (by id and name), delete, member nodes (list, add), and joins of orderers
// (channel participation API, mutual TLS) and peers (JoinChain signed by the organization's
// admin). Joins are idempotent and recorded as events.
import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../route.ts';
import { runCommand } from '../../../application/commands.ts';
import { Page, PageQuery, page } from '../../pagination.ts';
import { IdParam } from '../schemas.ts';
import { ValidationError } from '../../../domain/shared/errors.ts';
import { CONSORTIUM_NETWORKS_STREAM, CONSORTIUM_NETWORK_STATUS, consortiumNetworks } from '../../../domain/consortium/consortiumNetwork.ts';
import { consortiumNetworkMembers, listConsortiumNetworks, type ConsortiumNetworkRow } from '../../../projections/consortium/consortiumNetworks.ts';
import { getNode, listNodes } from '../../../projections/nodes.ts';
import type { AppDeps } from '../../../application/deps.ts';
import { consortiumOf } from '../../../application/consortium/consortiumContext.ts';
import { createConsortiumNetwork, importConsortiumNetwork } from '../../../application/consortium/consortiumNetworkCreate.ts';
import { adminEndpoint, assertRunning, consortiumNetworkByNameOr404, consortiumNetworkOr404, consortiumNodeOr404, grpcEndpoint } from '../../../application/consortium/consortiumChannelAccess.ts';
import { consortiumNodeView, ConsortiumNodeViewSchema } from '../../consortium/consortiumNodeView.ts';
import { consortiumNetworkView, ConsortiumNetworkView } from '../../consortium/consortiumNetworkView.ts';
import { createConsortiumNode } from '../../../application/consortium/consortiumNodeCreate.ts';
import { awaitSettled } from '../../../application/evm/evmNodeCreate.ts';
import { nodeAggregate, nodeStream } from '../../../domain/nodes/node.ts';

const tags = ['consortium networks'];
const NodeIds = (description: string) => Type.Array(Type.Integer({ minimum: 1 }), { maxItems: 100, description });
const CreateBody = Type.Object({
  name: Type.String({ maxLength: 64, description: 'unique; letters, digits and hyphens' }),
  channelName: Type.String({ maxLength: 249, description: 'the channel this network is: lower case letters, digits, "." and "-", starting with a letter' }),
  description: Type.Optional(Type.Union([Type.String({ maxLength: 1000 }), Type.Null()])),
  organizationIds: Type.Optional(Type.Array(Type.Integer({ minimum: 1 }), { maxItems: 50, description: 'application (peer) organizations of the channel; default: the organizations of peerIds' })),
  ordererIds: NodeIds('CONSORTIUM_ORDERER nodes: the raft consenters and orderer endpoints of the channel (their organizations become its orderer organizations)'),
  peerIds: Type.Optional(NodeIds('CONSORTIUM_PEER nodes recorded as members (they still join with POST .../peers/{peerId}/join)')),
  consensus: Type.Optional(Type.Literal('etcdraft')),
  batchTimeout: Type.Optional(Type.String({ description: 'orderer batch timeout, default 2s' })),
  maxMessageCount: Type.Optional(Type.Integer({ minimum: 1, maximum: 100000, description: 'default 500' })),
  absoluteMaxBytes: Type.Optional(Type.Integer({ minimum: 1024, maximum: 100 * 1024 * 1024, description: 'default 10 MiB' })),
  preferredMaxBytes: Type.Optional(Type.Integer({ minimum: 1024, maximum: 100 * 1024 * 1024, description: 'default 2 MiB' })),
}, { additionalProperties: false });

/** POST /networks/{networkId}/start of a consortium network: every member node asked to start, answered once each settled. */
export async function startConsortiumNetwork(input: Parameters<typeof awaitSettled>[0], network: ConsortiumNetworkRow) {
  const { deps } = input;
  const members = await consortiumNetworkMembers(deps.pool, network.id);
  for (const m of members) await runCommand(input, nodeStream(m.nodeId), nodeAggregate, { type: 'StartNode', nodeId: m.nodeId, at: deps.clock().toISOString() });
  const settled = await Promise.all(members.map((m) => awaitSettled(input, m.nodeId)));
  return { network: await consortiumNetworkView(deps, network), nodes: await Promise.all(settled.filter((n): n is NonNullable<typeof n> => !!n).map((n) => consortiumNodeView(deps, n))) };
}

const JoinParams = (node: 'peerId' | 'ordererId') => Type.Object({ id: Type.Integer({ minimum: 1 }), [node]: Type.Integer({ minimum: 1 }) }, { additionalProperties: false });
const JoinView = Type.Object({
  network_id: Type.Integer(), channel_name: Type.String(), node_id: Type.Integer(), role: Type.String(), joined: Type.Literal(true),
  already_joined: Type.Boolean({ description: 'the node had the channel before this call (joining twice changes nothing)' }),
  orderer: Type.Optional(Type.Object({ status: Type.String(), consensus_relation: Type.String(), height: Type.Integer() }, { description: 'what the orderer\'s channel participation API reports' })),
});

export const consortiumNetworkRoutes = [
  defineRoute({
    method: 'get', path: '/networks/consortium', summary: 'List consortium networks', tags, permission: 'NETWORK_READ',
    query: Type.Object(PageQuery, { additionalProperties: false }),
    responses: { 200: { description: 'a page of networks', schema: Page(ConsortiumNetworkView) } },
    async handler({ deps, query }) {
      const limit = query.limit ?? deps.config.defaultPageSize;
      const offset = query.offset ?? 0;
      const r = await listConsortiumNetworks(deps.pool, limit, offset);
      return { body: page(await Promise.all(r.items.map((n) => consortiumNetworkView(deps, n))), r.total, limit, offset) };
    },
  }),
  defineRoute({
    method: 'post', path: '/networks/consortium', summary: 'Create a consortium network (one channel): the service builds its genesis block', tags, permission: 'NETWORK_CREATE',
    description: 'Builds block 0 of the channel (orderer and application groups, each organization\'s MSP, ImplicitMeta and signature policies, capabilities V2_0, raft consenters with their TLS certificates) and records it. Nodes then join it with the join endpoints.',
    body: CreateBody,
    responses: { 201: { description: 'the network', schema: ConsortiumNetworkView }, 400: { description: 'invalid (unknown node or organization, a peer of another organization, a channel name Fabric refuses)' }, 409: { description: 'name or channel taken' } },
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
      const { deps, params } = input;
      await consortiumNetworkOr404(deps, params.id);
      const joined = (await consortiumNetworkMembers(deps.pool, params.id)).filter((m) => m.joinedAt);
      const names = await Promise.all(joined.map(async (m) => ({ nodeId: m.nodeId, name: (await getNode(deps.pool, m.nodeId))?.name ?? String(m.nodeId) })));
      await runCommand(input, CONSORTIUM_NETWORKS_STREAM, consortiumNetworks, { type: 'DeleteConsortiumNetwork', networkId: params.id, joinedNodes: names, at: deps.clock().toISOString() });
      // Its chaincode servers serve only this network's channel and were made by its deploys, not
      // by the user: they go with it (stopped, their files removed by the lifecycle saga), after
      // the deletion was accepted so a refused one leaves them running.
      const servers = (await listNodes(deps.pool, { limit: 10_000, offset: 0, platform: 'CONSORTIUM', networkId: params.id })).items.filter((n) => n.role === 'chaincode');
      for (const n of servers) await runCommand(input, nodeStream(n.id), nodeAggregate, { type: 'DeleteNode', nodeId: n.id, at: deps.clock().toISOString() });
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
    }, { additionalProperties: false }),
    responses: { 201: { description: 'the node, after its first start attempt', schema: ConsortiumNodeViewSchema }, 400: { description: 'invalid' }, 404: { description: 'no such network' } },
    async handler(input) {
      const { deps, params, body } = input;
      const network = await consortiumNetworkOr404(deps, params.id);
      const orgs = body.nodeType === 'CONSORTIUM_PEER' ? network.organizations : network.ordererOrganizations;
      const organizationId = body.organizationId ?? orgs.find((o) => o.organizationId !== null)?.organizationId ?? undefined;
      if (organizationId !== undefined && !orgs.some((o) => o.organizationId === organizationId)) {
        throw new ValidationError(`Organization ${organizationId} is not a ${body.nodeType === 'CONSORTIUM_PEER' ? 'peer' : 'orderer'} organization of network ${network.name}.`, [{ field: 'organizationId', message: 'not an organization of this network for that node type' }]);
      }
      const nodeId = await createConsortiumNode(input, { name: body.name, nodeType: body.nodeType, organizationId, config: {} });
      const node = (await getNode(deps.pool, nodeId))!;
      await runCommand(input, CONSORTIUM_NETWORKS_STREAM, consortiumNetworks, { type: 'AddNetworkNode', networkId: network.id, node: { nodeId, role: node.role as 'peer' | 'orderer', organizationId: node.organizationId!, mspId: orgs.find((o) => o.organizationId === node.organizationId)!.mspId }, at: deps.clock().toISOString() });
      const settled = (await awaitSettled(input, nodeId)) ?? node;
      return { status: 201, body: await consortiumNodeView(deps, settled), headers: { Location: `/api/v1/nodes/${nodeId}` } };
    },
  }),
  defineRoute({
    method: 'post', path: '/networks/consortium/:id/orderers/:ordererId/join', summary: 'Join an orderer to the channel through its channel participation API (mutual TLS); joining twice changes nothing', tags, permission: 'NETWORK_UPDATE',
    params: JoinParams('ordererId'),
    responses: { 200: { description: 'joined', schema: JoinView }, 400: { description: 'not an orderer of an orderer organization of the channel' }, 404: { description: 'no such network or orderer' }, 409: { description: 'the orderer is not running' } },
    async handler(input) {
      const { deps, params } = input;
      const network = await consortiumNetworkOr404(deps, params.id);
      const node = await consortiumNodeOr404(deps, params.ordererId, 'orderer');
      const org = network.ordererOrganizations.find((o) => o.organizationId === node.organizationId);
      if (!org) throw new ValidationError(`Orderer ${node.name} belongs to an organization that is not an orderer organization of channel ${network.channelName}.`, [{ field: 'ordererId', message: 'an orderer of another organization' }]);
      assertRunning(node, `join channel ${network.channelName}`);
      const consortium = consortiumOf(deps);
      const endpoint = await adminEndpoint(deps, node);
      const client = await consortium.credentials.adminTlsClient(node.organizationId!);
      const before = await consortium.channels.ordererChannel(endpoint, client, network.channelName);
      const info = before ?? (await consortium.channels.joinOrderer(endpoint, client, network.channelName, Buffer.from(network.genesisBlock, 'base64')));
      await runCommand(input, CONSORTIUM_NETWORKS_STREAM, consortiumNetworks, { type: 'RecordNodeJoined', networkId: network.id, node: { nodeId: node.id, role: 'orderer', organizationId: node.organizationId!, mspId: org.mspId }, at: deps.clock().toISOString() });
      return { body: { network_id: network.id, channel_name: network.channelName, node_id: node.id, role: 'orderer', joined: true as const, already_joined: before !== null, orderer: { status: info.status, consensus_relation: info.consensusRelation, height: info.height } } };
    },
  }),
  defineRoute({
    method: 'post', path: '/networks/consortium/:id/peers/:peerId/join', summary: 'Join a peer to the channel (JoinChain signed by its organization\'s admin); joining twice changes nothing', tags, permission: 'NETWORK_UPDATE',
    params: JoinParams('peerId'),
    responses: { 200: { description: 'joined', schema: JoinView }, 400: { description: 'a peer of an organization that is not in the channel' }, 404: { description: 'no such network or peer' }, 409: { description: 'the peer is not running' } },
    async handler(input) {
      const { deps, params } = input;
      const network = await consortiumNetworkOr404(deps, params.id);
      const node = await consortiumNodeOr404(deps, params.peerId, 'peer');
      const org = network.organizations.find((o) => o.organizationId === node.organizationId);
      if (!org) throw new ValidationError(`Peer ${node.name} belongs to an organization that is not an application organization of channel ${network.channelName}.`, [{ field: 'peerId', message: 'a peer of another organization' }]);
      assertRunning(node, `join channel ${network.channelName}`);
      const consortium = consortiumOf(deps);
      const result = await consortium.channels.joinPeer(await grpcEndpoint(deps, node), await consortium.credentials.adminSigner(node.organizationId!), Buffer.from(network.genesisBlock, 'base64'));
      await runCommand(input, CONSORTIUM_NETWORKS_STREAM, consortiumNetworks, { type: 'RecordNodeJoined', networkId: network.id, node: { nodeId: node.id, role: 'peer', organizationId: node.organizationId!, mspId: org.mspId }, at: deps.clock().toISOString() });
      return { body: { network_id: network.id, channel_name: network.channelName, node_id: node.id, role: 'peer', joined: true as const, already_joined: result.alreadyJoined } };
    },
  }),
];
