// Two deployments on one cluster, one namespace and one name prefix (issue 39, docs/kubernetes.md
// "Two deployments on one cluster"), against the shared cluster of test/k8s/cluster.sh up with the
// anvil and service images on its node (a counted skip, saying why, without them): two servers,
// each with its own database (hence its own deployment id, GET /health), the same LNM_DOCKER_PREFIX,
// register the same cluster and namespace. A runs an anvil node there.
// - B's orphan sweep (grace 1 s, a check every 2 s) removes a Service labelled with B's own id for
//   a node B never recorded (so it did sweep), leaves A's node objects (the same uid and
//   resourceVersion) and a Service of the prefix without any deployment label (made before it);
// - B's create of a node whose name is A's node's: 409 naming the object and A's deployment and
//   saying to give each deployment a prefix of its own; no node recorded in B, A's objects untouched;
//   B's engine's start and restart of that node key: the same 409, nothing touched;
// - A's objects stripped of the label (as made before it: no lnm.deployment at all) get A's id at A's
//   next cluster check (a check every 2 s), the same objects (uid) and the pod not restarted, audited;
//   an unlabelled Service of a node key A does not record stays unlabelled;
// - stripped again, they carry A's id after the node's next stop and start (the check or the start labels them).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as k8s from '@kubernetes/client-node';
import { adminAuth, call, startServer, type TestServer } from '../../helpers/server.ts';
import { requires } from '../../helpers/requirements.ts';
import { adminKubeConfig, clusterImageMissing, k8sAnvilImage, serviceImage, serviceImageSkipReason, testCluster } from '../../helpers/kubernetes.ts';
import { until } from '../evm/evmLifecycle.ts';
import { createKubernetesEngine } from '../../../adapters/engines/kubernetesEngine.ts';
import type { AppError } from '../../../domain/shared/errors.ts';

const skipReason = (await serviceImageSkipReason()) ?? (await clusterImageMissing(k8sAnvilImage));
const t = requires(suite('kubernetes: two deployments sharing a namespace and a prefix'), 'kubernetes', skipReason);
const cluster = testCluster();
const c = () => cluster!.connection;
const ns = () => c().namespace;
const PREFIX = `k8sdeploy${process.pid % 100000}-`;
const PREFIX_LABEL = PREFIX.replace(/-$/, '');

interface Deployment { letter: string; server: TestServer; id: string; hostId: number; networks: number[]; nodes: number[] }
const deployments: Deployment[] = [];
let apps: k8s.AppsV1Api;
let core: k8s.CoreV1Api;
const api = (d: Deployment, method: string, p: string, body?: unknown) => call(d.server.api, method, p, { headers: adminAuth(), body });

async function deployment(letter: string, grace: string): Promise<Deployment> {
  const server = await startServer({ env: { KEY_ENCRYPTION_KEY: `k8s-deploy-e2e-key-encryption-key-${letter}-0123456789`, LNM_HOST_CHECK_SECONDS: '2', LNM_K8S_ORPHAN_GRACE_SECONDS: grace, LNM_DOCKER_PREFIX: PREFIX, LNM_NODE_ENGINE: 'process', LNM_IMAGE_SERVICE: serviceImage } });
  const health = await call(server.api, 'GET', '/health');
  // Before the deployment id (the code this test was written against) there is none: 'none'.
  const d: Deployment = { letter, server, id: (health.json?.deployment?.id as string | undefined) ?? 'none', hostId: 0, networks: [], nodes: [] };
  deployments.push(d);
  const h = await api(d, 'POST', '/hosts', { name: 'cluster', kind: 'kubernetes', url: c().server, externalIp: c().nodeAddress, kubernetes: { caCertificate: c().caCertificate, token: c().token, namespace: ns(), storageClass: c().storageClass } });
  assert.is(h.status, 201, h.text);
  d.hostId = h.json.id;
  return d;
}

