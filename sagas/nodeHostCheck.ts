// Periodic check of every node host: a durable timer per host asks its engine for its version
// and running nodes over mutual TLS. What changed (reachable, version, running nodes) is
// recorded as NodeHostObserved; an unchanged answer records nothing. A reachable cluster is then
// swept of the objects of nodes never recorded (a service killed between a node's Service made
// ahead and its record, application/hosts/clusterNodePorts.ts) and of the copy-helper pods of
// backups and restores that ended (a service that died mid-copy), older than the grace period,
// recorded (and audited) as NodeHostOrphansRemoved. The same check labels with this deployment's
// id the objects of the prefix made before it (no lnm.deployment label at all) of nodes this
// deployment records, recorded (and audited) as NodeHostObjectsLabelled. The timer of a check that fell due while the
// service was down runs as soon as it starts.
import type { EventStore } from '../domain/shared/eventStore.ts';
import { handleCommand } from '../domain/shared/commandHandler.ts';
import { nodeHostStream, nodeHosts } from '../domain/hosts/nodeHosts.ts';
import { observationOf, type ClusterNodePorts, type NodeHostDirectory, type NodeHostProbe } from '../domain/hosts/hostPorts.ts';
import { nodeStream } from '../domain/nodes/node.ts';
import type { Saga } from './saga.ts';
import { sagaEventId } from './sagaRunner.ts';

const NAME = 'node-host-check';
const timerId = (hostId: number) => `node-host-check-${hostId}`;

/** The orphan sweep of clusters: what removes the objects, and how old an object must be to be taken for one. */
export interface ClusterOrphanSweep {
  nodePorts: ClusterNodePorts;
  graceSeconds: () => number;
}

export function nodeHostCheckSaga(store: EventStore, probe: NodeHostProbe, directory: NodeHostDirectory, intervalSeconds: () => number, orphans?: ClusterOrphanSweep): Saga {
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
      if (orphans && connection.kind === 'kubernetes' && observation.reachable) {
        const graceSeconds = orphans.graceSeconds();
        // Node keys are node-<id>: whether this deployment records the node (undefined for a label
        // of another shape, which is not this deployment's to judge: the sweep keeps such objects,
        // the labelling below leaves them).
        const nodeRecorded = async (key: string): Promise<boolean | undefined> => {
          const id = /^node-(\d+)$/.exec(key)?.[1];
          return id === undefined ? undefined : (await store.readStream(nodeStream(Number(id)))).length > 0;
        };
        const recorded = async (key: string) => (await nodeRecorded(key)) ?? true;
        try {
          const { removed: objects, failed } = await orphans.nodePorts.removeOrphans(hostId, recorded, graceSeconds * 1000);
          if (failed.length) ctx.log('the orphan sweep of the cluster left objects', { hostId, failed });
          if (objects.length) {
            ctx.log('removed cluster objects this deployment left (nodes never recorded, ended copy helpers)', { hostId, objects: objects.map((o) => `${o.kind} ${o.name}`) });
            await handleCommand(store, nodeHostStream(hostId), nodeHosts, { type: 'RecordClusterOrphansRemoved', hostId, objects, graceSeconds, at: ctx.now().toISOString() }, {
              metadata: { timestamp: ctx.now().toISOString(), actor: null, causationId: timer.id },
              newId: () => sagaEventId(NAME, `${timer.id}@${timer.dueAt}/orphans`, n++),
            });
          }
        } catch (err) {
          ctx.log('the orphan sweep of the cluster failed', { hostId, error: (err as Error).message });
        }
        // Objects made before the deployment id of nodes this deployment records (node-<id> with a
        // stream): labelled with the id, so that a second deployment on the prefix is kept from them
        // without waiting for their node's next start. Another shape of key is not judged.
        const ours = async (key: string) => (await nodeRecorded(key)) ?? false;
        try {
          const { labelled: objects, deployment, failed } = await orphans.nodePorts.labelUnlabelled(hostId, ours);
          if (failed.length) ctx.log('labelling the cluster objects made before the deployment id left objects', { hostId, failed });
          if (objects.length && deployment) {
            ctx.log('labelled cluster objects of recorded nodes made before the deployment id', { hostId, deployment, objects: objects.map((o) => `${o.kind} ${o.name}`) });
            await handleCommand(store, nodeHostStream(hostId), nodeHosts, { type: 'RecordClusterObjectsLabelled', hostId, objects, deployment, at: ctx.now().toISOString() }, {
              metadata: { timestamp: ctx.now().toISOString(), actor: null, causationId: timer.id },
              newId: () => sagaEventId(NAME, `${timer.id}@${timer.dueAt}/labelled`, n++),
            });
          }
        } catch (err) {
          ctx.log('labelling the cluster objects made before the deployment id failed', { hostId, error: (err as Error).message });
        }
      }
      await ctx.schedule(timerId(hostId), next(ctx.now()), { hostId });
    },
  };
}
