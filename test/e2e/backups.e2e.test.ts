// Backups end to end with the real restic and a real S3 server (s3rver over HTTPS on loopback):
// targets checked before they are saved, a backup of a server with users, keys and an anvil
// network with a contract, the data directory destroyed, `lnm restore` into a new one and
// `lnm serve` on it: same users, same keys, the audit chain verifies, the node starts again with
// its chain. Faults: wrong password, a damaged pack, wrong credentials, the S3 server going away.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { readdirSync, rmSync, mkdtempSync, writeFileSync, existsSync, readFileSync, statSync, cpSync } from 'node:fs';
import { createPublicKey, randomBytes, verify } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Contract, JsonRpcProvider } from 'ethers';
import { adminAuth, call, startServer, type TestServer } from '../helpers/server.ts';
import { startS3Server, type S3Server } from '../helpers/s3Server.ts';
import { filesHolding } from '../helpers/files.ts';
import { STORE_ABI, STORE_BYTECODE, alive, pidOf, until } from './evm/evmLifecycle.ts';

const run = promisify(execFile);
const t = suite('backups and restore with restic and s3rver');
const KEK = 'backup-e2e-key-encryption-key-0123456789abcdef';
const REPO_PASSWORD = 'repository-password-for-tests';
let s3: S3Server;
const scratchDirs: string[] = [];
let server: TestServer;
const api = (method: string, p: string, body?: unknown, s = server) => call(s.api, method, p, { headers: adminAuth(), body });

async function restore(args: string[], env: Record<string, string> = {}) {
  try {
    const r = await run(process.execPath, ['--import', 'tsx', path.resolve('bin/lnm.ts'), 'restore', ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', AWS_SECRET_ACCESS_KEY: s3.secretAccessKey, ...env }, maxBuffer: 20_000_000,
    });
    return { code: 0, out: r.stdout + r.stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout + e.stderr };
  }
}

// restic itself, as an operator would run it, to look inside the snapshots.
async function restic(args: string[], cwd?: string) {
  const r = await run('restic', ['-r', `s3:${s3.endpoint}/backups/lnm`, '--cacert', s3.caFile, '-o', 's3.bucket-lookup=path', ...args], {
    cwd, maxBuffer: 20_000_000,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', RESTIC_PASSWORD: REPO_PASSWORD, AWS_ACCESS_KEY_ID: s3.accessKeyId, AWS_SECRET_ACCESS_KEY: s3.secretAccessKey, RESTIC_CACHE_DIR: path.join(tmpdir(), 'lnm-restic-cache-e2e') },
  });
  return r.stdout;
}

/** A snapshot's files, restored with restic alone into a scratch directory. */
async function rawSnapshot(snapshotId: string): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'lnm-raw-'));
  scratchDirs.push(dir);
  await restic(['restore', snapshotId, '--target', dir]);
  return dir;
}

// Failed logins with these names are audit-only events: in a backup with include_in_backups
// true (the first), left out of one with false (the second and later).
const MARKER_KEPT = 'marker-in-first-backup-5d1e';
const MARKER_WITHHELD = 'marker-never-in-a-backup-9b2c';
const failLogin = async (username: string) => {
  const r = await call(server.api, 'POST', '/auth/login', { body: { username, password: 'not-the-password' } });
  assert.is(r.status, 401, r.text);
};
let rawSecond: string;

const restoreArgs = (out: string, extra: string[] = [], bucketPath = 'lnm') => ['--endpoint', s3.endpoint, '--bucket', 'backups', '--bucket-path', bucketPath, '--access-key', s3.accessKeyId, '--cacert', s3.caFile, '--output-dir', out, '--force-path-style', ...extra];

async function waitBackup(id: number, s = server) {
  return until(`backup ${id} to end`, async () => {
    const r = await api('GET', `/backups/${id}`, undefined, s);
    return r.json.status !== 'IN_PROGRESS' ? r.json : null;
  }, 120_000);
}

t.before(async () => {
  s3 = await startS3Server(['backups', 'other']);
  server = await startServer({ embedded: true, env: { KEY_ENCRYPTION_KEY: KEK, LNM_BACKUP_CHECK_SECONDS: '1', LNM_BACKUP_STALL_SECONDS: '15', EDITION: 'community' } });
});

