// What the routes and sagas need from the backup machinery (adapters/backups/): the target's
// object storage, restic, and the export of the database. Secrets stay sealed on this side.
import type { JsonObject } from '../shared/eventStore.ts';
import type { BackupSummary } from './backups.ts';
import type { Retention } from './backupSchedules.ts';

export interface StoredTarget {
  targetId: number;
  name: string;
  publicConfig: JsonObject;
  sealedSecrets: string;
}

export interface PreparedTarget {
  publicConfig: JsonObject;
  sealedSecrets: string;
  /** Only when the service generated the repository password: shown once, in the create answer. */
  generatedRepositoryPassword: string | null;
}

export interface BackupProgress {
  percentDone: number;
  bytesDone: number;
  totalBytes: number;
  filesDone: number;
  totalFiles: number;
}

export interface BackupRunRequest {
  backupId: number;
  scheduleId: number | null;
  /** null: every node directory. */
  nodeIds: number[] | null;
  onProgress?: (p: BackupProgress) => void;
}

/**
 * A platform's own data in a backup, besides the service's database and node directories (e.g.
 * a ledgerX committer's database, its groups' join files): bin/server.ts wires one per platform
 * that has such data.
 */
export interface BackupPart {
  /** Its folder under the backup's export directory (backup-export/<name>/). */
  name: string;
  /**
   * Writes this part's exports under `exportDir` for the nodes of the request (null: all), and
   * names the data paths (relative to DATA_DIR) the snapshot also takes and the files it must
   * leave out (`excludes`, relative to DATA_DIR: files holding a secret that are written again at
   * each start); `record` goes into backup.json. Throws (the backup is FAILED with the message)
   * when an export fails.
   */
  export(exportDir: string, nodeIds: number[] | null): Promise<{ dataPaths: string[]; excludes: string[]; record: JsonObject }>;
}

export interface BackupServices {
  /** null when restic can be run; otherwise why not (the backup routes answer 503 with it). */
  unavailableReason(): Promise<string | null>;
  /** Both body shapes to a stored configuration (400 naming the field on bad input). `previous`: an update keeps secrets not sent again. */
  prepareTarget(body: Record<string, unknown>, previous: StoredTarget | null): Promise<PreparedTarget>;
  /** null when the bucket answers a listing with these credentials and (unless repository is false) the restic repository there opens (or was created); otherwise the reason in words. */
  checkTarget(target: Pick<StoredTarget, 'publicConfig' | 'sealedSecrets'>, opts?: { repository?: boolean }): Promise<string | null>;
  runBackup(target: StoredTarget, request: BackupRunRequest): Promise<BackupSummary>;
  deleteSnapshot(target: StoredTarget, snapshotId: string): Promise<void>;
  /** Removes any snapshot a cut-off run of this backup may still have written. */
  discardBackup(target: StoredTarget, backupId: number): Promise<void>;
  /** Applies retention to the snapshots of one schedule; returns the snapshot ids it removed. */
  applyRetention(target: StoredTarget, scheduleId: number, retention: Retention): Promise<string[]>;
  /** Stops running backups (they end FAILED) so that a graceful stop of the service does not wait for them. */
  shutdown(): void;
  /** Progress of a running backup, as restic last reported it. */
  progressOf(backupId: number): BackupProgress | null;
  /** Cron expressions (six fields, seconds first): null when valid, else why not. */
  cronIssue(expression: string): string | null;
  nextRun(expression: string, after: Date): Date;
}

/** What the backup sagas read from the read models, and the id allocator. */
export interface BackupCatalog {
  target(targetId: number): Promise<StoredTarget | null>;
  schedule(scheduleId: number): Promise<{ scheduleId: number; name: string; targetId: number; nodeIds: number[] | null; retention: Retention; enabled: boolean; lastBackupId: number | null } | null>;
  backupStatus(backupId: number): Promise<string | null>;
  /** Backups whose snapshot is one of these. */
  backupsWithSnapshots(snapshotIds: string[]): Promise<number[]>;
  targetIds(): Promise<number[]>;
  nextBackupId(): Promise<number>;
}
