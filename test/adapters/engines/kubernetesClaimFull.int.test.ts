// A cluster node's claim whose disk fills up while the copy helper writes into it (issue 39;
// kubernetesVolumeCopy.ts WRITE_SCRIPT, kubernetesEngine.ts copyNodeDataIn and the restore at
// start), on the shared cluster of test/k8s/cluster.sh up with the anvil and service images on its
// node (a counted skip, saying why, without them, or when not root: a tmpfs is mounted here).
// The claim binds to a hostPath PersistentVolume of a storage class of this test's own, whose path
// is a tmpfs of 4 MiB mounted on this machine (the test cluster's node): more than that written
// into it fails with ENOSPC in the helper pod, after a short write. Checked: the copy fails naming
// the node, the claim and "no space"; the node is not started on half its data; nothing is left
// that a retry trips on (the helper pod gone, the restore's files kept, the claim the same): the
// retry, with room, writes everything and the node runs on it. The tmpfs is unmounted, the volume
// and the class deleted after, whatever happened.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as k8s from '@kubernetes/client-node';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createKubernetesEngine, type KubernetesNodeEngine } from '../../../adapters/engines/kubernetesEngine.ts';
import { hostedRestoreDir } from '../../../adapters/engines/dockerEngine.ts';
import { adminKubeConfig, anvilStateSpec, clusterImageMissing, k8sAnvilImage, scratchDirs, serviceImage, serviceImageSkipReason, testCluster } from '../../helpers/kubernetes.ts';
import { requires } from '../../helpers/requirements.ts';

const notRoot = process.getuid?.() === 0 ? undefined : 'mounting a tmpfs under a volume needs root';
const skipReason = notRoot ?? (await serviceImageSkipReason()) ?? (await clusterImageMissing(k8sAnvilImage));
const t = requires(suite('kubernetes: a claim whose disk fills up mid-write'), 'kubernetes', skipReason);
const conn = testCluster()?.connection;
const ns = () => conn!.namespace;
const tag = `${process.pid % 100000}`;
const PREFIX = `k8sfull${tag}-`;
const CLASS = `lnm-full-${tag}`;
const PV = `lnm-full-pv-${tag}`;
const PORT = 30000 + ((process.pid * 13 + 700) % 2400);
const base = mkdtempSync(path.join(tmpdir(), 'lnm-k8s-full-'));
const dataDir = path.join(base, 'data');
const disk = path.join(base, 'disk');
const { dir, clear } = scratchDirs('lnm-kf-');
let engine: KubernetesNodeEngine;
let core: k8s.CoreV1Api;
let apps: k8s.AppsV1Api;
let storage: k8s.StorageV1Api;
let mounted = false;
let heightBefore = 0;

const spec = anvilStateSpec(PORT);
const names = () => engine.objectNames(spec.nodeKey);
const helperThere = () => core.readNamespacedPod({ name: `${names().statefulSet}-copy`, namespace: ns() }).then((p) => p, () => null);
const podThere = () => core.readNamespacedPod({ name: `${names().statefulSet}-0`, namespace: ns() }).then((p) => p, () => null);
const replicas = async () => (await apps.readNamespacedStatefulSet({ name: names().statefulSet, namespace: ns() })).spec?.replicas;
const claimUid = async () => (await core.readNamespacedPersistentVolumeClaim({ name: names().claim, namespace: ns() })).metadata?.uid;

