// The start's own labelling of a recorded node's objects made before the deployment id (issue 39,
// docs/kubernetes.md "Two deployments on one cluster"), on the shared cluster of
// test/k8s/cluster.sh up with the anvil image on its node (a counted skip, saying why, without).
// The periodic cluster check labels such objects too (labelUnlabelled; e2e
// kubernetesTwoDeployments), and in a server it may come first; here no server runs and no check:
// the engine alone, so whatever carries the id after the start was labelled by the start.
// - an anvil node started by an engine of deployment id D, stopped; its five objects stripped of
//   lnm.deployment through the cluster API (as objects made before the id are);
// - the next start: the five carry D again, the claim and the Service the same objects (uid), the
//   pod labelled, the chain on the claim going on from where it was.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as k8s from '@kubernetes/client-node';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createKubernetesEngine, DEPLOYMENT_LABEL, type KubernetesNodeEngine } from '../../../adapters/engines/kubernetesEngine.ts';
import type { NodeLaunchSpec } from '../../../domain/nodes/nodeEngine.ts';
import { adminKubeConfig, clusterImageMissing, k8sAnvilImage, testCluster } from '../../helpers/kubernetes.ts';
import { requires } from '../../helpers/requirements.ts';
import { eventually } from './fixtures.ts';

const skipReason = await clusterImageMissing(k8sAnvilImage);
const t = requires(suite('kubernetes: the start labels a recorded node\'s objects made before the deployment id'), 'kubernetes', skipReason);
const conn = testCluster()?.connection;
const ns = () => conn!.namespace;
const PREFIX = `k8slabel${process.pid % 100000}-`;
const DEPLOYMENT = `startlabels-${process.pid}`;
const PORT = 30000 + ((process.pid * 11 + 1300) % 2400);
const dataDir = mkdtempSync(path.join(tmpdir(), 'lnm-k8s-labels-'));
let engine: KubernetesNodeEngine;
let apps: k8s.AppsV1Api;
let core: k8s.CoreV1Api;

const spec: NodeLaunchSpec = {
  nodeKey: 'node-1',
  displayName: 'anvil node-1',
  docker: { image: k8sAnvilImage, args: ['--host', '0.0.0.0', '--port', String(PORT), '--block-time', '1', '--state', '{nodeDir}/state.json', '--state-interval', '1'] },
  files: [{ path: 'config/node.toml', content: `port = ${PORT}\n` }],
  ports: [PORT],
};

