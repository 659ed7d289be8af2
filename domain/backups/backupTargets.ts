// Backup targets (S3-compatible object storage holding one restic repository each): one stream
// per target. Secrets (secret access key, repository password) arrive here already sealed under
// KEY_ENCRYPTION_KEY, so no event holds them in clear.
import type { Decider } from '../shared/decider.ts';
import { assertNever } from '../shared/decider.ts';
import { ConflictError, NotFoundError } from '../shared/errors.ts';
import type { JsonObject } from '../shared/eventStore.ts';

export const backupTargetStream = (id: number) => `backup-target-${id}`;

export interface BackupTargetState {
  status: 'none' | 'active' | 'deleted';
  targetId?: number;
  name?: string;
  /** Whether the last periodic connectivity check failed (reported once per outage). */
  unreachable: boolean;
}

export type BackupTargetEvent =
  | { type: 'BackupTargetCreated'; data: { targetId: number; name: string; publicConfig: JsonObject; sealedSecrets: string; at: string } }
  | { type: 'BackupTargetUpdated'; data: { targetId: number; name: string; publicConfig: JsonObject; sealedSecrets: string; at: string } }
  | { type: 'BackupTargetDeleted'; data: { targetId: number; name: string; at: string } }
  | { type: 'BackupTargetConnectionFailed'; data: { targetId: number; name: string; reason: string; at: string } }
  | { type: 'BackupTargetConnectionRestored'; data: { targetId: number; name: string; at: string } };

export type BackupTargetCommand =
  | { type: 'CreateBackupTarget'; targetId: number; name: string; publicConfig: JsonObject; sealedSecrets: string; at: string }
  | { type: 'UpdateBackupTarget'; targetId: number; name: string; publicConfig: JsonObject; sealedSecrets: string; at: string }
  /** users: schedules that still name the target (a target in use is kept). */
  | { type: 'DeleteBackupTarget'; targetId: number; schedulesUsingIt: number; at: string }
  | { type: 'RecordBackupTargetCheck'; targetId: number; ok: boolean; reason: string | null; at: string };

export const backupTargets: Decider<BackupTargetState, BackupTargetCommand, BackupTargetEvent> = {
  initialState: () => ({ status: 'none', unreachable: false }),
  evolve(s, e) {
    switch (e.type) {
      case 'BackupTargetCreated':
        return { status: 'active', targetId: e.data.targetId, name: e.data.name, unreachable: false };
      case 'BackupTargetUpdated':
        return { ...s, name: e.data.name, unreachable: false };
      case 'BackupTargetDeleted':
        return { ...s, status: 'deleted' };
      case 'BackupTargetConnectionFailed':
        return { ...s, unreachable: true };
      case 'BackupTargetConnectionRestored':
        return { ...s, unreachable: false };
      default:
        return assertNever(e);
    }
  },
  decide(c, s) {
    switch (c.type) {
      case 'CreateBackupTarget':
        if (s.status !== 'none') throw new ConflictError(`Backup target ${c.targetId} exists already.`);
        return [{ type: 'BackupTargetCreated', data: { targetId: c.targetId, name: c.name, publicConfig: c.publicConfig, sealedSecrets: c.sealedSecrets, at: c.at } }];
      case 'UpdateBackupTarget':
        if (s.status !== 'active') throw new NotFoundError('Backup target', c.targetId);
        return [{ type: 'BackupTargetUpdated', data: { targetId: c.targetId, name: c.name, publicConfig: c.publicConfig, sealedSecrets: c.sealedSecrets, at: c.at } }];
      case 'DeleteBackupTarget':
        if (s.status !== 'active') throw new NotFoundError('Backup target', c.targetId);
        if (c.schedulesUsingIt > 0) throw new ConflictError(`Backup target ${s.name} is used by ${c.schedulesUsingIt} schedule(s); delete them first.`);
        return [{ type: 'BackupTargetDeleted', data: { targetId: c.targetId, name: s.name!, at: c.at } }];
      case 'RecordBackupTargetCheck':
        if (s.status !== 'active') return [];
        if (!c.ok && !s.unreachable) return [{ type: 'BackupTargetConnectionFailed', data: { targetId: c.targetId, name: s.name!, reason: c.reason ?? 'unknown', at: c.at } }];
        if (c.ok && s.unreachable) return [{ type: 'BackupTargetConnectionRestored', data: { targetId: c.targetId, name: s.name!, at: c.at } }];
        return [];
      default:
        return assertNever(c);
    }
  },
};
