// Health monitor: one durable timer per started node probes it every
// nodeHealthCheckIntervalSeconds (engine status, then eth_blockNumber over JSON-RPC). After
// nodeDowntimeThreshold consecutive failed probes it records NodeDowntime (node.downtime);
// an engine that saw the process or container end is believed at once, so a node killed from
// outside is down within one interval. The first healthy probe after that records
// NodeRecovered (node.recovery). Failure counts travel in the timer's payload, so a restart
// of the service keeps them. Every probe's reading (status, block height, peer count, time) goes
// to the NodeObservations cache, not the event store: node lists answer from it. The ledger
// figures (a Fabric node's /metrics, a ledgerX group's height: a request of their own) are read
// at most every nodeReadingIntervalSeconds; a probe in between asks for health alone and records
// the last reading's figures again.
// The node's state (its record, status, down since) is read from its stream once and kept between
// probes: every event of the node's stream reaches this saga (it handles them all) and drops it,
// as does an event the saga records itself, so the probe after a change reads the stream again.
// Between an append and its delivery to the saga (the store's notification, a few milliseconds)
// a probe may still use the state from before; what it records (down, recovered) is decided again
// on the stream itself (handleCommand), and the timers are started and stopped by those events.
import type { EventStore } from '../domain/shared/eventStore.ts';
import { handleCommand, loadState } from '../domain/shared/commandHandler.ts';
import { nodeAggregate, nodeStream, type NodeCommand, type NodeEvent, type NodeState } from '../domain/nodes/node.ts';
import type { NodeOperationsFor, NodeReading } from '../domain/nodes/nodeOperations.ts';
import type { NodeObservations } from '../domain/nodes/nodeObservations.ts';
import type { Saga, SagaContext, SagaTimer } from './saga.ts';
import { sagaEventId } from './sagaRunner.ts';

const NAME = 'node-health';
const timerId = (nodeId: number) => `node-health-${nodeId}`;
// Every event type of a node's stream (a Record, so a type added to NodeEvent must be added here).
const NODE_EVENTS: Record<NodeEvent['type'], true> = {
  NodeCreated: true, NodeStartRequested: true, NodeStarted: true, NodeStartFailed: true, NodeStopRequested: true,
  NodeStopped: true, NodeConfigChanged: true, NodeDeleted: true, NodeDowntime: true, NodeRecovered: true,
};
const STOPS = new Set(['NodeStopRequested', 'NodeStopped', 'NodeDeleted']);

export interface HealthSettings {
  intervalSeconds: number;
  threshold: number;
  /** Ledger figures (block height, peers) read at most this often; absent: at every probe. */
  readingSeconds?: number;
}

