// Evm networks: create (generic POST /networks with the genesis object, or /networks/evm),
// import, list, read, delete, their nodes and map, adding nodes, starting, stopping and
// restarting all nodes (any platform that starts as a whole), and the validators as the chain
// reports them.
import { Type } from '@sinclair/typebox';
import { defineRoute } from '../route.ts';
import { Page, PageQuery, page, pageRequest } from '../pagination.ts';
import { IdParam, PlacementSchema } from './schemas.ts';
import { ValidationError } from '../../domain/shared/errors.ts';
import { listEvmNetworks } from '../../projections/evm/evmNetworks.ts';
import { getNode } from '../../projections/nodes.ts';
import { evmOf, networkOr404, targetOf } from '../../application/evm/evmContext.ts';
import { createEvmNetwork, evmNetworkDefaults, type EvmNetworkRequest } from '../../application/evm/evmNetworkCreate.ts';
import { awaitSettled, createEvmNode, networkNodes } from '../../application/evm/evmNodeCreate.ts';
import { listedNodeViews, nodeView, NodeViewSchema } from '../evm/evmNodeView.ts';
import { networkStatus, networkView, NetworkView } from '../evm/evmNetworkView.ts';
import { validatorVoteRoutes } from './evm/validatorVotes.ts';
import { startConsortiumNetwork } from '../../application/consortium/consortiumNetworkStart.ts';
import { startEvmNetwork } from '../../application/evm/evmNetworkStart.ts';
import { operateNetwork, type NetworkAction } from '../../application/networks/networkOperate.ts';
import { deleteEvmNetwork } from '../../application/evm/evmNetworkDelete.ts';
import { consortiumNetworkView } from '../consortium/consortiumNetworkView.ts';
import { consortiumNodeView } from '../consortium/consortiumNodeView.ts';
import { getConsortiumNetwork } from '../../projections/consortium/consortiumNetworks.ts';
import { seedNodes } from '../../domain/evm/evmSeedNodes.ts';
import { listEvmContracts } from '../../projections/evm/evmContracts.ts';

