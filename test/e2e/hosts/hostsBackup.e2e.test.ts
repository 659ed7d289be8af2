// Backups of a node on a node host (a second Docker Engine in a network namespace the test makes),
// with the real restic and a real S3 server (s3rver over HTTPS on loopback):
// - an anvil node placed on the host, a contract deployed on it: anvil's saved chain is in the
//   node's volume on the host, and only there (the staging copy here holds block 0 only);
// - a backup reads the node's directory through the host's engine: the snapshot, read with
//   restic alone, holds backup-export/hosts/node-<id>/ with the chain that has the contract, and
//   backup.json names the node, its host and the files read;
// - with the host's engine stopped a backup is FAILED naming the node and the host, no snapshot;
// - the node's container and volume removed from the host (the host lost them) and the data
//   directory gone: `lnm restore` and `lnm serve` on a new directory, the node started again:
//   its files are put back into a new volume through the engine, and the contract answers, also
//   after a restart through the service (which used to upload block 0 over the saved chain);
// - the host's client key and the repository password are in no answer, log line, snapshot
//   file name or snapshot file.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Contract, JsonRpcProvider } from 'ethers';
import { adminAuth, call, startServer, type TestServer } from '../../helpers/server.ts';
import { requires } from '../../helpers/requirements.ts';
import { resticMissing } from '../../helpers/programs.ts';
import { startS3Server, type S3Server } from '../../helpers/s3Server.ts';
import { secondHostMissing, startSecondDockerHost, type SecondDockerHost } from '../../helpers/secondDockerHost.ts';
import { STORE_ABI, STORE_BYTECODE, until } from '../evm/evmLifecycle.ts';

const run = promisify(execFile);
const missing = secondHostMissing() ?? resticMissing ?? (() => {
  try {
    execFileSync('docker', ['image', 'inspect', 'lnm-anvil:local'], { stdio: 'ignore' });
    return undefined;
  } catch {
    return 'the image lnm-anvil:local is not on the main Docker Engine (.ci/docker.sh builds it)';
  }
})();
const t = requires(suite('node hosts: backup and restore of a node on a second Docker Engine'), 'docker-host', missing);
const KEK = 'hosts-backup-e2e-key-encryption-key-01234567';
const REPO_PASSWORD = 'hosted-repository-password-for-tests';
const VALUE = 73_519n;
let host: SecondDockerHost;
let s3: S3Server;
let server: TestServer;
let hostId: number;
let networkId: number;
let nodeId: number;
let contractAddress: string;
let snapshotId: string;
let backupId: number;
const scratch: string[] = [];
const outputs: string[] = [];
const api = (method: string, p: string, body?: unknown) => call(server.api, method, p, { headers: adminAuth(), body });
const serverEnv = () => ({ KEY_ENCRYPTION_KEY: KEK, LNM_HOST_CHECK_SECONDS: '2', LNM_NODE_ENGINE: 'process', LNM_BACKUP_STALL_SECONDS: '20' });
/** A line from the middle of the host's client key: its base64 body, never to be seen anywhere. */
const keyLine = () => host.pki.clientKey.split('\n').filter((l) => l && !l.startsWith('-----'))[1];

async function restic(args: string[], cwd?: string): Promise<string> {
  const r = await run('restic', ['-r', `s3:${s3.endpoint}/backups/hosted`, '--cacert', s3.caFile, '-o', 's3.bucket-lookup=path', ...args], {
    cwd, maxBuffer: 50_000_000,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', RESTIC_PASSWORD: REPO_PASSWORD, AWS_ACCESS_KEY_ID: s3.accessKeyId, AWS_SECRET_ACCESS_KEY: s3.secretAccessKey, RESTIC_CACHE_DIR: path.join(tmpdir(), 'lnm-restic-cache-e2e') },
  });
  return r.stdout;
}

async function restore(out: string): Promise<{ code: number; out: string }> {
  try {
    const r = await run(process.execPath, ['--import', 'tsx', path.resolve('bin/lnm.ts'), 'restore', '--endpoint', s3.endpoint, '--bucket', 'backups', '--bucket-path', 'hosted', '--access-key', s3.accessKeyId, '--cacert', s3.caFile, '--output-dir', out, '--force-path-style', '--backup', String(backupId)], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', AWS_SECRET_ACCESS_KEY: s3.secretAccessKey, LNM_RESTORE_PASSWORD: REPO_PASSWORD }, maxBuffer: 20_000_000,
    });
    return { code: 0, out: r.stdout + r.stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout + e.stderr };
  }
}

/** Every file under dir, with its path relative to dir. */
function walk(dir: string, base = dir): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    return statSync(p).isDirectory() ? walk(p, base) : [path.relative(base, p)];
  });
}

