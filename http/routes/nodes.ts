// Nodes of every platform: create (starts automatically), list, read with live figures,
// update ports while stopped, delete, start/stop/restart through the lifecycle saga, logs (tail
// here; the WebSocket follow is served by http/nodeLogsSocket.ts on the same path) and the
// node's own event history. Evm nodes belong to a network; consortium nodes (Fabric peers and
// orderers) to an organization.
import { redactSecrets } from '../../domain/audit/auditEntry.ts';
import { chaincodeStream } from '../../domain/consortium/consortiumChaincode.ts';
import { Type } from '@sinclair/typebox';
import { defineRoute, type ResponseSpec } from '../route.ts';
import { Page, PageQuery, page, pageRequest } from '../pagination.ts';
import { CreationIdField, HostPlacementFields, IdParam } from './schemas.ts';
import { deleteNode } from '../../application/nodes/nodeDelete.ts';
import { NotFoundError, ValidationError } from '../../domain/shared/errors.ts';
import { nodeStream, type NodeStatus } from '../../domain/nodes/node.ts';
import { EVM_DEFAULT_PORTS } from '../../domain/evm/besuConfig.ts';
import { assignedPorts, getNode, listNodes, type NodeRow } from '../../projections/nodes.ts';
import { getNodeHost } from '../../projections/nodeHosts.ts';
import { getOrganization } from '../../projections/organizations.ts';
import { ORDERER_DEFAULT_PORTS, PEER_DEFAULT_PORTS, nodeHostname } from '../../domain/consortium/consortiumDefaults.ts';
import { consortiumOf } from '../../application/consortium/consortiumContext.ts';
import { createConsortiumNode, organizationDomainOf } from '../../application/consortium/consortiumNodeCreate.ts';
import { consortiumNodeView, ConsortiumNodeViewSchema } from '../consortium/consortiumNodeView.ts';
import { nodeLogSource } from '../nodeLogs.ts';
import { evmOf, networkOr404, nodeOr404, nodeTarget } from '../../application/evm/evmContext.ts';
import { awaitSettled, createEvmNode } from '../../application/evm/evmNodeCreate.ts';
import { lastReadings, nodeView, NodeViewSchema } from '../evm/evmNodeView.ts';
import type { AppDeps } from '../../application/deps.ts';
import { updateNode } from '../../application/nodes/nodeUpdate.ts';
import { renewNodeCertificates } from '../../application/consortium/consortiumNodeCertificatesRenew.ts';
import { upgradeConsortiumNode } from '../../application/consortium/consortiumNodeUpgrade.ts';
import { ledgerXNodeView, LedgerXNodeViewSchema } from '../ledgerx/ledgerxNodeView.ts';
import { createLedgerXOrdererGroup } from '../../application/ledgerx/ledgerxOrdererGroupCreate.ts';
import { operateNode } from '../../application/nodes/nodeOperate.ts';
import { createLedgerXCommitter } from '../../application/ledgerx/ledgerxCommitterCreate.ts';

