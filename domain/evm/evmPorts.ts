// What the evm routes and sagas need from the outside world, named for the domain. The
// composition root wires adapters/evm/evmNodeRuntime.ts and evmContractDeployer.ts
// into these. Validator keys are ordinary keys (/keys, purpose VALIDATOR) made through the key
// services of the network's key provider.
import type { LogFollower, NodeEngineKind, NodeStatus } from '../nodes/nodeEngine.ts';
import type { EvmNodeCreatedData } from './evmNode.ts';
import type { EvmNetworkCreatedData } from './evmNetwork.ts';

/** A node as the runtime needs it: its record, its network's, and the network's other nodes. */
export interface EvmNodeTarget {
  node: EvmNodeCreatedData;
  network: EvmNetworkCreatedData;
  /**
   * The network's other (not deleted) nodes: start wires the besu bootnodes from them. Targets
   * built only to read a node (RPC URL, live figures, votes) may leave it empty.
   */
  peers: EvmNodeCreatedData[];
}

export interface EvmNodeLive {
  /** null for a node without JSON-RPC (a besu bootnode), whose liveness is its open P2P port. */
  blockHeight: number | null;
  peerCount: number | null;
}

export interface EvmNodeRuntime {
  /** Engines this server can use now (process always; docker when an engine answers). */
  engineAvailable(kind: NodeEngineKind): Promise<{ ok: true } | { ok: false; reason: string }>;
  /** Whether a besu binary (process) or image (docker) is present. */
  besuAvailable(engine: NodeEngineKind): Promise<boolean>;
  /** Whether geth can run nodes on this engine: process, the program (LNM_GETH_BIN, else PATH); docker, its image (lnm-geth:local) on the local engine. */
  gethAvailable(engine: NodeEngineKind): Promise<boolean>;
  /** Of these host ports, the ones something already listens on. */
  portsInUse(ports: number[]): Promise<number[]>;
  /** Writes config and key material, then starts; throws NodeStartFailedError with the reason. */
  start(target: EvmNodeTarget): Promise<{ pid: number | null; containerId: string | null; startedAt: string }>;
  /** Restarts the running node in place (its engine's restart, e.g. a cluster's rolling restart), else stops and starts it. */
  restart?(target: EvmNodeTarget): Promise<{ pid: number | null; containerId: string | null; startedAt: string }>;
  stop(target: EvmNodeTarget): Promise<void>;
  remove(target: EvmNodeTarget, opts?: { deleteVolume?: boolean }): Promise<void>;
  status(target: EvmNodeTarget): Promise<NodeStatus>;
  /** Live figures from the node's JSON-RPC (a node without one: its P2P port); throws when it does not answer. */
  live(target: EvmNodeTarget, timeoutMs?: number): Promise<EvmNodeLive>;
  rpcUrl(target: EvmNodeTarget): string | null;
  /** The node's enode URL (besu); null for anvil, or while its node key does not exist yet. */
  enode(target: EvmNodeTarget): Promise<string | null>;
  logs(target: EvmNodeTarget, tail: number): Promise<string[]>;
  followLogs(target: EvmNodeTarget, onLine: (line: string) => void, tail: number): Promise<LogFollower>;
  /** The chain's own view of its validators (BFT clients); null when the client has no such API. */
  chainValidators(target: EvmNodeTarget): Promise<string[] | null>;
  /** Casts (propose) or withdraws (discard) this node's vote on a validator through qbft_/ibft_ JSON-RPC; false when the node did not record it. */
  validatorVote(target: EvmNodeTarget, action: 'propose' | 'discard', address: string, add: boolean): Promise<boolean>;
  /** This node's pending votes: address -> true (add) / false (remove). */
  pendingVotes(target: EvmNodeTarget): Promise<Record<string, boolean>>;
  /** Hash of block 0 as the running node reports it. */
  genesisHash(target: EvmNodeTarget): Promise<string>;
}