async function block(): Promise<number | undefined> {
  try {
    const res = await fetch(`http://${conn!.nodeAddress}:${PORT}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }) });
    return Number.parseInt(((await res.json()) as { result: string }).result, 16);
  } catch {
    return undefined;
  }
}

type Meta = { metadata?: k8s.V1ObjectMeta };
/** The node's five objects as the cluster has them: kind → { uid, labels }. */
async function objects() {
  const n = engine.objectNames(spec.nodeKey);
  const read = async (kind: string, get: () => Promise<Meta>) => {
    const o = await get();
    return [kind, { uid: o.metadata?.uid, labels: o.metadata?.labels ?? {} }] as const;
  };
  return Object.fromEntries(await Promise.all([
    read('StatefulSet', () => apps.readNamespacedStatefulSet({ name: n.statefulSet, namespace: ns() })),
    read('Service', () => core.readNamespacedService({ name: n.service, namespace: ns() })),
    read('Secret', () => core.readNamespacedSecret({ name: n.secret, namespace: ns() })),
    read('ConfigMap', () => core.readNamespacedConfigMap({ name: n.configMap, namespace: ns() })),
    read('PersistentVolumeClaim', () => core.readNamespacedPersistentVolumeClaim({ name: n.claim, namespace: ns() })),
  ]));
}

t.before(() => {
  const kc = adminKubeConfig();
  apps = kc.makeApiClient(k8s.AppsV1Api);
  core = kc.makeApiClient(k8s.CoreV1Api);
  engine = createKubernetesEngine({ cluster: conn!, dataDir, namePrefix: PREFIX, deploymentId: DEPLOYMENT, readyTimeoutMs: 120_000 });
});

t.after(async () => {
  await engine?.remove(spec.nodeKey, { deleteVolume: true }).catch(() => undefined);
  rmSync(dataDir, { recursive: true, force: true });
});

t('objects stripped of the deployment id while the node is stopped carry it again after the start alone: the same claim and Service, the chain going on', async () => {
  await engine.prepare(spec);
  await engine.start(spec);
  const before = await objects();
  for (const [kind, o] of Object.entries(before)) assert.is(o.labels[DEPLOYMENT_LABEL], DEPLOYMENT, `${kind} made with the id`);
  const height = await eventually('blocks at the NodePort', async () => {
    const b = await block();
    return b !== undefined && b >= 3 ? b : undefined;
  }, 60_000);
  await engine.stop(spec.nodeKey);

  // As made before the id: no lnm.deployment on any of the five (the answers of the replaces say so).
  const n = engine.objectNames(spec.nodeKey);
  const strip = <T extends Meta>(o: T): T => {
    const labels = { ...o.metadata!.labels };
    delete labels[DEPLOYMENT_LABEL];
    return { ...o, metadata: { ...o.metadata, labels } };
  };
  const stripped: [string, Meta][] = [
    ['StatefulSet', await apps.replaceNamespacedStatefulSet({ name: n.statefulSet, namespace: ns(), body: strip(await apps.readNamespacedStatefulSet({ name: n.statefulSet, namespace: ns() })) })],
    ['Service', await core.replaceNamespacedService({ name: n.service, namespace: ns(), body: strip(await core.readNamespacedService({ name: n.service, namespace: ns() })) })],
    ['Secret', await core.replaceNamespacedSecret({ name: n.secret, namespace: ns(), body: strip(await core.readNamespacedSecret({ name: n.secret, namespace: ns() })) })],
    ['ConfigMap', await core.replaceNamespacedConfigMap({ name: n.configMap, namespace: ns(), body: strip(await core.readNamespacedConfigMap({ name: n.configMap, namespace: ns() })) })],
    ['PersistentVolumeClaim', await core.replaceNamespacedPersistentVolumeClaim({ name: n.claim, namespace: ns(), body: strip(await core.readNamespacedPersistentVolumeClaim({ name: n.claim, namespace: ns() })) })],
  ];
  for (const [kind, o] of stripped) assert.is(o.metadata?.labels?.[DEPLOYMENT_LABEL], undefined, `${kind} stripped`);
  // Nothing else runs against this prefix: still stripped a moment later.
  await new Promise((r) => setTimeout(r, 2000));
  for (const [kind, o] of Object.entries(await objects())) assert.is(o.labels[DEPLOYMENT_LABEL], undefined, `${kind} still without the id before the start`);

  await engine.start(spec);
  const after = await objects();
  for (const [kind, o] of Object.entries(after)) assert.is(o.labels[DEPLOYMENT_LABEL], DEPLOYMENT, `${kind} labelled by the start`);
  assert.is(after.PersistentVolumeClaim!.uid, before.PersistentVolumeClaim!.uid, 'the same claim (labelled, not made again)');
  assert.is(after.Service!.uid, before.Service!.uid, 'the same Service (labelled, not made again)');
  const pod = await core.readNamespacedPod({ name: `${n.statefulSet}-0`, namespace: ns() });
  assert.is(pod.metadata?.labels?.[DEPLOYMENT_LABEL], DEPLOYMENT, 'the pod carries the id');
  const later = await eventually('blocks again from the claim', async () => {
    const b = await block();
    return b !== undefined && b >= height ? b : undefined;
  }, 60_000);
  assert.ok(later >= height, `block ${later} after ${height}: the chain on the claim went on`);
});

t.run();
