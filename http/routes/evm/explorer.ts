// The evm explorer and the node RPC gateway (issue 38): blocks newest first, a block, a
// transaction with its receipt and decoded logs, an account, a search
// (application/evm/evmExplorer.ts); and JSON-RPC reads forwarded to a running node
// (application/evm/evmRpcGateway.ts, which records a refused method as an AccessDenied event).
import { Type } from '@sinclair/typebox';
import { defineRoute, type RouteInput } from '../../route.ts';
import { Page, PageQuery, page, pageRequest } from '../../pagination.ts';
import { IdParam } from '../schemas.ts';
import { getEvmAccount, getEvmBlock, getEvmTransaction, listEvmBlocks, searchEvm } from '../../../application/evm/evmExplorer.ts';
import { forwardEvmRpc, RPC_GATEWAY_LIMITS } from '../../../application/evm/evmRpcGateway.ts';

const tags = ['evm explorer'];
const Str = Type.String();
const OptStr = Type.Union([Type.String(), Type.Null()]);
const OptInt = Type.Union([Type.Integer(), Type.Null()]);
const BlockFields = {
  number: Type.Integer(), hash: Str, parent_hash: Str, timestamp: Type.String({ description: 'ISO 8601' }), miner: Type.Union([Type.String(), Type.Null()], { description: 'the block\'s miner field; in a Clique block the address voted on (zero when none), not the sealer' }), sealer: Type.Union([Type.String(), Type.Null()], { description: 'Clique networks: the signer that sealed the block, recovered from its seal; null elsewhere and for block 0' }),
  gas_used: Type.Union([Type.String(), Type.Null()], { description: 'decimal' }), gas_limit: OptStr, base_fee_per_gas: Type.Union([Type.String(), Type.Null()], { description: 'decimal wei; null before London' }),
  size: OptInt, extra_data: Str, state_root: Str, transactions_root: Str, receipts_root: Str, transaction_count: Type.Integer(),
};
const BlockSummary = Type.Object(BlockFields);
const TxSummary = Type.Object({ hash: Str, from: OptStr, to: OptStr, value: Type.Union([Type.String(), Type.Null()], { description: 'decimal wei' }), nonce: OptInt, transaction_index: OptInt });
const BlockView = Type.Object({ ...BlockFields, confirmations: Type.Integer({ description: 'blocks above it' }), transactions: Type.Array(TxSummary) });
const Log = Type.Object({
  log_index: OptInt, address: OptStr,
  contract_id: Type.Union([Type.Integer(), Type.Null()], { description: 'the contract the service deployed at this address, when it did' }), contract_name: OptStr,
  name: Type.Union([Type.String(), Type.Null()], { description: 'the event, decoded with that contract\'s ABI; null when unknown' }),
  args: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]), topics: Type.Array(Str), data: Str,
});
const TxView = Type.Object({
  hash: Str, status: Type.Union([Type.Literal('success'), Type.Literal('reverted'), Type.Literal('pending')]), block_number: OptInt, block_hash: OptStr, transaction_index: OptInt,
  from: OptStr, to: OptStr, contract_address: OptStr, value: OptStr, nonce: OptInt, type: OptInt,
  gas: Type.Union([Type.String(), Type.Null()], { description: 'the gas limit given' }), gas_price: OptStr, gas_used: OptStr, effective_gas_price: OptStr, cumulative_gas_used: OptStr,
  input: Str,
  revert_reason: Type.Union([Type.String(), Type.Null()], { description: 'why a reverted transaction reverted, replayed as a call on the parent block\'s state and decoded with the ABI of the contract the service deployed at `to` (Error(string), a panic, a custom error); null otherwise' }),
  logs: Type.Array(Log),
});
const AccountView = Type.Object({
  address: Str, balance: Type.String({ description: 'decimal wei' }), nonce: Type.Integer(), code_size: Type.Integer({ description: 'bytes of code; 0 for an account without code' }),
  contract: Type.Union([Type.Object({ id: Type.Integer(), name: Str }), Type.Null()]),
  service_transactions: Type.Array(Type.Object({ transaction_hash: Str, block_number: Type.Integer(), kind: Type.Literal('deployment'), contract_id: Type.Integer(), contract_name: Str, from: Str, to: OptStr, contract_address: Str }), { description: 'transactions the service sent from or to this address that it recorded: its deployments (invokes are not recorded)' }),
});
const SearchView = Type.Object({
  q: Str, kind: Type.Union([Type.Literal('block'), Type.Literal('transaction'), Type.Literal('account'), Type.Literal('contract')]),
  id: Type.Union([Type.String(), Type.Integer()], { description: 'the block number, the transaction hash or the address' }), block_number: OptInt, path: Type.String({ description: 'where to read it, relative to /api/v1' }),
});
const noNode = { description: 'no running node of the network (NO_RUNNING_NODE)' };
const nodeDown = { description: 'the node did not answer' };

const RpcBody = Type.Unknown({ description: `a JSON-RPC 2.0 request object, or a batch (an array) of at most ${RPC_GATEWAY_LIMITS.maxBatch}` });
const rpcResponses = {
  200: { description: 'the node\'s JSON-RPC answer (the caller\'s ids); in a batch, a refused method is an error entry (code -32601, data.status 403, data.method) and an invalid entry a -32600' },
  204: { description: 'notifications only: nothing to answer' },
  400: { description: 'not a JSON-RPC request (malformed JSON, no jsonrpc "2.0", no method, an empty batch)' },
  403: { description: 'a single call of a method the gateway refuses (it signs, sends or administers): the message names the method; recorded as an AccessDenied event' },
  404: { description: 'no such network or node' },
  409: noNode,
  413: { description: `a batch of more than ${RPC_GATEWAY_LIMITS.maxBatch} calls` },
  502: { description: `the node's answer is larger than ${RPC_GATEWAY_LIMITS.maxResponseBytes} bytes (RPC_RESPONSE_TOO_LARGE) or not JSON-RPC` },
  503: nodeDown,
  504: { description: `the node gave no answer within ${RPC_GATEWAY_LIMITS.timeoutMs} ms (RPC_TIMEOUT)` },
};

