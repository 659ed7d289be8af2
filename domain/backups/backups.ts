// One backup: one stream. Requested (IN_PROGRESS) by a user or a schedule; the backup saga
// marks the run as started, then records COMPLETED (with what restic reports) or FAILED (with
// the error). A run found started but never finished (the service died meanwhile) is FAILED.
import type { Decider } from '../shared/decider.ts';
import { assertNever } from '../shared/decider.ts';
import { ConflictError, NotFoundError } from '../shared/errors.ts';

export const backupStream = (id: number) => `backup-${id}`;

export type BackupStatus = 'IN_PROGRESS' | 'COMPLETED' | 'FAILED';

export interface BackupSummary {
  snapshotId: string;
  eventPosition: number;
  dataAdded: number;
  totalSize: number;
  files: number;
  durationMs: number;
}

export interface BackupState {
  status: 'none' | BackupStatus | 'deleted';
  backupId?: number;
  targetId?: number;
  runStarted: boolean;
  snapshotId: string | null;
}

export type BackupEvent =
  | { type: 'BackupRequested'; data: { backupId: number; targetId: number; nodeId: number | null; scheduleId: number | null; at: string } }
  | { type: 'BackupRunStarted'; data: { backupId: number; at: string } }
  | { type: 'BackupCompleted'; data: { backupId: number; targetId: number; at: string } & BackupSummary }
  | { type: 'BackupFailed'; data: { backupId: number; targetId: number; error: string; at: string } }
  | { type: 'BackupDeleted'; data: { backupId: number; reason: 'deleted' | 'retention'; at: string } };

export type BackupCommand =
  | { type: 'RequestBackup'; backupId: number; targetId: number; nodeId: number | null; scheduleId: number | null; at: string }
  | { type: 'StartBackupRun'; backupId: number; at: string }
  | { type: 'CompleteBackup'; backupId: number; summary: BackupSummary; at: string }
  | { type: 'FailBackup'; backupId: number; error: string; at: string }
  | { type: 'DeleteBackup'; backupId: number; reason: 'deleted' | 'retention'; at: string };

export const backups: Decider<BackupState, BackupCommand, BackupEvent> = {
  initialState: () => ({ status: 'none', runStarted: false, snapshotId: null }),
  evolve(s, e) {
    switch (e.type) {
      case 'BackupRequested':
        return { status: 'IN_PROGRESS', backupId: e.data.backupId, targetId: e.data.targetId, runStarted: false, snapshotId: null };
      case 'BackupRunStarted':
        return { ...s, runStarted: true };
      case 'BackupCompleted':
        return { ...s, status: 'COMPLETED', snapshotId: e.data.snapshotId };
      case 'BackupFailed':
        return { ...s, status: 'FAILED' };
      case 'BackupDeleted':
        return { ...s, status: 'deleted' };
      default:
        return assertNever(e);
    }
  },
  decide(c, s) {
    switch (c.type) {
      case 'RequestBackup':
        if (s.status !== 'none') throw new ConflictError(`Backup ${c.backupId} exists already.`);
        return [{ type: 'BackupRequested', data: { backupId: c.backupId, targetId: c.targetId, nodeId: c.nodeId, scheduleId: c.scheduleId, at: c.at } }];
      case 'StartBackupRun':
        if (s.status !== 'IN_PROGRESS' || s.runStarted) return [];
        return [{ type: 'BackupRunStarted', data: { backupId: c.backupId, at: c.at } }];
      case 'CompleteBackup':
        if (s.status !== 'IN_PROGRESS') return [];
        return [{ type: 'BackupCompleted', data: { backupId: c.backupId, targetId: s.targetId!, at: c.at, ...c.summary } }];
      case 'FailBackup':
        if (s.status !== 'IN_PROGRESS') return [];
        return [{ type: 'BackupFailed', data: { backupId: c.backupId, targetId: s.targetId!, error: c.error, at: c.at } }];
      case 'DeleteBackup':
        if (s.status === 'none' || s.status === 'deleted') throw new NotFoundError('Backup', c.backupId);
        if (s.status === 'IN_PROGRESS') throw new ConflictError(`Backup ${c.backupId} is still running; delete it once it has ended.`);
        return [{ type: 'BackupDeleted', data: { backupId: c.backupId, reason: c.reason, at: c.at } }];
      default:
        return assertNever(c);
    }
  },
};
