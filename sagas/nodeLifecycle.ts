// Node lifecycle: turns NodeStartRequested / NodeStopRequested / NodeDeleted into engine work
// and records the outcome (NodeStarted, NodeStartFailed with the reason, NodeStopped). A start
// that fails is never recorded as running. Idempotent by event id: the outcome events carry
// ids derived from the request event, and the decider ignores an outcome that no longer fits.
import type { EventStore, RecordedEvent } from '../domain/shared/eventStore.ts';
import { handleCommand, loadState } from '../domain/shared/commandHandler.ts';
import { nodeAggregate, nodeStream, type NodeCommand } from '../domain/nodes/node.ts';
import type { NodeOperationsFor } from '../domain/nodes/nodeOperations.ts';
import { NodeStartFailedError } from '../domain/nodes/nodeEngine.ts';
import type { Saga, SagaContext } from './saga.ts';
import { sagaEventId } from './sagaRunner.ts';

const NAME = 'node-lifecycle';

export function nodeLifecycleSaga(store: EventStore, operationsFor: NodeOperationsFor): Saga {
  async function record(e: RecordedEvent, ctx: SagaContext, command: NodeCommand) {
    let n = 0;
    await handleCommand(store, nodeStream(command.nodeId), nodeAggregate, command, {
      metadata: { timestamp: ctx.now().toISOString(), actor: e.metadata.actor ?? null, causationId: e.id, correlationId: e.metadata.correlationId ?? e.id },
      newId: () => sagaEventId(NAME, e.id, n++),
    });
  }

  return {
    name: NAME,
    handles: ['NodeStartRequested', 'NodeStopRequested', 'NodeDeleted'],
    startAt: 'head',
    // Nodes start independently: a network's validators come up side by side, not one by one.
    partitionBy: (e) => String(e.data.nodeId),
    async handle(e, ctx) {
      const nodeId = Number(e.data.nodeId);
      const { state } = await loadState(store, nodeStream(nodeId), nodeAggregate);
      if (!state.node) return;
      const ops = await operationsFor(state.node, e.type === 'NodeStartRequested' ? 'start' : 'observe');
      if (!ops) return;
      const at = () => ctx.now().toISOString();
      switch (e.type) {
        case 'NodeStartRequested': {
          // Only the latest request counts: a later stop or delete made this one moot.
          if (state.status !== 'starting' || state.deleted) return;
          try {
            // A restart, or a start asked before a stop was carried out (or after a failure): the
            // process still running would hold its ports, and a second one fail beside it.
            // An engine that restarts in place (a cluster rolling the pod) is never stopped first.
            let started;
            if (e.data.restart && ops.restart) started = await ops.restart();
            else {
              if (e.data.restart || e.data.stopFirst) await ops.stop().catch(() => {});
              started = await ops.start();
            }
            await record(e, ctx, { type: 'RecordNodeStarted', nodeId, ...started, at: at() });
          } catch (err) {
            const failure = err instanceof NodeStartFailedError ? err.failure : 'exited';
            const reason = (err as Error).message;
            ctx.log('node start failed', { nodeId, failure, reason });
            await record(e, ctx, { type: 'RecordNodeStartFailed', nodeId, failure, reason, at: at() });
          }
          return;
        }
        case 'NodeStopRequested':
          if (state.status !== 'stopping' || state.deleted) return;
          await ops.stop();
          await record(e, ctx, { type: 'RecordNodeStopped', nodeId, at: at() });
          return;
        case 'NodeDeleted':
          await ops.remove({ deleteVolume: e.data.volume === 'deleted' });
          return;
      }
    },
  };
}
