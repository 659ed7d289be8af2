// Backup and restore of a ledgerX committer whose database was given as a connection string,
// with the real Fabric-X programs (LNM_FABRIC_X_BIN), restic and s3rver: the database lives in a
// PostgreSQL the test starts itself (outside the service). A quick start on it, loadgen's
// transactions committed, a backup whose snapshot holds that database's export and never its
// password. Then everything of the service lost (roles, server, data directory); `lnm restore`
// refuses while the external database still holds data, naming the committer (never the
// password) and writing nothing; once that database is made again empty, `lnm restore` imports
// the export into it, `lnm serve`, the groups started: the same blocks and statuses (also from
// the query service, which reads the imported database) and new transactions commit. Last, that
// PostgreSQL stopped: a backup is FAILED naming the committer, the password nowhere.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { startS3Server, type S3Server } from '../../helpers/s3Server.ts';
import { ownPostgres, type OwnPostgres } from '../../helpers/postgres.ts';
import { fabricXMissing, fabricXServiceEnv } from '../../helpers/programs.ts';
import { requires } from '../../helpers/requirements.ts';
import { apiOf } from '../consortium/consortiumApi.ts';
import { chain, filesHolding, lnmRestore, newTransactionsCommit, quickstartCommitted, rawSnapshot, s3BackupTarget, sameChainRestored, startGroups, stopGroupsAndServer, tearDownBackupTest, waitBackup, type BackupRepository, type CommittedNetwork } from './ledgerxBackupKit.ts';

const t = requires(suite('ledgerX backup and restore of a committer database given as a connection string (real Fabric-X, restic, s3rver)'), 'fabric-x', fabricXMissing);
const KEK = 'ledgerx-external-db-backup-e2e-key-encryption-key';
const PASSWORD = 'Ext-Db-Secret-pw-5931';
let server: TestServer;
let s3: S3Server;
let external: OwnPostgres;
const api = apiOf(() => server);
const scratch: string[] = [];
const env = () => ({ ...fabricXServiceEnv(), KEY_ENCRYPTION_KEY: KEK, LNM_LEDGERX_JOIN_TIMEOUT_SECONDS: '90', LNM_BACKUP_CHECK_SECONDS: '300', EDITION: 'community' });
const repo = (): BackupRepository => ({ s3, bucketPath: 'lx-ext', password: 'ledgerx-external-db-repository-password' });
let made: CommittedNetwork;
let targetId: number;

async function asAdmin(text: string) {
  const c = new pg.Client({ connectionString: external.url });
  await c.connect();
  try {
    return await c.query(text);
  } finally {
    await c.end();
  }
}

t.before(async () => {
  s3 = await startS3Server(['backups']);
  external = await ownPostgres();
  await asAdmin(`CREATE ROLE ext_lx LOGIN PASSWORD '${PASSWORD}'`);
  await asAdmin('CREATE DATABASE ext_lx_db OWNER ext_lx');
  server = await startServer({ embedded: true, env: env() });
});
t.after(() => tearDownBackupTest(api, { server, made, s3, scratch, also: async () => external?.remove() }));