t.after(async () => {
  const pid = server && nodeId ? pidOf(server, nodeId) : null;
  if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
  await server?.stop();
  await s3?.stop();
  s3?.remove();
  for (const d of scratchDirs) rmSync(d, { recursive: true, force: true });
});

const flatTarget = (over: Record<string, unknown> = {}) => ({
  name: 'local-s3', endpoint: s3.endpoint, bucket_name: 'backups', bucket_path: 'lnm', region: 'us-east-1', access_key_id: s3.accessKeyId,
  secret_access_key: s3.secretAccessKey, force_path_style: true, repository_password: REPO_PASSWORD, ca_certificate: s3.caPem, ...over,
});

t('a target that does not work is a 400 naming the reason, and nothing is saved', async () => {
  let r = await api('POST', '/backups/targets', flatTarget({ bucket_name: 'no-such-bucket' }));
  assert.is(r.status, 400, r.text);
  assert.is(r.json.code, 'BACKUP_TARGET_UNREACHABLE');
  assert.match(r.json.message, /no such bucket/);
  r = await api('POST', '/backups/targets', flatTarget({ access_key_id: 'WRONGKEY' }));
  assert.is(r.status, 400, r.text);
  assert.match(r.json.message, /access denied/);
  r = await api('POST', '/backups/targets', flatTarget({ endpoint: 'https://127.0.0.1:9' }));
  assert.is(r.status, 400, r.text);
  assert.match(r.json.message, /unreachable endpoint/);
  r = await api('POST', '/backups/targets', flatTarget({ ca_certificate: undefined }));
  assert.is(r.status, 400, r.text);
  assert.match(r.json.message, /certificate/);
  r = await api('POST', '/backups/targets', { name: 'x', type: 'S3', config: { bucketName: 'backups' } });
  assert.is(r.status, 400, r.text);
  assert.ok(r.json.details.some((d: { field: string }) => d.field === 'config.region'), r.text);
  r = await api('POST', '/backups/targets', { name: 'ebs', type: 'EBS_SNAPSHOT', config: {} });
  assert.is(r.status, 403, r.text);
  assert.is(r.json.code, 'EDITION_REQUIRED');
  r = await api('GET', '/backups/targets');
  assert.is(r.json.total, 0);
});

t('targets: both shapes, secrets write-only, generated password shown once', async () => {
  let r = await api('POST', '/backups/targets', flatTarget());
  assert.is(r.status, 201, r.text);
  assert.is(r.json.bucket_name, 'backups');
  assert.is(r.json.repository_password, undefined);
  assert.not.match(r.text, s3.secretAccessKey === 'S3RVER' ? REPO_PASSWORD : s3.secretAccessKey);
  r = await api('POST', '/backups/targets', { name: 'nested', type: 'S3', config: { bucketName: 'other', region: 'us-east-1', bucketPath: 'p', endpoint: s3.endpoint, forcePathStyle: true, accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey, caCertificate: s3.caPem } });
  assert.is(r.status, 201, r.text);
  assert.ok(r.json.repository_password.length >= 20);
  const nestedId = r.json.id;
  r = await api('GET', `/backups/targets/${nestedId}`);
  assert.is(r.json.repository_password, undefined);
  assert.is(r.json.config.bucketName, 'other');
  r = await api('GET', '/backup-targets');
  assert.is(r.json.total, 2);
  r = await api('PUT', `/backups/targets/${nestedId}`, { name: 'nested-renamed', type: 'S3', config: { bucketName: 'other', region: 'us-east-1', bucketPath: 'p', endpoint: s3.endpoint, forcePathStyle: true, accessKeyId: s3.accessKeyId, caCertificate: s3.caPem } });
  assert.is(r.status, 200, r.text);
  assert.is(r.json.name, 'nested-renamed');
  r = await api('DELETE', `/backups/targets/${nestedId}`);
  assert.is(r.status, 204);
});

let targetId: number;
let networkId: number;
let nodeId: number;
let contractAddress: string;
let blockBefore: number;
let keyBefore: { id: number; public_key: string };
let firstBackup: { id: number; size_added: number; total_size: number };

