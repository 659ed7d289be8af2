// POST /sc/evm/deploy: validates the body, deploys through application/evm/evmContractDeploy.ts
// (a key the service holds, a running node of the network, the deployment recorded) and shapes
// the answer. Calls (application/evm/evmContractCall.ts): a contract deployed through the service
// by its id (/sc/evm/contracts/{id}/query, /invoke), or any contract at an address of a network
// with its ABI given in the call (/sc/evm/query, /sc/evm/invoke; nothing recorded).
import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../route.ts';
import { deployEvmContract } from '../../../application/evm/evmContractDeploy.ts';
import { invokeEvmContract, queryEvmContract } from '../../../application/evm/evmContractCall.ts';

const tags = ['smart contracts'];
const ContractParam = Type.Object({ contractId: Type.Integer({ minimum: 1, description: 'a contract id of GET /networks/evm/{id}/contracts' }) }, { additionalProperties: false });
const CallFields = {
  function: Type.String({ minLength: 1, maxLength: 1000, description: 'a function of the contract\'s recorded ABI: its name, or its signature (e.g. "set(uint256)") when the name is overloaded' }),
  args: Type.Optional(Type.Array(Type.Unknown(), { maxItems: 100, description: 'the function\'s arguments in order, encoded with the ABI (integers as numbers or decimal strings, addresses and bytes as hex, tuples as arrays)' })),
  nodeId: Type.Optional(Type.Integer({ minimum: 1, description: 'node of the contract\'s network to call through (default: a running node of the network)' })),
};
const Events = Type.Array(Type.Object({
  name: Type.Union([Type.String(), Type.Null()], { description: 'the event, when the ABI describes it' }),
  args: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  topics: Type.Array(Type.String()),
  data: Type.String(),
}));

const AtFields = {
  networkId: Type.Integer({ minimum: 1, description: 'the evm network the contract lives on' }),
  address: Type.String({ maxLength: 42, description: 'the contract\'s address, 0x and 40 hex digits' }),
  abi: Type.Array(Type.Unknown(), { minItems: 1, maxItems: 2000, description: 'the contract\'s JSON ABI (an array of its functions and events), used for this call only: nothing is recorded' }),
};
const InvokeFields = {
  from: Type.Optional(Type.String({ maxLength: 42, description: 'address of a key the service holds for this network (default: its first validator key)' })),
  gasLimit: Type.Optional(Type.Integer({ minimum: 21000, maximum: 1_000_000_000 })),
  timeoutSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 600, default: 120 })),
};
const QueryAnswer = Type.Object({ contract_id: Type.Union([Type.Integer(), Type.Null()], { description: 'null for a contract called at an address (POST /sc/evm/query)' }), address: Type.String(), node_id: Type.Integer(), function: Type.String({ description: 'the signature called' }), result: Type.Array(Type.Unknown(), { description: 'return values in order (integers as decimal strings)' }), raw: Type.String({ description: 'return data, hex' }) });
const InvokeAnswer = Type.Object({ contract_id: Type.Union([Type.Integer(), Type.Null()], { description: 'null for a contract called at an address (POST /sc/evm/invoke)' }), address: Type.String(), node_id: Type.Integer(), function: Type.String(), transaction_hash: Type.String(), block_number: Type.Integer(), gas_used: Type.String(), from: Type.String(), events: Events });
const queryBody = (r: Awaited<ReturnType<typeof queryEvmContract>>) => ({ contract_id: r.contractId, address: r.address, node_id: r.nodeId, function: r.signature, result: r.result, raw: r.raw });
const invokeBody = (r: Awaited<ReturnType<typeof invokeEvmContract>>) => ({ contract_id: r.contractId, address: r.address, node_id: r.nodeId, function: r.signature, transaction_hash: r.transactionHash, block_number: r.blockNumber, gas_used: r.gasUsed, from: r.from, events: r.events });

