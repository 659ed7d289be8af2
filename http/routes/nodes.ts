// Nodes (evm platform): create (starts automatically), list, read with live figures, update
// ports while stopped, delete, start/stop/restart through the lifecycle saga, logs (tail here;
// the WebSocket follow is served by http/nodeLogsSocket.ts on the same path) and the node's
// own event history.
import { Type } from '@sinclair/typebox';
import { defineRoute } from '../route.ts';
import { runCommand } from '../commands.ts';
import { Page, PageQuery, page } from '../pagination.ts';
import { IdParam } from './schemas.ts';
import { NotFoundError, ValidationError } from '../../domain/shared/errors.ts';
import { nodeAggregate, nodeStream } from '../../domain/nodes/node.ts';
import { EVM_DEFAULT_PORTS } from '../../domain/networks/besuConfig.ts';
import { getNode, listNodes } from '../../projections/evmNodes.ts';
import { evmOf, networkOr404, nodeOr404, nodeTarget } from '../evm/evmContext.ts';
import { awaitSettled, checkNodeName, createEvmNode, updateEvmNodePorts } from '../evm/evmNodeCreate.ts';
import { nodeView, NodeViewSchema } from '../evm/evmNodeView.ts';
import type { AppDeps } from '../deps.ts';

const tags = ['nodes'];
const Port = Type.Integer({ description: 'host port 1024-65535; left out: allocated' });
const EvmConfig = Type.Object({
  p2pPort: Type.Optional(Port),
  rpcHttpPort: Type.Optional(Port),
  rpcWsPort: Type.Optional(Port),
  metricsPort: Type.Optional(Port),
  isBootnode: Type.Optional(Type.Boolean()),
  role: Type.Optional(Type.Union([Type.Literal('validator'), Type.Literal('fullnode'), Type.Literal('bootnode')])),
  client: Type.Optional(Type.Union([Type.Literal('auto'), Type.Literal('besu'), Type.Literal('anvil')])),
  engine: Type.Optional(Type.Union([Type.Literal('process'), Type.Literal('docker')])),
}, { additionalProperties: false });
const Platform = Type.Union([Type.Literal('CONSORTIUM'), Type.Literal('EVM'), Type.Literal('LEDGERX')]);

const EVENT_NAMES: Record<string, string> = {
  NodeCreated: 'node.created',
  NodeStarted: 'node.started',
  NodeStopped: 'node.stopped',
  NodeDeleted: 'node.deleted',
  NodeConfigChanged: 'node.config_changed',
  NodeDowntime: 'node.downtime',
  NodeRecovered: 'node.recovery',
  NodeStartRequested: 'node.start_requested',
  NodeStopRequested: 'node.stop_requested',
  NodeStartFailed: 'node.start_failed',
};

async function settledView(input: Parameters<typeof awaitSettled>[0], id: number) {
  const row = (await awaitSettled(input, id)) ?? (await getNode(input.deps.pool, id));
  if (!row) throw new NotFoundError('Node', id);
  return nodeView(input.deps, row);
}

/** One page of nodes with their live view, of one platform or all. */
async function nodePage(deps: AppDeps, query: { limit?: number; offset?: number }, platform: string | undefined) {
  const limit = query.limit ?? deps.config.defaultPageSize;
  const offset = query.offset ?? 0;
  const r = await listNodes(deps.pool, { limit, offset, platform });
  return page(await Promise.all(r.items.map((n) => nodeView(deps, n))), r.total, limit, offset);
}

