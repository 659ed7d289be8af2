// Backup and restore of a ledgerX network with the real Fabric-X programs (LNM_FABRIC_X_BIN), the
// real restic and s3rver: a quick-start network on the service's embedded PostgreSQL, loadgen's
// transactions committed, a backup to S3 (its snapshot holds the committer's database export,
// the groups' joins and every role's directory, and never the database password), then a total
// loss: the roles stopped, the server stopped, its data directory (embedded PostgreSQL with the
// committer's database, node directories, joins) deleted. `lnm restore` into a new directory and
// `lnm serve` on it, the groups started: the explorer shows the same blocks with the same hashes
// and the same COMMITTED statuses (the query service reads them from the restored database), and
// new transactions commit on top.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHmac } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { startS3Server, type S3Server } from '../../helpers/s3Server.ts';
import { fabricXMissing, fabricXProgram, fabricXServiceEnv } from '../../helpers/programs.ts';
import { requires } from '../../helpers/requirements.ts';
import { apiOf, until } from '../consortium/consortiumApi.ts';
import { runLoadgen } from './ledgerxLoadgen.ts';
import { chain as explorerChain, filesHolding, lnmRestore, quickstartCommitted, rawSnapshot as snapshotFiles, s3BackupTarget, startGroups, stopGroupsAndServer, tearDownBackupTest, waitBackup as backupEnd, moreTransactions, newTransactionsCommit, sameChainRestored, type BackupRepository, type CommittedNetwork } from './ledgerxBackupKit.ts';

const t = requires(suite('ledgerX backup and restore (real Fabric-X, restic, s3rver)'), 'fabric-x', fabricXMissing);
const KEK = 'ledgerx-backup-e2e-key-encryption-key-0123';
const REPO_PASSWORD = 'ledgerx-backup-repository-password';
let server: TestServer;
let s3: S3Server;
const api = apiOf(() => server);
const scratch: string[] = [];
const env = () => ({ ...fabricXServiceEnv(), KEY_ENCRYPTION_KEY: KEK, LNM_LEDGERX_JOIN_TIMEOUT_SECONDS: '90', LNM_BACKUP_CHECK_SECONDS: '300', EDITION: 'community' });

t.before(async () => {
  s3 = await startS3Server(['backups']);
  server = await startServer({ embedded: true, env: env() });
});
t.after(() => tearDownBackupTest(api, { server, made, s3, scratch }));

const repo = (): BackupRepository => ({ s3, bucketPath: 'lx', password: REPO_PASSWORD });
const restore = (out: string, extra: string[] = []) => lnmRestore(repo(), out, extra);
const rawSnapshot = (snapshotId: string) => snapshotFiles(repo(), snapshotId, scratch);
const waitBackup = (id: number) => backupEnd(api, id);
const chain = (networkId: number) => explorerChain(api, networkId);

let made: CommittedNetwork;
let targetId: number;

t('a quick-start network with loadgen\'s transactions committed, and a backup target', async () => {
  made = await quickstartCommitted(api, server, { name: 'bknet', org: 'BkOrg', mspId: 'BkOrgMSP', transactions: 100 });
  targetId = await s3BackupTarget(api, repo(), 'lx-s3');
});

const databasePassword = () => createHmac('sha256', KEK).update(`ledgerx-committer-database-${made.committer.id}`).digest('base64url');

