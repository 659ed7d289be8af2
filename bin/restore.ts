// `lnm restore`: the out-of-band restore client, run with the server stopped. It reads a backup
// from the target's restic repository and writes a data directory that `lnm serve` starts on:
//   1. list the repository's snapshots (a wrong password or a damaged repository stops here)
//   2. restic restore the chosen snapshot into a scratch directory beside the output
//   3. verify the hash chain of the exported events, link by link (stops loudly on a mismatch);
//      audit entries withheld from the backup (include_in_backups false) are linked and counted
//   4. a fresh embedded PostgreSQL: migrations, events imported, key material and timers as
//      stored, the chain verified again by the store, read models rebuilt; the backup that
//      was running when the cut was taken is recorded COMPLETED, queued ones FAILED
//      and each ledgerX committer's database made again from its export (adapters/ledgerx/ledgerxBackup.ts);
//      one given as a connection string is imported into that database (--external-databases),
//      after every such database was reached and checked, last of all before step 5
//   5. only then postgres/, nodes/ and ledgerx/ are moved into the output directory, and the
//      data of nodes on node hosts (read through their engines) into hosted-restore/, which each
//      such node's next start puts back into its volume on the host (adapters/engines/hostedNodeBackup.ts).
// Anything failing before step 5 leaves the output directory as it was. Nodes are not started.
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { startEmbeddedPostgres } from '../adapters/postgres/embeddedPostgres.ts';
import { migrate } from '../adapters/postgres/migrate.ts';
import { postgresEventStore } from '../adapters/eventstore/postgresEventStore.ts';
import { backfillEventBodies } from '../adapters/eventstore/postgresBodyBackfill.ts';
import { createProjector } from '../projections/projector.ts';
import { allProjections } from '../projections/index.ts';
import { allSagas } from '../sagas/index.ts';
import { handleCommand, loadState } from '../domain/shared/commandHandler.ts';
import { backupStream, backups } from '../domain/backups/backups.ts';
import { DATABASE_DIR, ExportedChainError, importDatabase, readManifest, recordRestore, verifyEventsFile } from '../adapters/backups/databaseExport.ts';
import { EXPORT_DIR, FULL_TAG, backupTag } from '../adapters/backups/backupServices.ts';
import { listSnapshots, openResticSession, ResticError, type ResticSnapshot } from '../adapters/backups/restic.ts';
import { parseS3Target, resticRepository } from '../adapters/backups/s3TargetConfig.ts';
import { CommitterRestoreError, EXTERNAL_DATABASE_MODES, restoreLedgerXCommitters, type ExternalDatabaseMode } from '../adapters/ledgerx/ledgerxBackup.ts';
import { createSecretBox } from '../adapters/outbound/sealedSecrets.ts';
import { checkKeyEncryptionKey } from '../adapters/keyProviders/keyEncryption.ts';
import { restoreHostedNodes } from '../adapters/engines/hostedNodeBackup.ts';

export const restoreUsage = `Usage: lnm restore [options]   (run with the server stopped)

  --endpoint <url>          object-store endpoint, e.g. https://s3.example.com:9000 (default: AWS S3 of --region)
  --bucket <name>           bucket name
  --bucket-path <prefix>    bucket path of the target (default: none)
  --region <region>         region (default us-east-1)
  --access-key <id>         access key id (or AWS_ACCESS_KEY_ID)
  --secret-key <secret>     secret access key (better: AWS_SECRET_ACCESS_KEY, not visible in the process list)
  --password-file <file>    file holding the repository password (or LNM_RESTORE_PASSWORD / RESTIC_PASSWORD)
  --backup <id>             the backup to restore (default: the latest COMPLETED backup of everything)
  --snapshot <id>           or a restic snapshot id
  --output-dir <dir>        the data directory to write (existing postgres/, nodes/ and ledgerx/ in it are replaced)
  --cacert <file>           CA certificate of an endpoint with a private CA
  --force-path-style        path-style bucket addressing
  --key-encryption-key-file <file>
                            file holding the KEY_ENCRYPTION_KEY the backed-up server used (or
                            KEY_ENCRYPTION_KEY); needed only to import a ledgerX committer database
                            given as a connection string (it opens that database's password)
  --external-databases <import|replace|keep>
                            a ledgerX committer database given as a connection string
                            (or LNM_RESTORE_EXTERNAL_DATABASES; default import): import the backup's
                            export only into a database without the committer's tables; replace
                            drops its tables and imports; keep leaves it as it is
`;

