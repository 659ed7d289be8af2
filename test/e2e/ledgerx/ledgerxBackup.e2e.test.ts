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
import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { startS3Server, type S3Server } from '../../helpers/s3Server.ts';
import { fabricXMissing, fabricXProgram, fabricXServiceEnv } from '../../helpers/programs.ts';
import { requires } from '../../helpers/requirements.ts';
import { freePortBlock } from '../../helpers/ports.ts';
import { apiOf, until } from '../consortium/consortiumApi.ts';
import { runLoadgen } from './ledgerxLoadgen.ts';

const run = promisify(execFile);
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
t.after(async () => {
  if (server) {
    for (const id of [made?.group?.id, made?.committer?.id].filter(Boolean)) await api('POST', `/nodes/${id}/stop`).catch(() => undefined);
    server.reapNodes();
    await server.stop();
  }
  await s3?.stop();
  s3?.remove();
  for (const d of scratch) rmSync(d, { recursive: true, force: true });
});

async function restore(out: string, extra: string[] = []) {
  const args = ['--endpoint', s3.endpoint, '--bucket', 'backups', '--bucket-path', 'lx', '--access-key', s3.accessKeyId, '--cacert', s3.caFile, '--output-dir', out, '--force-path-style', ...extra];
  try {
    const r = await run(process.execPath, ['--import', 'tsx', path.resolve('bin/lnm.ts'), 'restore', ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', AWS_SECRET_ACCESS_KEY: s3.secretAccessKey, LNM_RESTORE_PASSWORD: REPO_PASSWORD }, maxBuffer: 20_000_000,
    });
    return { code: 0, out: r.stdout + r.stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout + e.stderr };
  }
}

/** A snapshot's files, with restic alone. */
async function rawSnapshot(snapshotId: string): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'lnm-lx-raw-'));
  scratch.push(dir);
  await run('restic', ['-r', `s3:${s3.endpoint}/backups/lx`, '--cacert', s3.caFile, '-o', 's3.bucket-lookup=path', 'restore', snapshotId, '--target', dir], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', RESTIC_PASSWORD: REPO_PASSWORD, AWS_ACCESS_KEY_ID: s3.accessKeyId, AWS_SECRET_ACCESS_KEY: s3.secretAccessKey, RESTIC_CACHE_DIR: path.join(tmpdir(), 'lnm-restic-cache-e2e') }, maxBuffer: 20_000_000,
  });
  return dir;
}

function filesHolding(dir: string, needle: string): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && readFileSync(p).includes(needle)) found.push(p);
    }
  };
  walk(dir);
  return found;
}

async function waitBackup(id: number) {
  return until(`backup ${id} to end`, async () => {
    const r = await api('GET', `/backups/${id}`);
    return r.json.status !== 'IN_PROGRESS' ? r.json : null;
  }, 180_000, 500);
}

/** Every block (number, hash, previous hash) and every transaction's id and status, as the explorer shows them. */
async function chain(networkId: number) {
  const info = (await api('GET', `/networks/ledgerx/${networkId}/info`)).json;
  const blocks: { number: number; hash: string; txs: string[] }[] = [];
  for (let n = 0; n < info.height; n++) {
    const b = await api('GET', `/networks/ledgerx/${networkId}/blocks/${n}`);
    assert.is(b.status, 200, b.text);
    blocks.push({ number: n, hash: b.json.hash, txs: b.json.transactions.map((x: any) => `${x.id}:${x.status}`) });
  }
  return { height: info.height as number, head: info.current_block_hash as string, blocks };
}

let made: { group: any; committer: any; networkId: number; channel: string; genesis: Buffer; mspDir: string; before: Awaited<ReturnType<typeof chain>>; committed: string[] };
let targetId: number;