const tags = ['nodes'];
const AnyNodeView = Type.Union([NodeViewSchema, ConsortiumNodeViewSchema, LedgerXNodeViewSchema], { description: 'an evm node, a consortium node or a ledgerX node (see platform)' });
const Port = Type.Integer({ description: 'host port 1024-65535; left out: allocated' });
const EvmConfigFields = {
  p2pPort: Type.Optional(Port),
  rpcHttpPort: Type.Optional(Port),
  rpcWsPort: Type.Optional(Port),
  metricsPort: Type.Optional(Port),
  isBootnode: Type.Optional(Type.Boolean()),
  role: Type.Optional(Type.Union([Type.Literal('validator'), Type.Literal('fullnode'), Type.Literal('bootnode')])),
  client: Type.Optional(Type.Union([Type.Literal('auto'), Type.Literal('besu'), Type.Literal('geth'), Type.Literal('anvil')])),
  engine: Type.Optional(Type.Union([Type.Literal('process'), Type.Literal('docker')])),
};
const HostField = HostPlacementFields;
const ConsortiumConfig = {
  listenAddress: Type.Optional(Type.String({ maxLength: 45, description: 'consortium: address the node binds to (default 0.0.0.0)' })),
  hostname: Type.Optional(Type.String({ maxLength: 253, description: 'consortium: host name in its certificates (default <name>.<organization domain>)' })),
  externalEndpoint: Type.Optional(Type.String({ maxLength: 300, description: 'consortium: host:port others reach it at (default 127.0.0.1:<port>)' })),
  domainNames: Type.Optional(Type.Array(Type.String({ maxLength: 253 }), { maxItems: 20, description: 'consortium: extra names and IPv4 addresses in its TLS certificate' })),
  port: Type.Optional(Port),
  chaincodePort: Type.Optional(Port),
  adminPort: Type.Optional(Port),
  operationsPort: Type.Optional(Port),
};
/** Chosen at creation only (moving a node to another release is an upgrade, not a config change). */
const ConsortiumCreateConfig = {
  ...ConsortiumConfig,
  fabricVersion: Type.Optional(Type.String({ maxLength: 40, pattern: '^[0-9][0-9A-Za-z.+-]*$', description: 'consortium: the Fabric release it runs, as its programs print it (e.g. 2.5.12, 3.1.5). Process engine: a release whose programs the service finds (GET /nodes/defaults/consortium-peer fabricReleases); docker engine: one with peer and orderer images tagged by it (dockerFabricReleases, e.g. lnm-fabric-peer:3.1.5); a node host (hostId, a Docker host or a Kubernetes cluster): one with those images there (?hostId= hostFabricReleases). Default: the newest of the engine or host; one not found is a 400 naming those that are (docs/consortium.md)' })),
};
const LedgerXConfig = {
  externalIp: Type.Optional(Type.String({ maxLength: 45, description: 'ledgerX: IPv4 address the roles are reached at (default 127.0.0.1); the metrics URLs use it. evm (besu) on this machine: the IPv4 address nodes on other hosts reach it at; the node then listens on every interface and advertises this address in its enode (a node on a host always uses its host\'s address)' })),
  grpcPort: Type.Optional(Port),
  routerPort: Type.Optional(Port),
  batcherPort: Type.Optional(Port),
  consenterPort: Type.Optional(Port),
  assemblerPort: Type.Optional(Port),
  routerMonitoringPort: Type.Optional(Type.Integer({ description: 'ledgerX: 0 or left out: allocated from gRPC base + 100' })),
  batcherMonitoringPort: Type.Optional(Type.Integer({ description: 'ledgerX: 0 or left out: gRPC base + 101' })),
  consenterMonitoringPort: Type.Optional(Type.Integer({ description: 'ledgerX: 0 or left out: gRPC base + 102' })),
  assemblerMonitoringPort: Type.Optional(Type.Integer({ description: 'ledgerX: 0 or left out: gRPC base + 103' })),
  sidecarPort: Type.Optional(Port),
  coordinatorPort: Type.Optional(Port),
  vcPort: Type.Optional(Port),
  verifierPort: Type.Optional(Port),
  queryPort: Type.Optional(Port),
  sidecarMonitoringPort: Type.Optional(Type.Integer({ description: 'ledgerX committer: 0 or left out: gRPC base + 100' })),
  coordinatorMonitoringPort: Type.Optional(Type.Integer({ description: 'ledgerX committer: 0 or left out: gRPC base + 101' })),
  vcMonitoringPort: Type.Optional(Type.Integer({ description: 'ledgerX committer: 0 or left out: gRPC base + 102' })),
  verifierMonitoringPort: Type.Optional(Type.Integer({ description: 'ledgerX committer: 0 or left out: gRPC base + 103' })),
  queryMonitoringPort: Type.Optional(Type.Integer({ description: 'ledgerX committer: 0 or left out: gRPC base + 104' })),
  databaseUrl: Type.Optional(Type.String({ maxLength: 2000, description: 'ledgerX committer: its PostgreSQL database as postgres://user:password@host:port/database (checked at creation: one that cannot be reached is a 400); left out: a database and user made in the service\'s own PostgreSQL. The password is a secret: kept sealed, never shown' })),
};
const NodeConfigBody = Type.Object({ ...EvmConfigFields, ...HostField, ...ConsortiumCreateConfig, ...LedgerXConfig }, { additionalProperties: false, description: 'ledgerX (LEDGERX_ORDERER_GROUP): externalIp, hostId (a registered Kubernetes cluster: the four roles run there, ports are NodePorts, default base 32050; a LEDGERX_COMMITTER\'s five services likewise, default base 32350, its database at an address the pods reach: databaseUrl), grpcPort (base, default 7050: router +0, batcher +1, consenter +2, assembler +3) or routerPort/batcherPort/consenterPort/assemblerPort, and routerMonitoringPort, batcherMonitoringPort, consenterMonitoringPort, assemblerMonitoringPort. evm and consortium: hostId or hostLabels (a node host, docs/hosts.md). evm: p2pPort, rpcHttpPort, rpcWsPort, metricsPort, isBootnode, role, client, engine. consortium: port (gRPC, default 7051 peer / 7050 orderer), chaincodePort (peer, 7052), adminPort (orderer channel participation, 7053), operationsPort (/healthz and /metrics, 9443 peer / 8443 orderer), listenAddress, hostname, externalEndpoint, domainNames, engine. Ports left out are allocated from the defaults upwards.' });
const LEDGERX_ONLY = Object.keys(LedgerXConfig);
const EVM_ONLY = ['p2pPort', 'rpcHttpPort', 'rpcWsPort', 'metricsPort', 'isBootnode', 'role', 'client', ...LEDGERX_ONLY];
const CONSORTIUM_ONLY = [...Object.keys(ConsortiumCreateConfig), ...LEDGERX_ONLY];
const Platform = Type.Union([Type.Literal('CONSORTIUM'), Type.Literal('EVM'), Type.Literal('LEDGERX')]);
const NODE_STATUSES = ['created', 'starting', 'running', 'stopping', 'stopped', 'error', 'down'] as const satisfies readonly NodeStatus[];
/** The list filter on a node's status: the server pages the matching nodes only, so a console with thousands of nodes fetches one page. */
const StatusFilter = Type.Optional(Type.Union(NODE_STATUSES.map((s) => Type.Literal(s)), { description: 'only nodes in this status (the node read shape\'s status); the total counts the matching nodes' }));

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
  // A chaincode server's history includes its chaincode's deploy steps.
  ChaincodeRegistered: 'blockchain.chaincode.registered',
  ChaincodeServerAssigned: 'blockchain.chaincode.server_assigned',
  ChaincodeInstalled: 'blockchain.chaincode.installed',
  ChaincodeApproved: 'blockchain.chaincode.approved',
  ChaincodeDeployed: 'blockchain.chaincode.deployed',
  ChaincodeUpgraded: 'blockchain.chaincode.upgraded',
  ChaincodeInitialized: 'blockchain.chaincode.initialized',
};

