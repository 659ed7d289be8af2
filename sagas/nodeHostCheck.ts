// Periodic check of every node host: a durable timer per host asks its engine for its version
// and running nodes over mutual TLS. What changed (reachable, version, running nodes) is
// recorded as NodeHostObserved; an unchanged answer records nothing.
import type { EventStore } from '../domain/shared/eventStore.ts';
import { handleCommand } from '../domain/shared/commandHandler.ts';
import { nodeHostStream, nodeHosts } from '../domain/hosts/nodeHosts.ts';
import { observationOf, type NodeHostDirectory, type NodeHostProbe } from '../domain/hosts/hostPorts.ts';
import type { Saga } from './saga.ts';
import { sagaEventId } from './sagaRunner.ts';

const NAME = 'node-host-check';
const timerId = (hostId: number) => `node-host-check-${hostId}`;

export function nodeHostCheckSaga(store: EventStore, probe: NodeHostProbe, directory: NodeHostDirectory, intervalSeconds: () => number): Saga {
  const next = (now: Date) => new Date(now.getTime() + intervalSeconds() * 1000);
  return {
    name: NAME,
    handles: ['NodeHostRegistered', 'NodeHostDeleted'],
    async handle(e, ctx) {
      const hostId = Number(e.data.hostId);
      if (e.type === 'NodeHostDeleted') return ctx.cancel(timerId(hostId));
      await ctx.schedule(timerId(hostId), next(ctx.now()), { hostId });
    },
    async onTimer(timer, ctx) {
      const hostId = Number(timer.payload.hostId);
      const connection = await directory.connection(hostId);
      if (!connection) return;
      const observation = observationOf(await probe.probe(connection));
      if (!observation.reachable) ctx.log('node host check failed', { hostId, reason: observation.reason });
      let n = 0;
      await handleCommand(store, nodeHostStream(hostId), nodeHosts, { type: 'RecordNodeHostCheck', hostId, observation, at: ctx.now().toISOString() }, {
        metadata: { timestamp: ctx.now().toISOString(), actor: null, causationId: timer.id },
        newId: () => sagaEventId(NAME, `${timer.id}@${timer.dueAt}`, n++),
      }).catch((err: Error) => ctx.log('recording the host check failed', { hostId, error: err.message }));
      await ctx.schedule(timerId(hostId), next(ctx.now()), { hostId });
    },
  };
}