type Meta = { metadata?: k8s.V1ObjectMeta };
/** The five objects of a node by kind: their uid, resourceVersion and labels, as the cluster has them. */
async function objectsOf(nodeId: number) {
  const name = `${PREFIX}node-${nodeId}`;
  const read = async (kind: string, get: () => Promise<Meta>) => {
    const o = await get().catch(() => null);
    return [kind, o ? { uid: o.metadata?.uid, resourceVersion: o.metadata?.resourceVersion, labels: o.metadata?.labels ?? {} } : null] as const;
  };
  return Object.fromEntries(await Promise.all([
    read('StatefulSet', () => apps.readNamespacedStatefulSet({ name, namespace: ns() })),
    read('Service', () => core.readNamespacedService({ name, namespace: ns() })),
    read('Secret', () => core.readNamespacedSecret({ name: `${name}-keys`, namespace: ns() })),
    read('ConfigMap', () => core.readNamespacedConfigMap({ name: `${name}-config`, namespace: ns() })),
    read('PersistentVolumeClaim', () => core.readNamespacedPersistentVolumeClaim({ name: `${name}-data`, namespace: ns() })),
  ]));
}
const sansLabels = (o: Awaited<ReturnType<typeof objectsOf>>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, v && { uid: v.uid, resourceVersion: v.resourceVersion }]));

/** A Service of this run's prefix for a node no deployment recorded, with the given extra labels. */
const looseService = (nodeKey: string, extra: Record<string, string>) =>
  core.createNamespacedService({ namespace: ns(), body: { metadata: { name: `${PREFIX}${nodeKey}`, labels: { 'lnm.node': nodeKey, 'lnm.prefix': PREFIX_LABEL, ...extra } }, spec: { type: 'ClusterIP', ports: [{ port: 80, protocol: 'TCP' }], selector: { 'lnm.node': nodeKey, 'lnm.prefix': PREFIX_LABEL } } } });
const serviceThere = (name: string) => core.readNamespacedService({ name, namespace: ns() }).then(() => true, () => false);

t.before(async () => {
  const kc = adminKubeConfig();
  apps = kc.makeApiClient(k8s.AppsV1Api);
  core = kc.makeApiClient(k8s.CoreV1Api);
  await deployment('a', '600');
  await deployment('b', '1');
});

t.after(async () => {
  for (const d of deployments) {
    for (const id of d.nodes) await api(d, 'DELETE', `/nodes/${id}?deleteVolume=true`).catch(() => undefined);
    for (const id of d.networks) await api(d, 'DELETE', `/networks/evm/${id}`).catch(() => undefined);
    await d.server.stop();
  }
  // Whatever the run left of its prefix on the shared cluster (a failed run), with the admin client.
  const sel = { namespace: ns(), labelSelector: `lnm.prefix=${PREFIX_LABEL}` };
  for (const s of (await apps.listNamespacedStatefulSet(sel).catch(() => ({ items: [] as Meta[] }))).items) await apps.deleteNamespacedStatefulSet({ name: s.metadata!.name!, namespace: ns() }).catch(() => undefined);
  for (const s of (await core.listNamespacedService(sel).catch(() => ({ items: [] as Meta[] }))).items) await core.deleteNamespacedService({ name: s.metadata!.name!, namespace: ns() }).catch(() => undefined);
  for (const s of (await core.listNamespacedSecret(sel).catch(() => ({ items: [] as Meta[] }))).items) await core.deleteNamespacedSecret({ name: s.metadata!.name!, namespace: ns() }).catch(() => undefined);
  for (const s of (await core.listNamespacedConfigMap(sel).catch(() => ({ items: [] as Meta[] }))).items) await core.deleteNamespacedConfigMap({ name: s.metadata!.name!, namespace: ns() }).catch(() => undefined);
  for (const s of (await core.listNamespacedPersistentVolumeClaim(sel).catch(() => ({ items: [] as Meta[] }))).items) await core.deleteNamespacedPersistentVolumeClaim({ name: s.metadata!.name!, namespace: ns() }).catch(() => undefined);
});

let aNode: number;
let aObjects: Awaited<ReturnType<typeof objectsOf>>;