export function nodeHealthSaga(store: EventStore, operationsFor: NodeOperationsFor, settings: () => Promise<HealthSettings>, observations?: NodeObservations): Saga {
  // Each node's state as last read from its stream, and how often it was dropped (a read that
  // overlaps a drop is not kept).
  const known = new Map<number, Promise<NodeState>>();
  const drops = new Map<number, number>();
  const forgetState = (nodeId: number) => {
    known.delete(nodeId);
    drops.set(nodeId, (drops.get(nodeId) ?? 0) + 1);
  };
  function nodeState(nodeId: number): Promise<NodeState> {
    const kept = known.get(nodeId);
    if (kept) return kept;
    const at = drops.get(nodeId) ?? 0;
    const loading = loadState(store, nodeStream(nodeId), nodeAggregate).then(({ state }) => state);
    known.set(nodeId, loading);
    const unkeep = () => {
      if (known.get(nodeId) === loading) known.delete(nodeId);
    };
    loading.then(() => (drops.get(nodeId) ?? 0) !== at && unkeep(), unkeep);
    return loading;
  }
  async function record(timer: SagaTimer, ctx: SagaContext, command: NodeCommand) {
    let n = 0;
    forgetState(command.nodeId);
    try {
      await handleCommand(store, nodeStream(command.nodeId), nodeAggregate, command, {
        metadata: { timestamp: ctx.now().toISOString(), actor: null, causationId: timer.id },
        newId: () => sagaEventId(NAME, `${timer.id}@${timer.dueAt}`, n++),
      });
    } finally {
      forgetState(command.nodeId);
    }
  }
  const next = async (ctx: SagaContext, s?: HealthSettings) => new Date(ctx.now().getTime() + (s ?? (await settings())).intervalSeconds * 1000);

  return {
    name: NAME,
    handles: Object.keys(NODE_EVENTS),
    async handle(e, ctx) {
      const nodeId = Number(e.data.nodeId);
      forgetState(nodeId);
      if (e.type === 'NodeStarted') await ctx.schedule(timerId(nodeId), await next(ctx), { nodeId, failures: 0, lastHealthyAt: String(e.data.startedAt) });
      else if (STOPS.has(e.type)) await ctx.cancel(timerId(nodeId));
      if (e.type === 'NodeDeleted') await observations?.forget(nodeId);
    },
    async onTimer(timer, ctx) {
      const nodeId = Number(timer.payload.nodeId);
      const state = await nodeState(nodeId);
      if (!state.node || state.deleted || (state.status !== 'running' && state.status !== 'down')) return;
      const node = state.node;
      const ops = await operationsFor(node, 'observe');
      if (!ops) return;
      const at = ctx.now().toISOString();
      let failures = Number(timer.payload.failures ?? 0);
      let lastHealthyAt = (timer.payload.lastHealthyAt as string | null) ?? null;
      let reason: string | null = null;
      let definite = false;
      let reading: NodeReading | null = null;
      const current = await settings();
      const { threshold } = current;
      // The ledger figures are read when the last reading (its time and figures travel in the
      // payload) is nodeReadingIntervalSeconds old, give or take half an interval of the timers'
      // spacing; in between the probe asks for health alone and the lists keep that reading.
      let { readAt, blockHeight: keptHeight, peerCount: keptPeers } = timer.payload as { readAt?: string; blockHeight?: number | null; peerCount?: number | null };
      const readingMs = (current.readingSeconds ?? 0) * 1000;
      const reads = !readAt || ctx.now().getTime() - new Date(readAt).getTime() >= readingMs - Math.min(500, (current.intervalSeconds * 1000) / 2);
      const status = await ops.status().catch((err: Error) => ({ state: 'unknown' as const, reason: err.message }));
      if (status.state === 'exited' || status.state === 'stopped') {
        definite = true;
        reason = status.reason ?? `the node's ${node.engine === 'docker' ? 'container' : 'process'} is not running`;
      } else {
        try {
          reading = reads ? await ops.probe(2000) : { ...(await ops.probe(2000, { readings: false })), blockHeight: keptHeight ?? null, peerCount: keptPeers ?? null };
          if (reads) [readAt, keptHeight, keptPeers] = [at, reading.blockHeight, reading.peerCount];
        } catch (err) {
          reason = (err as Error).message;
        }
      }
      // A cache write that fails must not stop the probes; the next one writes again.
      await observations
        ?.record({ nodeId, status: reason === null ? 'healthy' : definite ? 'not_running' : 'unreachable', blockHeight: reading?.blockHeight ?? null, peerCount: reading?.peerCount ?? null, error: reason, at })
        .catch(() => undefined);
      if (reason === null) {
        failures = 0;
        lastHealthyAt = at;
        if (state.downSince !== null) await record(timer, ctx, { type: 'RecordNodeRecovered', nodeId, at });
      } else {
        failures += 1;
        if (state.status === 'running' && state.downSince === null && (definite || failures >= threshold)) {
          await record(timer, ctx, { type: 'RecordNodeDown', nodeId, lastHealthyAt, consecutiveFailures: failures, reason, at });
        }
      }
      // The next probe an interval after this one was due, so the wait for the timer poll and
      // the probe's own time do not add up into drift; after a late probe, an interval from now.
      const afterDue = new Date(new Date(timer.dueAt).getTime() + current.intervalSeconds * 1000);
      const fromNow = await next(ctx, current);
      const kept = readAt ? { readAt, blockHeight: keptHeight ?? null, peerCount: keptPeers ?? null } : {};
      await ctx.schedule(timerId(nodeId), afterDue > ctx.now() ? afterDue : fromNow, { nodeId, failures, lastHealthyAt, ...kept });
    },
  };
}
