// The service itself on Kubernetes (issue 39 item 4): deploy/service.yaml and the 1.20
// PodDisruptionBudget applied as they are to the test cluster (test/k8s/cluster.sh, 1.20.2) in a
// namespace of this test, with the image deploy/image.sh built and loaded (a counted skip, saying
// why, without the cluster or the image). Only the namespace, the Secret's values and (with
// LNM_SERVICE_IMAGE) the image are replaced. PostgreSQL is this test's own embedded one, listening
// on the cluster node's address (the bridge the pods' network hangs off) for the pods' network.
// - both replicas get Ready (readiness on /api/v1/health), each on the shared database, the node
//   shards (node-shard-* leases) spread over both, the console answering through the NodePort Service;
// - a client keeps creating users through the Service while the pod serving it is deleted: every
//   write acknowledged with a 201 is read back afterwards, failures are only non-2xx or cut
//   connections, the writes go on through the other replica, and the Deployment makes a new pod
//   that gets Ready;
// - in-cluster credentials: the cluster registered through the deployed service as a host with
//   `inCluster` (no token given) passes its check with the pod's service account and the Role of
//   service.yaml; in a namespace without that Role the check names kubernetes.inCluster and the
//   missing permissions; a token given with inCluster is a 400.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as k8s from '@kubernetes/client-node';
import { requires } from '../../helpers/requirements.ts';
import { adminKubeConfig, serviceImage, serviceImageSkipReason, testCluster } from '../../helpers/kubernetes.ts';
import { ownPostgres, type OwnPostgres } from '../../helpers/postgres.ts';
import { ADMIN, adminAuth, call } from '../../helpers/server.ts';
import { assertWritesKept, mixedLoad } from '../../helpers/instances.ts';

const NAMESPACE = process.env.LNM_TEST_K8S_DEPLOY_NAMESPACE ?? 'lnm-deploy';
const SELECTOR = 'app.kubernetes.io/name=ledger-network-manager';
const NODE_SHARDS = 16;
const LOAD_MS = 45_000;
const deployDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../deploy');

const skipReason = await serviceImageSkipReason();
const t = requires(suite('the service on Kubernetes: deploy/ applied with 2 replicas'), 'service-image', skipReason);

let kc: k8s.KubeConfig;
let core: k8s.CoreV1Api;
let apps: k8s.AppsV1Api;
let postgres: OwnPostgres;
let lb = '';
let pdbApiVersion = '';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const objectsOf = (file: string) => (k8s.loadAllYaml(readFileSync(path.join(deployDir, file), 'utf8')) as (k8s.KubernetesObject | null)[]).filter((o): o is k8s.KubernetesObject => o !== null);

async function dropNamespace(): Promise<void> {
  await core.deleteNamespace({ name: NAMESPACE }).catch(() => undefined);
  for (let i = 0; i < 120; i++) {
    if (!(await core.listNamespace()).items.some((n) => n.metadata?.name === NAMESPACE)) return;
    await sleep(1000);
  }
  throw new Error(`namespace ${NAMESPACE} still there 120 s after its deletion`);
}

const isReady = (p: k8s.V1Pod) => !p.metadata?.deletionTimestamp && p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
const pods = async () => (await core.listNamespacedPod({ namespace: NAMESPACE, labelSelector: SELECTOR })).items;

/** What the pods are doing, for a failure message: phase, readiness, restarts, the last log lines. */
async function podReport(): Promise<string> {
  const lines: string[] = [];
  for (const p of await pods()) {
    const s = p.status?.containerStatuses?.[0];
    const log = await core.readNamespacedPodLog({ name: p.metadata!.name!, namespace: NAMESPACE, tailLines: 8 }).catch((e: Error) => `(no log: ${e.message.slice(0, 100)})`);
    lines.push(`${p.metadata!.name} ${p.status?.phase} ready=${isReady(p)} restarts=${s?.restartCount} ${JSON.stringify(s?.state)}\n${log}`);
  }
  return lines.join('\n');
}

/** The Ready pods, once `n` of them are and none is one of `not`. */
async function readyPods(n: number, withinMs: number, not: string[] = []): Promise<k8s.V1Pod[]> {
  const end = Date.now() + withinMs;
  for (;;) {
    const ready = (await pods()).filter((p) => isReady(p) && !not.includes(p.metadata!.name!));
    if (ready.length >= n) return ready;
    if (Date.now() > end) throw new Error(`${ready.length} of ${n} replicas Ready after ${withinMs} ms:\n${await podReport()}`);
    await sleep(1000);
  }
}

const health = async (p: k8s.V1Pod) => call(`http://${p.status!.podIP}:8100/api/v1`, 'GET', '/health');