t('each database has its own deployment id, shown by GET /health; A\'s node objects all carry A\'s', async () => {
  const [a, b] = deployments;
  const n = await api(a!, 'POST', '/networks/evm', { name: 'deploy-a', client: 'anvil', genesis: { consensus: 'QBFT', block_time: 1 }, placement: { hostId: a!.hostId } });
  assert.is(n.status, 201, n.text);
  a!.networks.push(n.json.id);
  const r = await api(a!, 'POST', `/networks/${n.json.id}/start`);
  assert.is(r.status, 200, r.text);
  aNode = r.json.nodes[0].id;
  a!.nodes.push(aNode);
  const row = await until('A\'s node running', async () => {
    const got = (await api(a!, 'GET', `/nodes/${aNode}`)).json;
    return got.status === 'running' || got.status === 'error' ? got : null;
  }, 240_000);
  assert.is(row.status, 'running', JSON.stringify({ status: row.status, error: row.error }));
  aObjects = await objectsOf(aNode);
  assert.is.not(a!.id, 'none', 'GET /health names the deployment');
  assert.is.not(a!.id, b!.id);
  for (const [kind, o] of Object.entries(aObjects)) {
    assert.ok(o, `${kind} of A's node is on the cluster`);
    assert.is(o!.labels['lnm.deployment'], a!.id, `${kind} labelled with A's id`);
  }
  const pod = await core.readNamespacedPod({ name: `${PREFIX}node-${aNode}-0`, namespace: ns() });
  assert.is(pod.metadata?.labels?.['lnm.deployment'], a!.id, 'the pod (its template) too');
});

t('B\'s orphan sweep takes only what carries B\'s id: A\'s node objects and an unlabelled Service stay', async () => {
  const [a, b] = deployments;
  const own = `${PREFIX}node-99991`;
  const legacy = `${PREFIX}node-99992`;
  await looseService('node-99991', { 'lnm.deployment': b!.id });
  await looseService('node-99992', {});
  // B's sweep ran (its own orphan gone, audited) at least once after A's objects were older than its grace.
  await until(`B's sweep removed ${own}`, async () => !(await serviceThere(own)), 90_000);
  const entry = await until('B\'s audit entry of the removal', async () => ((await api(b!, 'GET', '/audit-logs?limit=100')).json.items as Array<Record<string, any>>).find((e) => e.event_type === 'NodeHostOrphansRemoved'), 30_000);
  const removed = (entry.details.objects as Array<{ kind: string; name: string }>).map((o) => `${o.kind} ${o.name}`);
  assert.equal(removed, [`Service ${own}`], 'B removed its own orphan and nothing else');
  // Another check or two of B's, then A's objects as they were.
  await new Promise((r) => setTimeout(r, 5000));
  assert.equal(sansLabels(await objectsOf(aNode)), sansLabels(aObjects), 'A\'s objects untouched (uid, resourceVersion)');
  assert.ok(await serviceThere(legacy), 'a Service of the prefix without a deployment label is left');
  assert.is((await api(a!, 'GET', `/nodes/${aNode}`)).json.status, 'running');
  await core.deleteNamespacedService({ name: legacy, namespace: ns() });
});

