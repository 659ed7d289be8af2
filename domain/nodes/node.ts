// One node of any platform as an aggregate (stream node-<id>): its record and its lifecycle.
// Routes ask (StartNode, StopNode, RestartNode); the lifecycle saga does the engine work and
// records what happened (RecordNodeStarted, RecordNodeStartFailed, RecordNodeStopped); the
// health monitor records NodeDowntime / NodeRecovered. A node is never "running" unless an
// engine reported it started. What a node is differs per platform (domain/evm/evmNode.ts,
// domain/consortium/consortiumNode.ts); how it lives does not.
import { ConflictError, NotFoundError } from '../shared/errors.ts';
import { assertNever, type Decider, type DomainEvent } from '../shared/decider.ts';
import type { NodeConfig, NodeRecord } from './nodeRecord.ts';

export type NodeStatus = 'created' | 'starting' | 'running' | 'stopping' | 'stopped' | 'error' | 'down';

type Named<C> = C & { name: string };

export type NodeEvent =
  | DomainEvent<'NodeCreated', NodeRecord>
  | DomainEvent<'NodeStartRequested', { nodeId: number; name: string; restart: boolean; /** Asked while stopping, failed or down: whatever still runs is stopped before the start. */ stopFirst?: boolean; at: string }>
  | DomainEvent<'NodeStarted', { nodeId: number; name: string; pid: number | null; containerId: string | null; startedAt: string; at: string }>
  | DomainEvent<'NodeStartFailed', { nodeId: number; name: string; reason: string; failure: string; at: string }>
  | DomainEvent<'NodeStopRequested', { nodeId: number; name: string; at: string }>
  | DomainEvent<'NodeStopped', { nodeId: number; name: string; at: string }>
  | DomainEvent<'NodeConfigChanged', { nodeId: number; name: string; before: Named<NodeConfig>; after: Named<NodeConfig>; at: string }>
  | DomainEvent<'NodeDeleted', { nodeId: number; name: string; networkId: number | null; platform?: NodeRecord['platform']; /** A node on a Kubernetes cluster: its claim (ledger volume) kept, or deleted as the operator asked (deleteVolume=true). */ volume?: 'kept' | 'deleted'; at: string }>
  | DomainEvent<'NodeDowntime', { nodeId: number; nodeName: string; nodeType: string; lastHealthyAt: string | null; consecutiveFailures: number; reason: string; at: string }>
  | DomainEvent<'NodeRecovered', { nodeId: number; nodeName: string; nodeType: string; downSince: string | null; at: string }>;

export type NodeCommand =
  | ({ type: 'CreateNode' } & NodeRecord)
  | { type: 'StartNode'; nodeId: number; restart?: boolean; at: string }
  | { type: 'RecordNodeStarted'; nodeId: number; pid: number | null; containerId: string | null; startedAt: string; at: string }
  | { type: 'RecordNodeStartFailed'; nodeId: number; reason: string; failure: string; at: string }
  | { type: 'StopNode'; nodeId: number; at: string }
  | { type: 'RecordNodeStopped'; nodeId: number; at: string }
  | { type: 'UpdateNodeConfig'; nodeId: number; name?: string; config: Partial<NodeConfig>; at: string }
  | { type: 'DeleteNode'; nodeId: number; volume?: 'kept' | 'deleted'; at: string }
  | { type: 'RecordNodeDown'; nodeId: number; lastHealthyAt: string | null; consecutiveFailures: number; reason: string; at: string }
  | { type: 'RecordNodeRecovered'; nodeId: number; at: string };

export interface NodeState {
  node: NodeRecord | null;
  status: NodeStatus;
  deleted: boolean;
  downSince: string | null;
}

export const nodeStream = (nodeId: number) => `node-${nodeId}`;
/** Engine key of a node: its directory and container name. */
export const nodeKey = (nodeId: number) => `node-${nodeId}`;

function existing(state: NodeState, nodeId: number): NodeRecord {
  if (!state.node || state.deleted) throw new NotFoundError('Node', nodeId);
  return state.node;
}