async function blockNumber(): Promise<number> {
  const r = await fetch(`http://${conn!.nodeAddress}:${PORT}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }) });
  return Number(((await r.json()) as { result: string }).result);
}

/** `count` sparse files of `mb` MiB here (read as zeros, written out whole in the claim). */
function filler(into: string, count: number, mb: number): void {
  mkdirSync(into, { recursive: true });
  for (let i = 0; i < count; i++) {
    const f = path.join(into, `filler-${i}`);
    writeFileSync(f, `filler ${i}\n`);
    truncateSync(f, mb << 20);
  }
}

t.before(async () => {
  const kc = adminKubeConfig();
  core = kc.makeApiClient(k8s.CoreV1Api);
  apps = kc.makeApiClient(k8s.AppsV1Api);
  storage = kc.makeApiClient(k8s.StorageV1Api);
  mkdirSync(disk, { recursive: true });
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m,mode=0777', `lnm-full-${tag}`, disk]);
  mounted = true;
  await storage.createStorageClass({ body: { metadata: { name: CLASS }, provisioner: 'kubernetes.io/no-provisioner', reclaimPolicy: 'Retain', volumeBindingMode: 'WaitForFirstConsumer' } });
  await core.createPersistentVolume({ body: { metadata: { name: PV }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Retain', storageClassName: CLASS, hostPath: { path: disk, type: 'Directory' } } } });
  engine = createKubernetesEngine({ cluster: { ...conn!, storageClass: CLASS }, dataDir, namePrefix: PREFIX, deploymentId: `claimfull-${tag}`, images: { service: serviceImage }, readyTimeoutMs: 120_000, copyStallMs: 30_000 });
  await engine.prepare(spec);
  await engine.start(spec);
  const deadline = Date.now() + 30_000;
  while ((heightBefore = await blockNumber()) < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 500));
  await engine.stop(spec.nodeKey);
});

t.after(async () => {
  await engine?.remove(spec.nodeKey, { deleteVolume: true }).catch(() => undefined);
  await core?.deletePersistentVolume({ name: PV }).catch(() => undefined);
  await storage?.deleteStorageClass({ name: CLASS }).catch(() => undefined);
  // Never leave the machine changed: the tmpfs goes whatever happened (lazily if a mount still holds it).
  if (mounted) {
    try {
      execFileSync('umount', [disk]);
    } catch {
      execFileSync('umount', ['-l', disk]);
    }
  }
  rmSync(base, { recursive: true, force: true });
  clear();
});

t('copyNodeDataIn of more than the claim holds: fails naming the node, its claim and the full disk; nothing left that a retry trips on', async () => {
  assert.ok(heightBefore >= 3, `the node mined (${heightBefore})`);
  const uid = await claimUid();
  const from = dir();
  filler(from, 3, 3);
  const err = await engine.copyNodeDataIn(spec.nodeKey, from, { sub: 'data' }).then(() => null, (e: Error) => e);
  assert.ok(err, 'the copy of 9 MiB into a 4 MiB disk succeeded');
  assert.match(err!.message, /node-1/, `names the node: ${err!.message}`);
  assert.match(err!.message, new RegExp(names().claim), `names the claim: ${err!.message}`);
  assert.match(err!.message, /ENOSPC|no space/i, `says the disk is full: ${err!.message}`);
  assert.is(await helperThere(), null, 'the helper pod is removed');
  assert.is(await replicas(), 0, 'the node stays stopped');
  assert.is(await podThere(), null, 'no pod of the node');
  assert.is(await claimUid(), uid, 'the same claim');
  // The retry, with what fits: the half-written files are gone, the new ones whole.
  const small = dir();
  filler(small, 2, 1);
  assert.equal(await engine.copyNodeDataIn(spec.nodeKey, small, { sub: 'data' }), { files: 2 });
  const back = dir();
  assert.equal(await engine.copyNodeDataOut(spec.nodeKey, back, { sub: 'data' }), { files: 2, bytes: 2 << 20, skipped: 0 });
  assert.equal(readFileSync(path.join(back, 'filler-1')).subarray(0, 9).toString(), 'filler 1\n');
});

t('a restore at start of more than the claim holds: the start fails naming the node and the full disk, the node not started; with room, the retry restores it all and runs', async () => {
  const uid = await claimUid();
  // The node's own files (its chain) and filler: what `lnm restore` would leave here.
  const restore = hostedRestoreDir(dataDir, spec.nodeKey);
  assert.ok((await engine.copyNodeDataOut(spec.nodeKey, restore))!.files >= 1, 'the node\'s files read out');
  assert.ok(existsSync(path.join(restore, 'state.json')), 'its state file');
  filler(path.join(restore, 'fill'), 2, 3);
  const err = await engine.start(spec).then(() => null, (e: Error) => e);
  assert.ok(err, 'the start on a 4 MiB disk of 6 MiB of files succeeded');
  assert.is((err as { failure?: string }).failure, 'exited');
  assert.match(err!.message, /anvil node-1/, `names the node: ${err!.message}`);
  assert.match(err!.message, new RegExp(names().claim), `names the claim: ${err!.message}`);
  assert.match(err!.message, /ENOSPC|no space/i, `says the disk is full: ${err!.message}`);
  assert.is(await replicas(), 0, 'the node is not started on half its data');
  assert.is(await podThere(), null, 'no pod of the node');
  assert.is(await helperThere(), null, 'the helper pod is removed');
  assert.is(await claimUid(), uid, 'the same claim');
  assert.ok(existsSync(path.join(restore, 'state.json')), 'the restore\'s files are kept for the next start');
  // Room on the disk (the same tmpfs, grown): the retry empties the claim and writes it all.
  execFileSync('mount', ['-o', 'remount,size=32m', disk]);
  await engine.start(spec);
  assert.ok(!existsSync(restore), 'the restore\'s files are removed once put back');
  assert.ok((await blockNumber()) >= heightBefore, 'the node goes on from the restored chain');
  await engine.stop(spec.nodeKey);
  const back = dir();
  const read = await engine.copyNodeDataOut(spec.nodeKey, back, { sub: 'fill' });
  assert.equal(read, { files: 2, bytes: 2 * (3 << 20), skipped: 0 });
});

t.run();