t('a quick start whose committer uses the given database, loadgen\'s transactions committed; the backup holds that database\'s export and never its password', async () => {
  made = await quickstartCommitted(api, server, { name: 'extnet', org: 'ExtOrg', mspId: 'ExtOrgMSP', transactions: 100, committerDatabaseUrl: `postgres://ext_lx:${PASSWORD}@127.0.0.1:${external.port}/ext_lx_db` });
  assert.equal(made.committer.ledgerXCommitter.database, { host: '127.0.0.1', port: external.port, name: 'ext_lx_db', user: 'ext_lx', external: true });
  targetId = await s3BackupTarget(api, repo(), 'lx-ext-s3');
  const r = await api('POST', '/backups', { target_id: targetId });
  assert.is(r.status, 201, r.text);
  const done = await waitBackup(api, r.json.id);
  assert.is(done.status, 'COMPLETED', JSON.stringify(done));
  const raw = await rawSnapshot(repo(), done.snapshot_id, scratch);
  const schema = JSON.parse(readFileSync(path.join(raw, 'backup-export', 'ledgerx', `committer-${made.committer.id}`, 'schema.json'), 'utf8'));
  assert.is(schema.database, 'ext_lx_db');
  assert.ok(schema.rows.tx_status >= made.committed.length, `tx_status rows ${schema.rows.tx_status}, ${made.committed.length} committed`);
  const manifest = JSON.parse(readFileSync(path.join(raw, 'backup-export', 'backup.json'), 'utf8'));
  assert.equal(manifest.parts.ledgerx.committers.map((x: any) => [x.groupId, x.exported, x.external]), [[made.committer.id, true, true]]);
  // The password: in no file of the snapshot, no answer, no audit entry, no log line.
  const vc = made.committer.ledgerXCommitter.roles.find((x: any) => x.role === 'vc').nodeId;
  assert.match(readFileSync(path.join(server.dataDir, 'nodes', `node-${vc}`, 'committer.yaml'), 'utf8'), PASSWORD, 'the check looks for what the vc is given');
  assert.equal(filesHolding(raw, PASSWORD), []);
  for (const p of ['/backups', `/backups/${r.json.id}`, '/audit-logs?limit=200', `/nodes/${made.committer.id}`]) assert.not.match((await api('GET', p)).text, PASSWORD, p);
  assert.not.match(server.output(), PASSWORD);
  made.before = await chain(api, made.networkId);
});

t('everything of the service lost: lnm restore refuses while the database holds data; into the database made again empty it imports; same blocks and statuses, new transactions commit', async () => {
  await stopGroupsAndServer(api, server, [made.group.id, made.committer.id]);
  rmSync(server.dataDir, { recursive: true, force: true });
  const out = path.join(mkdtempSync(path.join(tmpdir(), 'lnm-lx-ext-restored-')), 'data');
  scratch.push(path.dirname(out));
  const withKey = { KEY_ENCRYPTION_KEY: KEK };

  // The database still holds the committer's tables: refused, naming the committer, nothing written.
  const refused = await lnmRestore(repo(), out, [], withKey);
  assert.is.not(refused.code, 0, refused.out);
  assert.match(refused.out, new RegExp(`ledgerX committer ${made.committer.id}: its database ext_lx@127\\.0\\.0\\.1:${external.port}/ext_lx_db already holds data \\([^)]*table tx_status`));
  assert.match(refused.out, '--external-databases replace');
  assert.not.match(refused.out, PASSWORD);
  assert.not.ok(existsSync(out), 'nothing written to the output directory');

  // The database lost too, made again empty by its owner's administrator.
  await asAdmin('DROP DATABASE ext_lx_db WITH (FORCE)');
  await asAdmin('CREATE DATABASE ext_lx_db OWNER ext_lx');
  const restored = await lnmRestore(repo(), out, [], withKey);
  assert.is(restored.code, 0, restored.out);
  assert.match(restored.out, new RegExp(`ledgerX committer ${made.committer.id}: its database ext_lx@127\\.0\\.0\\.1:${external.port}/ext_lx_db \\(given as a connection string\\) imported \\(\\d+ metadata, [^)]*tx_status`));
  assert.not.match(restored.out, PASSWORD);

  server = await startServer({ embedded: true, dataDir: out, env: env() });
  await startGroups(api, [made.group.id, made.committer.id]);
  await sameChainRestored(api, made);
  const { more, height } = await newTransactionsCommit(api, made, out, 313);
  assert.not.match(server.output(), PASSWORD);
  console.log(`  restored into the external database: height ${made.before.height}, ${made.committed.length} COMMITTED as before; then ${more.committed} more committed, height ${height}`);
});

t('the external database does not answer: a backup is FAILED naming the committer, the password nowhere', async () => {
  await external.stop();
  const r = await api('POST', '/backups', { target_id: targetId });
  assert.is(r.status, 201, r.text);
  const done = await waitBackup(api, r.json.id);
  assert.is(done.status, 'FAILED', JSON.stringify(done));
  assert.match(done.error, new RegExp(`^ledgerX committer ${made.committer.id}: the committer's database ext_lx@127\\.0\\.0\\.1:${external.port}/ext_lx_db could not be exported: .*ECONNREFUSED`));
  for (const p of ['/backups', `/backups/${r.json.id}`, '/audit-logs?limit=200']) assert.not.match((await api('GET', p)).text, PASSWORD, p);
  assert.not.match(server.output(), PASSWORD);
});

t.run();
