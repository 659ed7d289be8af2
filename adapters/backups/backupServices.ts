// The BackupServices port (domain/backups/backupPorts.ts) on restic and S3. A backup is one
// restic snapshot taken from DATA_DIR of:
//   backup-export/database/   the consistent cut of the event store and the non-event rows
//                             (audit-only events as hash-only stubs when include_in_backups is false)
//   backup-export/backup.json what the backup is (id, nodes, audit setting)
//   nodes/<node>/             node configurations, key files and chain data, as on disk
//   backup-export/<part>/     a platform's own exports (BackupPart: a ledgerX committer's
//                             database), and the data paths it names (ledgerx/group-<id>/)
// DATA_DIR/key-encryption-key and the PostgreSQL cluster are never part of it.
import { existsSync } from 'node:fs';
import { rm, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';
import type { BackupPart, BackupProgress, BackupServices, StoredTarget } from '../../domain/backups/backupPorts.ts';
import type { BackupSummary } from '../../domain/backups/backups.ts';
import type { Retention } from '../../domain/backups/backupSchedules.ts';
import type { KeyEncryption } from '../keyProviders/keyEncryption.ts';
import { openConfig, sealConfig } from '../keyProviders/registrySealedConfig.ts';
import { parseS3Target, resticRepository, targetPublicJson, type S3TargetPublic, type S3TargetSecrets } from './s3TargetConfig.ts';
import { checkS3Target, resolvedCredentials } from './s3Connectivity.ts';
import { ensureRepository, listSnapshots, openResticSession, removeStaleLocks, resticUnavailable, ResticError, type ResticSession } from './restic.ts';
import { DATABASE_DIR, exportDatabase } from './databaseExport.ts';
import { cronIssue, nextCronRun } from './cronSchedule.ts';

export const EXPORT_DIR = 'backup-export';
export const BACKUP_HOST = 'lnm';
export const FULL_TAG = 'lnm-full';
export const backupTag = (backupId: number) => `lnm-backup-${backupId}`;
export const scheduleTag = (scheduleId: number) => `lnm-schedule-${scheduleId}`;

export interface BackupServicesOptions {
  pool: pg.Pool;
  dataDir: string;
  encryption: KeyEncryption;
  /** Whether audit entries go into backups (settings: include_in_backups). */
  includeAuditLogs: () => Promise<boolean>;
  /**
   * The event types left out (as hash-only stubs) when they do not: the audit-only events no
   * read model is rebuilt from (domain/audit/auditEntry.ts auditOnlyTypesToWithhold).
   */
  auditOnlyEventTypes: readonly string[];
  /**
   * The event store the server runs on. A backup exports PostgreSQL's events table; with
   * EVENT_STORE=eventstoredb that table is empty and a backup would hold no events at all, so
   * backups are unavailable (503) rather than COMPLETED without the truth they exist for.
   */
  eventStoreKind: 'postgres' | 'eventstoredb';
  /** A backup whose upload makes no progress for this long is stopped and FAILED (restic itself retries for many minutes). */
  stallSeconds?: number;
  /** Platforms' own data (domain/backups/backupPorts.ts BackupPart), exported after the database's cut. */
  parts?: BackupPart[];
}

export async function openTargetSecrets(encryption: KeyEncryption, sealed: string): Promise<S3TargetSecrets> {
  return openConfig<S3TargetSecrets>(encryption, sealed);
}

export async function resticSessionFor(config: S3TargetPublic, secrets: S3TargetSecrets): Promise<ResticSession> {
  const cred = config.authMethod === 'STATIC' ? { accessKeyId: config.accessKeyId!, secretAccessKey: secrets.secretAccessKey!, sessionToken: undefined } : await resolvedCredentials(config, secrets);
  return openResticSession({
    repository: resticRepository(config),
    password: secrets.repositoryPassword,
    awsAccessKeyId: cred.accessKeyId,
    awsSecretAccessKey: cred.secretAccessKey,
    awsSessionToken: cred.sessionToken ?? null,
    region: config.region,
    forcePathStyle: config.forcePathStyle,
    caCertificate: config.caCertificate,
  });
}

/** restic's error lines name URLs and object keys, never credentials (those travel in its environment). */
const scrub = (line: string) => line.replace(/\s+/g, ' ');

export const eventStoreDbUnsupported = 'Backups are not available with EVENT_STORE=eventstoredb: a backup holds the PostgreSQL event store (the events table, with its hash chain), and on this server the events live in EventStoreDB, which it would leave out. Back EventStoreDB up with its own tools.';

export function createBackupServices(opts: BackupServicesOptions): BackupServices {
  let availability: { at: number; reason: string | null } | null = null;
  const progress = new Map<number, BackupProgress>();
  const running = new Set<AbortController>();
  let shuttingDown = false;

  async function session(target: StoredTarget): Promise<ResticSession> {
    const secrets = await openTargetSecrets(opts.encryption, target.sealedSecrets);
    return resticSessionFor(target.publicConfig as unknown as S3TargetPublic, secrets);
  }

  return {
    async unavailableReason() {
      if (opts.eventStoreKind !== 'postgres') return eventStoreDbUnsupported;
      // Checked again after a minute, so installing restic needs no restart.
      if (!availability || Date.now() - availability.at > 60_000) availability = { at: Date.now(), reason: await resticUnavailable() };
      return availability.reason;
    },

    async prepareTarget(body, previous) {
      const prev = previous ? { config: previous.publicConfig as unknown as S3TargetPublic, secrets: await openTargetSecrets(opts.encryption, previous.sealedSecrets) } : null;
      const parsed = parseS3Target(body, prev);
      return { publicConfig: targetPublicJson(parsed.config), sealedSecrets: await sealConfig(opts.encryption, parsed.secrets), generatedRepositoryPassword: parsed.generatedRepositoryPassword };
    },

    async checkTarget(target, checkOpts = {}) {
      const config = target.publicConfig as unknown as S3TargetPublic;
      const secrets = await openTargetSecrets(opts.encryption, target.sealedSecrets);
      const s3 = await checkS3Target(config, secrets);
      if (s3 || checkOpts.repository === false) return s3;
      // The bucket answers: open the repository there, or create it (a wrong password shows here).
      const s = await resticSessionFor(config, secrets);
      try {
        await ensureRepository(s);
        return null;
      } catch (err) {
        return err instanceof ResticError ? `restic repository ${resticRepository(config)}: ${err.message}` : (err as Error).message;
      } finally {
        await s.close();
      }
    },

    async runBackup(target, request): Promise<BackupSummary> {
      if (opts.eventStoreKind !== 'postgres') throw new Error(eventStoreDbUnsupported);
      const started = Date.now();
      const staging = path.join(opts.dataDir, EXPORT_DIR);
      await rm(staging, { recursive: true, force: true });
      await mkdir(staging, { recursive: true, mode: 0o700 });
      const s = await session(target);
      try {
        await ensureRepository(s);
        await removeStaleLocks(s);
        const includeAudit = await opts.includeAuditLogs();
        const manifest = await exportDatabase(opts.pool, path.join(staging, DATABASE_DIR), { withholdTypes: includeAudit ? [] : opts.auditOnlyEventTypes });
        const nodesDir = path.join(opts.dataDir, 'nodes');
        const partPaths: string[] = [];
        const excludes: string[] = [];
        const parts: Record<string, unknown> = {};
        for (const part of opts.parts ?? []) {
          const r = await part.export(path.join(staging, part.name), request.nodeIds);
          partPaths.push(...r.dataPaths);
          excludes.push(...r.excludes);
          parts[part.name] = r.record;
        }
        const base = request.nodeIds === null
          ? (existsSync(nodesDir) ? ['nodes'] : [])
          : request.nodeIds.map((id) => path.join('nodes', `node-${id}`));
        // A part's path already inside one taken (nodes/ of a full backup) is not named twice.
        const within = (p: string, dirs: string[]) => dirs.some((d) => p === d || p.startsWith(`${d}${path.sep}`));
        const nodePaths = [...new Set([...base, ...partPaths.filter((p) => !within(p, base))])].filter((p) => existsSync(path.join(opts.dataDir, p)));
        await writeFile(path.join(staging, 'backup.json'), JSON.stringify({
          backupId: request.backupId, scheduleId: request.scheduleId, nodeIds: request.nodeIds, nodePaths, parts,
          eventPosition: manifest.eventPosition, includeAuditLogs: includeAudit, auditEntriesWithheld: manifest.withheld ?? 0, createdAt: new Date().toISOString(),
        }, null, 2), { mode: 0o600 });
        // lnm-full marks backups of every node: what `lnm restore` takes by default.
        const tags = ['lnm', request.nodeIds === null ? FULL_TAG : 'lnm-nodes', backupTag(request.backupId), ...(request.scheduleId !== null ? [scheduleTag(request.scheduleId)] : [])];
        let summary: Record<string, any> | null = null;
        // restic retries an unreachable storage for a long time; a run without progress for
        // stallSeconds is stopped, and the last error restic printed says why.
        const stop = new AbortController();
        running.add(stop);
        if (shuttingDown) stop.abort();
        let lastProgressAt = Date.now();
        let lastBytes = -1;
        let lastError = '';
        const stallMs = (opts.stallSeconds ?? 120) * 1000;
        const watchdog = setInterval(() => {
          if (Date.now() - lastProgressAt > stallMs) stop.abort();
        }, 500);
        const result = await s.run(['backup', '--json', '--host', BACKUP_HOST, ...tags.flatMap((t) => ['--tag', t]), ...excludes.flatMap((x) => ['--exclude', path.join(path.resolve(opts.dataDir), x)]), EXPORT_DIR, ...nodePaths], {
          cwd: opts.dataDir,
          onStdoutLine(line) {
            let m: Record<string, any>;
            try {
              m = JSON.parse(line);
            } catch {
              return;
            }
            if (m.message_type === 'status') {
              if (Number(m.bytes_done ?? 0) !== lastBytes) {
                lastBytes = Number(m.bytes_done ?? 0);
                lastProgressAt = Date.now();
              }
              const p = { percentDone: Number(m.percent_done ?? 0), bytesDone: Number(m.bytes_done ?? 0), totalBytes: Number(m.total_bytes ?? 0), filesDone: Number(m.files_done ?? 0), totalFiles: Number(m.total_files ?? 0) };
              progress.set(request.backupId, p);
              request.onProgress?.(p);
            }
            else if (m.message_type === 'summary') summary = m;
          },
          onStderrLine(line) {
            if (/error|refused|timeout|denied/i.test(line)) lastError = line.slice(0, 400);
          },
          signal: stop.signal,
        }).finally(() => {
          clearInterval(watchdog);
          running.delete(stop);
        });
        if (stop.signal.aborted && shuttingDown) {
          await s.run(['unlock']).catch(() => {});
          // Had restic just finished the snapshot, it must not look restorable (pruned later).
          await s.run(['forget', '--tag', backupTag(request.backupId)]).catch(() => {});
          throw new ResticError('the service stopped while this backup ran; nothing of it is restorable, start a new backup', 130);
        }
        if (stop.signal.aborted) {
          await s.run(['unlock']).catch(() => {});
          throw new ResticError(`the storage stopped answering: no progress for ${stallMs / 1000} s${lastError ? `; restic: ${scrub(lastError)}` : ''}`, 130);
        }
        if (result.code !== 0) throw new ResticError(s.failure(result), result.code);
        const done = summary as Record<string, any> | null;
        if (!done?.snapshot_id) throw new ResticError('restic ended without naming the snapshot it wrote', 1);
        // restic 0.14's summary names the short id; retention answers with full ids.
        const written = (await listSnapshots(s, backupTag(request.backupId))).find((x) => x.id.startsWith(String(done.snapshot_id)));
        const stats = await s.ok(['stats', '--json', '--mode', 'raw-data']);
        const totalSize = Number((JSON.parse(stats.stdout) as { total_size?: number }).total_size ?? 0);
        return {
          snapshotId: written?.id ?? String(done.snapshot_id), eventPosition: manifest.eventPosition, dataAdded: Number(done.data_added ?? 0), totalSize,
          files: Number(done.total_files_processed ?? 0), durationMs: Date.now() - started,
        };
      } finally {
        progress.delete(request.backupId);
        await s.close();
        await rm(staging, { recursive: true, force: true });
      }
    },

    shutdown() {
      shuttingDown = true;
      for (const c of running) c.abort();
    },
    progressOf: (backupId) => progress.get(backupId) ?? null,
    cronIssue,
    nextRun: nextCronRun,

    async deleteSnapshot(target, snapshotId) {
      const s = await session(target);
      try {
        await removeStaleLocks(s);
        await s.ok(['forget', '--prune', snapshotId]);
      } finally {
        await s.close();
      }
    },

    async discardBackup(target, backupId) {
      const s = await session(target);
      try {
        await removeStaleLocks(s);
        await s.ok(['forget', '--prune', '--tag', backupTag(backupId)]);
      } finally {
        await s.close();
      }
    },

    async applyRetention(target, scheduleId, retention: Retention) {
      const keep: string[] = [];
      if (retention.keepLast) keep.push('--keep-last', String(retention.keepLast));
      if (retention.keepDaily) keep.push('--keep-daily', String(retention.keepDaily));
      if (retention.keepWeekly) keep.push('--keep-weekly', String(retention.keepWeekly));
      if (retention.keepMonthly) keep.push('--keep-monthly', String(retention.keepMonthly));
      if (keep.length === 0) return [];
      const s = await session(target);
      try {
        await removeStaleLocks(s);
        const r = await s.ok(['forget', '--json', '--prune', '--tag', scheduleTag(scheduleId), '--group-by', 'host', ...keep]);
        const jsonLine = r.stdout.split('\n').find((l) => l.trim().startsWith('['));
        const groups = jsonLine ? (JSON.parse(jsonLine) as Array<{ remove?: Array<{ id: string }> | null }>) : [];
        return groups.flatMap((g) => (g.remove ?? []).map((x) => x.id));
      } finally {
        await s.close();
      }
    },
  };
}