export const nodeRoutes = [
  defineRoute({
    method: 'post', path: '/nodes', summary: 'Create a node (evm: EVM_FULLNODE in a network; it starts automatically)', tags, permission: 'NODE_CREATE',
    body: Type.Object({
      name: Type.String({ maxLength: 63 }),
      platform: Platform,
      nodeType: Type.Union([Type.Literal('CONSORTIUM_PEER'), Type.Literal('CONSORTIUM_ORDERER'), Type.Literal('EVM_FULLNODE'), Type.Literal('LEDGERX_ORDERER_GROUP')]),
      networkId: Type.Optional(Type.Integer({ minimum: 1 })),
      organizationId: Type.Optional(Type.Integer({ minimum: 1 })),
      config: Type.Optional(EvmConfig),
    }, { additionalProperties: false }),
    responses: { 201: { description: 'the node, after its first start attempt', schema: NodeViewSchema }, 400: { description: 'invalid' }, 409: { description: 'name or port taken' } },
    async handler(input) {
      const { deps, body } = input;
      if (body.platform !== 'EVM' || body.nodeType !== 'EVM_FULLNODE') throw new ValidationError(`This server creates EVM nodes (platform EVM, nodeType EVM_FULLNODE); ${body.platform} ${body.nodeType} is not available.`, [{ field: 'nodeType', message: 'must be EVM_FULLNODE with platform EVM' }]);
      if (body.networkId === undefined) throw new ValidationError('An evm node belongs to a network: networkId is required.', [{ field: 'networkId', message: 'is required' }]);
      const network = await networkOr404(deps, body.networkId);
      const c = body.config ?? {};
      const isBootnode = c.isBootnode ?? c.role === 'bootnode';
      const id = await createEvmNode(input, network, {
        name: body.name, role: c.role ?? (isBootnode ? 'bootnode' : undefined), isBootnode, engine: c.engine, client: c.client,
        ports: { p2pPort: c.p2pPort, rpcHttpPort: c.rpcHttpPort, rpcWsPort: c.rpcWsPort, metricsPort: c.metricsPort },
      });
      return { status: 201, body: await settledView(input, id), headers: { Location: `/api/v1/nodes/${id}` } };
    },
  }),
  defineRoute({
    method: 'get', path: '/nodes', summary: 'List nodes', tags, permission: 'NODE_READ',
    query: Type.Object({ ...PageQuery, platform: Type.Optional(Platform) }, { additionalProperties: false }),
    responses: { 200: { description: 'a page of nodes', schema: Page(NodeViewSchema) } },
    async handler({ deps, query }) {
      return { body: await nodePage(deps, query, query.platform) };
    },
  }),
  defineRoute({
    method: 'get', path: '/nodes/platform/:platform', summary: 'List nodes of one platform', tags, permission: 'NODE_READ',
    params: Type.Object({ platform: Platform }, { additionalProperties: false }),
    query: Type.Object(PageQuery, { additionalProperties: false }),
    responses: { 200: { description: 'a page of nodes', schema: Page(NodeViewSchema) } },
    async handler({ deps, params, query }) {
      return { body: await nodePage(deps, query, params.platform) };
    },
  }),
  defineRoute({
    method: 'get', path: '/nodes/defaults/evm-node', summary: 'Default configuration of an evm node', tags, permission: 'NODE_READ',
    responses: { 200: { description: 'defaults' } },
    async handler({ deps }) {
      const evm = evmOf(deps);
      return {
        body: {
          platform: 'EVM', nodeType: 'EVM_FULLNODE',
          config: { p2pPort: EVM_DEFAULT_PORTS.p2p, rpcHttpPort: EVM_DEFAULT_PORTS.rpcHttp, rpcWsPort: EVM_DEFAULT_PORTS.rpcWs, metricsPort: EVM_DEFAULT_PORTS.metrics, isBootnode: false },
          client: evm.defaults.client, engine: evm.defaults.engine,
          besuAvailable: await evm.runtime.besuAvailable(evm.defaults.engine),
          portRange: { min: 1024, max: 65535 },
          note: 'Ports left out are allocated from these defaults upwards, skipping ports assigned to other nodes or in use on the host. A bootnode has a peer-to-peer port only.',
        },
      };
    },
  }),
  defineRoute({
    method: 'get', path: '/nodes/:id', summary: 'Read a node, with live block height, peers and uptime', tags, permission: 'NODE_READ', params: IdParam,
    responses: { 200: { description: 'the node', schema: NodeViewSchema }, 404: { description: 'no such node' } },
    async handler({ deps, params }) {
      return { body: await nodeView(deps, await nodeOr404(deps, params.id)) };
    },
  }),
  defineRoute({
    method: 'put', path: '/nodes/:id', summary: 'Change a stopped node\'s name or ports', tags, permission: 'NODE_UPDATE', params: IdParam,
    body: Type.Object({ name: Type.Optional(Type.String({ maxLength: 63 })), config: Type.Optional(Type.Object({ p2pPort: Type.Optional(Port), rpcHttpPort: Type.Optional(Port), rpcWsPort: Type.Optional(Port), metricsPort: Type.Optional(Port) }, { additionalProperties: false })) }, { additionalProperties: false }),
    responses: { 200: { description: 'the node', schema: NodeViewSchema }, 404: { description: 'no such node' }, 409: { description: 'running, or name or port taken' } },
    async handler(input) {
      const { deps, params, body } = input;
      const node = await nodeOr404(deps, params.id);
      if (body.name !== undefined) await checkNodeName(input, body.name, node.id);
      const network = await networkOr404(deps, node.networkId!);
      const config = body.config ? await updateEvmNodePorts(input, network, node, body.config) : undefined;
      await runCommand(input, nodeStream(node.id), nodeAggregate, { type: 'UpdateNodeConfig', nodeId: node.id, name: body.name, config: config ?? {}, at: deps.clock().toISOString() });
      return { body: await nodeView(deps, await nodeOr404(deps, node.id)) };
    },
  }),
  defineRoute({
    method: 'delete', path: '/nodes/:id', summary: 'Delete a node (stopped and its files removed)', tags, permission: 'NODE_DELETE', params: IdParam,
    responses: { 204: { description: 'deleted' }, 404: { description: 'no such node' } },
    async handler(input) {
      await runCommand(input, nodeStream(input.params.id), nodeAggregate, { type: 'DeleteNode', nodeId: input.params.id, at: input.deps.clock().toISOString() });
      return { status: 204 };
    },
  }),
  ...(['start', 'stop', 'restart'] as const).map((action) =>
    defineRoute({
      method: 'post', path: `/nodes/:id/${action}`, summary: `${action[0].toUpperCase()}${action.slice(1)} a node; answers once the outcome is recorded`, tags, permission: 'NODE_OPERATE', params: IdParam,
      responses: { 200: { description: 'the node after the attempt (status error with the reason when it could not start)', schema: NodeViewSchema }, 404: { description: 'no such node' } },
      async handler(input) {
        const { deps, params } = input;
        const at = deps.clock().toISOString();
        const command = action === 'stop' ? { type: 'StopNode' as const, nodeId: params.id, at } : { type: 'StartNode' as const, nodeId: params.id, restart: action === 'restart', at };
        await runCommand(input, nodeStream(params.id), nodeAggregate, command);
        return { body: await settledView(input, params.id) };
      },
    }),
  ),
  defineRoute({
    method: 'get', path: '/nodes/:id/logs', summary: 'Last lines of a node\'s output (?tail=N); a WebSocket upgrade on this path follows it live', tags, permission: 'NODE_LOGS_READ', params: IdParam,
    query: Type.Object({ tail: Type.Optional(Type.Integer({ minimum: 1, maximum: 10000, default: 100 })) }, { additionalProperties: false }),
    responses: { 200: { description: 'log lines, key material masked' }, 404: { description: 'no such node' } },
    async handler({ deps, params, query }) {
      const node = await nodeOr404(deps, params.id);
      const target = await nodeTarget(deps, node);
      const lines = target ? await evmOf(deps).runtime.logs(target, query.tail ?? 100).catch(() => []) : [];
      return { body: { node_id: node.id, lines } };
    },
  }),
  defineRoute({
    method: 'get', path: '/nodes/:id/events', summary: 'A node\'s history: created, started, stopped, start failures, downtime, recovery, config changes', tags, permission: 'NODE_READ', params: IdParam,
    query: Type.Object(PageQuery, { additionalProperties: false }),
    responses: { 200: { description: 'a page of events, oldest first' }, 404: { description: 'no such node' } },
    async handler({ deps, params, query }) {
      const events = await deps.store.readStream(nodeStream(params.id));
      if (!events.length) throw new NotFoundError('Node', params.id);
      const limit = query.limit ?? deps.config.defaultPageSize;
      const offset = query.offset ?? 0;
      const items = events.map((e) => ({ id: e.id, event: EVENT_NAMES[e.type] ?? e.type, type: e.type, timestamp: e.metadata.timestamp, data: e.data }));
      return { body: page(items.slice(offset, offset + limit), items.length, limit, offset) };
    },
  }),
];