t('the backup holds the committer\'s database, the groups\' joins and every role\'s directory; the database password is nowhere', async () => {
  const r = await api('POST', '/backups', { target_id: targetId });
  assert.is(r.status, 201, r.text);
  const done = await waitBackup(r.json.id);
  assert.is(done.status, 'COMPLETED', JSON.stringify(done));
  const raw = await rawSnapshot(done.snapshot_id ?? done.snapshotId);
  const exportDir = path.join(raw, 'backup-export', 'ledgerx', `committer-${made.committer.id}`);
  const schema = JSON.parse(readFileSync(path.join(exportDir, 'schema.json'), 'utf8'));
  assert.is(schema.database, made.committer.ledgerXCommitter.database.name);
  assert.ok(schema.tables.some((x: any) => x.name === 'tx_status'), JSON.stringify(schema.tables.map((x: any) => x.name)));
  assert.ok(schema.rows.tx_status >= made.committed.length, `tx_status rows ${schema.rows.tx_status}, ${made.committed.length} committed`);
  assert.ok(schema.functions.length > 0, 'the committer\'s functions');
  const manifest = JSON.parse(readFileSync(path.join(raw, 'backup-export', 'backup.json'), 'utf8'));
  assert.equal(manifest.parts.ledgerx.committers.map((x: any) => [x.groupId, x.exported]), [[made.committer.id, true]]);
  for (const g of [made.group, made.committer]) assert.ok(existsSync(path.join(raw, 'ledgerx', `group-${g.id}`, 'bootstrap.block')), `group ${g.id}'s join`);
  const consenter = made.group.ledgerXOrdererGroup.roles.find((x: any) => x.role === 'consenter').nodeId;
  assert.ok(existsSync(path.join(raw, 'nodes', `node-${consenter}`, 'store')), 'the consenter\'s store');
  const sidecar = made.committer.ledgerXCommitter.roles.find((x: any) => x.role === 'sidecar').nodeId;
  assert.ok(existsSync(path.join(raw, 'nodes', `node-${sidecar}`, 'ledger')), 'the sidecar\'s block store');
  // The password: in no file of the snapshot, no answer, no log line, no audit entry.
  const secret = databasePassword();
  assert.equal(filesHolding(raw, secret), []);
  const vc = made.committer.ledgerXCommitter.roles.find((x: any) => x.role === 'vc').nodeId;
  assert.match(readFileSync(path.join(server.dataDir, 'nodes', `node-${vc}`, 'committer.yaml'), 'utf8'), secret, 'the check looks for what the vc is given');
  for (const p of ['/backups', `/backups/${r.json.id}`, '/audit-logs?limit=200', `/nodes/${made.committer.id}`]) assert.not.match((await api('GET', p)).text, secret, p);
  assert.not.match(server.output(), secret);
  made.before = await chain(made.networkId);
});

t('a one-node backup of a committer role takes its group: the database, the join and the five services\' directories', async () => {
  const query = made.committer.ledgerXCommitter.roles.find((x: any) => x.role === 'query').nodeId;
  const r = await api('POST', '/backups', { targetId, nodeId: query });
  assert.is(r.status, 201, r.text);
  const done = await waitBackup(r.json.id);
  assert.is(done.status, 'COMPLETED', JSON.stringify(done));
  const raw = await rawSnapshot(done.snapshot_id ?? done.snapshotId);
  assert.ok(existsSync(path.join(raw, 'backup-export', 'ledgerx', `committer-${made.committer.id}`, 'schema.json')));
  assert.ok(existsSync(path.join(raw, 'ledgerx', `group-${made.committer.id}`, 'join.json')));
  assert.not.ok(existsSync(path.join(raw, 'ledgerx', `group-${made.group.id}`)), 'not the orderer group');
  assert.equal(readdirSync(path.join(raw, 'nodes')).sort(), made.committer.ledgerXCommitter.roles.map((x: any) => `node-${x.nodeId}`).sort());
  const bad = await api('POST', '/backups', { targetId, nodeId: 999999 });
  assert.ok(bad.status >= 400 && bad.status < 500, bad.text);
});

t('everything lost (roles, server, data directory with the embedded PostgreSQL); lnm restore, lnm serve, the groups started: same blocks, same statuses, new transactions commit', async () => {
  const full = (await api('GET', '/backups?limit=50')).json.items.filter((b: any) => b.status === 'COMPLETED' && (b.node_id ?? b.nodeId ?? null) === null);
  assert.ok(full.length >= 1, 'a COMPLETED backup of everything');
  await stopGroupsAndServer(api, server, [made.group.id, made.committer.id]);
  const lost = server.dataDir;
  rmSync(lost, { recursive: true, force: true });

  const out = path.join(mkdtempSync(path.join(tmpdir(), 'lnm-lx-restored-')), 'data');
  scratch.push(path.dirname(out));
  const restored = await restore(out);
  assert.is(restored.code, 0, restored.out);
  assert.match(restored.out, new RegExp(`ledgerX committer ${made.committer.id}: database ${made.committer.ledgerXCommitter.database.name} restored \\(\\d+ metadata, \\d+ [^)]*tx_status`));
  assert.not.match(restored.out, databasePassword());
  assert.ok(existsSync(path.join(out, 'ledgerx', `group-${made.group.id}`, 'bootstrap.block')));

  server = await startServer({ embedded: true, dataDir: out, env: env() });
  await startGroups(api, [made.group.id, made.committer.id]);
  await sameChainRestored(api, made);
  const { more: lg, height } = await newTransactionsCommit(api, made, out, 777);
  assert.not.match(server.output(), databasePassword());
  console.log(`  restored: height ${made.before.height}, ${made.committed.length} COMMITTED transactions as before; then ${lg.committed} more committed, height ${height}`);
});

