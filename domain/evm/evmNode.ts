// What an evm node is, as recorded in its NodeCreated event (stream node-<id>). Its lifecycle
// (start, stop, downtime, recovery, deletion) is the platform-neutral node aggregate of
// domain/nodes/node.ts.

export type EvmNodeRole = 'validator' | 'fullnode' | 'bootnode';

export interface EvmNodePorts {
  p2pPort: number;
  rpcHttpPort: number | null;
  rpcWsPort: number | null;
  metricsPort: number | null;
}

export interface EvmNodeConfig extends EvmNodePorts {
  isBootnode: boolean;
  /** The node host it runs on (docs/hosts.md); absent: the service's own machine. */
  hostId?: number;
  /** Where its ports are reached: its host's external address; absent: 127.0.0.1. */
  externalIp?: string;
}

export interface EvmNodeCreatedData {
  nodeId: number;
  name: string;
  platform: 'EVM';
  nodeType: 'EVM_FULLNODE';
  role: EvmNodeRole;
  networkId: number;
  client: 'besu' | 'anvil' | 'geth';
  engine: 'process' | 'docker';
  config: EvmNodeConfig;
  /** The validator this node signs as (its key stays in the key provider). */
  validatorAddress: string | null;
  resources: { cpu?: string; memory?: string } | null;
  at: string;
}