type Say = (line: string) => void;

export interface RestoreOptions {
  endpoint: string | null;
  bucket: string;
  bucketPath: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  password: string;
  backupId: number | null;
  snapshotId: string | null;
  outputDir: string;
  caCertificate: string | null;
  forcePathStyle: boolean;
  /** Opens the sealed password of a ledgerX committer database given as a connection string (none: null). */
  keyEncryptionKey?: string | null;
  /** A ledgerX committer database given as a connection string (default import). */
  externalDatabases?: ExternalDatabaseMode;
}

export class RestoreError extends Error {}

export async function parseRestoreArgs(argv: string[], env: NodeJS.ProcessEnv): Promise<RestoreOptions> {
  const v = new Map<string, string>();
  const flags = new Set(['--force-path-style']);
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split('=', 2);
    if (flags.has(flag)) {
      v.set(flag, 'true');
      continue;
    }
    if (!restoreUsage.includes(`${flag} <`)) throw new RestoreError(`unknown option ${flag}\n\n${restoreUsage}`);
    const value = inline ?? argv[++i];
    if (value === undefined) throw new RestoreError(`${flag} needs a value`);
    v.set(flag, value);
  }
  const need = (flag: string, fallback?: string) => {
    const x = v.get(flag) ?? fallback;
    if (!x) throw new RestoreError(`${flag} is required\n\n${restoreUsage}`);
    return x;
  };
  const passwordFile = v.get('--password-file');
  const password = passwordFile ? (await readFile(passwordFile, 'utf8')).replace(/\r?\n$/, '') : (env.LNM_RESTORE_PASSWORD || env.RESTIC_PASSWORD || '');
  if (!password) throw new RestoreError('the repository password is required: --password-file <file>, or LNM_RESTORE_PASSWORD');
  const backup = v.get('--backup');
  if (backup !== undefined && !/^[1-9]\d*$/.test(backup)) throw new RestoreError(`--backup must be a backup id (a positive integer), got ${backup}`);
  const cacert = v.get('--cacert');
  const kekFile = v.get('--key-encryption-key-file');
  const keyEncryptionKey = kekFile ? (await readFile(kekFile, 'utf8')).trim() : (env.KEY_ENCRYPTION_KEY || null);
  if (keyEncryptionKey !== null) {
    try {
      checkKeyEncryptionKey(keyEncryptionKey);
    } catch (err) {
      throw new RestoreError(`${kekFile ? `--key-encryption-key-file ${kekFile}` : 'KEY_ENCRYPTION_KEY'}: ${(err as Error).message}`);
    }
  }
  const external = v.get('--external-databases') ?? env.LNM_RESTORE_EXTERNAL_DATABASES ?? 'import';
  if (!(EXTERNAL_DATABASE_MODES as readonly string[]).includes(external)) throw new RestoreError(`--external-databases must be one of ${EXTERNAL_DATABASE_MODES.join(', ')}, got ${external}`);
  return {
    endpoint: v.get('--endpoint') ?? null,
    bucket: need('--bucket'),
    bucketPath: v.get('--bucket-path') ?? '',
    region: v.get('--region') ?? env.AWS_DEFAULT_REGION ?? 'us-east-1',
    accessKeyId: need('--access-key', env.AWS_ACCESS_KEY_ID),
    secretAccessKey: need('--secret-key', env.AWS_SECRET_ACCESS_KEY),
    password,
    backupId: backup ? Number(backup) : null,
    snapshotId: v.get('--snapshot') ?? null,
    outputDir: path.resolve(need('--output-dir')),
    caCertificate: cacert ? await readFile(cacert, 'utf8') : null,
    forcePathStyle: v.get('--force-path-style') === 'true',
    keyEncryptionKey,
    externalDatabases: external as ExternalDatabaseMode,
  };
}

