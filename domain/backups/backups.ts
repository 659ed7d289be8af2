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
  /** What notifications and webhooks call it, and when it was asked for. */
  name?: string;
  targetName?: string;
  requestedAt?: string;
  runStarted: boolean;
  snapshotId: string | null;
}

export type BackupEvent =
  | { type: 'BackupRequested'; data: { backupId: number; targetId: number; nodeId: number | null; scheduleId: number | null; backupName?: string; targetName?: string; at: string } }
  | { type: 'BackupRunStarted'; data: { backupId: number; at: string } }
  | { type: 'BackupCompleted'; data: { backupId: number; targetId: number; at: string } & BackupSummary & BackupNames }
  | { type: 'BackupFailed'; data: { backupId: number; targetId: number; error: string; durationMs?: number | null; at: string } & BackupNames }
  | { type: 'BackupDeleted'; data: { backupId: number; reason: 'deleted' | 'retention'; at: string } };

/** Names and times carried by the outcome events, for notifications and webhooks (absent in events recorded before them). */
export interface BackupNames {
  backupName?: string;
  targetName?: string;
  startedAt?: string | null;
  completedAt?: string;
}

export type BackupCommand =
  | { type: 'RequestBackup'; backupId: number; targetId: number; nodeId: number | null; scheduleId: number | null; backupName?: string; targetName?: string; at: string }
  | { type: 'StartBackupRun'; backupId: number; at: string }
  | { type: 'CompleteBackup'; backupId: number; summary: BackupSummary; at: string }
  | { type: 'FailBackup'; backupId: number; error: string; at: string }
  | { type: 'DeleteBackup'; backupId: number; reason: 'deleted' | 'retention'; at: string };

function namesOf(s: BackupState, backupId: number, at: string): BackupNames {
  return { backupName: s.name ?? `backup ${backupId}`, targetName: s.targetName ?? `target ${s.targetId}`, startedAt: s.requestedAt ?? null, completedAt: at };
}

export const backups: Decider<BackupState, BackupCommand, BackupEvent> = {
  initialState: () => ({ status: 'none', runStarted: false, snapshotId: null }),
  evolve(s, e) {
    switch (e.type) {
      case 'BackupRequested':
        return { status: 'IN_PROGRESS', backupId: e.data.backupId, targetId: e.data.targetId, name: e.data.backupName, targetName: e.data.targetName, requestedAt: e.data.at, runStarted: false, snapshotId: null };
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
        return [{ type: 'BackupRequested', data: { backupId: c.backupId, targetId: c.targetId, nodeId: c.nodeId, scheduleId: c.scheduleId, backupName: c.backupName ?? `backup ${c.backupId}`, targetName: c.targetName, at: c.at } }];
      case 'StartBackupRun':
        if (s.status !== 'IN_PROGRESS' || s.runStarted) return [];
        return [{ type: 'BackupRunStarted', data: { backupId: c.backupId, at: c.at } }];
      case 'CompleteBackup':
        if (s.status !== 'IN_PROGRESS') return [];
        return [{ type: 'BackupCompleted', data: { backupId: c.backupId, targetId: s.targetId!, at: c.at, ...c.summary, ...namesOf(s, c.backupId, c.at) } }];
      case 'FailBackup':
        if (s.status !== 'IN_PROGRESS') return [];
        return [{ type: 'BackupFailed', data: { backupId: c.backupId, targetId: s.targetId!, error: c.error, at: c.at, durationMs: s.requestedAt ? Date.parse(c.at) - Date.parse(s.requestedAt) : null, ...namesOf(s, c.backupId, c.at) } }];
      case 'DeleteBackup':
        if (s.status === 'none' || s.status === 'deleted') throw new NotFoundError('Backup', c.backupId);
        if (s.status === 'IN_PROGRESS') throw new ConflictError(`Backup ${c.backupId} is still running; delete it once it has ended.`);
        return [{ type: 'BackupDeleted', data: { backupId: c.backupId, reason: c.reason, at: c.at } }];
      default:
        return assertNever(c);
    }
  },
};
