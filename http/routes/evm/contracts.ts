// POST /sc/evm/deploy: validates the body, deploys through application/evm/evmContractDeploy.ts
// (a key the service holds, a running node of the network, the deployment recorded) and shapes
// the answer.
import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../route.ts';
import { deployEvmContract } from '../../../application/evm/evmContractDeploy.ts';

const tags = ['smart contracts'];

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
];
