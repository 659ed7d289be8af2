// Backups: restic over S3 (s3rver over HTTPS on loopback) from a data directory of a few hundred
// MB (incompressible node data, the database part of a fresh migrated database). Measures the
// first backup's throughput, the size a backup adds after 1% of the data changed (in one place,
// and spread in 64 KiB pieces, which touches many of restic's ~1 MiB chunks), and the time
// `lnm restore` takes to write a servable data directory from the latest backup.
// Prints JSON rows {metric, value, unit} on stdout (bench/run.ts collects them); progress on stderr.
import { mkdirSync, mkdtempSync, openSync, rmSync, writeSync, closeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { createBackupServices } from '../adapters/backups/backupServices.ts';
import { createKeyEncryption } from '../adapters/keyProviders/keyEncryption.ts';
import { runRestore } from '../bin/restore.ts';
import { startS3Server } from '../test/helpers/s3Server.ts';
import { freshMigratedDatabase } from './lib/cluster.ts';
import { runCleanups } from './lib/cleanup.ts';

const MIB = 1024 * 1024;
const SIZE_MIB = Number(process.env.BENCH_BACKUP_MIB ?? 300);
const say = (m: string) => process.stderr.write(`[bench backups] ${m}\n`);

async function main() {
  const s3 = await startS3Server(['bench']);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'lnm-bench-backup-'));
  const db = await freshMigratedDatabase('backups');
  try {
    const nodeDir = path.join(dataDir, 'nodes', 'node-1');
    mkdirSync(nodeDir, { recursive: true });
    const file = path.join(nodeDir, 'chain-data.bin');
    const fd = openSync(file, 'w');
    for (let i = 0; i < SIZE_MIB; i++) writeSync(fd, randomBytes(MIB));
    closeSync(fd);
    const services = createBackupServices({ pool: db.pool, dataDir, encryption: createKeyEncryption('bench-key-encryption-key-0000000', { iterations: 1000 }), includeAuditLogs: async () => true, auditOnlyEventTypes: [], eventStoreKind: 'postgres' });
    const password = 'bench-repository-password';
    const prepared = await services.prepareTarget({ name: 'bench', endpoint: s3.endpoint, bucket_name: 'bench', bucket_path: 'repo', region: 'us-east-1', access_key_id: s3.accessKeyId, secret_access_key: s3.secretAccessKey, force_path_style: true, repository_password: password, ca_certificate: s3.caPem }, null);
    const problem = await services.checkTarget(prepared);
    if (problem) throw new Error(problem);
    const target = { targetId: 1, name: 'bench', ...prepared };
    say(`first backup of ${SIZE_MIB} MiB`);
    let t = performance.now();
    const first = await services.runBackup(target, { backupId: 1, scheduleId: null, nodeIds: null });
    const firstSeconds = (performance.now() - t) / 1000;
    // 1% of the data rewritten in place, in 64 KiB pieces spread over the file.
    const piece = 64 * 1024;
    const pieces = Math.round((SIZE_MIB * MIB * 0.01) / piece);
    const w = openSync(file, 'r+');
    for (let i = 0; i < pieces; i++) writeSync(w, randomBytes(piece), 0, piece, Math.floor((i * SIZE_MIB * MIB) / pieces));
    closeSync(w);
    say(`second backup after rewriting ${pieces} pieces of 64 KiB (1%)`);
    t = performance.now();
    const second = await services.runBackup(target, { backupId: 2, scheduleId: null, nodeIds: null });
    const secondSeconds = (performance.now() - t) / 1000;
    // 1% rewritten in one place (how append-mostly chain stores change) for comparison.
    const w2 = openSync(file, 'r+');
    writeSync(w2, randomBytes(Math.round(SIZE_MIB * MIB * 0.01)), 0, Math.round(SIZE_MIB * MIB * 0.01), Math.floor(SIZE_MIB * MIB * 0.4));
    closeSync(w2);
    say('third backup after rewriting 1% in one place');
    const third = await services.runBackup(target, { backupId: 3, scheduleId: null, nodeIds: null });
    const out = path.join(dataDir, 'restored');
    say('lnm restore of the latest backup');
    t = performance.now();
    await runRestore({ endpoint: s3.endpoint, bucket: 'bench', bucketPath: 'repo', region: 'us-east-1', accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey, password, backupId: null, snapshotId: null, outputDir: out, caCertificate: s3.caPem, forcePathStyle: true }, () => {});
    const restoreSeconds = (performance.now() - t) / 1000;
    const r2 = (x: number) => Math.round(x * 100) / 100;
    process.stdout.write(JSON.stringify({ rows: [
      { metric: `Backup throughput, first backup of ${SIZE_MIB} MiB (restic to s3rver over HTTPS, loopback)`, value: r2(SIZE_MIB / firstSeconds), unit: 'MiB/s' },
      { metric: 'First backup: size added to the repository', value: r2(first.dataAdded / MIB), unit: 'MiB' },
      { metric: 'Backup after 1% changed in one place: size added', value: r2(third.dataAdded / MIB), unit: 'MiB' },
      { metric: 'Backup after 1% changed in one place: size added, share of the first', value: r2((third.dataAdded / first.dataAdded) * 100), unit: '%' },
      { metric: 'Backup after 1% changed in 64 KiB pieces spread over the file: size added (restic chunks average 1 MiB)', value: r2(second.dataAdded / MIB), unit: 'MiB' },
      { metric: 'Backup after 1% changed in spread pieces: size added, share of the first', value: r2((second.dataAdded / first.dataAdded) * 100), unit: '%' },
      { metric: 'Backup after 1% changed in spread pieces: duration', value: r2(secondSeconds), unit: 's' },
      { metric: `Restore (lnm restore: restic restore, chain verify, import, rebuild) of ${SIZE_MIB} MiB`, value: r2(restoreSeconds), unit: 's' },
    ] }) + '\n');
  } finally {
    await s3.stop();
    s3.remove();
    rmSync(dataDir, { recursive: true, force: true });
    await runCleanups();
  }
}

main().then(() => process.exit(0), (err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