t('a backup taken while loadgen sends, restored: the chain as at the backup, every transaction of its blocks with its status in the restored database, and new transactions commit', async () => {
  const c = made.committer.ledgerXCommitter;
  const onChain = async () => (await chain(made.networkId)).blocks.reduce((n, b) => n + b.txs.length, 0);
  const start = (await api('GET', `/networks/ledgerx/${made.networkId}/info`)).json.height;
  const mspDir = path.join(server.dataDir, 'nodes', path.basename(path.dirname(made.mspDir)), 'msp');
  // About 10 s of load at loadgen's 100 transactions a second; the backup starts once blocks flow.
  const load = runLoadgen({ loadgen: (await fabricXProgram('loadgen'))!, genesisBlock: made.genesis, channel: made.channel, mspId: 'BkOrgMSP', mspDir, sidecarPort: c.sidecarPort, coordinatorMetricsUrl: c.coordinatorMetricsUrl, transactions: 1000, namespaces: false, seed: 4242, statusesOnChain: await onChain() });
  await until('blocks flowing', async () => ((await api('GET', `/networks/ledgerx/${made.networkId}/info`)).json.height >= start + 2 ? true : null), 60_000, 200);
  const r = await api('POST', '/backups', { target_id: targetId });
  assert.is(r.status, 201, r.text);
  const done = await waitBackup(r.json.id);
  assert.is(done.status, 'COMPLETED', JSON.stringify(done));
  const lg = await load;
  const heightAfterLoad = (await api('GET', `/networks/ledgerx/${made.networkId}/info`)).json.height;
  console.log(`  under load: backup ${r.json.id} between heights ${start + 2} and ${heightAfterLoad}; loadgen committed ${lg.committed}`);

  await stopGroupsAndServer(api, server, [made.group.id, made.committer.id]);
  rmSync(server.dataDir, { recursive: true, force: true });
  const out = path.join(mkdtempSync(path.join(tmpdir(), 'lnm-lx-restored-')), 'data');
  scratch.push(path.dirname(out));
  // By its snapshot (a restored server counts backup ids again from its backup's: lnm restore
  // refuses an id that names two snapshots).
  const restored = await restore(out, ['--snapshot', done.snapshot_id]);
  assert.is(restored.code, 0, restored.out);
  server = await startServer({ embedded: true, dataDir: out, env: env() });
  await startGroups(api, [made.group.id, made.committer.id]);
  const after = await until('the explorer answers', async () => {
    const i = await api('GET', `/networks/ledgerx/${made.networkId}/info`);
    return i.status === 200 ? chain(made.networkId) : null;
  }, 120_000, 1000);
  assert.ok(after.height >= start + 2 && after.height <= heightAfterLoad, `restored height ${after.height}, backup taken between ${start + 2} and ${heightAfterLoad}`);
  // Every transaction of the restored blocks has its status in the restored database (the query
  // service's answer): the database and the block store fit together.
  const txs = after.blocks.flatMap((b) => b.txs.map((x) => ({ id: x.split(':')[0], status: x.split(':')[1] }))).filter((x) => x.id);
  const sample = txs.filter((_, i) => i % 25 === 0 || i >= txs.length - 5);
  for (const x of sample) {
    const tx = await until(`transaction ${x.id}'s status`, async () => {
      const q = await api('GET', `/networks/ledgerx/${made.networkId}/transactions/${x.id}`);
      return q.status === 200 ? q.json : null;
    }, 60_000, 1000);
    assert.is(tx.status, x.status, `${x.id} in block and database`);
  }
  const more = await moreTransactions(made, out, { transactions: 30, seed: 999, statusesOnChain: txs.length });
  assert.ok(more.committed >= 30, `after the restore the coordinator counts ${more.committed}; loadgen: ${more.lastLines}`);
  console.log(`  restored at height ${after.height} (${txs.length} transactions, ${sample.length} checked in the database); then ${more.committed} more committed`);
});

t.run();
