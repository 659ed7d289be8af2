// Backup schedules: one stream per schedule. The cron expression (six fields, seconds first)
// is checked by the HTTP layer with the cron library before it gets here; runs are driven by
// the backup-schedule saga with a durable timer.
import type { Decider } from '../shared/decider.ts';
import { assertNever } from '../shared/decider.ts';
import { ConflictError, NotFoundError } from '../shared/errors.ts';

export const backupScheduleStream = (id: number) => `backup-schedule-${id}`;

export interface Retention {
  keepLast: number | null;
  keepDaily: number | null;
  keepWeekly: number | null;
  keepMonthly: number | null;
}

export interface ScheduleDefinition {
  scheduleId: number;
  name: string;
  description: string | null;
  cronExpression: string;
  targetId: number;
  /** null: everything; otherwise the nodes whose directories go in (the database always does). */
  nodeIds: number[] | null;
  retention: Retention;
}

export interface BackupScheduleState {
  status: 'none' | 'active' | 'deleted';
  enabled: boolean;
  name?: string;
}

export type BackupScheduleEvent =
  | { type: 'BackupScheduleCreated'; data: ScheduleDefinition & { enabled: boolean; at: string } }
  | { type: 'BackupScheduleEnabled'; data: { scheduleId: number; at: string } }
  | { type: 'BackupScheduleDisabled'; data: { scheduleId: number; at: string } }
  | { type: 'BackupScheduleDeleted'; data: { scheduleId: number; name: string; at: string } };

export type BackupScheduleCommand =
  | { type: 'CreateBackupSchedule'; schedule: ScheduleDefinition; enabled: boolean; at: string }
  | { type: 'EnableBackupSchedule'; scheduleId: number; at: string }
  | { type: 'DisableBackupSchedule'; scheduleId: number; at: string }
  | { type: 'DeleteBackupSchedule'; scheduleId: number; at: string };

export const backupSchedules: Decider<BackupScheduleState, BackupScheduleCommand, BackupScheduleEvent> = {
  initialState: () => ({ status: 'none', enabled: false }),
  evolve(s, e) {
    switch (e.type) {
      case 'BackupScheduleCreated':
        return { status: 'active', enabled: e.data.enabled, name: e.data.name };
      case 'BackupScheduleEnabled':
        return { ...s, enabled: true };
      case 'BackupScheduleDisabled':
        return { ...s, enabled: false };
      case 'BackupScheduleDeleted':
        return { ...s, status: 'deleted', enabled: false };
      default:
        return assertNever(e);
    }
  },
  decide(c, s) {
    switch (c.type) {
      case 'CreateBackupSchedule':
        if (s.status !== 'none') throw new ConflictError(`Backup schedule ${c.schedule.scheduleId} exists already.`);
        return [{ type: 'BackupScheduleCreated', data: { ...c.schedule, enabled: c.enabled, at: c.at } }];
      case 'EnableBackupSchedule':
        if (s.status !== 'active') throw new NotFoundError('Backup schedule', c.scheduleId);
        return s.enabled ? [] : [{ type: 'BackupScheduleEnabled', data: { scheduleId: c.scheduleId, at: c.at } }];
      case 'DisableBackupSchedule':
        if (s.status !== 'active') throw new NotFoundError('Backup schedule', c.scheduleId);
        return s.enabled ? [{ type: 'BackupScheduleDisabled', data: { scheduleId: c.scheduleId, at: c.at } }] : [];
      case 'DeleteBackupSchedule':
        if (s.status !== 'active') throw new NotFoundError('Backup schedule', c.scheduleId);
        return [{ type: 'BackupScheduleDeleted', data: { scheduleId: c.scheduleId, name: s.name!, at: c.at } }];
      default:
        return assertNever(c);
    }
  },
};
