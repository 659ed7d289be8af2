// Health monitor: one durable timer per started node probes it every
// nodeHealthCheckIntervalSeconds (engine status, then eth_blockNumber over JSON-RPC). After
// nodeDowntimeThreshold consecutive failed probes it records NodeDowntime (node.downtime);
// an engine that saw the process or container end is believed at once, so a node killed from
// outside is down within one interval. The first healthy probe after that records
// NodeRecovered (node.recovery). Failure counts travel in the timer's payload, so a restart
// of the service keeps them.
import type { EventStore } from '../domain/shared/eventStore.ts';
import { handleCommand } from '../domain/shared/commandHandler.ts';
import { evmNode, evmNodeStream, type EvmNodeCommand } from '../domain/evm/evmNode.ts';
import type { EvmNodeRuntime } from '../domain/evm/evmPorts.ts';
import type { Saga, SagaContext, SagaTimer } from './saga.ts';
import { sagaEventId } from './sagaRunner.ts';
import { loadEvmNodeTarget } from './evmNodeTarget.ts';

const NAME = 'node-health';
const timerId = (nodeId: number) => `node-health-${nodeId}`;

export interface HealthSettings {
  intervalSeconds: number;
  threshold: number;
}

export function nodeHealthSaga(store: EventStore, runtime: EvmNodeRuntime, settings: () => Promise<HealthSettings>): Saga {
  async function record(timer: SagaTimer, ctx: SagaContext, command: EvmNodeCommand) {
    let n = 0;
    await handleCommand(store, evmNodeStream(command.nodeId), evmNode, command, {
      metadata: { timestamp: ctx.now().toISOString(), actor: null, causationId: timer.id },
      newId: () => sagaEventId(NAME, `${timer.id}@${timer.dueAt}`, n++),
    });
  }
  const next = async (ctx: SagaContext) => new Date(ctx.now().getTime() + (await settings()).intervalSeconds * 1000);

  return {
    name: NAME,
    handles: ['NodeStarted', 'NodeStopRequested', 'NodeStopped', 'NodeDeleted'],
    async handle(e, ctx) {
      const nodeId = Number(e.data.nodeId);
      if (e.type === 'NodeStarted') await ctx.schedule(timerId(nodeId), await next(ctx), { nodeId, failures: 0, lastHealthyAt: String(e.data.startedAt) });
      else await ctx.cancel(timerId(nodeId));
    },
    async onTimer(timer, ctx) {
      const nodeId = Number(timer.payload.nodeId);
      const { target, state } = await loadEvmNodeTarget(store, nodeId, { peers: false });
      if (!target || state.deleted || (state.status !== 'running' && state.status !== 'down')) return;
      const at = ctx.now().toISOString();
      let failures = Number(timer.payload.failures ?? 0);
      let lastHealthyAt = (timer.payload.lastHealthyAt as string | null) ?? null;
      let reason: string | null = null;
      let definite = false;
      const status = await runtime.status(target).catch((err: Error) => ({ state: 'unknown' as const, reason: err.message }));
      if (status.state === 'exited' || status.state === 'stopped') {
        definite = true;
        reason = status.reason ?? `the node's ${target.node.engine === 'docker' ? 'container' : 'process'} is not running`;
      } else {
        try {
          await runtime.live(target, 2000);
        } catch (err) {
          reason = (err as Error).message;
        }
      }
      const { threshold } = await settings();
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
      await ctx.schedule(timerId(nodeId), await next(ctx), { nodeId, failures, lastHealthyAt });
    },
  };
}
