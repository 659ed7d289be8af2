// Backup schedules: one durable timer per enabled schedule, due at the next time of its cron
// expression. When it fires, a backup is requested (unless the schedule's previous backup still
// runs: runs of one schedule never overlap) and the timer moves to the next time after now, so
// a run time missed while the service was down runs once at start-up, not once per missed slot.
import type { EventStore } from '../domain/shared/eventStore.ts';
import { handleCommand, loadState } from '../domain/shared/commandHandler.ts';
import { DuplicateEventError } from '../domain/shared/errors.ts';
import { backupStream, backups } from '../domain/backups/backups.ts';
import { backupScheduleStream, backupSchedules } from '../domain/backups/backupSchedules.ts';
import type { BackupCatalog, BackupServices } from '../domain/backups/backupPorts.ts';
import type { Saga, SagaContext } from './saga.ts';
import { sagaEventId } from './sagaRunner.ts';

const NAME = 'backup-schedules';
const timerId = (scheduleId: number) => `backup-schedule-${scheduleId}`;

export function backupScheduleSaga(store: EventStore, services: BackupServices, catalog: BackupCatalog): Saga {
  async function arm(ctx: SagaContext, scheduleId: number, cron: string, after: Date) {
    await ctx.schedule(timerId(scheduleId), services.nextRun(cron, after), { scheduleId, cron });
  }
  return {
    name: NAME,
    handles: ['BackupScheduleCreated', 'BackupScheduleEnabled', 'BackupScheduleDisabled', 'BackupScheduleDeleted'],
    async handle(e, ctx) {
      const scheduleId = Number(e.data.scheduleId);
      if (e.type === 'BackupScheduleDisabled' || e.type === 'BackupScheduleDeleted') return ctx.cancel(timerId(scheduleId));
      if (e.type === 'BackupScheduleCreated' && !e.data.enabled) return;
      const created = (await store.readStream(backupScheduleStream(scheduleId))).find((x) => x.type === 'BackupScheduleCreated');
      if (created) await arm(ctx, scheduleId, String(created.data.cronExpression), ctx.now());
    },
    async onTimer(timer, ctx) {
      const scheduleId = Number(timer.payload.scheduleId);
      const cron = String(timer.payload.cron);
      const { state } = await loadState(store, backupScheduleStream(scheduleId), backupSchedules);
      if (state.status !== 'active' || !state.enabled) return;
      const schedule = await catalog.schedule(scheduleId);
      if (!schedule) return;
      const previous = schedule.lastBackupId === null ? null : await catalog.backupStatus(schedule.lastBackupId);
      if (previous === 'IN_PROGRESS') {
        ctx.log('schedule skipped a run: its previous backup still runs', { scheduleId, backupId: schedule.lastBackupId });
      } else {
        const backupId = await catalog.nextBackupId();
        const target = await catalog.target(schedule.targetId);
        try {
          // The event id is derived from the timer's due time: a retry of this firing requests nothing twice.
          await handleCommand(store, backupStream(backupId), backups, { type: 'RequestBackup', backupId, targetId: schedule.targetId, nodeId: null, scheduleId, backupName: `${schedule.name} #${backupId}`, targetName: target?.name, at: ctx.now().toISOString() }, {
            metadata: { timestamp: ctx.now().toISOString(), actor: null, causationId: timer.id },
            newId: () => sagaEventId(NAME, `${timer.id}@${timer.dueAt}`),
          });
        } catch (err) {
          if (!(err instanceof DuplicateEventError)) throw err;
        }
      }
      await arm(ctx, scheduleId, cron, ctx.now());
    },
  };
}