export interface ContractDeployRequest {
  rpcUrl: string;
  chainId: number;
  /** The key provider holding the deployer key (it signs; the key never leaves it). */
  providerId: number;
  keyHandle: string;
  publicKeyPem: string;
  from: string;
  bytecode: string;
  abi: unknown[] | null;
  args: unknown[];
  /** Pre-encoded constructor arguments (hex), appended to the bytecode. */
  encodedArgs: string | null;
  gasLimit: bigint | null;
  timeoutMs: number;
  /** The network's gas model: free gas sends gas price 0; priced pays at least its min_gas_price. */
  gas: { free: boolean; minGasPrice: bigint };
  /** Said in the "not enough funds" answer: how this network's deploying key can be funded. */
  fundingHint: string;
}

export interface ContractDeployResult {
  address: string;
  transactionHash: string;
  blockNumber: number;
  gasUsed: string;
  from: string;
}

/** A function of a deployed contract, encoded with its ABI. */
export interface ContractCallRequest {
  rpcUrl: string;
  chainId: number;
  address: string;
  abi: unknown[];
  /** A function name, or its signature ("set(uint256)") when the name is overloaded. */
  function: string;
  args: unknown[];
}

export interface ContractQueryResult {
  /** The function's signature, e.g. get(). */
  signature: string;
  /** Decoded return values as JSON (integers as decimal strings, bytes and addresses as hex). */
  result: unknown[];
  /** The raw return data, hex. */
  raw: string;
}

/** A transaction to a contract, signed like a deployment by a key the service holds. */
export interface ContractInvokeRequest extends ContractCallRequest {
  providerId: number;
  keyHandle: string;
  publicKeyPem: string;
  from: string;
  gasLimit: bigint | null;
  timeoutMs: number;
  gas: { free: boolean; minGasPrice: bigint };
  fundingHint: string;
}

export interface ContractInvokeResult {
  signature: string;
  transactionHash: string;
  blockNumber: number;
  gasUsed: string;
  from: string;
  /** Events the contract emitted, decoded with its ABI (unknown ones as topics and data). */
  events: Array<{ name: string | null; args: Record<string, unknown> | null; topics: string[]; data: string }>;
}

export interface EvmContractDeployer {
  deploy(req: ContractDeployRequest): Promise<ContractDeployResult>;
  /** Runs a function without a transaction (eth_call): its decoded return values; a revert is a 400 with the reason. */
  query(req: ContractCallRequest): Promise<ContractQueryResult>;
  /** Sends a transaction calling a function and waits for its receipt; a revert is a 400 with the reason. */
  invoke(req: ContractInvokeRequest): Promise<ContractInvokeResult>;
}

export interface EvmDefaults {
  engine: NodeEngineKind;
  client: 'auto' | 'besu' | 'anvil' | 'geth';
}

/**
 * JSON-RPC to a node as it is, for the explorer's reads (application/evm/evmExplorer.ts) and the
 * RPC gateway (application/evm/evmRpcGateway.ts). Errors say what happened, never the URL:
 * UnavailableError (503) for a node that cannot be reached, an AppError 502 EVM_RPC_ERROR for an
 * error the node answered, 504 RPC_TIMEOUT for no answer in time, 502 RPC_RESPONSE_TOO_LARGE for
 * an answer above maxBytes (read no further).
 */
export interface EvmRpcPort {
  call<T>(rpcUrl: string, method: string, params: unknown[], timeoutMs: number): Promise<T>;
  /** A JSON-RPC request body sent as it is: the node's HTTP status and answer text. */
  forward(rpcUrl: string, body: string, opts: { timeoutMs: number; maxBytes: number }): Promise<{ status: number; text: string }>;
}

export interface EvmDeps {
  runtime: EvmNodeRuntime;
  contracts: EvmContractDeployer;
  rpc: EvmRpcPort;
  defaults: EvmDefaults;
}
