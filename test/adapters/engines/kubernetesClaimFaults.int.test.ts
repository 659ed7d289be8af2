// Real faults of the helper pod that copies a cluster node's claim in and out (issue 39;
// kubernetesVolumeCopy.ts, kubernetesEngine.ts copyNodeDataIn/copyNodeDataOut), on the shared
// cluster of test/k8s/cluster.sh up with the anvil and service images on its node (a counted skip,
// saying why, without them). What a cluster can be made to do:
// - a file that cannot be written in the claim: a path that fits here but is too long where the
//   claim is mounted in the helper pod (ENAMETOOLONG there): the copy in fails naming it;
// - the helper pod deleted while it writes (it ends early): the copy in fails, the pod gone;
// - the helper pod deleted while it reads: the copy out fails, no counts answered as a copy.
// In each the helper's exit status (or the Exec stream's close) already tells; frames lost or cut
// while the helper says it went well are what no cluster produces at will: those checks (the
// end frame's counts, the write script's files and bytes) are unit tests of the framing
// (kubernetesVolumeCopy.unit.test.ts).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as k8s from '@kubernetes/client-node';
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createKubernetesEngine, type KubernetesNodeEngine } from '../../../adapters/engines/kubernetesEngine.ts';
import { adminKubeConfig, anvilStateSpec, clusterImageMissing, k8sAnvilImage, scratchDirs, serviceImage, serviceImageSkipReason, testCluster } from '../../helpers/kubernetes.ts';
import { requires } from '../../helpers/requirements.ts';

const skipReason = (await serviceImageSkipReason()) ?? (await clusterImageMissing(k8sAnvilImage));
const t = requires(suite('kubernetes: the copy helper\'s real faults'), 'kubernetes', skipReason);
const conn = testCluster()?.connection;
const ns = () => conn!.namespace;
const PREFIX = `k8scopy${process.pid % 100000}-`;
const PORT = 30000 + ((process.pid * 17 + 1900) % 2400);
// The claim is mounted in the helper pod at <dataDir>/nodes/<key>: a long dataDir makes a path that
// fits under PATH_MAX here too long there.
const dataDir = path.join(mkdtempSync(path.join(tmpdir(), 'lnm-k8s-copy-')), 'd'.repeat(200));
const { dir, clear } = scratchDirs('lnm-kc-');
let engine: KubernetesNodeEngine;
let core: k8s.CoreV1Api;

const spec = anvilStateSpec(PORT);
const helperPod = () => `${engine.objectNames(spec.nodeKey).statefulSet}-copy`;
const helperThere = () => core.readNamespacedPod({ name: helperPod(), namespace: ns() }).then((p) => p, () => null);

/** Sparse files here (read as zeros), written out whole in the claim: enough for a copy of some seconds. */
function bulk(count: number, mb: number): string {
  const d = dir();
  for (let i = 0; i < count; i++) {
    const f = path.join(d, `chunk-${String(i).padStart(3, '0')}`);
    writeFileSync(f, `chunk ${i}\n`);
    truncateSync(f, mb << 20);
  }
  return d;
}

/** Deletes the helper pod (no grace) once it has run for `afterMs`; resolves with whether it did. */
async function killHelperWhileCopying(afterMs: number): Promise<boolean> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const p = await helperThere();
    if (p?.status?.phase === 'Running') {
      await new Promise((r) => setTimeout(r, afterMs));
      await core.deleteNamespacedPod({ name: helperPod(), namespace: ns(), gracePeriodSeconds: 0 });
      return true;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

t.before(async () => {
  core = adminKubeConfig().makeApiClient(k8s.CoreV1Api);
  engine = createKubernetesEngine({ cluster: conn!, dataDir, namePrefix: PREFIX, deploymentId: `copyfaults-${process.pid}`, images: { service: serviceImage }, readyTimeoutMs: 120_000 });
  await engine.prepare(spec);
  await engine.start(spec);
  await engine.stop(spec.nodeKey);
});

t.after(async () => {
  await engine?.remove(spec.nodeKey, { deleteVolume: true }).catch(() => undefined);
  rmSync(path.dirname(dataDir), { recursive: true, force: true });
  clear();
});

t('a file whose path cannot be written where the claim is mounted: the copy in fails saying why, and the helper pod is removed', async () => {
  const from = dir();
  writeFileSync(path.join(from, 'a-first-file'), 'written before the long one');
  // Nested directories of 200 characters: under PATH_MAX (4096) from here, over it in the pod.
  const inPod = path.join(dataDir, 'nodes', spec.nodeKey, 'data').length;
  let rel = '';
  while (from.length + rel.length + 202 < 4060) rel = path.join(rel, 'n'.repeat(200));
  assert.ok(inPod + rel.length + 10 > 4096, `the path must be too long in the pod (${inPod + rel.length + 10})`);
  mkdirSync(path.join(from, rel), { recursive: true });
  writeFileSync(path.join(from, rel, 'leaf.json'), '{}');
  const err = await engine.copyNodeDataIn(spec.nodeKey, from, { sub: 'data' }).then(() => null, (e: Error) => e);
  assert.ok(err, 'the copy in succeeded');
  assert.match(err!.message, /the copy in the helper pod failed: .*(ENAMETOOLONG|name too long)/);
  assert.is(await helperThere(), null, 'the helper pod is removed');
});

t('the helper pod deleted while it writes: the copy in fails, the helper pod is gone', async () => {
  const from = bulk(40, 25);
  const [result, killed] = await Promise.all([
    engine.copyNodeDataIn(spec.nodeKey, from, { sub: 'data' }).then((r) => ({ ok: r }), (e: Error) => ({ err: e })),
    killHelperWhileCopying(1500),
  ]);
  assert.ok(killed, 'the helper pod ran');
  assert.ok('err' in result, `the copy in answered ${JSON.stringify(result)} though its helper was deleted while copying`);
  assert.match((result as { err: Error }).err.message, /helper pod/);
  assert.is(await helperThere(), null, 'the helper pod is gone');
});

t('the helper pod deleted while it reads: the copy out fails, no counts answered', async () => {
  // The claim's data/ filled first (a copy in that goes through), then read out and cut.
  const from = bulk(40, 25);
  const written = await engine.copyNodeDataIn(spec.nodeKey, from, { sub: 'data' });
  assert.is(written.files, 40);
  const into = dir();
  const [result, killed] = await Promise.all([
    engine.copyNodeDataOut(spec.nodeKey, into).then((r) => ({ ok: r }), (e: Error) => ({ err: e })),
    killHelperWhileCopying(1500),
  ]);
  assert.ok(killed, 'the helper pod ran');
  assert.ok('err' in result, `the copy out answered ${JSON.stringify(result)} though its helper was deleted while copying`);
  assert.match((result as { err: Error }).err.message, /helper pod|ended early/);
  assert.is(await helperThere(), null, 'the helper pod is gone');
  // And whole, the same claim reads back as written: 40 files of 25 MB.
  const again = await engine.copyNodeDataOut(spec.nodeKey, dir(), { sub: 'data' });
  assert.equal(again, { files: 40, bytes: 40 * (25 << 20), skipped: 0 });
});

t.run();