async function gateway(input: RouteInput<unknown, unknown, unknown>, networkId: number, nodeId: number | undefined) {
  const r = await forwardEvmRpc(input, networkId, nodeId, input.body);
  return r.body === null ? { status: 204 } : { body: r.body };
}

export const evmExplorerRoutes = [
  defineRoute({
    method: 'get', path: '/networks/evm/:id/blocks', summary: 'Blocks of an evm network, newest first, read from its first running node', tags, permission: 'NETWORK_READ', params: IdParam,
    query: Type.Object(PageQuery, { additionalProperties: false }),
    responses: { 200: { description: 'a page of blocks; total is the head\'s number + 1', schema: Page(BlockSummary) }, 404: { description: 'no such network' }, 409: noNode, 503: nodeDown },
    async handler(input) {
      const { limit, offset } = pageRequest(input.deps.config, input.query);
      const r = await listEvmBlocks(input, input.params.id, { limit, offset });
      return { body: page(r.items, r.total, limit, offset) };
    },
  }),
  defineRoute({
    method: 'get', path: '/networks/evm/:id/blocks/:numberOrHash', summary: 'A block of an evm network by number or hash, with its transactions', tags, permission: 'NETWORK_READ',
    params: Type.Object({ id: Type.Integer({ minimum: 1 }), numberOrHash: Type.String({ minLength: 1, maxLength: 80, description: 'a block number (decimal or 0x hex) or a block hash' }) }, { additionalProperties: false }),
    responses: { 200: { description: 'the block', schema: BlockView }, 400: { description: 'numberOrHash is neither a block number nor a block hash' }, 404: { description: 'no such network or block' }, 409: noNode, 503: nodeDown },
    async handler(input) {
      return { body: await getEvmBlock(input, input.params.id, input.params.numberOrHash) };
    },
  }),
  defineRoute({
    method: 'get', path: '/networks/evm/:id/transactions/:hash', summary: 'A transaction of an evm network with its receipt: status, gas, logs decoded for the contracts the service deployed', tags, permission: 'NETWORK_READ',
    params: Type.Object({ id: Type.Integer({ minimum: 1 }), hash: Type.String({ minLength: 1, maxLength: 80, description: '0x and 64 hex digits' }) }, { additionalProperties: false }),
    responses: { 200: { description: 'the transaction', schema: TxView }, 400: { description: 'hash is not a transaction hash' }, 404: { description: 'no such network or transaction' }, 409: noNode, 503: nodeDown },
    async handler(input) {
      return { body: await getEvmTransaction(input, input.params.id, input.params.hash) };
    },
  }),
  defineRoute({
    method: 'get', path: '/networks/evm/:id/accounts/:address', summary: 'An account of an evm network: balance, nonce, code size, and the transactions the service sent from or to it', tags, permission: 'NETWORK_READ',
    params: Type.Object({ id: Type.Integer({ minimum: 1 }), address: Type.String({ minLength: 1, maxLength: 80, description: '0x and 40 hex digits' }) }, { additionalProperties: false }),
    responses: { 200: { description: 'the account', schema: AccountView }, 400: { description: 'address is not an address' }, 404: { description: 'no such network' }, 409: noNode, 503: nodeDown },
    async handler(input) {
      return { body: await getEvmAccount(input, input.params.id, input.params.address) };
    },
  }),
  defineRoute({
    method: 'get', path: '/networks/evm/:id/search', summary: 'What a block number, a block or transaction hash, or an address is on an evm network, and where to read it', tags, permission: 'NETWORK_READ', params: IdParam,
    query: Type.Object({ q: Type.String({ minLength: 1, maxLength: 80, description: 'a block number, a 0x hash of 64 hex digits or a 0x address of 40 hex digits' }) }, { additionalProperties: false }),
    responses: { 200: { description: 'what it is and its path', schema: SearchView }, 400: { description: 'q is none of these' }, 404: { description: 'no such network, or nothing with that number or hash' }, 409: noNode, 503: nodeDown },
    async handler(input) {
      return { body: await searchEvm(input, input.params.id, input.query.q) };
    },
  }),
  defineRoute({
    method: 'post', path: '/networks/evm/:id/rpc', summary: 'JSON-RPC gateway: reads forwarded to the first running node of the network; methods that sign, send or administer are refused', tags, permission: 'NETWORK_READ', params: IdParam,
    body: RpcBody, responses: rpcResponses,
    async handler(input) {
      return gateway(input, input.params.id, undefined);
    },
  }),
  defineRoute({
    method: 'post', path: '/networks/evm/:id/nodes/:nodeId/rpc', summary: 'JSON-RPC gateway to one node of the network: reads forwarded; methods that sign, send or administer are refused', tags, permission: 'NETWORK_READ',
    params: Type.Object({ id: Type.Integer({ minimum: 1 }), nodeId: Type.Integer({ minimum: 1 }) }, { additionalProperties: false }),
    body: RpcBody, responses: rpcResponses,
    async handler(input) {
      return gateway(input, input.params.id, input.params.nodeId);
    },
  }),
];