const tags = ['evm networks'];
const NetworkIdParam = Type.Object({ networkId: Type.Integer({ minimum: 1 }) }, { additionalProperties: false });
const Client = Type.Union([Type.Literal('auto'), Type.Literal('besu'), Type.Literal('geth'), Type.Literal('anvil')], { description: 'auto (default): geth for a Clique network where geth is found, else besu where available, else anvil for a one-validator network; geth runs Clique only' });
const Engine = Type.Union([Type.Literal('process'), Type.Literal('docker')]);
const Genesis = Type.Record(Type.String(), Type.Unknown(), {
  description:
    'SPEC genesis object: chain_id, network_id, consensus (IBFT_2, QBFT, Clique/PoA, PoW), block_time, difficulty, gas_limit, validators, accounts, extradata, timestamp. ' +
    'Creating (not importing), every field may be left out, the whole object too: chain_id is the next id from 1337 up that no network of this deployment uses, consensus QBFT, block_time 5 (GET /networks/evm/defaults says them), timestamp the creation time (so no two networks share a block 0). ' +
    'A chain_id another network of this deployment uses is a 409 CHAIN_ID_TAKEN naming that network (a transaction signed for one would replay on the other). ' +
    'Gas model: min_gas_price (minGasPrice; wei as a decimal or 0x hex string, default 0). 0 means free gas: the genesis sets zeroBaseFee with base fee 0 and the nodes accept gas price 0, so any key the service holds deploys without funds. ' +
    'Above 0 the network is priced: nodes refuse transactions below it (besu --min-gas-price; anvil enforces the base fee only), base_fee (baseFee; wei, default 1000000000) is the genesis base fee, and deploying keys need ether: list them in accounts, set validatorBalance, or transfer to them. ' +
    'base_fee alone (above 0) prices by the base fee only; base_fee 0 with a min_gas_price keeps a zero base fee. An amount that is not wei, or above 2^63-1, is a 400 naming the field.',
});
const createFields = {
  name: Type.String({ maxLength: 64, description: 'unique; letters, digits and hyphens' }),
  description: Type.Optional(Type.Union([Type.String({ maxLength: 1000 }), Type.Null()])),
  genesis: Type.Optional(Genesis),
  client: Type.Optional(Client),
  engine: Type.Optional(Engine),
  validatorCount: Type.Optional(Type.Integer({ minimum: 1, maximum: 32, description: 'validator keys the service generates when genesis.validators is empty (default 1). For PoW these are miner keys: not in the genesis, each node mines with its key\'s address as coinbase' })),
  validatorKeys: Type.Optional(Type.Array(Type.String({ maxLength: 20000 }), { maxItems: 32, description: 'secp256k1 PEM private keys to import as validator keys (write-only)' })),
  validatorBalance: Type.Optional(Type.String({ description: 'wei (decimal) credited in the genesis to each validator key the service holds; the way to fund deploying keys on a priced network (genesis.min_gas_price above 0)' })),
  providerId: Type.Optional(Type.Integer({ minimum: 1, description: 'key provider that holds the validator keys the service generates or imports (default: the default provider). It must support secp256k1 (database, AWS KMS); besu validators need the database provider, since besu reads its node key from a file.' })),
  keyProviderId: Type.Optional(Type.Integer({ minimum: 1, description: 'same as providerId' })),
  placement: Type.Optional(PlacementSchema('the nodes its start makes (POST /networks/{id}/start: one per validator) and later starts (it is recorded on the network); a network of any client (anvil, geth, besu) may go to a Docker node host or a Kubernetes cluster; engine is then docker (process is a 400)')),
};
const GenericBody = Type.Object({ ...createFields, type: Type.Optional(Type.String({ description: 'evm' })) }, { additionalProperties: false });
const EvmBody = Type.Object(createFields, { additionalProperties: false });

const ContractView = Type.Object({
  id: Type.Integer(), network_id: Type.Integer(), name: Type.String(), address: Type.String(),
  abi: Type.Union([Type.Array(Type.Unknown()), Type.Null()]), bytecode: Type.String({ description: 'creation bytecode, hex' }),
  args: Type.Union([Type.Array(Type.Unknown()), Type.Null()], { description: 'constructor arguments as given (encoded with the ABI)' }),
  constructor_args: Type.Union([Type.String(), Type.Null()], { description: 'pre-encoded constructor arguments, hex' }),
  transaction_hash: Type.String(), block_number: Type.Integer(), deployer: Type.String({ description: 'address of the key that deployed it' }), node_id: Type.Integer(), deployed_at: Type.String(),
});

const NetworkMap = Type.Object({
  network: Type.Object({ id: Type.Integer(), name: Type.String(), client: Type.String(), consensus: Type.String(), status: Type.String() }),
  nodes: Type.Array(Type.Object({
    id: Type.Integer(), name: Type.String(), role: Type.String({ description: 'validator, fullnode or bootnode' }), status: Type.String(),
    validator_address: Type.Union([Type.String(), Type.Null()]), p2p_port: Type.Union([Type.Integer(), Type.Null()]), rpc_http_port: Type.Union([Type.Integer(), Type.Null()]),
  })),
  links: Type.Array(Type.Object({ from: Type.Integer({ description: 'node id' }), to: Type.Integer({ description: 'node id it is started with as a seed' }), kind: Type.Union([Type.Literal('bootnode'), Type.Literal('static-peer')]) }), { description: 'the seeds each node is started with (besu --bootnodes); none for anvil' }),
});

function toRequest(body: Record<string, unknown>, imported = false): EvmNetworkRequest {
  const { keyProviderId, providerId, ...rest } = body as { keyProviderId?: number; providerId?: number };
  return { ...(rest as unknown as EvmNetworkRequest), providerId: providerId ?? keyProviderId, providerField: providerId !== undefined ? 'providerId' : 'keyProviderId', imported };
}