t('B\'s create of a node named as A\'s: 409 naming the object, A\'s deployment and the fix; nothing recorded, A\'s objects untouched', async () => {
  const [a, b] = deployments;
  const n = await api(b!, 'POST', '/networks/evm', { name: 'deploy-b', client: 'anvil', genesis: { consensus: 'QBFT', block_time: 1 } });
  assert.is(n.status, 201, n.text);
  b!.networks.push(n.json.id);
  const before = (await api(b!, 'GET', '/nodes')).json.total;
  const r = await api(b!, 'POST', '/nodes', { name: 'deploy-b-node', platform: 'EVM', nodeType: 'EVM_FULLNODE', networkId: n.json.id, config: { hostId: b!.hostId } });
  if (r.status < 300 && r.json?.id) b!.nodes.push(r.json.id);
  assert.is(r.status, 409, r.text);
  const name = `${PREFIX}node-${aNode}`;
  assert.ok(r.json.message.includes(name), r.json.message);
  assert.ok(r.json.message.includes(a!.id), `names A's deployment: ${r.json.message}`);
  assert.match(r.json.message, /prefix of its own \(LNM_DOCKER_PREFIX\)/);
  assert.is(r.json.context?.otherDeployment, a!.id, r.text);
  assert.equal(r.json.context?.object, { kind: 'StatefulSet', name, namespace: ns() }, r.text);
  assert.not.ok(r.text.includes(c().token!), 'no token in the answer');
  assert.is((await api(b!, 'GET', '/nodes')).json.total, before, 'no node recorded in B');
  assert.equal(sansLabels(await objectsOf(aNode)), sansLabels(aObjects), 'A\'s objects untouched (uid, resourceVersion)');
  assert.is((await api(a!, 'GET', `/nodes/${aNode}`)).json.status, 'running');

  // A start of B's engine for that node key (a recorded node of B whose names A holds; a cluster
  // that takes no NodePorts reaches the start without the create's check) and a restart: the same 409.
  const engine = createKubernetesEngine({ cluster: c(), dataDir: b!.server.dataDir, namePrefix: PREFIX, deploymentId: b!.id });
  const spec = { nodeKey: `node-${aNode}`, displayName: 'B\'s node', docker: { image: k8sAnvilImage, args: ['anvil'] }, files: [], ports: [31990] };
  for (const attempt of [() => engine.start(spec), () => engine.restart!(spec)]) {
    const err = await attempt().then(() => null, (e: AppError) => e);
    assert.is(err?.status, 409, String(err?.message));
    assert.ok(err!.message.includes(`StatefulSet ${name}`) && err!.message.includes(a!.id), err!.message);
    assert.is(err!.extra?.otherDeployment, a!.id);
  }
  assert.equal(sansLabels(await objectsOf(aNode)), sansLabels(aObjects), 'A\'s objects untouched by the refused starts');
  assert.is((await core.readNamespacedPod({ name: `${name}-0`, namespace: ns() })).metadata?.labels?.['lnm.deployment'], a!.id, 'A\'s pod still runs');
});

/**
 * Takes the deployment label off the five objects of A's node through the cluster API (as objects
 * made before the label are); asserts on the answers of the replaces, since A's check may label
 * them again at once.
 */
async function stripAll(nodeId: number) {
  const name = `${PREFIX}node-${nodeId}`;
  const strip = <T extends Meta>(o: T): T => {
    const labels = { ...o.metadata!.labels };
    delete labels['lnm.deployment'];
    return { ...o, metadata: { ...o.metadata, labels } };
  };
  const replaced: [string, Meta][] = [
    ['Service', await core.replaceNamespacedService({ name, namespace: ns(), body: strip(await core.readNamespacedService({ name, namespace: ns() })) })],
    ['PersistentVolumeClaim', await core.replaceNamespacedPersistentVolumeClaim({ name: `${name}-data`, namespace: ns(), body: strip(await core.readNamespacedPersistentVolumeClaim({ name: `${name}-data`, namespace: ns() })) })],
    ['Secret', await core.replaceNamespacedSecret({ name: `${name}-keys`, namespace: ns(), body: strip(await core.readNamespacedSecret({ name: `${name}-keys`, namespace: ns() })) })],
    ['ConfigMap', await core.replaceNamespacedConfigMap({ name: `${name}-config`, namespace: ns(), body: strip(await core.readNamespacedConfigMap({ name: `${name}-config`, namespace: ns() })) })],
    ['StatefulSet', await apps.replaceNamespacedStatefulSet({ name, namespace: ns(), body: strip(await apps.readNamespacedStatefulSet({ name, namespace: ns() })) })],
  ];
  for (const [kind, o] of replaced) assert.is(o.metadata?.labels?.['lnm.deployment'], undefined, `${kind} stripped`);
}