/** anvil's saved chain in the node's volume on the host, read with the host's own docker CLI. */
const volumeState = () => host.docker(['cp', `lnm-node-${nodeId}:${path.join(server.dataDir, 'nodes', `node-${nodeId}`, 'anvil-state.json')}`, '-']);

t.before(async () => {
  host = await startSecondDockerHost({ images: ['lnm-anvil:local'] });
  s3 = await startS3Server(['backups']);
  server = await startServer({ embedded: true, env: serverEnv() });
  const h = await api('POST', '/hosts', { name: 'second', url: host.url, tls: host.pki, labels: { zone: 'b' } });
  assert.is(h.status, 201, h.text);
  hostId = h.json.id;
  // Kept by the backup: the restored server sees the lost node down within seconds.
  assert.is((await api('POST', '/settings', { nodeHealthCheckIntervalSeconds: 1, nodeDowntimeThreshold: 2 })).status, 200);
  const n = await api('POST', '/networks', { name: 'hosted-backup', type: 'evm', validatorBalance: '1000000000000000000000', genesis: { chain_id: 42_779, consensus: 'QBFT', block_time: 1 } });
  assert.is(n.status, 201, n.text);
  networkId = n.json.id;
});

t.after(async () => {
  if (nodeId && server) await api('DELETE', `/nodes/${nodeId}`).catch(() => undefined);
  await server?.stop();
  await host?.remove();
  await s3?.stop();
  s3?.remove();
  for (const d of scratch) rmSync(d, { recursive: true, force: true });
});

t('a node on the host keeps its chain in its volume there, not in the staging copy here', async () => {
  const r = await api('POST', '/nodes', { name: 'hosted-validator', platform: 'EVM', nodeType: 'EVM_FULLNODE', networkId, config: { hostId } });
  assert.is(r.status, 201, r.text);
  assert.is(r.json.status, 'running', r.text);
  nodeId = r.json.id;
  const d = await api('POST', '/sc/evm/deploy', { networkId, bytecode: STORE_BYTECODE, abi: STORE_ABI, args: [String(VALUE)] });
  assert.is(d.status, 200, d.text);
  contractAddress = d.json.address;
  const provider = new JsonRpcProvider(r.json.endpoints.rpc_http, undefined, { staticNetwork: true });
  assert.is(await new Contract(contractAddress, STORE_ABI, provider).get(), VALUE);
  provider.destroy();
  // anvil saves its state every 10 s into the volume.
  const needle = contractAddress.slice(2).toLowerCase();
  await until('anvil to save the chain with the contract in the volume', async () => volumeState().toLowerCase().includes(needle), 25_000);
  const staging = readFileSync(path.join(server.dataDir, 'nodes', `node-${nodeId}`, 'anvil-state.json'), 'utf8');
  assert.not.ok(staging.toLowerCase().includes(needle), 'the staging copy here does not hold the contract');
});

t('a backup reads the node\'s volume through the host\'s engine into the snapshot', async () => {
  const target = await api('POST', '/backups/targets', {
    name: 'hosted-s3', endpoint: s3.endpoint, bucket_name: 'backups', bucket_path: 'hosted', region: 'us-east-1', access_key_id: s3.accessKeyId,
    secret_access_key: s3.secretAccessKey, force_path_style: true, repository_password: REPO_PASSWORD, ca_certificate: s3.caPem,
  });
  assert.is(target.status, 201, target.text);
  const b = await api('POST', '/backups', { target_id: target.json.id });
  assert.is(b.status, 201, b.text);
  backupId = b.json.id;
  const done = await until(`backup ${backupId} to end`, async () => {
    const x = await api('GET', `/backups/${backupId}`);
    return x.json.status !== 'IN_PROGRESS' ? x : null;
  }, 120_000);
  assert.is(done.json.status, 'COMPLETED', done.text);
  snapshotId = done.json.snapshot_id;
  for (const text of [done.text, (await api('GET', '/backups')).text]) {
    assert.not.ok(text.includes(keyLine()), 'the host key in a backup answer');
    assert.not.ok(text.includes(REPO_PASSWORD), 'the repository password in a backup answer');
  }
  // restic alone, as an operator would: the node's files as its container saw them.
  const names = await restic(['ls', snapshotId]);
  const volumeFile = `/backup-export/hosts/node-${nodeId}/anvil-state.json`;
  assert.ok(names.split('\n').includes(volumeFile), names);
  assert.not.ok(names.includes(keyLine()));
  const saved = await restic(['dump', snapshotId, volumeFile]);
  assert.ok(saved.toLowerCase().includes(contractAddress.slice(2).toLowerCase()), 'the snapshot holds the chain with the contract');
  const raw = mkdtempSync(path.join(tmpdir(), 'lnm-hosted-raw-'));
  scratch.push(raw);
  await restic(['restore', snapshotId, '--target', raw]);
  const record = JSON.parse(readFileSync(path.join(raw, 'backup-export', 'backup.json'), 'utf8'));
  const entry = record.parts.hosts.nodes.find((x: { nodeId: number }) => x.nodeId === nodeId);
  assert.ok(entry && entry.hostId === hostId && entry.files >= 2 && entry.bytes > 0, JSON.stringify(record.parts));
  for (const f of walk(raw)) {
    assert.not.ok(f.includes(keyLine()), f);
    assert.not.ok(readFileSync(path.join(raw, f)).includes(keyLine()), `the host's client key in ${f}`);
  }
});