function choose(snapshots: ResticSnapshot[], o: RestoreOptions): ResticSnapshot {
  const ours = snapshots.filter((s) => s.tags?.includes('lnm')).sort((a, b) => a.time.localeCompare(b.time));
  if (o.snapshotId) {
    const s = ours.find((x) => x.id.startsWith(o.snapshotId!));
    if (!s) throw new RestoreError(`snapshot ${o.snapshotId} is not in the repository (or is not a backup of this service)`);
    return s;
  }
  if (o.backupId !== null) {
    const found = ours.filter((x) => x.tags?.includes(backupTag(o.backupId!)));
    // Only a finished restic snapshot exists: a FAILED or still running backup has none.
    if (found.length === 0) throw new RestoreError(`backup ${o.backupId} is not restorable: it is not COMPLETED (the repository holds no snapshot of it)`);
    // A restored server counts backup ids on from its backup's cut, so a repository can hold two
    // backups of one id (one of the lost server, one of the restored): never guess between them.
    if (found.length > 1) throw new RestoreError(`backup ${o.backupId} names ${found.length} snapshots in this repository (a server restored from a backup counts backup ids again from that backup's): choose one with --snapshot: ${found.map((x) => `${x.short_id} taken ${x.time}`).join(', ')}`);
    return found[0];
  }
  // By default the latest backup of everything: a one-node backup holds the database but only that node's files.
  const full = ours.filter((x) => x.tags?.includes(FULL_TAG));
  if (full.length === 0) throw new RestoreError(ours.length ? 'the repository holds only backups of single nodes; name the one to restore with --backup <id>' : 'the repository holds no COMPLETED backup of this service');
  return full[full.length - 1];
}

/** Saga names, for their checkpoints (only the names are read: no saga runs here). */
function sagaNames(store: ReturnType<typeof postgresEventStore>): string[] {
  const none = null as never;
  return allSagas({
    store, keys: none, nodes: { operationsFor: none, healthSettings: none, observations: none },
    webhooks: { pool: none, instance: { id: '', version: '' }, wake: () => undefined }, notifications: { pool: none, notifier: none },
    backups: { services: none, catalog: none, targetCheckSeconds: () => 300 },
  }).map((s) => s.name);
}