/** The read shape of a node of any platform. */
function viewOf(deps: AppDeps, row: NodeRow) {
  if (row.platform === 'LEDGERX') return ledgerXNodeView(deps, row);
  return row.platform === 'CONSORTIUM' ? consortiumNodeView(deps, row) : nodeView(deps, row);
}

async function settledView(input: Parameters<typeof awaitSettled>[0], id: number) {
  const row = (await awaitSettled(input, id)) ?? (await getNode(input.deps.pool, id));
  if (!row) throw new NotFoundError('Node', id);
  return viewOf(input.deps, row);
}

function foreignFields(config: Record<string, unknown>, foreign: string[], platform: string): void {
  const bad = Object.keys(config).filter((k) => foreign.includes(k) && config[k] !== undefined);
  if (bad.length) throw new ValidationError(`A ${platform} node has no ${bad.join(', ')}.`, bad.map((f) => ({ field: `config.${f}`, message: `not a ${platform} node setting` })));
}

const consortiumDefaults = (role: 'peer' | 'orderer') => async ({ deps, query }: { deps: AppDeps; query: { organizationId?: number; hostId?: number } }) => {
  const consortium = consortiumOf(deps);
  const defaults = role === 'peer' ? PEER_DEFAULT_PORTS : ORDERER_DEFAULT_PORTS;
  const assigned = await assignedPorts(deps.pool);
  const chosen = new Set<number>();
  const ports: Record<string, number> = {};
  for (const [f, start] of Object.entries(defaults)) {
    let p = start;
    while (assigned.has(p) || chosen.has(p) || (await consortium.runtime.portsInUse([p])).length) p += 10;
    chosen.add(p);
    ports[f] = p;
  }
  const org = query.organizationId === undefined ? null : await getOrganization(deps.pool, query.organizationId);
  if (query.organizationId !== undefined && !org) throw new NotFoundError('Organization', query.organizationId);
  const domain = org ? await organizationDomainOf({ deps } as never, org) : null;
  const available = await consortium.runtime.available(consortium.defaults.engine, role);
  const releases = await consortium.runtime.releases();
  const imageReleases = await consortium.runtime.imageReleases();
  const host = query.hostId === undefined ? null : await getNodeHost(deps.pool, query.hostId);
  if (query.hostId !== undefined && !host) throw new NotFoundError('Node host', query.hostId);
  return {
    body: {
      platform: 'CONSORTIUM', nodeType: role === 'peer' ? 'CONSORTIUM_PEER' : 'CONSORTIUM_ORDERER', engine: consortium.defaults.engine,
      available: available.ok, unavailableReason: available.ok ? null : available.reason,
      fabricReleases: releases.map((r) => r.version), fabricVersion: releases[0]?.version ?? null,
      // The docker engine's: peer and orderer images tagged by version (lnm-fabric-peer:3.1.5), newest first.
      dockerFabricReleases: imageReleases,
      // With ?hostId=: the release images on that node host (its Docker, or a cluster's nodes), newest first.
      ...(host ? { hostId: host.id, hostFabricReleases: await consortium.runtime.imageReleases(host.id) } : {}),
      organizationId: org?.id ?? null, mspId: org?.mspId ?? null, domain,
      config: { listenAddress: '0.0.0.0', hostname: domain ? nodeHostname(`${role}0`, domain) : null, externalEndpoint: `127.0.0.1:${ports.port}`, domainNames: [], ...ports },
      note: 'Free ports from Fabric\'s defaults upwards, skipping ports assigned to other nodes or in use on this host. The hostname is <node name>.<organization domain>; give organizationId for it.',
    },
  };
};