t('a backup while the host\'s engine is away fails naming the node and the host, and holds no snapshot', async () => {
  await host.stop();
  try {
    const b = await api('POST', '/backups', { target_id: (await api('GET', '/backups/targets')).json.items[0].id });
    assert.is(b.status, 201, b.text);
    const done = await until(`backup ${b.json.id} to end`, async () => {
      const x = await api('GET', `/backups/${b.json.id}`);
      return x.json.status !== 'IN_PROGRESS' ? x : null;
    }, 60_000);
    assert.is(done.json.status, 'FAILED', done.text);
    assert.match(done.text, new RegExp(`node ${nodeId} on host ${hostId}`));
    assert.not.ok(done.text.includes(keyLine()));
    assert.not.ok((await restic(['snapshots', '--json'])).includes(`lnm-backup-${b.json.id}"`), 'no snapshot of the failed backup');
  } finally {
    await host.start();
  }
});

t('the host lost the node and this machine its data directory: lnm restore and a start put the volume back through the engine', async () => {
  const oldDir = server.dataDir;
  await server.stop();
  outputs.push(server.output());
  host.docker(['rm', '-f', `lnm-node-${nodeId}`]);
  host.docker(['volume', 'rm', `lnm-node-${nodeId}-files`]);
  rmSync(oldDir, { recursive: true, force: true });
  const out = path.join(mkdtempSync(path.join(tmpdir(), 'lnm-hosted-restored-')), 'data');
  scratch.push(path.dirname(out));
  const r = await restore(out);
  assert.is(r.code, 0, r.out);
  assert.match(r.out, new RegExp(`1 node on node hosts \\(node-${nodeId}\\)`));
  assert.not.ok(r.out.includes(REPO_PASSWORD));
  assert.ok(existsSync(path.join(out, 'hosted-restore', `node-${nodeId}`, 'anvil-state.json')));

  server = await startServer({ embedded: true, dataDir: out, env: serverEnv() });
  // Nodes do not start by themselves; the health monitor finds this one down (nothing answers on the host).
  await until('the restored node to be seen down', async () => (await api('GET', `/nodes/${nodeId}`)).json.status === 'down', 60_000);
  const started = await api('POST', `/nodes/${nodeId}/start`);
  assert.is(started.status, 200, started.text);
  assert.is(started.json.status, 'running', started.text);
  assert.match(host.docker(['volume', 'ls', '--format', '{{.Name}}']), new RegExp(`lnm-node-${nodeId}-files`));
  const provider = new JsonRpcProvider(started.json.endpoints.rpc_http, undefined, { staticNetwork: true });
  try {
    assert.is(await new Contract(contractAddress, STORE_ABI, provider).get(), VALUE);
  } finally {
    provider.destroy();
  }
  // Put back once: the files here are gone, the node keeps writing its volume.
  assert.not.ok(existsSync(path.join(out, 'hosted-restore', `node-${nodeId}`)));
  // A restart through the service keeps the chain anvil saved in its volume (the staging copy
  // uploaded at each start used to reset it to block 0).
  const restarted = await api('POST', `/nodes/${nodeId}/restart`);
  assert.is(restarted.status, 200, restarted.text);
  assert.is(restarted.json.status, 'running', restarted.text);
  const again = new JsonRpcProvider(restarted.json.endpoints.rpc_http, undefined, { staticNetwork: true });
  try {
    assert.is(await new Contract(contractAddress, STORE_ABI, again).get(), VALUE);
  } finally {
    again.destroy();
  }
  outputs.push(server.output());
  for (const text of outputs) {
    assert.not.ok(text.includes(keyLine()), 'the host key in the server log');
    assert.not.ok(text.includes(REPO_PASSWORD), 'the repository password in the server log');
  }
});

t.run();
