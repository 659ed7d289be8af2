// Backups of a node on a Kubernetes cluster (its chain is in its claim there, never on this
// machine), with the real restic, a real S3 server (s3rver over HTTPS on loopback) and the shared
// test cluster of test/k8s/cluster.sh (a counted skip, saying why, without the cluster, the
// service's and anvil's images on its node, or restic):
// - an anvil node on the cluster producing blocks; a backup while it runs holds its claim's files
//   under backup-export/hosts/node-<id>/ (read by a helper pod of the service's image), and
//   backup.json names the node, its cluster and the files read;
// - the node stopped (scale 0: no pod), a second backup reads the claim all the same; the
//   backup's height is the highest block of the snapshot's anvil-state.json (read with restic
//   alone), at least the height read before the stop (anvil mines on until the stop's SIGTERM);
// - the cluster lost the node (StatefulSet, Service, Secret, ConfigMap and the claim deleted) and
//   this machine its data directory: `lnm restore`, `lnm serve`, a start on the cluster puts the
//   files back into a new claim: the node's height is at least the backup's and its block hashes
//   up to the height read before the stop are the same;
// - the node deleted keeping its claim (DELETE /nodes/{id}), `lnm restore` of the same backup, a
//   start: the kept claim is reused, written over with the backup's files (the hashes up to the
//   backup's height those of the first restore, the block after it mined again: the kept chain's
//   later blocks gone);
// - across both restores the deployment id (GET /health) is the backed-up database's, and the
//   node's objects the starts made or reused carry it (lnm.deployment);
// - the cluster's token and the repository password are in no answer or log line.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import * as k8s from '@kubernetes/client-node';
import { adminAuth, call, startServer, type TestServer } from '../../helpers/server.ts';
import { resticMissing } from '../../helpers/programs.ts';
import { requires } from '../../helpers/requirements.ts';
import { startS3Server, type S3Server } from '../../helpers/s3Server.ts';
import { adminKubeConfig, clusterImageMissing, k8sAnvilImage, serviceImage, serviceImageSkipReason, testCluster } from '../../helpers/kubernetes.ts';
import { until } from '../evm/evmLifecycle.ts';

