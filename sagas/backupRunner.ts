// Runs requested backups, one at a time (events are handled in log order, never side by side):
// marks the run as started, runs restic through BackupServices, records COMPLETED with restic's
// figures or FAILED with the error, then applies the schedule's retention. A request found with
// its run already started was cut off by a stop of the service: it is recorded FAILED, never
// left IN_PROGRESS.
import type { EventStore, RecordedEvent } from '../domain/shared/eventStore.ts';
import { handleCommand, loadState } from '../domain/shared/commandHandler.ts';
import { backupStream, backups, type BackupCommand } from '../domain/backups/backups.ts';
import type { BackupCatalog, BackupServices } from '../domain/backups/backupPorts.ts';
import type { Saga, SagaContext } from './saga.ts';
import { sagaEventId } from './sagaRunner.ts';

const NAME = 'backup-runner';

export function backupRunnerSaga(store: EventStore, services: BackupServices, catalog: BackupCatalog): Saga {
  return {
    name: NAME,
    handles: ['BackupRequested'],
    async handle(e, ctx) {
      const backupId = Number(e.data.backupId);
      let n = 0;
      const record = (command: BackupCommand, stream = backupStream(backupId), source: RecordedEvent = e) =>
        handleCommand(store, stream, backups, command, {
          metadata: { timestamp: ctx.now().toISOString(), actor: source.metadata.actor ?? null, causationId: source.id, correlationId: source.metadata.correlationId ?? source.id },
          newId: () => sagaEventId(NAME, source.id, n++),
        });
      const { state } = await loadState(store, backupStream(backupId), backups);
      if (state.status !== 'IN_PROGRESS') return;
      if (state.runStarted) {
        // restic dies with its parent (its next progress line hits a closed pipe); a snapshot it
        // may have finished before that is removed, so only COMPLETED backups are restorable.
        const target = await catalog.target(Number(e.data.targetId));
        if (target) await services.discardBackup(target, backupId).catch((err: Error) => ctx.log('removing the snapshot of a cut-off backup failed', { backupId, error: err.message }));
        n = 10;
        await record({ type: 'FailBackup', backupId, error: 'the service stopped while this backup ran; nothing of it is restorable, start a new backup', at: ctx.now().toISOString() });
        return;
      }
      await record({ type: 'StartBackupRun', backupId, at: ctx.now().toISOString() });
      const target = await catalog.target(Number(e.data.targetId));
      const scheduleId = e.data.scheduleId === null ? null : Number(e.data.scheduleId);
      const schedule = scheduleId === null ? null : await catalog.schedule(scheduleId);
      const nodeIds = e.data.nodeId !== null && e.data.nodeId !== undefined ? [Number(e.data.nodeId)] : (schedule?.nodeIds ?? null);
      if (!target) {
        await record({ type: 'FailBackup', backupId, error: `backup target ${String(e.data.targetId)} no longer exists`, at: ctx.now().toISOString() });
        return;
      }
      try {
        const summary = await services.runBackup(target, { backupId, scheduleId, nodeIds });
        await record({ type: 'CompleteBackup', backupId, summary, at: ctx.now().toISOString() });
        ctx.log('backup completed', { backupId, snapshotId: summary.snapshotId, dataAdded: summary.dataAdded });
      } catch (err) {
        const error = (err as Error).message;
        ctx.log('backup failed', { backupId, error });
        await record({ type: 'FailBackup', backupId, error, at: ctx.now().toISOString() });
        return;
      }
      if (schedule) await applyRetention(ctx, e, target, schedule);
    },
  };

  async function applyRetention(ctx: SagaContext, e: RecordedEvent, target: NonNullable<Awaited<ReturnType<BackupCatalog['target']>>>, schedule: NonNullable<Awaited<ReturnType<BackupCatalog['schedule']>>>) {
    try {
      const removed = await services.applyRetention(target, schedule.scheduleId, schedule.retention);
      const pruned = await catalog.backupsWithSnapshots(removed);
      for (const id of pruned) {
        let n = 0;
        await handleCommand(store, backupStream(id), backups, { type: 'DeleteBackup', backupId: id, reason: 'retention', at: ctx.now().toISOString() }, {
          metadata: { timestamp: ctx.now().toISOString(), actor: null, causationId: e.id },
          newId: () => sagaEventId(`${NAME}-retention-${id}`, e.id, n++),
        }).catch((err: Error) => ctx.log('recording a pruned backup failed', { backupId: id, error: err.message }));
      }
      if (pruned.length) ctx.log('retention pruned backups', { scheduleId: schedule.scheduleId, backups: pruned });
    } catch (err) {
      // The backup itself is complete; retention runs again after the next one.
      ctx.log('retention failed', { scheduleId: schedule.scheduleId, error: (err as Error).message });
    }
  }
}
