// Calling a contract deployed through the service (POST /sc/evm/contracts/{id}/query and
// /invoke), or one at an address whose ABI comes with the call (POST /sc/evm/query and
// /sc/evm/invoke: a contract deployed elsewhere, nothing recorded): its recorded ABI encodes the function and arguments; a query runs it on a running
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
  return { contract, network, abi: contract.abi, ...(await runningNode(input, network, nodeId)) };
}

/** The JSON-RPC URL of a running node of the network (the one named, or the first running); none is a 409 NO_RUNNING_NODE. */
export async function runningNode(input: CommandInput, network: EvmNetworkRow, nodeId: number | undefined): Promise<{ rpcUrl: string; nodeId: number }> {
  const { deps } = input;
  const node = nodeId !== undefined ? await nodeOr404(deps, nodeId) : (await networkNodes(input, network.id)).find((n) => n.status === 'running' && n.config.rpcHttpPort);
  if (nodeId !== undefined && node?.networkId !== network.id) throw new ValidationError(`Node ${nodeId} is not a node of network ${network.name}.`, [{ field: 'nodeId', message: 'not a node of this network' }]);
  if (!node || node.status !== 'running') throw new ConflictError(`No running node of network ${network.name} to reach it through; start the network first.`, { networkId: network.id }, 'NO_RUNNING_NODE');
  const rpcUrl = evmOf(deps).runtime.rpcUrl(targetOf(node, network));
  if (!rpcUrl) throw new ConflictError(`Node ${node.name} has no JSON-RPC endpoint.`);
  return { rpcUrl, nodeId: node.id };
}

/** A contract the service did not deploy: its network, address and ABI given with each call. */
export interface EvmContractAt {
  networkId: number;
  address: string;
  abi: unknown[];
}

/** The contract at an address with the ABI given (POST /sc/evm/query and /invoke): nothing is looked up but the network and a running node. */
async function reachAt(input: CommandInput, at: EvmContractAt, nodeId: number | undefined): Promise<Reached> {
  if (!/^0x[0-9a-fA-F]{40}$/.test(at.address)) throw new ValidationError(`${at.address} is not an address (0x and 40 hex digits).`, [{ field: 'address', message: 'an address: 0x and 40 hex digits' }]);
  if (!at.abi.length) throw new ValidationError('The ABI is empty: give the contract\'s JSON ABI (an array of its functions and events).', [{ field: 'abi', message: 'is empty' }]);
  const network = await networkOr404(input.deps, at.networkId);
  const contract = { id: 0, networkId: network.id, name: at.address, address: at.address, abi: at.abi } as EvmContractRow;
  return { contract, network, abi: at.abi, ...(await runningNode(input, network, nodeId)) };
}

const reached = (input: CommandInput, target: number | EvmContractAt, nodeId: number | undefined) => (typeof target === 'number' ? reach(input, target, nodeId) : reachAt(input, target, nodeId));

/** Run a function without a transaction: of a contract deployed through the service (its id), or of one at an address with the ABI given. */
export async function queryEvmContract(input: CommandInput, target: number | EvmContractAt, req: EvmContractCallRequest): Promise<ContractQueryResult & { contractId: number | null; address: string; nodeId: number }> {
  const r = await reached(input, target, req.nodeId);
  const contractId = typeof target === 'number' ? target : null;
  const answer = await evmOf(input.deps).contracts.query({ rpcUrl: r.rpcUrl, chainId: r.network.chainId, address: r.contract.address, abi: r.abi, function: req.function, args: req.args ?? [] });
  return { ...answer, contractId, address: r.contract.address, nodeId: r.nodeId };
}

/** Send a transaction calling a function: of a contract deployed through the service (its id), or of one at an address with the ABI given. */
export async function invokeEvmContract(input: CommandInput, target: number | EvmContractAt, req: EvmContractInvokeRequest): Promise<ContractInvokeResult & { contractId: number | null; address: string; nodeId: number }> {
  const r = await reached(input, target, req.nodeId);
  const contractId = typeof target === 'number' ? target : null;
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