const run = promisify(execFile);
const skipReason = resticMissing ?? (await serviceImageSkipReason()) ?? (await clusterImageMissing(k8sAnvilImage));
const t = requires(suite('kubernetes: backup and restore of a cluster node\'s claim'), 'kubernetes', skipReason);
const cluster = testCluster();
const c = () => cluster!.connection;
// Unique per run: the cluster is shared with other engineers' runs.
const PREFIX = `k8sbackup${process.pid % 100000}-`;
const PORT = 30000 + ((process.pid * 13 + 700) % 2400);
const KEK = 'k8s-backup-e2e-key-encryption-key-0123456789';
const REPO_PASSWORD = 'k8s-backup-repository-password-for-tests';
let s3: S3Server;
let server: TestServer;
let hostId: number;
let nodeId: number;
let targetId: number;
let backupId: number;
/** The height read before the stop, and the block hashes up to it. */
let heightAtBackup: number;
let hashesAtBackup: string[] = [];
/** The highest block in the stopped node's backup (its anvil-state.json), and the restored chain's hashes up to it. */
let backupHeight: number;
let restoredHashes: string[] = [];
let apps: k8s.AppsV1Api;
let core: k8s.CoreV1Api;
/** The deployment id of the first server's database (GET /health), which the backups carry. */
let deploymentId: string;
const scratch: string[] = [];
const outputs: string[] = [];
const api = (method: string, p: string, body?: unknown) => call(server.api, method, p, { headers: adminAuth(), body });
const serverEnv = () => ({ KEY_ENCRYPTION_KEY: KEK, LNM_HOST_CHECK_SECONDS: '2', LNM_DOCKER_PREFIX: PREFIX, LNM_NODE_ENGINE: 'process', LNM_IMAGE_SERVICE: serviceImage, LNM_BACKUP_STALL_SECONDS: '30' });
const stsName = () => `${PREFIX}node-${nodeId}`;
const rpc = async (method: string, params: unknown[] = []) => {
  const r = await fetch(`http://${c().nodeAddress}:${PORT}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), signal: AbortSignal.timeout(3000) });
  return ((await r.json()) as { result: any }).result;
};
const height = async () => Number(await rpc('eth_blockNumber'));
const hashes = async (upTo: number) => Promise.all(Array.from({ length: upTo + 1 }, async (_, i) => (await rpc('eth_getBlockByNumber', [`0x${i.toString(16)}`, false])).hash as string));
const tokenLine = () => c().token!.slice(20, 60);

async function restic(args: string[]): Promise<string> {
  const r = await run('restic', ['-r', `s3:${s3.endpoint}/backups/k8s`, '--cacert', s3.caFile, '-o', 's3.bucket-lookup=path', ...args], {
    maxBuffer: 50_000_000,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', RESTIC_PASSWORD: REPO_PASSWORD, AWS_ACCESS_KEY_ID: s3.accessKeyId, AWS_SECRET_ACCESS_KEY: s3.secretAccessKey, RESTIC_CACHE_DIR: path.join(tmpdir(), 'lnm-restic-cache-e2e') },
  });
  return r.stdout;
}

async function backup(): Promise<{ id: number; snapshot: string; text: string }> {
  const b = await api('POST', '/backups', { target_id: targetId });
  assert.is(b.status, 201, b.text);
  const done = await until(`backup ${b.json.id} to end`, async () => {
    const x = await api('GET', `/backups/${b.json.id}`);
    return x.json.status !== 'IN_PROGRESS' ? x : null;
  }, 180_000);
  assert.is(done.json.status, 'COMPLETED', done.text);
  assert.not.ok(done.text.includes(tokenLine()), 'the cluster token in a backup answer');
  assert.not.ok(done.text.includes(REPO_PASSWORD), 'the repository password in a backup answer');
  return { id: b.json.id, snapshot: done.json.snapshot_id, text: done.text };
}

/** The snapshot's record of this node, and its files as restic alone lists them. */
async function snapshotHolds(snapshot: string): Promise<void> {
  const names = (await restic(['ls', snapshot])).split('\n');
  const state = `/backup-export/hosts/node-${nodeId}/anvil-state.json`;
  assert.ok(names.includes(state), `the snapshot holds the claim's anvil-state.json: ${names.filter((n) => n.includes('hosts')).join(', ')}`);
  const record = JSON.parse(await restic(['dump', snapshot, '/backup-export/backup.json']));
  const entry = record.parts.hosts.nodes.find((x: { nodeId: number }) => x.nodeId === nodeId);
  assert.ok(entry && entry.hostId === hostId && entry.files >= 1 && entry.bytes > 0, JSON.stringify(record.parts.hosts));
}

/**
 * The highest block of the node's anvil-state.json in the snapshot, read with restic alone: the
 * height the backup holds (anvil writes the file on SIGTERM; the block numbers are small, so
 * JSON.parse's rounding of the file's u64 fields does not matter here).
 */
async function snapshotChainHeight(snapshot: string): Promise<number> {
  const text = await restic(['dump', snapshot, `/backup-export/hosts/node-${nodeId}/anvil-state.json`]);
  const state = JSON.parse(text) as { best_block_number?: string; blocks?: Array<{ header?: { number?: string } }> };
  const numbers = (state.blocks ?? []).map((b) => Number(b.header?.number));
  assert.ok(numbers.length > 0 && numbers.every(Number.isInteger), `the snapshot's anvil-state.json holds no blocks: ${text.slice(0, 200)}`);
  const top = Math.max(...numbers);
  assert.is(top, Number(state.best_block_number), `the snapshot's anvil-state.json: best_block_number ${state.best_block_number}, highest block ${top}`);
  return top;
}

/** The deployment id the server answers, and the lnm.deployment label of each of the node's five objects on the cluster. */
async function deploymentOfNode(): Promise<{ health: string | undefined; objects: Record<string, string | undefined> }> {
  const ns = c().namespace;
  const name = stsName();
  const label = async (get: () => Promise<{ metadata?: k8s.V1ObjectMeta }>) => (await get()).metadata?.labels?.['lnm.deployment'];
  return {
    health: (await call(server.api, 'GET', '/health')).json?.deployment?.id,
    objects: {
      StatefulSet: await label(() => apps.readNamespacedStatefulSet({ name, namespace: ns })),
      Service: await label(() => core.readNamespacedService({ name, namespace: ns })),
      Secret: await label(() => core.readNamespacedSecret({ name: `${name}-keys`, namespace: ns })),
      ConfigMap: await label(() => core.readNamespacedConfigMap({ name: `${name}-config`, namespace: ns })),
      PersistentVolumeClaim: await label(() => core.readNamespacedPersistentVolumeClaim({ name: `${name}-data`, namespace: ns })),
    },
  };
}
const carriesId = (seen: Awaited<ReturnType<typeof deploymentOfNode>>) => ({ health: deploymentId, objects: Object.fromEntries(Object.keys(seen.objects).map((k) => [k, deploymentId])) });

async function objectsGone(): Promise<boolean> {
  const ns = c().namespace;
  const there = await apps.readNamespacedStatefulSet({ name: stsName(), namespace: ns }).then(() => true, () => false);
  const pod = await core.readNamespacedPod({ name: `${stsName()}-0`, namespace: ns }).then(() => true, () => false);
  const claim = await core.readNamespacedPersistentVolumeClaim({ name: `${stsName()}-data`, namespace: ns }).then(() => true, () => false);
  const helper = (await core.listNamespacedPod({ namespace: ns, labelSelector: `lnm.node=node-${nodeId},lnm.prefix=${PREFIX.replace(/-$/, '')}` })).items.length > 0;
  return !there && !pod && !claim && !helper;
}

t.before(async () => {
  const kc = adminKubeConfig();
  apps = kc.makeApiClient(k8s.AppsV1Api);
  core = kc.makeApiClient(k8s.CoreV1Api);
  s3 = await startS3Server(['backups']);
  server = await startServer({ embedded: true, env: serverEnv() });
  const h = await api('POST', '/hosts', { name: 'cluster', kind: 'kubernetes', url: c().server, externalIp: c().nodeAddress, kubernetes: { caCertificate: c().caCertificate, token: c().token, namespace: c().namespace, storageClass: c().storageClass } });
  assert.is(h.status, 201, h.text);
  hostId = h.json.id;
  const n = await api('POST', '/networks', { name: 'k8s-backup', type: 'evm', validatorBalance: '1000000000000000000000', genesis: { chain_id: 42_783, consensus: 'QBFT', block_time: 1 } });
  assert.is(n.status, 201, n.text);
  const r = await api('POST', '/nodes', { name: 'k8s-anvil', platform: 'EVM', nodeType: 'EVM_FULLNODE', networkId: n.json.id, config: { hostId, rpcHttpPort: PORT, p2pPort: PORT + 1 } });
  assert.is(r.status, 201, r.text);
  nodeId = r.json.id;
  const target = await api('POST', '/backups/targets', {
    name: 'k8s-s3', endpoint: s3.endpoint, bucket_name: 'backups', bucket_path: 'k8s', region: 'us-east-1', access_key_id: s3.accessKeyId,
    secret_access_key: s3.secretAccessKey, force_path_style: true, repository_password: REPO_PASSWORD, ca_certificate: s3.caPem,
  });
  assert.is(target.status, 201, target.text);
  targetId = target.json.id;
});

t.after(async () => {
  if (nodeId && server) {
    await api('DELETE', `/nodes/${nodeId}?deleteVolume=true`).catch(() => undefined);
    await until('the node\'s objects gone from the cluster', objectsGone, 120_000).catch(() => undefined);
  }
  if (hostId && server) await api('DELETE', `/hosts/${hostId}`).catch(() => undefined);
  await server?.stop();
  await s3?.stop();
  s3?.remove();
  for (const d of scratch) rmSync(d, { recursive: true, force: true });
});

t('a backup of a running node on the cluster holds its claim\'s files', async () => {
  await until('the node running and mining', async () => (await api('GET', `/nodes/${nodeId}`)).json.status === 'running' && (await height().catch(() => -1)) >= 3, 180_000);
  const seen = await deploymentOfNode();
  assert.ok(seen.health, 'GET /health names the deployment');
  deploymentId = seen.health!;
  assert.equal(seen, carriesId(seen), 'the node\'s objects carry the deployment id');
  const b = await backup();
  await snapshotHolds(b.snapshot);
});

t('a backup of the stopped node (no pod) reads its claim all the same', async () => {
  await until('a few more blocks', async () => (await height().catch(() => -1)) >= 6, 60_000);
  heightAtBackup = await height();
  hashesAtBackup = await hashes(heightAtBackup);
  // anvil writes its state on SIGTERM: the stop's scale to 0. It mines on (1 s blocks) until then,
  // so the backup may hold blocks past heightAtBackup: its own height is read from the snapshot.
  const stopped = await api('POST', `/nodes/${nodeId}/stop`);
  assert.ok(stopped.status < 300, stopped.text);
  await until('the node stopped, its pod gone', async () => (await api('GET', `/nodes/${nodeId}`)).json.status === 'stopped' && !(await core.readNamespacedPod({ name: `${stsName()}-0`, namespace: c().namespace }).then(() => true, () => false)), 90_000);
  const b = await backup();
  backupId = b.id;
  await snapshotHolds(b.snapshot);
  backupHeight = await snapshotChainHeight(b.snapshot);
  // Fewer would mean the stop lost blocks the node had mined (no state written on SIGTERM).
  assert.ok(backupHeight >= heightAtBackup, `the backup holds blocks up to ${backupHeight}; the node was at ${heightAtBackup} before the stop`);
});

t('the cluster lost the node and this machine its data directory: lnm restore and a start put the claim back', async () => {
  const oldDir = server.dataDir;
  await server.stop();
  outputs.push(server.output());
  // Everything of the node on the cluster, its claim included, deleted behind the service's back.
  const ns = c().namespace;
  const name = stsName();
  await apps.deleteNamespacedStatefulSet({ name, namespace: ns }).catch(() => undefined);
  await core.deleteNamespacedService({ name, namespace: ns }).catch(() => undefined);
  await core.deleteNamespacedSecret({ name: `${name}-keys`, namespace: ns }).catch(() => undefined);
  await core.deleteNamespacedConfigMap({ name: `${name}-config`, namespace: ns }).catch(() => undefined);
  await core.deleteNamespacedPersistentVolumeClaim({ name: `${name}-data`, namespace: ns }).catch(() => undefined);
  await until('the node gone from the cluster', objectsGone, 120_000);
  rmSync(oldDir, { recursive: true, force: true });

  const out = path.join(mkdtempSync(path.join(tmpdir(), 'lnm-k8s-restored-')), 'data');
  scratch.push(path.dirname(out));
  let restored: { stdout: string; stderr: string };
  try {
    restored = await run(process.execPath, ['--import', 'tsx', path.resolve('bin/lnm.ts'), 'restore', '--endpoint', s3.endpoint, '--bucket', 'backups', '--bucket-path', 'k8s', '--access-key', s3.accessKeyId, '--cacert', s3.caFile, '--output-dir', out, '--force-path-style', '--backup', String(backupId)], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', AWS_SECRET_ACCESS_KEY: s3.secretAccessKey, LNM_RESTORE_PASSWORD: REPO_PASSWORD }, maxBuffer: 20_000_000,
    });
  } catch (err) {
    const e = err as { stdout: string; stderr: string };
    assert.unreachable(`lnm restore failed: ${e.stdout}${e.stderr}`);
    return;
  }
  assert.match(restored.stdout + restored.stderr, new RegExp(`node-${nodeId}`));
  assert.ok(existsSync(path.join(out, 'hosted-restore', `node-${nodeId}`, 'anvil-state.json')));

  server = await startServer({ embedded: true, dataDir: out, env: serverEnv() });
  const started = await api('POST', `/nodes/${nodeId}/start`);
  assert.is(started.status, 200, started.text);
  // The start's answer waits a bounded time: under load the node may still be starting then.
  await until('the restored node running', async () => {
    const row = (await api('GET', `/nodes/${nodeId}`)).json;
    if (row.status === 'error' || row.status === 'stopped') assert.unreachable(JSON.stringify(row));
    return row.status === 'running';
  }, 180_000);
  await until('the restored node answering', async () => (await height().catch(() => -1)) >= 0, 60_000);
  const now = await height();
  assert.ok(now >= backupHeight, `the restored node is at block ${now}, the backup holds blocks up to ${backupHeight}`);
  restoredHashes = await hashes(backupHeight);
  assert.equal(restoredHashes.slice(0, heightAtBackup + 1), hashesAtBackup, 'the block hashes up to the height read before the stop are the same');
  // Put back once: the files here are gone, the node keeps writing its claim.
  assert.not.ok(existsSync(path.join(out, 'hosted-restore', `node-${nodeId}`)));
  // The restored database is the same deployment: its id, on the objects the start made anew.
  const seen = await deploymentOfNode();
  assert.equal(seen, carriesId(seen), 'the restored server has the backed-up deployment id, and the new objects carry it');
  // No helper pod left on the cluster.
  const helpers = await core.listNamespacedPod({ namespace: c().namespace, labelSelector: 'lnm.role=volume-copy' });
  assert.not.ok(helpers.items.some((p) => p.metadata?.labels?.['lnm.node'] === `node-${nodeId}` && p.metadata?.name?.startsWith(PREFIX)), 'a helper pod left');
  outputs.push(server.output());
  for (const text of outputs) {
    assert.not.ok(text.includes(tokenLine()), 'the cluster token in the server log');
    assert.not.ok(text.includes(REPO_PASSWORD), 'the repository password in the server log');
  }
});