export const nodeAggregate: Decider<NodeState, NodeCommand, NodeEvent> = {
  initialState: () => ({ node: null, status: 'created', deleted: false, downSince: null }),

  evolve(state, e) {
    switch (e.type) {
      case 'NodeCreated':
        return { ...state, node: e.data, status: 'created' };
      case 'NodeStartRequested':
        return { ...state, status: 'starting' };
      case 'NodeStarted':
        return { ...state, status: 'running' };
      case 'NodeStartFailed':
        return { ...state, status: 'error' };
      case 'NodeStopRequested':
        return { ...state, status: 'stopping' };
      case 'NodeStopped':
        return { ...state, status: 'stopped' };
      case 'NodeConfigChanged': {
        const { name, ...config } = e.data.after;
        return { ...state, node: state.node && ({ ...state.node, name, config } as NodeRecord) };
      }
      case 'NodeDeleted':
        return { ...state, deleted: true };
      case 'NodeDowntime':
        return { ...state, status: 'down', downSince: e.data.at };
      case 'NodeRecovered':
        return { ...state, status: state.status === 'down' ? 'running' : state.status, downSince: null };
      default:
        return assertNever(e);
    }
  },

  decide(c, state) {
    switch (c.type) {
      case 'CreateNode': {
        if (state.node) throw new ConflictError(`Node ${c.nodeId} already exists.`);
        const { type: _t, ...data } = c;
        return [{ type: 'NodeCreated', data: data as NodeRecord }];
      }
      case 'StartNode': {
        const n = existing(state, c.nodeId);
        if (!c.restart && (state.status === 'running' || state.status === 'starting')) return [];
        // A start asked while a stop is still to be carried out, or after a failure or a downtime
        // that may have left the process behind, stops what runs first: the lifecycle saga then
        // never starts a second process beside the first (whose port it holds), and what is
        // recorded agrees with what runs.
        const stopFirst = state.status === 'stopping' || state.status === 'error' || state.status === 'down';
        return [{ type: 'NodeStartRequested', data: { nodeId: n.nodeId, name: n.name, restart: c.restart ?? false, ...(stopFirst ? { stopFirst } : {}), at: c.at } }];
      }
      case 'RecordNodeStarted': {
        const n = existing(state, c.nodeId);
        // A stop or delete asked meanwhile wins: the saga will stop what it started.
        if (state.status !== 'starting') return [];
        return [{ type: 'NodeStarted', data: { nodeId: n.nodeId, name: n.name, pid: c.pid, containerId: c.containerId, startedAt: c.startedAt, at: c.at } }];
      }
      case 'RecordNodeStartFailed': {
        const n = existing(state, c.nodeId);
        if (state.status !== 'starting') return [];
        return [{ type: 'NodeStartFailed', data: { nodeId: n.nodeId, name: n.name, reason: c.reason, failure: c.failure, at: c.at } }];
      }
      case 'StopNode': {
        const n = existing(state, c.nodeId);
        if (state.status === 'stopped' || state.status === 'stopping') return [];
        return [{ type: 'NodeStopRequested', data: { nodeId: n.nodeId, name: n.name, at: c.at } }];
      }
      case 'RecordNodeStopped': {
        const n = existing(state, c.nodeId);
        if (state.status !== 'stopping') return [];
        return [{ type: 'NodeStopped', data: { nodeId: n.nodeId, name: n.name, at: c.at } }];
      }
      case 'UpdateNodeConfig': {
        const n = existing(state, c.nodeId);
        if (state.status === 'running' || state.status === 'starting') {
          throw new ConflictError(`Node ${n.name} is ${state.status}; stop it before changing its configuration.`);
        }
        const before = { name: n.name, ...n.config } as Named<NodeConfig>;
        const after = { ...before, ...Object.fromEntries(Object.entries(c.config).filter(([, v]) => v !== undefined)), name: c.name ?? n.name } as Named<NodeConfig>;
        if (JSON.stringify(before) === JSON.stringify(after)) return [];
        return [{ type: 'NodeConfigChanged', data: { nodeId: n.nodeId, name: after.name, before, after, at: c.at } }];
      }
      case 'DeleteNode': {
        const n = existing(state, c.nodeId);
        return [{ type: 'NodeDeleted', data: { nodeId: n.nodeId, name: n.name, networkId: n.networkId, platform: n.platform, ...(c.volume ? { volume: c.volume } : {}), at: c.at } }];
      }
      case 'RecordNodeDown': {
        const n = existing(state, c.nodeId);
        if (state.status !== 'running' || state.downSince !== null) return [];
        return [{ type: 'NodeDowntime', data: { nodeId: n.nodeId, nodeName: n.name, nodeType: n.nodeType, lastHealthyAt: c.lastHealthyAt, consecutiveFailures: c.consecutiveFailures, reason: c.reason, at: c.at } }];
      }
      case 'RecordNodeRecovered': {
        const n = existing(state, c.nodeId);
        // Also after a restart of a node that went down: the recovery is what was awaited.
        if (state.downSince === null || (state.status !== 'down' && state.status !== 'running')) return [];
        return [{ type: 'NodeRecovered', data: { nodeId: n.nodeId, nodeName: n.name, nodeType: n.nodeType, downSince: state.downSince, at: c.at } }];
      }
      default:
        return assertNever(c);
    }
  },
};