export const contractRoutes = [
  defineRoute({
    method: 'post', path: '/sc/evm/deploy', summary: 'Deploy an EVM contract, signed by a key held in a key provider', tags, permission: 'CONTRACT_DEPLOY',
    body: Type.Object({
      networkId: Type.Optional(Type.Integer({ minimum: 1 })),
      network_id: Type.Optional(Type.Integer({ minimum: 1 })),
      name: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'what the contract is called in GET /networks/evm/{id}/contracts and in template exports (letters, digits, ".", "_", "-"); default contract-<id>' })),
      nodeId: Type.Optional(Type.Integer({ minimum: 1, description: 'node to send through (default: a running node of the network)' })),
      bytecode: Type.String({ minLength: 2, maxLength: 2_000_000, description: 'creation bytecode, hex' }),
      abi: Type.Optional(Type.Array(Type.Unknown(), { description: 'ABI (JSON) for encoding args' })),
      args: Type.Optional(Type.Array(Type.Unknown(), { description: 'constructor arguments, encoded with the ABI' })),
      constructorArgs: Type.Optional(Type.String({ description: 'pre-encoded constructor arguments, hex' })),
      from: Type.Optional(Type.String({ description: 'address of a key the service holds for this network (default: its first validator key)' })),
      gasLimit: Type.Optional(Type.Integer({ minimum: 21000 })),
      timeoutSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 600, default: 120 })),
    }, { additionalProperties: false }),
    responses: { 200: { description: 'deployed and recorded: contract id, name, address, transaction hash, block number' }, 400: { description: 'invalid bytecode or arguments, unknown key, or (priced network only) a key without enough funds: the message says how to fund it (genesis.accounts, validatorBalance or a transfer)' }, 409: { description: 'no running node' } },
    async handler(input) {
      const { network_id, ...body } = input.body;
      const r = await deployEvmContract(input, { ...body, networkId: body.networkId ?? network_id });
      return { body: { contract_id: r.contractId, name: r.name, address: r.address, transaction_hash: r.transactionHash, block_number: r.blockNumber, gas_used: r.gasUsed, from: r.from, network_id: r.networkId, node_id: r.nodeId } };
    },
  }),
  defineRoute({
    method: 'post', path: '/sc/evm/contracts/:contractId/query', summary: 'Run a function of a deployed contract without a transaction (eth_call) and answer its decoded return values', tags, permission: 'CONTRACT_INVOKE',
    params: ContractParam,
    body: Type.Object(CallFields, { additionalProperties: false }),
    responses: {
      200: { description: 'the decoded answer', schema: QueryAnswer },
      400: { description: 'no such function in the ABI, arguments that do not match it, a contract deployed without an ABI, or the call reverted (with its reason)' },
      404: { description: 'no such contract' },
      409: { description: 'no running node of the network' },
    },
    async handler(input) {
      return { body: queryBody(await queryEvmContract(input, input.params.contractId, input.body)) };
    },
  }),
  defineRoute({
    method: 'post', path: '/sc/evm/contracts/:contractId/invoke', summary: 'Send a transaction calling a function of a deployed contract, signed by a key held in a key provider; answers once the receipt is in', tags, permission: 'CONTRACT_INVOKE',
    params: ContractParam,
    body: Type.Object({
      ...CallFields,
      ...InvokeFields,
    }, { additionalProperties: false }),
    responses: {
      200: { description: 'mined: transaction hash, block, gas used, the events emitted', schema: InvokeAnswer },
      400: { description: 'no such function, arguments that do not match the ABI, an unknown key, not enough funds (priced network), or the transaction reverted (with its reason)' },
      404: { description: 'no such contract' },
      409: { description: 'no running node of the network' },
    },
    async handler(input) {
      return { body: invokeBody(await invokeEvmContract(input, input.params.contractId, input.body)) };
    },
  }),
  defineRoute({
    method: 'post', path: '/sc/evm/query', summary: 'Run a function of any contract at an address of an evm network, with its ABI given, without a transaction (eth_call); nothing is recorded', tags, permission: 'CONTRACT_INVOKE',
    body: Type.Object({ ...AtFields, ...CallFields, nodeId: CallFields.nodeId }, { additionalProperties: false }),
    responses: {
      200: { description: 'the decoded answer (contract_id null)', schema: QueryAnswer },
      400: { description: 'not an address, an ABI that cannot be read, no such function in it, arguments that do not match it, or the call reverted (with its reason)' },
      404: { description: 'no such network' },
      409: { description: 'no running node of the network' },
    },
    async handler(input) {
      const { networkId, address, abi, ...call } = input.body;
      return { body: queryBody(await queryEvmContract(input, { networkId, address, abi }, call)) };
    },
  }),
  defineRoute({
    method: 'post', path: '/sc/evm/invoke', summary: 'Send a transaction calling a function of any contract at an address of an evm network, with its ABI given, signed by a key held in a key provider; nothing is recorded', tags, permission: 'CONTRACT_INVOKE',
    body: Type.Object({ ...AtFields, ...CallFields, ...InvokeFields }, { additionalProperties: false }),
    responses: {
      200: { description: 'mined: transaction hash, block, gas used, the events emitted (contract_id null)', schema: InvokeAnswer },
      400: { description: 'not an address, an ABI that cannot be read, no such function, arguments that do not match the ABI, an unknown key, not enough funds (priced network), or the transaction reverted (with its reason)' },
      404: { description: 'no such network' },
      409: { description: 'no running node of the network' },
    },
    async handler(input) {
      const { networkId, address, abi, ...call } = input.body;
      return { body: invokeBody(await invokeEvmContract(input, { networkId, address, abi }, call)) };
    },
  }),
];