const createResponses = { 201: { description: 'created', schema: NetworkView }, 400: { description: 'invalid name or genesis, or something the network needs is missing here (code PROGRAM_MISSING: besu for several validators, named with how to provide it), or a placement naming no registered host (UNKNOWN_HOST), both hostId and hostLabels, or a besu network on a Kubernetes cluster (HOST_KIND_UNSUPPORTED); nothing is made' }, 409: { description: 'name taken (NAME_TAKEN) or a create of that name in progress, or chain id (CHAIN_ID_TAKEN) or block 0 (GENESIS_TAKEN) of another network of this deployment: the message and context name it; or the placement\'s host unreachable (HOST_UNREACHABLE), without room for the nodes (HOST_FULL), or no host fitting its labels (NO_HOST_FITS)' } };

const Defaults = Type.Object({
  chain_id: Type.Integer({ description: 'the next chain id from 1337 up that no network of this deployment uses' }),
  consensus: Type.String({ description: 'QBFT' }),
  block_time: Type.Integer({ description: 'seconds (5)' }),
  validator_count: Type.Integer({ description: 'validator keys the service generates (1)' }),
  client: Type.String({ description: 'the client preference of this server (LNM_EVM_CLIENT): auto, besu or anvil' }),
  engine: Type.String({ description: 'the node engine of this server (LNM_NODE_ENGINE)' }),
}, { description: 'what POST /networks/evm fills in for a field the request leaves out' });