t.before(async () => {
  const cluster = testCluster()!;
  kc = adminKubeConfig();
  core = kc.makeApiClient(k8s.CoreV1Api);
  apps = kc.makeApiClient(k8s.AppsV1Api);
  await dropNamespace();
  // PostgreSQL on the node's address, open to the pods' network (cluster.sh: 10.213.0.0/24).
  const podNetwork = process.env.LNM_TEST_K8S_POD_CIDR ?? `${cluster.connection.nodeAddress.split('.').slice(0, 3).join('.')}.0/24`;
  postgres = await ownPostgres({ listenAddresses: ['127.0.0.1', cluster.connection.nodeAddress], allowFrom: [podNetwork] });
  const databaseUrl = postgres.url.replace('@127.0.0.1:', `@${cluster.connection.nodeAddress}:`);
  await core.createNamespace({ body: { metadata: { name: NAMESPACE } } });
  const version = await kc.makeApiClient(k8s.VersionApi).getCode();
  const pdbFile = Number(version.minor.replace(/\D/g, '')) >= 21 ? 'pdb.yaml' : 'pdb-1.20.yaml';
  const api = k8s.KubernetesObjectApi.makeApiClient(kc);
  pdbApiVersion = objectsOf(pdbFile)[0]!.apiVersion!;
  for (const o of [...objectsOf('service.yaml'), ...objectsOf(pdbFile)]) {
    o.metadata!.namespace = NAMESPACE;
    if (o.kind === 'Secret') {
      (o as k8s.V1Secret).stringData = { DATABASE_URL: databaseUrl, KEY_ENCRYPTION_KEY: 'k8s-deploy-e2e-key-encryption-key-0123456789', ADMIN_PASSWORD: ADMIN.password };
    }
    if (o.kind === 'RoleBinding') for (const s of (o as k8s.V1RoleBinding).subjects ?? []) s.namespace = NAMESPACE;
    if (o.kind === 'Deployment') (o as k8s.V1Deployment).spec!.template.spec!.containers[0]!.image = serviceImage;
    await api.create(o);
  }
  const service = await core.readNamespacedService({ name: 'lnm-service', namespace: NAMESPACE });
  lb = `http://${cluster.connection.nodeAddress}:${service.spec!.ports![0]!.nodePort}/api/v1`;
});

t.after(async () => {
  if (core) await dropNamespace().catch((e: Error) => console.log(`  cleanup: ${e.message}`));
  await postgres?.remove();
});

t('both replicas Ready on one database, node shards spread over them, the console through the NodePort Service', async () => {
  const t0 = Date.now();
  const ready = await readyPods(2, 240_000);
  console.log(`  2 replicas Ready ${Date.now() - t0} ms after the objects were made`);
  const deployment = await apps.readNamespacedDeployment({ name: 'lnm-service', namespace: NAMESPACE });
  assert.is(deployment.status?.readyReplicas, 2);
  // Each replica healthy, named by its pod (INSTANCE_ID from the downward API), on the same database.
  for (const p of ready) {
    const h = await health(p);
    assert.is(h.status, 200, h.text);
    assert.is(h.json.instance.id, p.metadata!.name);
    assert.is(h.json.database.status, 'up');
  }
  // The node shards: every one held, by one replica only, both replicas holding some.
  let held: string[][] = [];
  for (const end = Date.now() + 30_000; Date.now() < end; await sleep(500)) {
    held = await Promise.all(ready.map(async (p) => ((await health(p)).json?.instance.work as string[] ?? []).filter((w) => w.startsWith('node-shard-'))));
    const all = held.flat();
    if (new Set(all).size === NODE_SHARDS && all.length === NODE_SHARDS && held.every((h) => h.length > 0)) break;
  }
  console.log(`  node shards held: ${held.map((h, i) => `${ready[i]!.metadata!.name} ${h.length}`).join(', ')}`);
  assert.is(new Set(held.flat()).size, NODE_SHARDS, JSON.stringify(held));
  assert.is(held.flat().length, NODE_SHARDS, `a shard held twice: ${JSON.stringify(held)}`);
  assert.ok(held.every((h) => h.length > 0), `a replica without node work: ${JSON.stringify(held)}`);
  // The PodDisruptionBudget sees both: one may go.
  let pdb: k8s.V1PodDisruptionBudget | null = null;
  for (const end = Date.now() + 15_000; Date.now() < end && pdb?.status?.disruptionsAllowed !== 1; await sleep(500)) {
    pdb = await k8s.KubernetesObjectApi.makeApiClient(kc).read<k8s.V1PodDisruptionBudget>({ apiVersion: pdbApiVersion, kind: 'PodDisruptionBudget', metadata: { name: 'lnm-service', namespace: NAMESPACE } });
  }
  assert.is(pdb?.status?.disruptionsAllowed, 1, JSON.stringify(pdb?.status));
  // The API and the console through the Service.
  const viaService = await call(lb, 'GET', '/health');
  assert.is(viaService.status, 200, viaService.text);
  const consolePage = await fetch(lb.replace(/\/api\/v1$/, '/'), { headers: { accept: 'text/html' } });
  assert.is(consolePage.status, 200);
  assert.match(await consolePage.text(), /<div id="root">|<script/);
  const signedIn = await call(lb, 'GET', '/users', { headers: adminAuth() });
  assert.is(signedIn.status, 200, signedIn.text);
});

