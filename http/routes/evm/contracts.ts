// POST /sc/evm/deploy: deploys bytecode (constructor arguments by ABI or pre-encoded) from a
// key the service holds in a key provider (on a free-gas network it needs no funds; on a priced
// one it must hold enough, else a 400 says how to fund it), through a running node of the network, and
// answers once the receipt is in. Each deployment is recorded (stream evm-contract-<id>):
// GET /networks/evm/{id}/contracts lists them, and a template export carries them.
import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../route.ts';
import { ConflictError, ValidationError } from '../../../domain/shared/errors.ts';
import { evmOf, networkOr404, nodeOr404, targetOf } from '../../../application/evm/evmContext.ts';
import { networkNodes } from '../../../application/evm/evmNodeCreate.ts';
import { DATABASE_PROVIDER_ID } from '../../../domain/keyProviders/keyProviders.ts';
import { gasPricingOf } from '../../../domain/evm/evmGenesis.ts';
import { contractNameIssues, evmContract, evmContractStream } from '../../../domain/evm/evmContract.ts';
import { runCommand } from '../../../application/commands.ts';

const tags = ['smart contracts'];

/** What a user of a priced network does to let a key deploy. */
function fundingHint(networkName: string, address: string): string {
  return `Network ${networkName} is priced (min_gas_price above 0): fund ${address} by naming it in genesis.accounts with a balance, or with validatorBalance, when you create a network, or send it ether from a funded account of this network (a plain transfer). A network created without min_gas_price is free gas and needs no funds.`;
}

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
      const { deps, body } = input;
      const networkId = body.networkId ?? body.network_id;
      if (networkId === undefined) throw new ValidationError('networkId is required.', [{ field: 'networkId', message: 'is required' }]);
      const nameIssues = body.name === undefined ? [] : contractNameIssues(body.name);
      if (nameIssues.length) throw new ValidationError(`Invalid contract name: ${nameIssues[0].message}.`, nameIssues);
      if (body.constructorArgs !== undefined && body.args !== undefined) throw new ValidationError('Send either args (with abi) or constructorArgs, not both.', [{ field: 'constructorArgs', message: 'conflicts with args' }]);
      const network = await networkOr404(deps, networkId);
      const keys = network.record.validators.filter((v) => v.keyHandle && v.publicKeyPem);
      const key = body.from ? keys.find((v) => v.address.toLowerCase() === body.from!.toLowerCase()) : keys[0];
      if (!key) {
        throw new ValidationError(body.from ? `The service holds no key for ${body.from} in network ${network.name}.` : `The service holds no key for network ${network.name} to deploy from.`, [{ field: 'from', message: 'must be the address of a key the service holds for this network' }]);
      }
      const node = body.nodeId !== undefined ? await nodeOr404(deps, body.nodeId) : (await networkNodes({ deps } as never, network.id)).find((n) => n.status === 'running' && n.config.rpcHttpPort);
      if (!node || node.networkId !== network.id || node.status !== 'running') throw new ConflictError(`No running node of network ${network.name} to deploy through; start the network first.`, { networkId: network.id }, 'NO_RUNNING_NODE');
      const evm = evmOf(deps);
      const rpcUrl = evm.runtime.rpcUrl(targetOf(node, network));
      if (!rpcUrl) throw new ConflictError(`Node ${node.name} has no JSON-RPC endpoint.`);
      const r = await evm.contracts.deploy({
        rpcUrl, chainId: network.chainId, providerId: key.providerId ?? DATABASE_PROVIDER_ID, keyHandle: key.keyHandle!, publicKeyPem: key.publicKeyPem!, from: key.address,
        bytecode: body.bytecode, abi: body.abi ?? null, args: body.args ?? [], encodedArgs: body.constructorArgs ?? null,
        gasLimit: body.gasLimit ? BigInt(body.gasLimit) : null, timeoutMs: (body.timeoutSeconds ?? 120) * 1000,
        gas: gasPricingOf(network.record.settings, network.record.genesis),
        fundingHint: fundingHint(network.name, key.address),
      });
      const contractId = await deps.nextId('evm_contract');
      const name = body.name ?? `contract-${contractId}`;
      await runCommand(input, evmContractStream(contractId), evmContract, {
        type: 'RecordContractDeployed', contractId, networkId: network.id, name, address: r.address, abi: body.abi ?? null,
        bytecode: body.bytecode.startsWith('0x') ? body.bytecode : `0x${body.bytecode}`, args: body.abi && body.args ? body.args : null, constructorArgs: body.constructorArgs ?? null,
        transactionHash: r.transactionHash, blockNumber: r.blockNumber, from: r.from, nodeId: node.id, at: deps.clock().toISOString(),
      });
      return { body: { contract_id: contractId, name, address: r.address, transaction_hash: r.transactionHash, block_number: r.blockNumber, gas_used: r.gasUsed, from: r.from, network_id: network.id, node_id: node.id } };
    },
  }),
];
