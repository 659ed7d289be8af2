// Stopping or restarting a whole network (POST /networks/{id}/stop, /restart), for every
// platform whose network starts as a whole (evm, consortium). One event per operation, on the
// network's own operations stream (network-operations-<platform>-<id>): who asked, and the nodes
// in the order they start (they stop in the reverse order). Each node's own stop and start are
// the node's events (NodeStopRequested, NodeStartRequested, ...), as for a single node.
import { ConflictError } from '../shared/errors.ts';
import { assertNever, type Decider, type DomainEvent } from '../shared/decider.ts';

export type NetworkPlatform = 'evm' | 'consortium';

export const networkOperationsStream = (platform: NetworkPlatform, networkId: number) => `network-operations-${platform}-${networkId}`;

export interface NetworkOperationData {
  networkId: number;
  platform: NetworkPlatform;
  name: string;
  /** The network's nodes in start (dependency) order; a stop goes through them backwards. */
  nodeIds: number[];
  at: string;
}

export type NetworkOperationEvent = DomainEvent<'NetworkStopped', NetworkOperationData> | DomainEvent<'NetworkRestarted', NetworkOperationData>;

export type NetworkOperationCommand = ({ type: 'StopNetwork' } & NetworkOperationData) | ({ type: 'RestartNetwork' } & NetworkOperationData);

export interface NetworkOperationState {
  stops: number;
  restarts: number;
}

export const networkOperations: Decider<NetworkOperationState, NetworkOperationCommand, NetworkOperationEvent> = {
  initialState: () => ({ stops: 0, restarts: 0 }),
  evolve(state, e) {
    switch (e.type) {
      case 'NetworkStopped':
        return { ...state, stops: state.stops + 1 };
      case 'NetworkRestarted':
        return { ...state, restarts: state.restarts + 1 };
      default:
        return assertNever(e);
    }
  },
  decide(c) {
    const { type, ...data } = c;
    if (data.nodeIds.length === 0) {
      throw new ConflictError(`Network ${data.name} has no nodes to ${type === 'StopNetwork' ? 'stop' : 'restart'}.`, { networkId: data.networkId }, 'NO_NODES');
    }
    switch (type) {
      case 'StopNetwork':
        return [{ type: 'NetworkStopped', data }];
      case 'RestartNetwork':
        return [{ type: 'NetworkRestarted', data }];
      default:
        return assertNever(type);
    }
  },
};

/** The start order of a network's nodes: evm bootnodes, then validators, then the others;
 * consortium orderers before peers; otherwise by id. A stop goes through it backwards. */
export function startOrder<N extends { id: number; role: string; nodeType: string }>(nodes: N[]): N[] {
  const rank = (n: N) => {
    const t = `${n.role} ${n.nodeType}`.toLowerCase();
    if (t.includes('bootnode') || t.includes('orderer')) return 0;
    if (t.includes('validator')) return 1;
    return 2;
  };
  return [...nodes].sort((a, b) => rank(a) - rank(b) || a.id - b.id);
}