t('a backup of users, keys and a running anvil network completes', async () => {
  targetId = (await api('GET', '/backups/targets')).json.items[0].id;
  let r = await api('POST', '/users', { username: 'operator1', password: 'operator-password-1', role: 'OPERATOR' });
  assert.is(r.status, 201, r.text);
  r = await api('POST', '/organizations', { name: 'Org One', mspId: 'Org1MSP' });
  assert.is(r.status, 201, r.text);
  r = await api('POST', '/keys', { name: 'signing-key', algorithm: 'EC', curve: 'P-256' });
  assert.is(r.status, 201, r.text);
  keyBefore = r.json;
  r = await api('POST', '/networks', { name: 'backup-net', type: 'evm', validatorBalance: '1000000000000000000000', genesis: { chain_id: 31_777, consensus: 'QBFT', block_time: 1 } });
  assert.is(r.status, 201, r.text);
  networkId = r.json.id;
  r = await api('POST', `/networks/${networkId}/start`);
  assert.is(r.status, 200, r.text);
  nodeId = r.json.nodes[0].id;
  const rpc = r.json.nodes[0].endpoints.rpc_http;
  assert.ok(rpc, JSON.stringify(r.json.nodes[0]));
  const provider = new JsonRpcProvider(rpc, undefined, { staticNetwork: true });
  r = await api('POST', '/sc/evm/deploy', { networkId, bytecode: STORE_BYTECODE, abi: STORE_ABI, args: ['4242'] });
  assert.is(r.status, 200, r.text);
  contractAddress = r.json.address;
  assert.is(await new Contract(contractAddress, STORE_ABI, provider).get(), 4242n);
  // anvil writes its state file every 10 s: wait for a save after the deployment.
  await new Promise((res) => setTimeout(res, 11_000));
  // Chain data of a size worth deduplicating (a real node's database is far larger than anvil's state file).
  writeFileSync(path.join(server.dataDir, 'nodes', `node-${nodeId}`, 'chain-data.bin'), randomBytes(20 * 1024 * 1024));
  blockBefore = await provider.getBlockNumber();
  provider.destroy();
  await failLogin(MARKER_KEPT);

  r = await api('POST', '/backups', { target_id: targetId });
  assert.is(r.status, 201, r.text);
  assert.is(r.json.status, 'IN_PROGRESS');
  const done = await waitBackup(r.json.id);
  assert.is(done.status, 'COMPLETED', JSON.stringify(done));
  assert.match(done.snapshot_id, /^[0-9a-f]{64}$/);
  assert.ok(done.event_position > 0 && done.size_added > 0 && done.total_size > 0 && done.files > 0, JSON.stringify(done));
  firstBackup = done;
});

t('a second backup after a small change adds less than 10% of the first', async () => {
  let r = await api('POST', '/users', { username: 'viewer1', password: 'viewer-password-1', role: 'VIEWER' });
  assert.is(r.status, 201, r.text);
  // From here on backups leave the audit-only entries out (checked in the next test).
  r = await api('POST', '/settings/audit', { include_in_backups: false });
  assert.is(r.status, 200, r.text);
  assert.is(r.json.include_in_backups, false);
  await failLogin(MARKER_WITHHELD);
  r = await api('POST', '/backups', { targetId });
  assert.is(r.status, 201, r.text);
  const second = await waitBackup(r.json.id);
  assert.is(second.status, 'COMPLETED', JSON.stringify(second));
  assert.is(second.node_id, null);
  assert.ok(second.size_added < firstBackup.size_added * 0.1, `second added ${second.size_added} bytes, first ${firstBackup.size_added}`);
  assert.ok(second.total_size - firstBackup.total_size < firstBackup.size_added * 0.1, `repository grew from ${firstBackup.total_size} to ${second.total_size}`);
  secondSnapshot = second.snapshot_id;
});
let secondSnapshot: string;

