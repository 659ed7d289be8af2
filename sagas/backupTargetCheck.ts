// Periodic connectivity check of every backup target: a durable timer per target lists the
// bucket with the target's credentials. The first failure records BackupTargetConnectionFailed
// (system.s3.connection_issue) with the reason; the first success after it records
// BackupTargetConnectionRestored.
import type { EventStore } from '../domain/shared/eventStore.ts';
import { handleCommand } from '../domain/shared/commandHandler.ts';
import { backupTargetStream, backupTargets } from '../domain/backups/backupTargets.ts';
import type { BackupCatalog, BackupServices } from '../domain/backups/backupPorts.ts';
import type { Saga } from './saga.ts';
import { sagaEventId } from './sagaRunner.ts';

const NAME = 'backup-target-check';
const timerId = (targetId: number) => `backup-target-check-${targetId}`;

export function backupTargetCheckSaga(store: EventStore, services: BackupServices, catalog: BackupCatalog, intervalSeconds: () => number): Saga {
  const next = (now: Date) => new Date(now.getTime() + intervalSeconds() * 1000);
  return {
    name: NAME,
    handles: ['BackupTargetCreated', 'BackupTargetUpdated', 'BackupTargetDeleted'],
    async handle(e, ctx) {
      const targetId = Number(e.data.targetId);
      if (e.type === 'BackupTargetDeleted') return ctx.cancel(timerId(targetId));
      await ctx.schedule(timerId(targetId), next(ctx.now()), { targetId });
    },
    async onTimer(timer, ctx) {
      const targetId = Number(timer.payload.targetId);
      const target = await catalog.target(targetId);
      if (!target) return;
      const reason = await services.checkTarget(target, { repository: false }).catch((err: Error) => err.message);
      if (reason) ctx.log('backup target check failed', { targetId, reason });
      let n = 0;
      await handleCommand(store, backupTargetStream(targetId), backupTargets, { type: 'RecordBackupTargetCheck', targetId, ok: reason === null, reason, at: ctx.now().toISOString() }, {
        metadata: { timestamp: ctx.now().toISOString(), actor: null, causationId: timer.id },
        newId: () => sagaEventId(NAME, `${timer.id}@${timer.dueAt}`, n++),
      }).catch((err: Error) => ctx.log('recording the target check failed', { targetId, error: err.message }));
      await ctx.schedule(timerId(targetId), next(ctx.now()), { targetId });
    },
  };
}
