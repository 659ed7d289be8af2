// Two deployments that both recorded a node of the same key before the deployment id existed
// (issue 39, docs/kubernetes.md "Two deployments on one cluster"): same namespace, same prefix,
// each database holding a node-1, and node-1's objects made before the label (no lnm.deployment),
// on the shared cluster of test/k8s/cluster.sh up with the anvil image on its node (a counted skip,
// saying why, without). Both deployments' cluster checks (labelUnlabelled, each answering that it
// records node-1) find those objects. The engines alone, no server: the checks run when the test
// says.
// - one check after the other: the first labels all five with its id; the second labels none and
//   writes nothing (the five objects' resourceVersion unchanged); nothing deleted, the pod not
//   restarted; the second's start of node-1 is the 409 naming the first;
// - both checks at once, several rounds (the objects stripped again between): each round all
//   five carry one id, never some one deployment's and some the other's (which would leave the
//   node startable by neither).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as k8s from '@kubernetes/client-node';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createKubernetesEngine, type KubernetesNodeEngine } from '../../../adapters/engines/kubernetesEngine.ts';
import type { AppError } from '../../../domain/shared/errors.ts';
import { adminKubeConfig, anvilStateSpec, clusterImageMissing, k8sAnvilImage, nodeObjectsOf, testCluster } from '../../helpers/kubernetes.ts';
import { requires } from '../../helpers/requirements.ts';

const skipReason = await clusterImageMissing(k8sAnvilImage);
const t = requires(suite('kubernetes: two deployments that both recorded a node of one key before the deployment id'), 'kubernetes', skipReason);
const conn = testCluster()?.connection;
const ns = () => conn!.namespace;
const PREFIX = `k8ssame${process.pid % 100000}-`;
const PORT = 30000 + ((process.pid * 7 + 2100) % 2400);
const A = `same-a-${process.pid}`;
const B = `same-b-${process.pid}`;
const dataDir = mkdtempSync(path.join(tmpdir(), 'lnm-k8s-same-'));
const spec = anvilStateSpec(PORT);
let before: KubernetesNodeEngine;
let engines: Record<string, KubernetesNodeEngine>;
let core: k8s.CoreV1Api;
const recordsNode1 = async (key: string) => key === spec.nodeKey;

const node1 = () => nodeObjectsOf(before.objectNames(spec.nodeKey), ns());
const objects = () => node1().objects();
const stripAll = () => node1().stripAll();
const pod = () => core.readNamespacedPod({ name: `${before.objectNames(spec.nodeKey).statefulSet}-0`, namespace: ns() });

t.before(async () => {
  const kc = adminKubeConfig();
  core = kc.makeApiClient(k8s.CoreV1Api);
  // node-1 made by an engine without an id: its objects carry none, as before the deployment id.
  before = createKubernetesEngine({ cluster: conn!, dataDir, namePrefix: PREFIX });
  engines = {
    [A]: createKubernetesEngine({ cluster: conn!, dataDir, namePrefix: PREFIX, deploymentId: A }),
    [B]: createKubernetesEngine({ cluster: conn!, dataDir, namePrefix: PREFIX, deploymentId: B }),
  };
  await before.prepare(spec);
  await before.start(spec);
});

t.after(async () => {
  await before?.remove(spec.nodeKey, { deleteVolume: true }).catch(() => undefined);
  rmSync(dataDir, { recursive: true, force: true });
});

t('one check after the other: the first labels all five, the second none and writes nothing; nothing deleted or restarted; the second\'s start is the 409 naming the first', async () => {
  const start = await objects();
  for (const [kind, o] of Object.entries(start)) assert.is(o.deployment, undefined, `${kind} made without the id`);
  const p0 = await pod();
  const first = await engines[B]!.labelUnlabelled(recordsNode1);
  assert.equal(first.failed, []);
  assert.equal(first.labelled.map((o) => o.kind).sort(), ['ConfigMap', 'PersistentVolumeClaim', 'Secret', 'Service', 'StatefulSet']);
  const labelled = await objects();
  for (const [kind, o] of Object.entries(labelled)) {
    assert.is(o.deployment, B, `${kind} carries the first check's id`);
    assert.is(o.uid, start[kind]!.uid, `the same ${kind}`);
  }
  const second = await engines[A]!.labelUnlabelled(recordsNode1);
  assert.equal(second.labelled, [], 'the second check labels nothing');
  assert.equal(await objects(), labelled, 'and writes nothing (the five resourceVersions unchanged)');
  const p1 = await pod();
  assert.is(p1.metadata?.uid, p0.metadata?.uid, 'the pod not restarted');
  assert.is(p1.status?.containerStatuses?.[0]?.restartCount, p0.status?.containerStatuses?.[0]?.restartCount);
  const err = await engines[A]!.start(spec).then(() => null, (e: AppError) => e);
  assert.is(err?.status, 409, String(err?.message));
  assert.ok(err!.message.includes(B), `names the first deployment: ${err!.message}`);
  assert.equal(await objects(), labelled, 'the refused start changed nothing');
  assert.is((await engines[B]!.status(spec.nodeKey)).state, 'running', 'the node runs for the first');
});

t('both checks at once: each round the five carry one deployment\'s id, never split between the two', async () => {
  const p0 = await pod();
  const rounds: string[] = [];
  for (let round = 0; round < 4; round++) {
    await stripAll();
    const uids = await objects();
    const [a, b] = await Promise.all([engines[A]!.labelUnlabelled(recordsNode1), engines[B]!.labelUnlabelled(recordsNode1)]);
    const after = await objects();
    const ids = Object.values(after).map((o) => o.deployment);
    rounds.push(`${round}: ${Object.entries(after).map(([k, o]) => `${k}=${o.deployment === A ? 'A' : o.deployment === B ? 'B' : String(o.deployment)}`).join(' ')} (A labelled ${a.labelled.length}, B ${b.labelled.length})`);
    assert.ok(ids.every((id) => id !== undefined), `every object labelled: ${rounds.at(-1)}`);
    assert.is(new Set(ids).size, 1, `one deployment's id on all five: ${rounds.join('; ')}`);
    for (const [kind, o] of Object.entries(after)) assert.is(o.uid, uids[kind]!.uid, `the same ${kind}`);
  }
  const p1 = await pod();
  assert.is(p1.metadata?.uid, p0.metadata?.uid, 'the pod not restarted');
});

t.run();