/** One page of nodes, of one platform or all, as the health monitor last saw them: no node is probed inside the request. */
async function nodePage(deps: AppDeps, query: { limit?: number; offset?: number; status?: string }, platform: string | undefined) {
  const { limit, offset } = pageRequest(deps.config, query);
  const r = await listNodes(deps.pool, { limit, offset, platform, status: query.status });
  const readings = await lastReadings(deps, r.items);
  const views = r.items.map((n) => (n.platform === 'LEDGERX' ? ledgerXNodeView(deps, n, { observation: readings.get(n.id) ?? null }) : n.platform === 'CONSORTIUM' ? consortiumNodeView(deps, n, { live: false, observation: readings.get(n.id) ?? null }) : nodeView(deps, n, { live: false, observation: readings.get(n.id) ?? null })));
  return page(await Promise.all(views), r.total, limit, offset);
}

/** The 409 of a start or restart refused before it is recorded (application/hosts/hostPlacement.ts assertNodeObjectsNotOthers). */
const START_REFUSED: Record<number, ResponseSpec> = {
  409: { description: 'NODE_START_FAILED: a node on a Kubernetes cluster one of whose objects (StatefulSet, Service, Secret, ConfigMap, claim of its name) carries another deployment\'s id (context.object, context.otherDeployment); nothing recorded or changed (docs/kubernetes.md)' },
};

