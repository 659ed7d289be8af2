// Calling a contract deployed through the service (POST /sc/evm/contracts/{id}/query and
// /invoke): its recorded ABI encodes the function and arguments; a query runs it on a running
// node without a transaction (eth_call) and answers the decoded values; an invoke sends a
// transaction signed like a deployment, by a key the service holds for the network (default its
// first validator key), and answers once the receipt is in, with the events decoded. Nothing is
// recorded in the event store: the chain holds the transaction, the audit log the request.
import type { CommandInput } from '../commands.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../domain/shared/errors.ts';
import { DATABASE_PROVIDER_ID } from '../../domain/keyProviders/keyProviders.ts';
import { gasPricingOf } from '../../domain/evm/evmGenesis.ts';
import type { ContractInvokeResult, ContractQueryResult } from '../../domain/evm/evmPorts.ts';
import { getEvmContract, type EvmContractRow } from '../../projections/evm/evmContracts.ts';
import type { EvmNetworkRow } from '../../projections/evm/evmNetworks.ts';
import { evmOf, networkOr404, nodeOr404, targetOf } from './evmContext.ts';
import { networkNodes } from './evmNodeCreate.ts';
import { fundingHint } from './evmContractDeploy.ts';
import { evmContractRoutes } from './evmContractRoutes.ts';

export interface EvmContractCallRequest {
  /** A function name, or its signature when the name is overloaded. */
  function: string;
  args?: unknown[];
  /** Node to send through (default: a running node of the network). */
  nodeId?: number;
}

export interface EvmContractInvokeRequest extends EvmContractCallRequest {
  /** Address of a key the service holds for this network (default: its first validator key). */
  from?: string;
  gasLimit?: number;
  timeoutSeconds?: number;
}

interface Reached {
  contract: EvmContractRow;
  network: EvmNetworkRow;
  abi: unknown[];
  rpcUrl: string;
  nodeId: number;
}

/**
 * The contract, its ABI, and the JSON-RPC URL of a running node of its network: kept between
 * calls and forgotten when a node, network, contract or key event is projected
 * (evmContractRoutes.ts); a failed look-up is not kept.
 */
function reach(input: CommandInput, contractId: number, nodeId: number | undefined): Promise<Reached> {
  return evmContractRoutes(input.deps).get(`contract:${contractId}:${nodeId ?? ''}`, () => lookUp(input, contractId, nodeId));
}

async function lookUp(input: CommandInput, contractId: number, nodeId: number | undefined): Promise<Reached> {
  const { deps } = input;
  const contract = await getEvmContract(deps.pool, contractId);
  if (!contract) throw new NotFoundError('Contract', contractId);
  if (!contract.abi?.length) throw new ValidationError(`Contract ${contract.name} was deployed without an ABI, so its functions cannot be encoded.`, [{ field: 'contractId', message: 'deployed without an ABI' }]);
  const network = await networkOr404(deps, contract.networkId);
  const node = nodeId !== undefined ? await nodeOr404(deps, nodeId) : (await networkNodes(input, network.id)).find((n) => n.status === 'running' && n.config.rpcHttpPort);
  if (nodeId !== undefined && node?.networkId !== network.id) throw new ValidationError(`Node ${nodeId} is not a node of network ${network.name}.`, [{ field: 'nodeId', message: 'not a node of the contract\'s network' }]);
  if (!node || node.status !== 'running') throw new ConflictError(`No running node of network ${network.name} to call through; start the network first.`, { networkId: network.id }, 'NO_RUNNING_NODE');
  const rpcUrl = evmOf(deps).runtime.rpcUrl(targetOf(node, network));
  if (!rpcUrl) throw new ConflictError(`Node ${node.name} has no JSON-RPC endpoint.`);
  return { contract, network, abi: contract.abi, rpcUrl, nodeId: node.id };
}

export async function queryEvmContract(input: CommandInput, contractId: number, req: EvmContractCallRequest): Promise<ContractQueryResult & { contractId: number; address: string; nodeId: number }> {
  const r = await reach(input, contractId, req.nodeId);
  const answer = await evmOf(input.deps).contracts.query({ rpcUrl: r.rpcUrl, chainId: r.network.chainId, address: r.contract.address, abi: r.abi, function: req.function, args: req.args ?? [] });
  return { ...answer, contractId, address: r.contract.address, nodeId: r.nodeId };
}

export async function invokeEvmContract(input: CommandInput, contractId: number, req: EvmContractInvokeRequest): Promise<ContractInvokeResult & { contractId: number; address: string; nodeId: number }> {
  const r = await reach(input, contractId, req.nodeId);
  const keys = r.network.record.validators.filter((v) => v.keyHandle && v.publicKeyPem);
  const key = req.from ? keys.find((v) => v.address.toLowerCase() === req.from!.toLowerCase()) : keys[0];
  if (!key) {
    throw new ValidationError(req.from ? `The service holds no key for ${req.from} in network ${r.network.name}.` : `The service holds no key for network ${r.network.name} to sign with.`, [{ field: 'from', message: 'must be the address of a key the service holds for this network' }]);
  }
  const answer = await evmOf(input.deps).contracts.invoke({
    rpcUrl: r.rpcUrl, chainId: r.network.chainId, address: r.contract.address, abi: r.abi, function: req.function, args: req.args ?? [],
    providerId: key.providerId ?? DATABASE_PROVIDER_ID, keyHandle: key.keyHandle!, publicKeyPem: key.publicKeyPem!, from: key.address,
    gasLimit: req.gasLimit ? BigInt(req.gasLimit) : null, timeoutMs: (req.timeoutSeconds ?? 120) * 1000,
    gas: gasPricingOf(r.network.record.settings, r.network.record.genesis), fundingHint: fundingHint(r.network.name, key.address),
  });
  return { ...answer, contractId, address: r.contract.address, nodeId: r.nodeId };
}
