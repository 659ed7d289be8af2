// Deploying an EVM contract: bytecode (constructor arguments by ABI or pre-encoded) signed by a
// key the service holds in a key provider (on a free-gas network it needs no funds; on a priced
// one it must hold enough, else a 400 says how to fund it), sent through a running node of the
// network, answered once the receipt is in, and recorded (stream evm-contract-<id>) so
// GET /networks/evm/{id}/contracts lists it and a template export carries it.
import { runCommand, type CommandInput } from '../commands.ts';
import { ConflictError, ValidationError } from '../../domain/shared/errors.ts';
import { DATABASE_PROVIDER_ID } from '../../domain/keyProviders/keyProviders.ts';
import { gasPricingOf } from '../../domain/evm/evmGenesis.ts';
import { contractNameIssues, evmContract, evmContractStream } from '../../domain/evm/evmContract.ts';
import { evmOf, networkOr404, nodeOr404, targetOf } from './evmContext.ts';
import { networkNodes } from './evmNodeCreate.ts';

export interface EvmContractDeployRequest {
  networkId?: number;
  name?: string;
  /** Node to send through (default: a running node of the network). */
  nodeId?: number;
  bytecode: string;
  abi?: unknown[];
  args?: unknown[];
  constructorArgs?: string;
  /** Address of a key the service holds for this network (default: its first validator key). */
  from?: string;
  gasLimit?: number;
  timeoutSeconds?: number;
}

export interface EvmContractDeployed {
  contractId: number;
  name: string;
  address: string;
  transactionHash: string;
  blockNumber: number;
  gasUsed: string;
  from: string;
  networkId: number;
  nodeId: number;
}

/** What a user of a priced network does to let a key deploy. */
export function fundingHint(networkName: string, address: string): string {
  return `Network ${networkName} is priced (min_gas_price above 0): fund ${address} by naming it in genesis.accounts with a balance, or with validatorBalance, when you create a network, or send it ether from a funded account of this network (a plain transfer). A network created without min_gas_price is free gas and needs no funds.`;
}

export async function deployEvmContract(input: CommandInput, req: EvmContractDeployRequest): Promise<EvmContractDeployed> {
  const { deps } = input;
  const networkId = req.networkId;
  if (networkId === undefined) throw new ValidationError('networkId is required.', [{ field: 'networkId', message: 'is required' }]);
  const nameIssues = req.name === undefined ? [] : contractNameIssues(req.name);
  if (nameIssues.length) throw new ValidationError(`Invalid contract name: ${nameIssues[0].message}.`, nameIssues);
  if (req.constructorArgs !== undefined && req.args !== undefined) throw new ValidationError('Send either args (with abi) or constructorArgs, not both.', [{ field: 'constructorArgs', message: 'conflicts with args' }]);
  const network = await networkOr404(deps, networkId);
  const keys = network.record.validators.filter((v) => v.keyHandle && v.publicKeyPem);
  const key = req.from ? keys.find((v) => v.address.toLowerCase() === req.from!.toLowerCase()) : keys[0];
  if (!key) {
    throw new ValidationError(req.from ? `The service holds no key for ${req.from} in network ${network.name}.` : `The service holds no key for network ${network.name} to deploy from.`, [{ field: 'from', message: 'must be the address of a key the service holds for this network' }]);
  }
  const node = req.nodeId !== undefined ? await nodeOr404(deps, req.nodeId) : (await networkNodes(input, network.id)).find((n) => n.status === 'running' && n.config.rpcHttpPort);
  if (!node || node.networkId !== network.id || node.status !== 'running') throw new ConflictError(`No running node of network ${network.name} to deploy through; start the network first.`, { networkId: network.id }, 'NO_RUNNING_NODE');
  const evm = evmOf(deps);
  const rpcUrl = evm.runtime.rpcUrl(targetOf(node, network));
  if (!rpcUrl) throw new ConflictError(`Node ${node.name} has no JSON-RPC endpoint.`);
  const r = await evm.contracts.deploy({
    rpcUrl, chainId: network.chainId, providerId: key.providerId ?? DATABASE_PROVIDER_ID, keyHandle: key.keyHandle!, publicKeyPem: key.publicKeyPem!, from: key.address,
    bytecode: req.bytecode, abi: req.abi ?? null, args: req.args ?? [], encodedArgs: req.constructorArgs ?? null,
    gasLimit: req.gasLimit ? BigInt(req.gasLimit) : null, timeoutMs: (req.timeoutSeconds ?? 120) * 1000,
    gas: gasPricingOf(network.record.settings, network.record.genesis),
    fundingHint: fundingHint(network.name, key.address),
  });
  const contractId = await deps.nextId('evm_contract');
  const name = req.name ?? `contract-${contractId}`;
  await runCommand(input, evmContractStream(contractId), evmContract, {
    type: 'RecordContractDeployed', contractId, networkId: network.id, name, address: r.address, abi: req.abi ?? null,
    bytecode: req.bytecode.startsWith('0x') ? req.bytecode : `0x${req.bytecode}`, args: req.abi && req.args ? req.args : null, constructorArgs: req.constructorArgs ?? null,
    transactionHash: r.transactionHash, blockNumber: r.blockNumber, from: r.from, nodeId: node.id, at: deps.clock().toISOString(),
  });
  return { contractId, name, address: r.address, transactionHash: r.transactionHash, blockNumber: r.blockNumber, gasUsed: r.gasUsed, from: r.from, networkId: network.id, nodeId: node.id };
}