t('a quick-start network with loadgen\'s transactions committed, and a backup target', async () => {
  const base = await freePortBlock(Array.from({ length: 2 }, (_, g) => Array.from({ length: 5 }, (_, i) => [10 * g + i, 10 * g + 100 + i]).flat()).flat());
  const r = await api('POST', '/networks/ledgerx/quickstart', { name: 'bknet', organizations: [{ name: 'BkOrg', mspId: 'BkOrgMSP' }], grpcPort: base });
  assert.is(r.status, 202, r.text);
  const q = await until('the quick start ends', async () => {
    const x = (await api('GET', `/networks/ledgerx/quickstart/${r.json.id}`)).json;
    return x.status === 'IN_PROGRESS' ? null : x;
  }, 300_000, 500);
  assert.is(q.status, 'COMPLETED', JSON.stringify(q));
  const group = (await api('GET', `/nodes/${q.steps[1].resource_id}`)).json;
  const committer = (await api('GET', `/nodes/${q.steps[2].resource_id}`)).json;
  const network = (await api('GET', `/networks/ledgerx/${q.network_id}`)).json;
  const genesis = Buffer.from((await api('GET', `/networks/ledgerx/${q.network_id}/genesis`)).json.block, 'base64');
  const mspDir = path.join(server.dataDir, 'nodes', `node-${committer.ledgerXCommitter.roles.find((x: any) => x.role === 'sidecar').nodeId}`, 'msp');
  const loadgen = await fabricXProgram('loadgen');
  assert.ok(loadgen, 'loadgen is with the Fabric-X programs');
  const c = committer.ledgerXCommitter;
  const lg = await runLoadgen({ loadgen: loadgen!, genesisBlock: genesis, channel: network.channel_name, mspId: 'BkOrgMSP', mspDir, sidecarPort: c.sidecarPort, coordinatorMetricsUrl: c.coordinatorMetricsUrl, transactions: 100 });
  assert.ok(lg.committed >= 102, `the coordinator counts ${lg.committed} committed; loadgen: ${lg.lastLines}`);
  // The explorer's blocks hold the last transactions once the sidecar has them.
  const before = await until('the explorer shows loadgen\'s transactions', async () => {
    const ch = await chain(network.id);
    return ch.blocks.flatMap((b) => b.txs).filter((x) => x.endsWith(':COMMITTED')).length >= 101 ? ch : null;
  }, 60_000, 1000);
  const committed = before.blocks.flatMap((b) => b.txs).filter((x) => x.endsWith(':COMMITTED')).map((x) => x.split(':')[0]);
  made = { group, committer, networkId: network.id, channel: network.channel_name, genesis, mspDir, before, committed };

  const target = await api('POST', '/backups/targets', { name: 'lx-s3', endpoint: s3.endpoint, bucket_name: 'backups', bucket_path: 'lx', region: 'us-east-1', access_key_id: s3.accessKeyId, secret_access_key: s3.secretAccessKey, force_path_style: true, repository_password: REPO_PASSWORD, ca_certificate: s3.caPem });
  assert.is(target.status, 201, target.text);
  targetId = target.json.id;
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
  for (const id of [made.group.id, made.committer.id]) assert.ok((await api('POST', `/nodes/${id}/stop`)).status < 300);
  await until('the roles stopped', async () => ((await api('GET', `/nodes/${made.committer.id}`)).json.status === 'stopped' && (await api('GET', `/nodes/${made.group.id}`)).json.status === 'stopped' ? true : null), 60_000, 500);
  server.reapNodes();
  await server.stop();
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
  for (const id of [made.group.id, made.committer.id]) {
    const s = await api('POST', `/nodes/${id}/start`);
    assert.ok(s.status < 300, s.text);
  }
  await until('the groups running again', async () => ((await api('GET', `/nodes/${made.committer.id}`)).json.status === 'running' && (await api('GET', `/nodes/${made.group.id}`)).json.status === 'running' ? true : null), 240_000, 1000);
  const after = await until('the explorer answers', async () => {
    const i = await api('GET', `/networks/ledgerx/${made.networkId}/info`);
    return i.status === 200 && i.json.height >= made.before.height ? chain(made.networkId) : null;
  }, 120_000, 1000);
  assert.is(after.height, made.before.height);
  assert.is(after.head, made.before.head);
  assert.equal(after.blocks, made.before.blocks);
  // The statuses the query service reads from the restored database.
  for (const id of made.committed.filter((_, i) => i % 10 === 0)) {
    const tx = await api('GET', `/networks/ledgerx/${made.networkId}/transactions/${id}`);
    assert.is(tx.status, 200, tx.text);
    assert.is(tx.json.status, 'COMMITTED', tx.text);
  }
  // New transactions, through the restored router, committed after the restored blocks.
  const c = made.committer.ledgerXCommitter;
  const mspDir = path.join(out, 'nodes', path.basename(path.dirname(made.mspDir)), 'msp');
  const lg = await runLoadgen({ loadgen: (await fabricXProgram('loadgen'))!, genesisBlock: made.genesis, channel: made.channel, mspId: 'BkOrgMSP', mspDir, sidecarPort: c.sidecarPort, coordinatorMetricsUrl: c.coordinatorMetricsUrl, transactions: 50, namespaces: false, seed: 777, statusesOnChain: made.before.blocks.reduce((n, b) => n + b.txs.length, 0) });
  assert.ok(lg.committed >= 50, `after the restore the coordinator counts ${lg.committed} committed; loadgen: ${lg.lastLines}`);
  const grown = await until('the explorer shows the new blocks', async () => {
    const i = (await api('GET', `/networks/ledgerx/${made.networkId}/info`)).json;
    return i.height > made.before.height ? i : null;
  }, 60_000, 1000);
  const newest = (await api('GET', `/networks/ledgerx/${made.networkId}/blocks/${grown.height - 1}`)).json;
  assert.ok(newest.transactions.some((x: any) => x.status === 'COMMITTED'), JSON.stringify(newest.transactions.slice(0, 3)));
  assert.not.match(server.output(), databasePassword());
  console.log(`  restored: height ${made.before.height}, ${made.committed.length} COMMITTED transactions as before; then ${lg.committed} more committed, height ${grown.height}`);
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

  for (const id of [made.group.id, made.committer.id]) assert.ok((await api('POST', `/nodes/${id}/stop`)).status < 300);
  await until('the roles stopped', async () => ((await api('GET', `/nodes/${made.committer.id}`)).json.status === 'stopped' && (await api('GET', `/nodes/${made.group.id}`)).json.status === 'stopped' ? true : null), 60_000, 500);
  server.reapNodes();
  await server.stop();
  rmSync(server.dataDir, { recursive: true, force: true });
  const out = path.join(mkdtempSync(path.join(tmpdir(), 'lnm-lx-restored-')), 'data');
  scratch.push(path.dirname(out));
  // By its snapshot (a restored server counts backup ids again from its backup's: lnm restore
  // refuses an id that names two snapshots).
  const restored = await restore(out, ['--snapshot', done.snapshot_id]);
  assert.is(restored.code, 0, restored.out);
  server = await startServer({ embedded: true, dataDir: out, env: env() });
  for (const id of [made.group.id, made.committer.id]) assert.ok((await api('POST', `/nodes/${id}/start`)).status < 300);
  await until('the groups running again', async () => ((await api('GET', `/nodes/${made.committer.id}`)).json.status === 'running' && (await api('GET', `/nodes/${made.group.id}`)).json.status === 'running' ? true : null), 240_000, 1000);
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
  const more = await runLoadgen({ loadgen: (await fabricXProgram('loadgen'))!, genesisBlock: made.genesis, channel: made.channel, mspId: 'BkOrgMSP', mspDir: path.join(out, 'nodes', path.basename(path.dirname(made.mspDir)), 'msp'), sidecarPort: c.sidecarPort, coordinatorMetricsUrl: c.coordinatorMetricsUrl, transactions: 30, namespaces: false, seed: 999, statusesOnChain: txs.length });
  assert.ok(more.committed >= 30, `after the restore the coordinator counts ${more.committed}; loadgen: ${more.lastLines}`);
  console.log(`  restored at height ${after.height} (${txs.length} transactions, ${sample.length} checked in the database); then ${more.committed} more committed`);
});

t.run();