t('objects of a recorded node without a deployment label get the id at the next cluster check: the same objects, the pod not restarted; an unrecorded node key\'s stay unlabelled', async () => {
  const [a, b] = deployments;
  const name = `${PREFIX}node-${aNode}`;
  const pod = await core.readNamespacedPod({ name: `${name}-0`, namespace: ns() });
  const legacy = `${PREFIX}node-99993`;
  await looseService('node-99993', {});
  await stripAll(aNode);
  const after = await until('A\'s check labelled the five objects again', async () => {
    const o = await objectsOf(aNode);
    return Object.values(o).every((x) => x?.labels['lnm.deployment'] === a!.id) ? o : null;
  }, 60_000);
  for (const kind of Object.keys(aObjects)) assert.is(after[kind]!.uid, aObjects[kind]!.uid, `the same ${kind} (uid)`);
  const podNow = await core.readNamespacedPod({ name: `${name}-0`, namespace: ns() });
  assert.is(podNow.metadata?.uid, pod.metadata?.uid, 'the pod was not restarted (same uid)');
  assert.is(podNow.status?.containerStatuses?.[0]?.restartCount, pod.status?.containerStatuses?.[0]?.restartCount, 'nor its container');
  // A check may have run between two of the strips: one entry per check, the five named once in all.
  const entries = await until('A\'s audit entries of the labelling', async () => {
    const found = ((await api(a!, 'GET', '/audit-logs?limit=100')).json.items as Array<Record<string, any>>).filter((e) => e.event_type === 'NodeHostObjectsLabelled');
    return found.flatMap((e) => e.details.objects).length >= 5 ? found : null;
  }, 30_000);
  const labelled = entries.flatMap((e) => e.details.objects as Array<{ kind: string; name: string; uid: string }>);
  assert.equal(labelled.map((o) => `${o.kind} ${o.name}`).sort(), [`ConfigMap ${name}-config`, `PersistentVolumeClaim ${name}-data`, `Secret ${name}-keys`, `Service ${name}`, `StatefulSet ${name}`], 'the audit entries name the five, once each');
  for (const o of labelled) assert.is(o.uid, aObjects[o.kind]!.uid, `the entry names the ${o.kind}'s uid`);
  for (const e of entries) assert.is(e.details.deployment, a!.id);
  // A few more checks of both: a node key neither records keeps its object unlabelled, and B labelled nothing.
  await new Promise((r) => setTimeout(r, 5000));
  const loose = await core.readNamespacedService({ name: legacy, namespace: ns() });
  assert.is(loose.metadata?.labels?.['lnm.deployment'], undefined, 'an unrecorded node key\'s Service stays unlabelled');
  assert.not.ok(((await api(b!, 'GET', '/audit-logs?limit=100')).json.items as Array<Record<string, any>>).some((e) => e.event_type === 'NodeHostObjectsLabelled'), 'B labelled nothing');
  assert.is((await api(a!, 'GET', `/nodes/${aNode}`)).json.status, 'running');
  await core.deleteNamespacedService({ name: legacy, namespace: ns() });
});

t('objects stripped of the label carry the id again after the node\'s next stop and start', async () => {
  const a = deployments[0]!;
  await stripAll(aNode);

  const stop = await api(a, 'POST', `/nodes/${aNode}/stop`);
  assert.ok(stop.status < 300, stop.text);
  await until('A\'s node stopped', async () => (await api(a, 'GET', `/nodes/${aNode}`)).json.status === 'stopped', 60_000);
  const start = await api(a, 'POST', `/nodes/${aNode}/start`);
  assert.ok(start.status < 300, start.text);
  const row = await until('A\'s node started again', async () => {
    const got = (await api(a, 'GET', `/nodes/${aNode}`)).json;
    return got.status === 'running' || got.status === 'error' ? got : null;
  }, 120_000);
  assert.is(row.status, 'running', JSON.stringify({ status: row.status, error: row.error }));
  const after = await objectsOf(aNode);
  for (const [kind, o] of Object.entries(after)) assert.is(o!.labels['lnm.deployment'], a.id, `${kind} labelled again`);
  assert.is(after.PersistentVolumeClaim!.uid, aObjects.PersistentVolumeClaim!.uid, 'the same claim');
  assert.is(after.Service!.uid, aObjects.Service!.uid, 'the same Service');
});

t.run();