export const nodeRoutes = [
  defineRoute({
    method: 'post', path: '/nodes', summary: 'Create a node (evm: EVM_FULLNODE in a network; consortium: a CONSORTIUM_PEER or CONSORTIUM_ORDERER of an organization); it starts automatically', tags, permission: 'NODE_CREATE',
    body: Type.Object({
      name: Type.String({ maxLength: 63 }),
      platform: Platform,
      nodeType: Type.Union([Type.Literal('CONSORTIUM_PEER'), Type.Literal('CONSORTIUM_ORDERER'), Type.Literal('EVM_FULLNODE'), Type.Literal('LEDGERX_ORDERER_GROUP'), Type.Literal('LEDGERX_COMMITTER')]),
      networkId: Type.Optional(Type.Integer({ minimum: 1 })),
      organizationId: Type.Optional(Type.Integer({ minimum: 1 })),
      config: Type.Optional(NodeConfigBody),
      ...CreationIdField,
    }, { additionalProperties: false }),
    responses: { 201: { description: 'the node, after its first start attempt', schema: AnyNodeView }, 400: { description: 'invalid' }, 409: { description: 'name or port taken' } },
    async handler(input) {
      const { deps, body } = input;
      if (body.creationId !== undefined && body.platform !== 'CONSORTIUM') throw new ValidationError('creationId is for consortium nodes (the consortium quick start\'s create).', [{ field: 'creationId', message: 'consortium nodes only' }]);
      if (body.platform === 'CONSORTIUM' && (body.nodeType === 'CONSORTIUM_PEER' || body.nodeType === 'CONSORTIUM_ORDERER')) {
        const c = body.config ?? {};
        foreignFields(c, EVM_ONLY, 'consortium');
        if (body.networkId !== undefined) throw new ValidationError('A consortium node belongs to an organization; it joins networks afterwards, from each network.', [{ field: 'networkId', message: 'not for consortium nodes' }]);
        const id = await createConsortiumNode(input, { name: body.name, nodeType: body.nodeType, organizationId: body.organizationId, engine: c.engine, fabricVersion: c.fabricVersion, config: c, creationId: body.creationId });
        return { status: 201, body: await settledView(input, id), headers: { Location: `/api/v1/nodes/${id}` } };
      }
      if (body.platform === 'LEDGERX' && body.nodeType === 'LEDGERX_COMMITTER') {
        const c = body.config ?? {};
        foreignFields(c, [...EVM_ONLY.filter((f) => !LEDGERX_ONLY.includes(f)), ...Object.keys(ConsortiumCreateConfig).filter((f) => f !== 'engine'), ...LEDGERX_ONLY.filter((f) => /^(router|batcher|consenter|assembler)/.test(f)), 'hostLabels'], 'ledgerX committer');
        if (body.networkId !== undefined) throw new ValidationError('A ledgerX committer belongs to an organization; it joins a network afterwards, from the network.', [{ field: 'networkId', message: 'not for ledgerX nodes' }]);
        const id = await createLedgerXCommitter(input, { name: body.name, organizationId: body.organizationId, config: c });
        return { status: 201, body: await settledView(input, id), headers: { Location: `/api/v1/nodes/${id}` } };
      }
      if (body.platform === 'LEDGERX' && body.nodeType === 'LEDGERX_ORDERER_GROUP') {
        const c = body.config ?? {};
        foreignFields(c, [...EVM_ONLY.filter((f) => !LEDGERX_ONLY.includes(f)), ...Object.keys(ConsortiumCreateConfig).filter((f) => f !== 'engine'), ...LEDGERX_ONLY.filter((f) => /^(sidecar|coordinator|vc|verifier|query|databaseUrl)/.test(f)), 'hostLabels'], 'ledgerX orderer group');
        if (body.networkId !== undefined) throw new ValidationError('A ledgerX orderer group belongs to an organization; it joins a network afterwards, from the network.', [{ field: 'networkId', message: 'not for ledgerX nodes' }]);
        const id = await createLedgerXOrdererGroup(input, { name: body.name, organizationId: body.organizationId, config: c });
        return { status: 201, body: await settledView(input, id), headers: { Location: `/api/v1/nodes/${id}` } };
      }
      if (body.platform !== 'EVM' || body.nodeType !== 'EVM_FULLNODE') throw new ValidationError(`Platform ${body.platform} has no node type ${body.nodeType} here: EVM nodes are EVM_FULLNODE, consortium nodes CONSORTIUM_PEER or CONSORTIUM_ORDERER, ledgerX nodes LEDGERX_ORDERER_GROUP or LEDGERX_COMMITTER.`, [{ field: 'nodeType', message: 'EVM_FULLNODE with platform EVM, CONSORTIUM_PEER / CONSORTIUM_ORDERER with platform CONSORTIUM, or LEDGERX_ORDERER_GROUP / LEDGERX_COMMITTER with platform LEDGERX' }]);
      foreignFields(body.config ?? {}, CONSORTIUM_ONLY.filter((f) => f !== 'engine' && f !== 'externalIp'), 'evm');
      if (body.networkId === undefined) throw new ValidationError('An evm node belongs to a network: networkId is required.', [{ field: 'networkId', message: 'is required' }]);
      const network = await networkOr404(deps, body.networkId);
      const c = body.config ?? {};
      const isBootnode = c.isBootnode ?? c.role === 'bootnode';
      const id = await createEvmNode(input, network, {
        name: body.name, role: c.role ?? (isBootnode ? 'bootnode' : undefined), isBootnode, engine: c.engine, client: c.client, hostId: c.hostId, hostLabels: c.hostLabels, externalIp: c.externalIp,
        ports: { p2pPort: c.p2pPort, rpcHttpPort: c.rpcHttpPort, rpcWsPort: c.rpcWsPort, metricsPort: c.metricsPort },
      });
      return { status: 201, body: await settledView(input, id), headers: { Location: `/api/v1/nodes/${id}` } };
    },
  }),
  defineRoute({
    method: 'get', path: '/nodes', summary: 'List nodes, with what the health monitor last saw of each (evm: last_probe); no node is probed inside the request', tags, permission: 'NODE_READ',
    query: Type.Object({ ...PageQuery, platform: Type.Optional(Platform), status: StatusFilter }, { additionalProperties: false }),
    responses: { 200: { description: 'a page of nodes', schema: Page(AnyNodeView) } },
    async handler({ deps, query }) {
      return { body: await nodePage(deps, query, query.platform) };
    },
  }),
  defineRoute({
    method: 'get', path: '/nodes/platform/:platform', summary: 'List nodes of one platform, as the health monitor last saw them', tags, permission: 'NODE_READ',
    params: Type.Object({ platform: Platform }, { additionalProperties: false }),
    query: Type.Object({ ...PageQuery, status: StatusFilter }, { additionalProperties: false }),
    responses: { 200: { description: 'a page of nodes', schema: Page(AnyNodeView) } },
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
  ...(['peer', 'orderer'] as const).map((role) =>
    defineRoute({
      method: 'get', path: `/nodes/defaults/consortium-${role}`, summary: `Default configuration of a consortium ${role}: free ports, endpoints, the organization's domain`, tags, permission: 'NODE_READ',
      query: Type.Object({
        organizationId: Type.Optional(Type.Integer({ minimum: 1, description: 'the organization the node will belong to (for its domain and hostname)' })),
        hostId: Type.Optional(Type.Integer({ minimum: 1, description: 'a node host the node will be placed on: hostFabricReleases lists the Fabric releases whose peer and orderer images are there (its Docker, or the cluster\'s nodes), newest first, the first the default' })),
      }, { additionalProperties: false }),
      responses: { 200: { description: 'defaults' }, 404: { description: 'no such organization or node host' } },
      handler: consortiumDefaults(role),
    }),
  ),
  defineRoute({
    method: 'get', path: '/nodes/:id', summary: 'Read a node, with block height and peers read live (1.5 s at most) and the health monitor\'s last reading', tags, permission: 'NODE_READ', params: IdParam,
    responses: { 200: { description: 'the node', schema: AnyNodeView }, 404: { description: 'no such node' } },
    async handler({ deps, params }) {
      return { body: await viewOf(deps, await nodeOr404(deps, params.id)) };
    },
  }),
  defineRoute({
    method: 'put', path: '/nodes/:id', summary: 'Change a stopped node\'s name or ports', tags, permission: 'NODE_UPDATE', params: IdParam,
    body: Type.Object({ name: Type.Optional(Type.String({ maxLength: 63 })), config: Type.Optional(Type.Object({ p2pPort: Type.Optional(Port), rpcHttpPort: Type.Optional(Port), rpcWsPort: Type.Optional(Port), metricsPort: Type.Optional(Port), ...ConsortiumConfig }, { additionalProperties: false, description: 'evm: p2pPort, rpcHttpPort, rpcWsPort, metricsPort; consortium: port, chaincodePort, adminPort, operationsPort, listenAddress, hostname, externalEndpoint, domainNames (names in the TLS certificate change with POST /nodes/{id}/certificates/renew)' })) }, { additionalProperties: false }),
    responses: { 200: { description: 'the node', schema: AnyNodeView }, 404: { description: 'no such node' }, 409: { description: 'running, or name or port taken' } },
    async handler(input) {
      const { deps, params, body } = input;
      const node = await nodeOr404(deps, params.id);
      if (node.platform === 'LEDGERX') throw new ValidationError(`Node ${node.name} is a ledgerX node: its name and ports are fixed once created (its ports are in its network's genesis block); delete and recreate it.`, [{ field: 'id', message: 'a ledgerX node' }]);
      foreignFields(body.config ?? {}, node.platform === 'CONSORTIUM' ? EVM_ONLY : CONSORTIUM_ONLY, node.platform === 'CONSORTIUM' ? 'consortium' : 'evm');
      await updateNode(input, node, body);
      return { body: await viewOf(deps, await nodeOr404(deps, node.id)) };
    },
  }),
  defineRoute({
    method: 'delete', path: '/nodes/:id', summary: 'Delete a node (stopped and its files removed)', tags, permission: 'NODE_DELETE', params: IdParam,
    description: 'Its keys stay under /keys (then unused: GET /keys?unused=true) unless deleteKeys=true: then its own keys (a consortium or ledgerX role node\'s identity and TLS keys) are deleted with it, each deletion audited; that also needs KEY_DELETE (403 before anything is deleted otherwise). Evm nodes hold no key of /keys. A node on a Kubernetes cluster keeps its PersistentVolumeClaim (its ledger) unless deleteVolume=true; node.deleted and its audit entry say which (details.volume kept or deleted). A kept claim is named after the node id (<prefix>node-<id>-data), which no later node gets, so it is never reused by a new node; delete it on the cluster when no longer wanted (docs/kubernetes.md). Elsewhere a node\'s volume always goes with it.',
    query: Type.Object({ deleteKeys: Type.Optional(Type.Boolean({ description: 'also delete the node\'s own keys (needs KEY_DELETE)' })), deleteVolume: Type.Optional(Type.Boolean({ description: 'a node on a Kubernetes cluster: also delete its PersistentVolumeClaim (its ledger); default false, the claim is kept' })) }, { additionalProperties: false }),
    responses: { 204: { description: 'deleted' }, 403: { description: 'deleteKeys=true without KEY_DELETE' }, 404: { description: 'no such node' } },
    async handler(input) {
      await deleteNode(input, input.params.id, { deleteKeys: input.query.deleteKeys === true, deleteVolume: input.query.deleteVolume === true });
      return { status: 204 };
    },
  }),
  ...(['start', 'stop', 'restart'] as const).map((action) =>
    defineRoute({
      method: 'post', path: `/nodes/:id/${action}`, summary: `${action[0].toUpperCase()}${action.slice(1)} a node; answers once the outcome is recorded`, tags, permission: 'NODE_OPERATE', params: IdParam,
      ...(action === 'start' ? { description: 'Sent while a stop is still being carried out, or to a node in error or down, the start first stops whatever of the node still runs (never a second process beside the first).' } : {}),
      responses: Object.assign(
        { 200: { description: 'the node after the attempt (status error with the reason when it could not start)', schema: AnyNodeView }, 404: { description: 'no such node' } },
        action === 'stop' ? {} : START_REFUSED,
      ),
      async handler(input) {
        const { deps, params } = input;
        const { ledgerXGroup } = await operateNode(input, params.id, action);
        if (ledgerXGroup) return { body: await ledgerXNodeView(deps, ledgerXGroup) };
        return { body: await settledView(input, params.id) };
      },
    }),
  ),
  defineRoute({
    method: 'post', path: '/nodes/:id/certificates/renew', summary: 'Reissue a consortium node\'s identity and TLS certificates from its organization\'s CAs and restart it', tags, permission: 'CERTIFICATE_RENEW', params: IdParam,
    description: 'Same keys, new validity; the TLS certificate carries the node\'s current hostname, external endpoint and domainNames. A running node is restarted so that it serves the new certificates (certificate.renewed per certificate). Evm nodes have no certificates (400).',
    responses: {
      200: {
        description: 'the renewed certificates and the node after its restart',
        schema: Type.Object({
          certificates: Type.Array(Type.Object({ key_id: Type.Integer(), purpose: Type.String({ description: 'the key\'s purpose (identity, tls)' }), serial_number: Type.String(), not_after: Type.String() })),
          node: AnyNodeView,
        }),
      },
      400: { description: 'not a consortium node' },
      404: { description: 'no such node' },
      409: { description: 'rule consenter-leader (CONSENTER_LEADER): the running orderer is the current SmartBFT leader of a channel (its consensus_BFT_is_leader metric); renewing it would stall ordering; nothing renewed' },
    },
    async handler(input) {
      const certificates = await renewNodeCertificates(input, input.params.id);
      return { body: { certificates, node: await settledView(input, input.params.id) } };
    },
  }),
  defineRoute({
    method: 'post', path: '/nodes/:id/upgrade', summary: 'Move a consortium peer or orderer to a newer Fabric release (rolling upgrade: stopped, release switched (programs or image), started with its ledger kept, awaited healthy and caught up with its channels)', tags, permission: 'NODE_UPDATE', params: IdParam,
    description: 'One node down at a time: a second upgrade while one is in progress, or an upgrade while another node of the node\'s channels is not running, is a 409. A new release that does not start or catch up in time is rolled back to the old one (409 UPGRADE_FAILED). Process engine: the release\'s programs (GET /nodes/defaults/consortium-peer fabricReleases); docker engine and node hosts: its release image (dockerFabricReleases, or ?hostId=\'s), the container or pod replaced by one of the new image on the same directory, volume or claim. A node recording no release (a docker node of the configured image) is a 400 UPGRADE_NO_RELEASE. Recorded as the node\'s config change (fabricVersion before and after), audited. docs/consortium.md, "Rolling upgrade".',
    body: Type.Object({ fabricVersion: Type.String({ minLength: 1, maxLength: 40, pattern: '^[0-9][0-9A-Za-z.+-]*$', description: 'the release to run, as its programs print it (e.g. 3.1.5); newer than the node\'s; one of GET /nodes/defaults/consortium-peer\'s fabricReleases' }) }, { additionalProperties: false }),
    responses: {
      200: {
        description: 'the node upgraded',
        schema: Type.Object({
          node: AnyNodeView, from_version: Type.String(), to_version: Type.String(), steps: Type.Array(Type.String()),
          channels: Type.Array(Type.Object({ channel_name: Type.String(), height: Type.Integer({ description: 'the node\'s ledger height once caught up' }), channel_height: Type.Integer({ description: 'the highest of the channel\'s other running nodes' }) })),
        }),
      },
      400: { description: 'not a consortium peer or orderer; no recorded release (UPGRADE_NO_RELEASE); release not found for its engine or older than the node\'s' },
      404: { description: 'no such node' },
      409: { description: 'another upgrade in progress (UPGRADE_IN_PROGRESS); another node of its channels not running (NODES_DOWN); the node not running; the same release; the new release failed and was rolled back (UPGRADE_FAILED)' },
    },
    async handler(input) {
      const r = await upgradeConsortiumNode(input, input.params.id, input.body.fabricVersion);
      return { body: { node: await viewOf(input.deps, r.node), from_version: r.fromVersion, to_version: r.toVersion, steps: r.steps, channels: r.channels.map((c) => ({ channel_name: c.channelName, height: c.height, channel_height: c.channelHeight })) } };
    },
  }),
  defineRoute({
    method: 'get', path: '/nodes/:id/logs', summary: 'Last lines of a node\'s output (?tail=N); a WebSocket upgrade on this path follows it live', tags, permission: 'NODE_LOGS_READ', params: IdParam,
    query: Type.Object({ tail: Type.Optional(Type.Integer({ minimum: 1, maximum: 10000, default: 100 })) }, { additionalProperties: false }),
    responses: { 200: { description: 'log lines, key material masked' }, 404: { description: 'no such node' } },
    async handler({ deps, params, query }) {
      const node = await nodeOr404(deps, params.id);
      const lines = await nodeLogSource(deps, node).then((src) => src.logs(query.tail ?? 100)).catch(() => []);
      return { body: { node_id: node.id, lines } };
    },
  }),
  defineRoute({
    method: 'get', path: '/nodes/:id/events', summary: 'A node\'s history: created, started, stopped, start failures, downtime, recovery, config changes (a chaincode server: with its chaincode\'s install, approve and commit steps)', tags, permission: 'NODE_READ', params: IdParam,
    query: Type.Object(PageQuery, { additionalProperties: false }),
    responses: { 200: { description: 'a page of events, oldest first' }, 404: { description: 'no such node' } },
    async handler({ deps, params, query }) {
      let events = await deps.store.readStream(nodeStream(params.id));
      if (!events.length) throw new NotFoundError('Node', params.id);
      const created = events[0].data as { role?: string; config?: { chaincodeId?: number } };
      if (created.role === 'chaincode' && created.config?.chaincodeId) {
        events = [...events, ...(await deps.store.readStream(chaincodeStream(created.config.chaincodeId)))].sort((a, b) => a.position - b.position);
      }
      // The history is read from the event store, ahead of the read models: answer only once they
      // include every event shown, so a client that saw node.downtime here never reads the node as
      // running afterwards (monotonic reads across the two endpoints).
      await deps.projector.waitFor(Math.max(...events.map((e) => e.position)));
      const { limit, offset } = pageRequest(deps.config, query);
      const items = events.map((e) => ({ id: e.id, event: EVENT_NAMES[e.type] ?? e.type, type: e.type, timestamp: e.metadata.timestamp, data: redactSecrets(e.data) }));
      return { body: page(items.slice(offset, offset + limit), items.length, limit, offset) };
    },
  }),
];