/** A PostgreSQL of a server still running on the output directory holds postmaster.pid with a live pid. */
function refuseRunningServer(outputDir: string): void {
  const pidFile = path.join(outputDir, 'postgres', 'cluster', 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  try {
    if (pid > 0) process.kill(pid, 0);
  } catch {
    return;
  }
  throw new RestoreError(`a server is still running on ${outputDir} (its PostgreSQL has pid ${pid}): stop it first, restore runs with the server stopped`);
}

export async function runRestore(o: RestoreOptions, say: Say): Promise<void> {
  refuseRunningServer(o.outputDir);
  const parsed = parseS3Target({ name: 'restore', endpoint: o.endpoint ?? undefined, bucket_name: o.bucket, bucket_path: o.bucketPath, region: o.region, access_key_id: o.accessKeyId, secret_access_key: o.secretAccessKey, force_path_style: o.forcePathStyle, repository_password: o.password.length >= 8 ? o.password : 'x'.repeat(8), ...(o.caCertificate ? { ca_certificate: o.caCertificate } : {}) }, null);
  const session = await openResticSession({
    repository: resticRepository(parsed.config), password: o.password, awsAccessKeyId: o.accessKeyId, awsSecretAccessKey: o.secretAccessKey, awsSessionToken: null,
    region: o.region, forcePathStyle: o.forcePathStyle, caCertificate: o.caCertificate,
  });
  const scratch = path.join(path.dirname(o.outputDir), `.${path.basename(o.outputDir)}.restoring-${randomUUID().slice(0, 8)}`);
  try {
    say(`reading ${resticRepository(parsed.config)}`);
    const snapshot = choose(await listSnapshots(session), o);
    const backupId = snapshot.tags?.find((t) => t.startsWith('lnm-backup-'))?.slice('lnm-backup-'.length);
    say(`restoring backup ${backupId ?? '?'} (snapshot ${snapshot.short_id}, taken ${snapshot.time})`);
    await mkdir(scratch, { recursive: true, mode: 0o700 });
    const started = Date.now();
    const files = path.join(scratch, 'files');
    const ticker = setInterval(() => say(`  restic restore running, ${Math.round((Date.now() - started) / 1000)} s`), 5000);
    try {
      await session.ok(['restore', snapshot.id, '--target', files]);
    } finally {
      clearInterval(ticker);
    }
    say(`  files restored in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    // What the snapshot holds, for the record of the backup it came from (its own completion
    // came after the cut; what it added to the repository then is not known here, so 0).
    const stats = JSON.parse((await session.ok(['stats', '--json', snapshot.id])).stdout) as { total_size?: number; total_file_count?: number };
    const snapshotStats = { totalSize: Number(stats.total_size ?? 0), files: Number(stats.total_file_count ?? 0) };
    const dbDir = path.join(files, EXPORT_DIR, DATABASE_DIR);
    const manifest = await readManifest(dbDir);
    say(`verifying the event chain (${manifest.eventPosition} events)`);
    let head: string;
    let withheld: number;
    try {
      ({ lastHash: head, withheld } = await verifyEventsFile(dbDir, manifest, (p) => say(`  chain verified up to position ${p}`)));
    } catch (err) {
      if (err instanceof ExportedChainError) throw new RestoreError(`${err.message}; nothing was restored`);
      throw err;
    }
    if (withheld > 0) {
      say(`  ${withheld} audit entries were withheld from this backup (include_in_backups was false: ${(manifest.withheldTypes ?? []).join(', ')}); their links were checked, their content is not in the backup`);
    }

    say('building the database');
    const cluster = await startEmbeddedPostgres({ dir: path.join(scratch, 'postgres') });
    const pool = new pg.Pool({ connectionString: cluster.url, max: 4 });
    // An idle connection ended by the cluster's stop is no failure of the restore (unhandled, it
    // would end the process after everything was done).
    pool.on('error', () => {});
    try {
      await migrate(pool);
      const counts = await importDatabase(pool, dbDir);
      say(`  imported ${Object.entries(counts).map(([t, n]) => `${n} ${t}`).join(', ')}`);
      // A backup taken before migration 0600 has no event bodies: give them theirs, as a start does.
      const backfill = await backfillEventBodies(pool);
      if (backfill.filled) say(`  ${backfill.filled} event bodies filled in`);
      const store = postgresEventStore(pool, { url: cluster.url });
      // On the chain: which backup this is, its cut and its withheld count (verify holds the stubs against it).
      await recordRestore(store, { backupId: backupId ? Number(backupId) : null, snapshotId: snapshot.id, manifest, withheld, at: new Date().toISOString() });
      const check = await store.verify(1);
      if (!check.ok) throw new RestoreError(`the imported event chain does not verify at position ${check.firstMismatch?.position} (${check.firstMismatch?.reason}); nothing was restored`);
      if ((check.withheld ?? 0) !== withheld) throw new RestoreError(`the imported event store holds ${check.withheld ?? 0} withheld entries, the backup ${withheld}; nothing was restored`);
      say(`  hash chain verified by the event store over positions 1-${check.toPosition}${withheld ? ` (${withheld} withheld entries linked, not recomputed)` : ''}`);
      // The backup being taken when the cut was made finished (its snapshot is what we restore);
      // backups queued behind it never ran on this data.
      const at = new Date().toISOString();
      const inProgress = (await pool.query(`SELECT DISTINCT (data->>'backupId')::int AS id FROM events WHERE type = 'BackupRequested'`)).rows.map((r) => r.id as number);
      for (const id of inProgress) {
        const { state } = await loadState(store, backupStream(id), backups);
        if (state.status !== 'IN_PROGRESS') continue;
        const command = String(id) === backupId
          ? { type: 'CompleteBackup' as const, backupId: id, at, summary: { snapshotId: snapshot.id, eventPosition: manifest.eventPosition, dataAdded: 0, totalSize: snapshotStats.totalSize, files: snapshotStats.files, durationMs: 0 } }
          : { type: 'FailBackup' as const, backupId: id, at, error: `this server was restored from backup ${backupId ?? snapshot.short_id}, taken before this backup ran` };
        await handleCommand(store, backupStream(id), backups, command, { metadata: { timestamp: at, actor: { kind: 'restore', username: 'lnm restore' } }, newId: randomUUID });
      }
      const projector = createProjector({ pool, store, projections: allProjections });
      const rebuilt = await projector.rebuild();
      say(`  read models rebuilt from ${rebuilt.events} events`);
      // Sagas continue from here: what they did before the cut is in the events and timers.
      const headPosition = await store.headPosition();
      for (const name of sagaNames(store)) await pool.query('INSERT INTO saga_checkpoints (name, position) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET position = EXCLUDED.position', [name, headPosition]);
      // The platforms' own data: a ledgerX committer's database made by the service lives in this
      // cluster too; one given as a connection string is written last (its writes outlive a failure).
      const secrets = o.keyEncryptionKey ? createSecretBox(o.keyEncryptionKey) : null;
      try {
        await restoreLedgerXCommitters(path.join(files, EXPORT_DIR), pool, cluster.url, say, { mode: o.externalDatabases ?? 'import', openPassword: secrets ? (sealed, context) => secrets.open(sealed, context) : null });
      } catch (err) {
        if (err instanceof CommitterRestoreError) throw new RestoreError(`${err.message}; nothing was restored to ${o.outputDir}`);
        throw err;
      }
      await store.close();
    } finally {
      await pool.end().catch(() => {});
      await cluster.stop();
    }

    say(`writing ${o.outputDir}`);
    await mkdir(o.outputDir, { recursive: true, mode: 0o700 });
    for (const part of ['postgres', 'nodes', 'ledgerx']) await rm(path.join(o.outputDir, part), { recursive: true, force: true });
    await rename(path.join(scratch, 'postgres'), path.join(o.outputDir, 'postgres'));
    for (const part of ['nodes', 'ledgerx']) if (existsSync(path.join(files, part))) await rename(path.join(files, part), path.join(o.outputDir, part));
    const restoredNodes = existsSync(path.join(o.outputDir, 'nodes')) ? (await readdir(path.join(o.outputDir, 'nodes'))).length : 0;
    const hosted = await restoreHostedNodes(path.join(files, EXPORT_DIR), o.outputDir);
    if (hosted.length) say(`  ${hosted.length} node${hosted.length === 1 ? '' : 's'} on node hosts (${hosted.join(', ')}): their files go back into their volumes through the hosts' engines at their next start`);
    say(`restored: ${manifest.eventPosition} events${withheld ? ` (${withheld} of them withheld audit entries)` : ''} (chain head ${head.slice(0, 16)}...), ${restoredNodes} node director${restoredNodes === 1 ? 'y' : 'ies'}; nodes are not started.`);
    say(`start it with: lnm serve --data-dir ${o.outputDir}, with the KEY_ENCRYPTION_KEY the backed-up server used (it is never in a backup).`);
  } catch (err) {
    if (err instanceof ResticError) throw new RestoreError(`restic: ${err.message}; nothing was restored`);
    throw err;
  } finally {
    await session.close();
    await rm(scratch, { recursive: true, force: true });
  }
}