export const networkRoutes = [
  defineRoute({
    method: 'post', path: '/networks', summary: 'Create a network from a genesis object (type evm)', tags, permission: 'NETWORK_CREATE',
    body: GenericBody, responses: createResponses,
    async handler(input) {
      const { type, ...rest } = input.body;
      if (type !== undefined && type.toLowerCase() !== 'evm') throw new ValidationError(`Network type ${type} cannot be created here; use evm (a consortium network has its own create).`, [{ field: 'type', message: 'must be evm' }]);
      const id = await createEvmNetwork(input, toRequest(rest));
      return { status: 201, body: await networkView(input.deps, await networkOr404(input.deps, id)), headers: { Location: `/api/v1/networks/evm/${id}` } };
    },
  }),
  defineRoute({
    method: 'post', path: '/networks/evm', summary: 'Create an evm network', tags, permission: 'NETWORK_CREATE',
    body: EvmBody, responses: createResponses,
    async handler(input) {
      const id = await createEvmNetwork(input, toRequest(input.body));
      return { status: 201, body: await networkView(input.deps, await networkOr404(input.deps, id)), headers: { Location: `/api/v1/networks/evm/${id}` } };
    },
  }),
  defineRoute({
    method: 'get', path: '/networks/evm/defaults', summary: 'Defaults of a new evm network: what POST /networks/evm fills in for the genesis fields a request leaves out', tags, permission: 'NETWORK_READ',
    responses: { 200: { description: 'the defaults, chain id included', schema: Defaults } },
    async handler(input) {
      return { status: 200, body: await evmNetworkDefaults(input) };
    },
  }),
  defineRoute({
    method: 'post', path: '/networks/evm/import', summary: 'Import an existing evm network by its genesis object and validator addresses (no keys are generated)', tags, permission: 'NETWORK_CREATE',
    body: Type.Object({ name: createFields.name, description: createFields.description, genesis: Genesis, client: createFields.client, engine: createFields.engine }, { additionalProperties: false }),
    responses: createResponses,
    async handler(input) {
      if (!Array.isArray(input.body.genesis.validators) && String(input.body.genesis.consensus ?? '').toUpperCase() !== 'POW') {
        throw new ValidationError('An imported network names its validators: genesis.validators is required.', [{ field: 'genesis.validators', message: 'is required' }]);
      }
      const id = await createEvmNetwork(input, toRequest(input.body, true));
      return { status: 201, body: await networkView(input.deps, await networkOr404(input.deps, id)) };
    },
  }),
  defineRoute({
    method: 'get', path: '/networks/evm', summary: 'List evm networks', tags, permission: 'NETWORK_READ',
    query: Type.Object(PageQuery, { additionalProperties: false }),
    responses: { 200: { description: 'a page of networks', schema: Page(NetworkView) } },
    async handler({ deps, query }) {
      const { limit, offset } = pageRequest(deps.config, query);
      const r = await listEvmNetworks(deps.pool, limit, offset);
      return { body: page(await Promise.all(r.items.map((n) => networkView(deps, n))), r.total, limit, offset) };
    },
  }),
  defineRoute({
    method: 'get', path: '/networks/evm/:id', summary: 'Read an evm network', tags, permission: 'NETWORK_READ', params: IdParam,
    responses: { 200: { description: 'the network', schema: NetworkView }, 404: { description: 'no such network' } },
    async handler({ deps, params }) {
      return { body: await networkView(deps, await networkOr404(deps, params.id)) };
    },
  }),
  defineRoute({
    method: 'delete', path: '/networks/evm/:id', summary: 'Delete an evm network with its nodes (stopped and removed)', tags, permission: 'NETWORK_DELETE', params: IdParam,
    description: 'Its validator keys stay under /keys (they may hold funds or be reused) unless deleteKeys=true: then the validator keys the service holds are deleted with it, each deletion audited; that also needs KEY_DELETE (403 before anything is deleted otherwise), and a key another network still uses is kept.',
    query: Type.Object({ deleteKeys: Type.Optional(Type.Boolean({ description: 'also delete its validator keys (needs KEY_DELETE)' })) }, { additionalProperties: false }),
    responses: { 204: { description: 'deleted' }, 403: { description: 'deleteKeys=true without KEY_DELETE' }, 404: { description: 'no such network' } },
    async handler(input) {
      await deleteEvmNetwork(input, input.params.id, { deleteKeys: input.query.deleteKeys === true });
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'get', path: '/networks/evm/:id/nodes', summary: 'Nodes of an evm network', tags, permission: 'NETWORK_READ', params: IdParam,
    responses: { 200: { description: 'the nodes', schema: Type.Object({ items: Type.Array(NodeViewSchema) }) }, 404: { description: 'no such network' } },
    async handler(input) {
      await networkOr404(input.deps, input.params.id);
      const nodes = await networkNodes(input, input.params.id);
      return { body: { items: await listedNodeViews(input.deps, nodes) } };
    },
  }),
  defineRoute({
    method: 'get', path: '/networks/evm/:id/contracts', summary: 'Smart contracts deployed on an evm network through POST /sc/evm/deploy (oldest first): name, address, ABI, bytecode, constructor arguments, transaction', tags, permission: 'NETWORK_READ', params: IdParam,
    query: Type.Object(PageQuery, { additionalProperties: false }),
    responses: { 200: { description: 'a page of contracts', schema: Page(ContractView) }, 404: { description: 'no such network' } },
    async handler({ deps, params, query }) {
      await networkOr404(deps, params.id);
      const { limit, offset } = pageRequest(deps.config, query);
      const r = await listEvmContracts(deps.pool, params.id, limit, offset);
      return {
        body: page(r.items.map((c) => ({
          id: c.id, network_id: c.networkId, name: c.name, address: c.address, abi: c.abi, bytecode: c.bytecode, args: c.args, constructor_args: c.constructorArgs,
          transaction_hash: c.transactionHash, block_number: c.blockNumber, deployer: c.deployer, node_id: c.nodeId, deployed_at: c.createdAt,
        })), r.total, limit, offset),
      };
    },
  }),
  defineRoute({
    method: 'get', path: '/networks/evm/:id/map', summary: 'Topology of an evm network: its nodes and who peers with whom', tags, permission: 'NETWORK_READ', params: IdParam,
    responses: { 200: { description: 'nodes and links', schema: NetworkMap }, 404: { description: 'no such network' } },
    async handler(input) {
      const network = await networkOr404(input.deps, input.params.id);
      const nodes = await networkNodes(input, network.id);
      return {
        body: {
          network: { id: network.id, name: network.name, client: network.client, consensus: network.consensus, status: networkStatus(nodes) },
          nodes: nodes.map((n) => ({ id: n.id, name: n.name, role: n.role, status: n.status, validator_address: n.validatorAddress ?? null, p2p_port: n.config.p2pPort ?? null, rpc_http_port: n.config.rpcHttpPort ?? null })),
          // The seeds each node is started with (besu --bootnodes); anvil is one node and has no links.
          links: network.client === 'anvil' ? [] : nodes.flatMap((n) => seedNodes(n, nodes.filter((o) => o.id !== n.id)).map((s) => ({ from: n.id, to: s.id, kind: s.role === 'bootnode' ? 'bootnode' : 'static-peer' }))),
        },
      };
    },
  }),
  defineRoute({
    method: 'post', path: '/networks/:networkId/nodes', summary: 'Add a validator or bootnode to an evm network (it starts automatically)', tags, permission: 'NODE_CREATE', params: NetworkIdParam,
    body: Type.Object({
      name: Type.String({ maxLength: 63 }),
      type: Type.Union([Type.Literal('validator'), Type.Literal('bootnode')]),
      network_id: Type.Optional(Type.String()),
      port: Type.Optional(Type.Integer({ description: 'peer-to-peer port (default 30303 or the next free one)' })),
      rpc_port: Type.Optional(Type.Integer({ description: 'JSON-RPC HTTP (default 8545 or the next free one)' })),
      ws_port: Type.Optional(Type.Integer({ description: 'JSON-RPC WebSocket (default 8546 or the next free one)' })),
      engine: Type.Optional(Engine),
      resources: Type.Optional(Type.Object({ cpu: Type.Optional(Type.String()), memory: Type.Optional(Type.String()) }, { additionalProperties: false })),
    }, { additionalProperties: false }),
    responses: { 201: { description: 'the node, after its first start attempt', schema: NodeViewSchema }, 400: { description: 'invalid' }, 409: { description: 'name or port taken' } },
    async handler(input) {
      const { deps, params, body } = input;
      if (body.network_id !== undefined && body.network_id !== String(params.networkId)) throw new ValidationError('network_id does not match the path.', [{ field: 'network_id', message: `must be ${params.networkId}` }]);
      const network = await networkOr404(deps, params.networkId);
      const id = await createEvmNode(input, network, {
        name: body.name, role: body.type, isBootnode: body.type === 'bootnode', engine: body.engine, resources: body.resources ?? null,
        ports: { p2pPort: body.port, rpcHttpPort: body.rpc_port, rpcWsPort: body.ws_port },
        fieldNames: { p2pPort: 'port', rpcHttpPort: 'rpc_port', rpcWsPort: 'ws_port' },
      });
      const row = (await awaitSettled(input, id)) ?? (await getNode(deps.pool, id));
      return { status: 201, body: await nodeView(deps, row!), headers: { Location: `/api/v1/nodes/${id}` } };
    },
  }),
  defineRoute({
    method: 'post', path: '/networks/:networkId/start', summary: 'Start all nodes of a network (evm: a validator without a node gets one first; consortium: every member peer and orderer)', tags, permission: 'NETWORK_OPERATE', params: NetworkIdParam,
    responses: { 200: { description: 'the network and its nodes after the start attempt' }, 404: { description: 'no such network' } },
    async handler(input) {
      const { deps, params } = input;
      if (await getConsortiumNetwork(deps.pool, params.networkId)) {
        const r = await startConsortiumNetwork(input, params.networkId);
        return { body: { network: await consortiumNetworkView(deps, r.network), nodes: await Promise.all(r.nodes.map((n) => consortiumNodeView(deps, n))) } };
      }
      const r = await startEvmNetwork(input, params.networkId);
      return { body: { network: await networkView(deps, r.network), nodes: await Promise.all(r.nodes.map((n) => nodeView(deps, n))) } };
    },
  }),
  ...(['stop', 'restart'] as const).map((action) => networkOperationRoute(action)),
  defineRoute({
    method: 'get', path: '/networks/:networkId/validators', summary: 'Validators of an evm network, as the running chain reports them', tags, permission: 'NETWORK_READ', params: NetworkIdParam,
    responses: { 200: { description: 'validators and where the list comes from' }, 404: { description: 'no such network' } },
    async handler(input) {
      const { deps, params } = input;
      const network = await networkOr404(deps, params.networkId);
      const nodes = await networkNodes(input, network.id);
      const genesis = network.validators.map((v) => ({ address: v.address, key_held: v.keyHandle !== null, node_id: nodes.find((n) => n.validatorAddress === v.address)?.id ?? null }));
      if (network.client === 'anvil') {
        return { body: { network_id: network.id, source: 'genesis', validators: genesis, voting: false, note: 'This network runs on anvil, a single-node development chain: it has no validator set on chain and no voting (qbft_/ibft_ methods do not exist there). The list is the validator named in the genesis.' } };
      }
      const running = nodes.find((n) => n.status === 'running' && n.config.rpcHttpPort);
      if (!running) return { body: { network_id: network.id, source: 'genesis', validators: genesis, voting: false, note: 'No node of this network is running; the list is the genesis validator set.' } };
      const onChain = await evmOf(deps).runtime.chainValidators(targetOf(running, network));
      if (onChain === null) {
        const what = network.consensus === 'POW' ? 'PoW has no validator set; these are the miner keys the service holds' : `${network.consensus} has no validator API this service reads; the list is the genesis signer set`;
        return { body: { network_id: network.id, source: 'genesis', validators: genesis, voting: false, note: what } };
      }
      return { body: { network_id: network.id, source: 'chain', node_id: running.id, validators: onChain.map((address) => ({ address, key_held: network.validators.some((v) => v.address === address && v.keyHandle), node_id: nodes.find((n) => n.validatorAddress === address)?.id ?? null })), voting: true } };
    },
  }),
  ...validatorVoteRoutes,
];

function networkOperationRoute(action: NetworkAction) {
  const what = action === 'stop'
    ? { summary: 'Stop all nodes of a network (evm or consortium), in reverse dependency order', description: 'Records NetworkStopped (audited) naming the nodes in start order, then stops each node in the reverse order (consortium: peers before orderers; evm: full nodes, validators, then bootnodes), each awaited before the next. A node already stopped stays so.' }
    : { summary: 'Restart a network (evm or consortium): all nodes stopped in reverse dependency order, then started in order', description: 'Records NetworkRestarted (audited) naming the nodes in start order; stops each node in the reverse order, then starts them in order (consortium: orderers before peers; evm: bootnodes, validators, then the others), each awaited (running or failed) before the next.' };
  return defineRoute({
    method: 'post', path: `/networks/:networkId/${action}`, ...what, tags, permission: 'NETWORK_OPERATE', params: NetworkIdParam,
    responses: { 200: { description: 'the network and its nodes (in start order) after the operation' }, 404: { description: 'no such network' }, 409: { description: 'the network has no nodes (code NO_NODES)' } },
    async handler(input) {
      const { deps, params } = input;
      const r = await operateNetwork(input, params.networkId, action);
      if (r.platform === 'consortium') return { body: { network: await consortiumNetworkView(deps, r.network), nodes: await Promise.all(r.nodes.map((n) => consortiumNodeView(deps, n))) } };
      return { body: { network: await networkView(deps, r.network), nodes: await Promise.all(r.nodes.map((n) => nodeView(deps, n))) } };
    },
  });
}