t('include_in_backups: with true the audit entries are in the snapshot, with false not even the failed logins before the change are', async () => {
  const rawFirst = await rawSnapshot((firstBackup as unknown as { snapshot_id: string }).snapshot_id);
  assert.ok(filesHolding(rawFirst, MARKER_KEPT).some((f) => f.endsWith('events.jsonl')), 'the first backup holds its failed login');
  rawSecond = await rawSnapshot(secondSnapshot);
  assert.ok(existsSync(path.join(rawSecond, 'nodes', `node-${nodeId}`, 'chain-data.bin')));
  assert.equal(filesHolding(rawSecond, MARKER_KEPT), []);
  assert.equal(filesHolding(rawSecond, MARKER_WITHHELD), []);
  const manifest = JSON.parse(readFileSync(path.join(rawSecond, 'backup-export', 'database', 'manifest.json'), 'utf8'));
  assert.is(manifest.auditIncluded, false);
  assert.ok(manifest.withheld >= 2, JSON.stringify(manifest));
  assert.ok(manifest.withheldTypes.includes('LoginFailed'), JSON.stringify(manifest));
  assert.is(JSON.parse(readFileSync(path.join(rawSecond, 'backup-export', 'backup.json'), 'utf8')).includeAuditLogs, false);
});

const readModels = ['/users', '/keys', '/organizations', '/settings', '/backups/targets', '/key-providers', '/networks/evm'];
const strip = (x: unknown): unknown => JSON.parse(JSON.stringify(x, (k, v) => (['status', 'block_height', 'uptime', 'started_at', 'down_since', 'error', 'peers', 'updatedAt', 'updated_at', 'last_error', 'reachable'].includes(k) ? undefined : v)));

t('the data directory destroyed, lnm restore and lnm serve bring everything back', async () => {
  const before: Record<string, unknown> = {};
  for (const p of readModels) {
    const r = await api('GET', p);
    assert.is(r.status, 200, `GET ${p}: ${r.text}`);
    before[p] = strip(r.json);
  }
  const lastBackup = (await api('GET', '/backups?limit=1')).json.items[0];
  const busy = await restore(restoreArgs(server.dataDir), { LNM_RESTORE_PASSWORD: REPO_PASSWORD });
  assert.is.not(busy.code, 0);
  assert.match(busy.out, /a server is still running/);
  // The machine is lost: the node process and the server die, the data directory goes.
  const pid = pidOf(server, nodeId);
  if (pid) process.kill(pid, 'SIGKILL');
  await server.stop();
  const oldOutput = server.output();
  rmSync(server.dataDir, { recursive: true, force: true });

  const out = path.join(mkdtempSync(path.join(tmpdir(), 'lnm-restored-')), 'data');
  scratchDirs.push(path.dirname(out));
  const pwFile = path.join(path.dirname(out), 'pw');
  writeFileSync(pwFile, REPO_PASSWORD + '\n', { mode: 0o600 });
  const restored = await restore(restoreArgs(out, ['--password-file', pwFile]));
  assert.is(restored.code, 0, restored.out);
  assert.match(restored.out, new RegExp(`restoring backup ${lastBackup.id}`));
  assert.match(restored.out, /hash chain verified/);
  assert.match(restored.out, /\d+ audit entries were withheld from this backup \(include_in_backups was false: [^)]*LoginFailed/);
  assert.not.match(restored.out, REPO_PASSWORD);
  assert.ok(existsSync(path.join(out, 'nodes', `node-${nodeId}`, 'chain-data.bin')));
  assert.not.ok(existsSync(path.join(out, 'key-encryption-key')));

  server = await startServer({ embedded: true, dataDir: out, env: { KEY_ENCRYPTION_KEY: KEK, LNM_BACKUP_CHECK_SECONDS: '1', LNM_BACKUP_STALL_SECONDS: '15', EDITION: 'community' } });
  for (const p of readModels) assert.equal(strip((await api('GET', p)).json), before[p], `GET ${p} after the restore`);
  // The backup that was running when the cut was taken is COMPLETED, not IN_PROGRESS forever.
  const b = (await api('GET', `/backups/${lastBackup.id}`)).json;
  assert.is(b.status, 'COMPLETED', JSON.stringify(b));
  assert.ok(b.files > 0 && b.snapshot_id, JSON.stringify(b));

  const me = await call(server.api, 'GET', '/auth/me', { headers: { authorization: 'Basic ' + Buffer.from('operator1:operator-password-1').toString('base64') } });
  assert.is(me.status, 200, me.text);
  const data = Buffer.from('signed after the restore');
  const sig = await api('POST', `/keys/${keyBefore.id}/sign-data`, { data: data.toString('base64') });
  assert.is(sig.status, 200, sig.text);
  assert.ok(verify('sha256', data, createPublicKey((keyBefore as unknown as { publicKey: string }).publicKey), Buffer.from(sig.json.signature, 'base64')));

  const newest = (await api('GET', '/audit-logs?limit=1')).json;
  const head = (newest.items ?? newest)[0].id;
  const verified = await api('POST', '/audit-logs/verify', { start_id: 1, end_id: head });
  assert.is(verified.status, 200, verified.text);
  assert.ok(verified.json.valid, verified.text);
  assert.ok(verified.json.checked >= head - 1, verified.text);
  assert.ok(verified.json.withheld >= 2, verified.text);
  assert.match(verified.json.message, /withheld from the backup/);
  const audit = await api('GET', '/audit-logs?limit=500&include_archived=true');
  assert.is(audit.status, 200, audit.text);
  assert.not.ok(audit.text.includes(MARKER_KEPT) || audit.text.includes(MARKER_WITHHELD), 'a withheld entry is listed after the restore');

  // Nodes do not start by themselves; the health monitor finds this one down, then it starts on its chain.
  await until('the restored node to be seen down', async () => (await api('GET', `/nodes/${nodeId}`)).json.status === 'down', 60_000);
  assert.not.ok(alive(pidOf(server, nodeId)));
  const started = await api('POST', `/networks/${networkId}/start`);
  assert.is(started.status, 200, started.text);
  const provider = new JsonRpcProvider(started.json.nodes[0].endpoints.rpc_http, undefined, { staticNetwork: true });
  await until('the chain to reach its height before the loss', async () => (await provider.getBlockNumber().catch(() => 0)) >= blockBefore, 60_000);
  assert.is(await new Contract(contractAddress, STORE_ABI, provider).get(), 4242n);
  provider.destroy();
  assert.not.match(oldOutput + server.output(), REPO_PASSWORD);
});