t('a client writing through the Service while the pod serving it is deleted: no acknowledged write lost, the pod replaced and Ready', async () => {
  const before = await readyPods(2, 60_000);
  const load = mixedLoad(lb, { workers: 4, durationMs: LOAD_MS, prefix: 'k8s' });
  // The victim: a replica the client's writes reach (its log shows POST /users in the last seconds).
  await sleep(6000);
  let victim = before[0]!;
  for (const p of before) {
    const log = await core.readNamespacedPodLog({ name: p.metadata!.name!, namespace: NAMESPACE, sinceSeconds: 4 }).catch(() => '');
    if (/"method":"POST","path":"\/api\/v1\/users"/.test(log)) {
      victim = p;
      break;
    }
  }
  const deletedAt = Date.now();
  await core.deleteNamespacedPod({ name: victim.metadata!.name!, namespace: NAMESPACE });
  const replaced = readyPods(2, 180_000, [victim.metadata!.name!]).then((ps) => ({ ps, at: Date.now() }));
  const { requests, acknowledged, failures, readBackMisses } = await load;
  const { ps: after, at: readyAt } = await replaced;
  const afterDeletion = acknowledged.filter((a) => a.at! > deletedAt).length;
  console.log(
    `  ${requests} requests in ${LOAD_MS} ms, ${acknowledged.length} writes acknowledged (${afterDeletion} after the deletion of ${victim.metadata!.name}), ` +
      `${failures.length} failed; replacement Ready ${readyAt - deletedAt} ms after the deletion (${after.map((p) => p.metadata!.name).join(', ')})`,
  );
  for (const f of failures) console.log(`    failed at +${f.at - deletedAt} ms: ${f.what}`);
  assert.ok(afterDeletion > 0, 'writes went on through the other replica');
  assert.is(readBackMisses, 0, 'a write acknowledged through the Service is read back at once through it');
  await assertWritesKept(lb, acknowledged);
  // The Deployment made a new pod in place of the deleted one, and both serve.
  assert.is(after.length, 2);
  assert.not.ok(after.some((p) => p.metadata!.name === victim.metadata!.name));
  for (const p of after) assert.is((await health(p)).status, 200);
});

t('in-cluster credentials: a host registered through the deployed service with inCluster is checked with the pod\'s service account and its Role', async () => {
  const cluster = testCluster()!;
  // The API server as the pods reach it. Not the kubernetes Service's IP here: the test cluster's
  // pods have a route to their own network only (cluster.sh's CNI bridge sets no default gateway),
  // where the node address is, which the API server's certificate names.
  const url = cluster.connection.server;
  const body = (namespace: string, over: Record<string, unknown> = {}) => ({
    name: `in-cluster-${namespace}`, kind: 'kubernetes', url, externalIp: cluster.connection.nodeAddress,
    kubernetes: { inCluster: true, namespace, storageClass: cluster.connection.storageClass, ...over },
  });
  const r = await call(lb, 'POST', '/hosts', { headers: adminAuth(), body: body(NAMESPACE) });
  assert.is(r.status, 201, r.text);
  assert.is(r.json.status.reachable, true, r.text);
  assert.match(r.json.status.engineVersion, /^v1\.\d+/);
  assert.equal(r.json.kubernetes, { namespace: NAMESPACE, storageClass: cluster.connection.storageClass, inCluster: true, hasToken: false });
  // The test cluster's own namespace: this service account has no Role there.
  const refused = await call(lb, 'POST', '/hosts', { headers: adminAuth(), body: body(cluster.connection.namespace) });
  assert.is(refused.status, 400, refused.text);
  assert.is(refused.json.code, 'HOST_UNREACHABLE');
  assert.ok(refused.json.details.some((d: { field: string; message: string }) => d.field === 'kubernetes.inCluster' && /create apps\/statefulsets/.test(d.message)), refused.text);
  const withToken = await call(lb, 'POST', '/hosts', { headers: adminAuth(), body: body(NAMESPACE, { token: 'a-token' }) });
  assert.is(withToken.status, 400, withToken.text);
  assert.ok(withToken.json.details.some((d: { field: string }) => d.field === 'kubernetes.token'), withToken.text);
  const hosts = await call(lb, 'GET', '/hosts', { headers: adminAuth() });
  assert.equal(hosts.json.items.map((h: { name: string }) => h.name), [`in-cluster-${NAMESPACE}`]);
});

t.run();