t('the node deleted with its claim kept, then lnm restore: the start reuses the kept claim, written over with the backup\'s files', async () => {
  // The chain goes on past the backup in the claim; the block after the backup's highest one, as
  // mined after the first restore (not the block after heightAtBackup: the backup may hold that).
  await until('blocks past the backup', async () => (await height().catch(() => -1)) > backupHeight + 2, 60_000);
  const afterBackup = (await rpc('eth_getBlockByNumber', [`0x${(backupHeight + 1).toString(16)}`, false])).hash as string;
  // anvil writes its state on SIGTERM: stopped first, then deleted keeping its claim.
  const stopped = await api('POST', `/nodes/${nodeId}/stop`);
  assert.ok(stopped.status < 300, stopped.text);
  const deleted = await api('DELETE', `/nodes/${nodeId}`);
  assert.ok(deleted.status < 300, deleted.text);
  const ns = c().namespace;
  await until('the node\'s StatefulSet gone, its claim kept', async () =>
    !(await apps.readNamespacedStatefulSet({ name: stsName(), namespace: ns }).then(() => true, () => false)) && (await core.readNamespacedPersistentVolumeClaim({ name: `${stsName()}-data`, namespace: ns }).then(() => true, () => false)), 120_000);
  const oldDir = server.dataDir;
  await server.stop();
  outputs.push(server.output());

  const out = path.join(mkdtempSync(path.join(tmpdir(), 'lnm-k8s-restored2-')), 'data');
  scratch.push(path.dirname(out));
  await run(process.execPath, ['--import', 'tsx', path.resolve('bin/lnm.ts'), 'restore', '--endpoint', s3.endpoint, '--bucket', 'backups', '--bucket-path', 'k8s', '--access-key', s3.accessKeyId, '--cacert', s3.caFile, '--output-dir', out, '--force-path-style', '--backup', String(backupId)], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', AWS_SECRET_ACCESS_KEY: s3.secretAccessKey, LNM_RESTORE_PASSWORD: REPO_PASSWORD }, maxBuffer: 20_000_000,
  }).catch((err: { stdout: string; stderr: string }) => assert.unreachable(`lnm restore failed: ${err.stdout}${err.stderr}`));
  rmSync(oldDir, { recursive: true, force: true });
  server = await startServer({ embedded: true, dataDir: out, env: serverEnv() });
  const started = await api('POST', `/nodes/${nodeId}/start`);
  assert.is(started.status, 200, started.text);
  // The start's answer waits a bounded time: under load the node may still be starting then.
  await until('the restored node running', async () => {
    const row = (await api('GET', `/nodes/${nodeId}`)).json;
    if (row.status === 'error' || row.status === 'stopped') assert.unreachable(JSON.stringify(row));
    return row.status === 'running';
  }, 180_000);
  await until('the restored node answering', async () => (await height().catch(() => -1)) > backupHeight + 1, 60_000);
  assert.equal(await hashes(backupHeight), restoredHashes, 'the block hashes up to the backup\'s height are those of the first restore');
  // The kept claim's later blocks are gone: the block after the backup's height was mined again.
  const again = (await rpc('eth_getBlockByNumber', [`0x${(backupHeight + 1).toString(16)}`, false])).hash as string;
  assert.is.not(again, afterBackup, `the claim still holds the chain mined after the backup (block ${backupHeight + 1}: ${again})`);
  assert.not.ok(existsSync(path.join(out, 'hosted-restore', `node-${nodeId}`)));
  // The kept claim was taken as this deployment's (the restored id is the one on it), and is still.
  const seen = await deploymentOfNode();
  assert.equal(seen, carriesId(seen), 'the restored server has the backed-up deployment id, and the reused claim and the new objects carry it');
  outputs.push(server.output());
  for (const text of outputs) assert.not.ok(text.includes(tokenLine()), 'the cluster token in the server log');
});

t.run();