t('a backup without its audit entries whose stub or kept entry was changed does not restore', async () => {
  const events = (dir: string) => path.join(dir, 'backup-export', 'database', 'events.jsonl');
  const rows = readFileSync(events(rawSecond), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>);
  const stubAt = rows.findIndex((r, i) => r.withheld && rows[i + 1] && !rows[i + 1].withheld);
  const keptAt = rows.findIndex((r) => r.type === 'UserCreated');
  assert.ok(stubAt >= 0 && keptAt >= 0);
  const cases: Array<[string, (r: Array<Record<string, any>>) => void, RegExp]> = [
    ['a stub', (r) => (r[stubAt].hash = 'f'.repeat(64)), new RegExp(`does not verify at position ${rows[stubAt + 1].position} \\(broken_link`)],
    ['a kept entry', (r) => (r[keptAt].data.username = 'mallory'), new RegExp(`does not verify at position ${rows[keptAt].position} \\(hash_mismatch`)],
  ];
  let fakeBackupId = 990_001;
  for (const [what, change, expected] of cases) {
    // The backup's files as restic holds them, changed, and written back as a snapshot of their own.
    const dir = mkdtempSync(path.join(tmpdir(), 'lnm-changed-'));
    scratchDirs.push(dir);
    cpSync(path.join(rawSecond, 'backup-export'), path.join(dir, 'backup-export'), { recursive: true });
    const changed = rows.map((r) => structuredClone(r));
    change(changed);
    writeFileSync(events(dir), changed.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const id = fakeBackupId++;
    await restic(['backup', '--host', 'lnm', '--tag', 'lnm', '--tag', `lnm-backup-${id}`, 'backup-export'], dir);
    const out = path.join(mkdtempSync(path.join(tmpdir(), 'lnm-fault-')), 'data');
    scratchDirs.push(path.dirname(out));
    const r = await restore(restoreArgs(out, ['--backup', String(id)]), { LNM_RESTORE_PASSWORD: REPO_PASSWORD });
    assert.is.not(r.code, 0, `${what}: ${r.out}`);
    assert.match(r.out, expected, `${what}: ${r.out}`);
    assert.match(r.out, /nothing was restored/);
    assert.not.ok(existsSync(out), `${what}: the output directory was written`);
    await restic(['forget', '--tag', `lnm-backup-${id}`]);
  }
});

const FAULT_PASSWORD = 'fault-repository-password';

t('restore faults: wrong password, a backup that is not COMPLETED, a damaged pack; nothing is written', async () => {
  const out = path.join(mkdtempSync(path.join(tmpdir(), 'lnm-fault-')), 'data');
  scratchDirs.push(path.dirname(out));
  let r = await restore(restoreArgs(out), { LNM_RESTORE_PASSWORD: 'wrong-password' });
  assert.is.not(r.code, 0, r.out);
  assert.match(r.out, /incorrect repository password/);
  assert.not.ok(existsSync(out));
  r = await restore(restoreArgs(out, ['--backup', '99999']), { LNM_RESTORE_PASSWORD: REPO_PASSWORD });
  assert.is.not(r.code, 0, r.out);
  assert.match(r.out, /backup 99999 is not restorable: it is not COMPLETED/);
  assert.not.ok(existsSync(out));

  let t2 = await api('POST', '/backups/targets', flatTarget({ name: 'faults', bucket_name: 'other', bucket_path: 'faults', repository_password: FAULT_PASSWORD }));
  assert.is(t2.status, 201, t2.text);
  const b = await api('POST', '/backups', { targetId: t2.json.id, nodeId });
  assert.is(b.status, 201, b.text);
  assert.is((await waitBackup(b.json.id)).status, 'COMPLETED');
  // Deleting a backup removes its snapshot from the repository.
  const extra = await api('POST', '/backups', { targetId: t2.json.id, nodeId });
  assert.is((await waitBackup(extra.json.id)).status, 'COMPLETED');
  assert.is((await api('DELETE', `/backups/${extra.json.id}`)).status, 204);
  assert.is((await api('GET', `/backups/${extra.json.id}`)).status, 404);
  r = await restore(restoreArgs(out, ['--backup', String(extra.json.id)], 'faults').map((a) => (a === 'backups' ? 'other' : a)), { LNM_RESTORE_PASSWORD: FAULT_PASSWORD });
  assert.match(r.out, new RegExp(`backup ${extra.json.id} is not restorable`));
  // Flip bytes in the middle of every pack file the backup wrote.
  const packs: string[] = [];
  const walk = (d: string) => { for (const e of readdirSync(d, { withFileTypes: true })) e.isDirectory() ? walk(path.join(d, e.name)) : e.name.endsWith('._S3rver_object') && packs.push(path.join(d, e.name)); };
  walk(path.join(s3.directory, 'other', 'faults', 'data'));
  assert.ok(packs.length > 0);
  for (const f of packs) {
    const bytes = readFileSync(f);
    for (let i = Math.floor(bytes.length / 2); i < Math.min(bytes.length, Math.floor(bytes.length / 2) + 64); i++) bytes[i] ^= 0xff;
    writeFileSync(f, bytes);
  }
  r = await restore(restoreArgs(out, [], 'faults').map((a) => (a === 'backups' ? 'other' : a)), { LNM_RESTORE_PASSWORD: FAULT_PASSWORD });
  assert.match(r.out, /only backups of single nodes; name the one to restore with --backup/);
  r = await restore(restoreArgs(out, ['--backup', String(b.json.id)], 'faults').map((a) => (a === 'backups' ? 'other' : a)), { LNM_RESTORE_PASSWORD: FAULT_PASSWORD });
  assert.is.not(r.code, 0, r.out);
  assert.match(r.out, /checksum error/);
  assert.not.ok(existsSync(out));
  assert.not.match(r.out, FAULT_PASSWORD);
  t2 = await api('DELETE', `/backups/targets/${t2.json.id}`);
  assert.is(t2.status, 204);
});

t('the S3 server going away: the running backup ends FAILED, the target check raises system.s3.connection_issue', async () => {
  writeFileSync(path.join(server.dataDir, 'nodes', `node-${nodeId}`, 'big.bin'), randomBytes(120 * 1024 * 1024));
  const r = await api('POST', '/backups', { target_id: targetId });
  assert.is(r.status, 201, r.text);
  await until('the upload to start', async () => ((await api('GET', `/backups/${r.json.id}`)).json.progress?.bytes_done ?? 0) > 0, 60_000);
  await s3.stop();
  try {
    const failed = await waitBackup(r.json.id);
    assert.is(failed.status, 'FAILED', JSON.stringify(failed));
    assert.match(failed.error, /storage stopped answering|refused/);
    const target = await until('the target to be seen unreachable', async () => {
      const x = (await api('GET', `/backups/targets/${targetId}`)).json;
      return x.reachable === false ? x : null;
    }, 30_000);
    assert.match(target.last_error, /unreachable endpoint/);
    const audit = (await api('GET', '/audit-logs?limit=50')).json;
    assert.ok((audit.items ?? audit).some((e: { event?: string }) => e.event === 'system.s3.connection_issue'), JSON.stringify(audit).slice(0, 2000));
  } finally {
    rmSync(path.join(server.dataDir, 'nodes', `node-${nodeId}`, 'big.bin'), { force: true });
    await s3.start();
  }
  await until('the target to answer again', async () => (await api('GET', `/backups/targets/${targetId}`)).json.reachable === true, 30_000);
  const again = await api('POST', '/backups', { target_id: targetId });
  assert.is((await waitBackup(again.json.id)).status, 'COMPLETED');
});

t('a backup running when the service is killed ends FAILED after the restart, and is not restorable', async () => {
  const big = path.join(server.dataDir, 'nodes', `node-${nodeId}`, 'big.bin');
  writeFileSync(big, randomBytes(120 * 1024 * 1024));
  try {
    // A graceful stop does not wait for the backup: it is stopped and recorded FAILED.
    const graceful = await api('POST', '/backups', { target_id: targetId });
    await until('the upload to start', async () => ((await api('GET', `/backups/${graceful.json.id}`)).json.progress?.bytes_done ?? 0) > 0, 60_000);
    const stopping = Date.now();
    await server.stop();
    assert.ok(Date.now() - stopping < 15_000, `the stop took ${Date.now() - stopping} ms`);
    server = await startServer({ embedded: true, dataDir: server.dataDir, port: server.port, env: server.env });
    const stopped = await waitBackup(graceful.json.id);
    assert.is(stopped.status, 'FAILED', JSON.stringify(stopped));
    assert.match(stopped.error, /service stopped while this backup ran/);

    const r = await api('POST', '/backups', { target_id: targetId });
    assert.is(r.status, 201, r.text);
    await until('the upload to start', async () => ((await api('GET', `/backups/${r.json.id}`)).json.progress?.bytes_done ?? 0) > 0, 60_000);
    await server.kill();
    server = await startServer({ embedded: true, dataDir: server.dataDir, port: server.port, env: server.env });
    const failed = await waitBackup(r.json.id);
    assert.is(failed.status, 'FAILED', JSON.stringify(failed));
    assert.match(failed.error, /service stopped while this backup ran/);
    const out = path.join(mkdtempSync(path.join(tmpdir(), 'lnm-fault-')), 'data');
    scratchDirs.push(path.dirname(out));
    const restored = await restore(restoreArgs(out, ['--backup', String(r.json.id)]), { LNM_RESTORE_PASSWORD: REPO_PASSWORD });
    assert.match(restored.out, /is not restorable: it is not COMPLETED/);
    assert.not.ok(existsSync(out));
  } finally {
    rmSync(big, { force: true });
  }
});

t('schedules: cron with seconds, retention prunes, disable stops, a run missed while down runs once after restart', async () => {
  let r = await api('POST', '/backups/schedules', { name: 'bad', cron_expression: '*/5 * * * *', target_id: targetId });
  assert.is(r.status, 400, r.text);
  assert.match(r.json.message, /six space-separated fields/);
  r = await api('POST', '/backups/schedules', { name: 'bad', cronExpression: '61 * * * * *', targetId });
  assert.is(r.status, 400, r.text);
  assert.ok(r.json.details.some((d: { field: string }) => d.field === 'cronExpression'), r.text);
  r = await api('POST', '/backups/schedules', { name: 'every-3s', description: 'test', cron_expression: '*/3 * * * * *', target_id: targetId, retention: { keep_last: 2 } });
  assert.is(r.status, 201, r.text);
  const scheduleId = r.json.id;
  const runs = async () => (await api('GET', `/backups?schedule_id=${scheduleId}&limit=100`)).json.items as Array<{ id: number; status: string }>;
  const firstId = await until('a first scheduled backup', async () => (await runs()).at(-1)?.id, 30_000);
  await until('four scheduled backups', async () => ((await api('GET', `/backups/schedules/${scheduleId}`)).json.last_backup_id ?? 0) >= firstId + 3 && (await runs()).every((b) => b.status !== 'IN_PROGRESS'), 90_000);
  const kept = (await runs()).filter((b) => b.status === 'COMPLETED');
  assert.ok(kept.length <= 3, `retention keeps the last 2 (one more may have finished since): ${kept.map((b) => b.id)}\n${server.output().split('\n').filter((l) => /retention|prune/i.test(l)).join('\n')}`);
  assert.not.ok(kept.some((b) => b.id === firstId), 'the first scheduled backup was pruned');

  r = await api('PUT', `/backups/schedules/${scheduleId}/disable`);
  assert.is(r.status, 200, r.text);
  assert.is(r.json.enabled, false);
  await new Promise((res) => setTimeout(res, 1500));
  const lastAfterDisable = (await api('GET', `/backups/schedules/${scheduleId}`)).json.last_backup_id;
  await new Promise((res) => setTimeout(res, 7000));
  assert.is((await api('GET', `/backups/schedules/${scheduleId}`)).json.last_backup_id, lastAfterDisable);

  // One run time, a few seconds ahead; the service is down when it passes.
  const at = new Date(Date.now() + 6000);
  const cron = `${at.getUTCSeconds()} ${at.getUTCMinutes()} ${at.getUTCHours()} ${at.getUTCDate()} ${at.getUTCMonth() + 1} *`;
  r = await api('POST', '/backups/schedules', { name: 'once', cron_expression: cron, target_id: targetId });
  assert.is(r.status, 201, r.text);
  const onceId = r.json.id;
  const pid = pidOf(server, nodeId);
  await server.stop();
  while (Date.now() < at.getTime() + 2000) await new Promise((res) => setTimeout(res, 200));
  server = await startServer({ embedded: true, dataDir: server.dataDir, port: server.port, env: server.env });
  const missed = await until('the missed run', async () => {
    const items = (await api('GET', `/backups?schedule_id=${onceId}`)).json.items;
    return items.length ? items : null;
  }, 30_000);
  await new Promise((res) => setTimeout(res, 3000));
  assert.is((await api('GET', `/backups?schedule_id=${onceId}`)).json.items.length, 1, JSON.stringify(missed));
  assert.is((await waitBackup(missed[0].id)).status, 'COMPLETED');
});

t('without restic the backup routes answer 503 naming it, and the rest of the server works', async () => {
  const bare = await startServer({ env: { LNM_RESTIC_BIN: '/nonexistent/restic' } });
  try {
    const h = adminAuth();
    let r = await call(bare.api, 'POST', '/backups/targets', { headers: h, body: flatTarget() });
    assert.is(r.status, 503, r.text);
    assert.match(r.json.message, /restic is not installed/);
    r = await call(bare.api, 'POST', '/backups', { headers: h, body: { target_id: 1 } });
    assert.is(r.status, 503, r.text);
    r = await call(bare.api, 'GET', '/backups', { headers: h });
    assert.is(r.status, 200, r.text);
    r = await call(bare.api, 'GET', '/users', { headers: h });
    assert.is(r.status, 200, r.text);
  } finally {
    await bare.stop();
  }
});

t('no secret reaches a log line', async () => {
  const logs = server.output();
  for (const secret of [REPO_PASSWORD, FAULT_PASSWORD]) assert.not.ok(logs.includes(secret), `server output holds ${secret}`);
});

t.run();
