// The start refusal of a node whose objects another deployment holds, through the API, on a
// cluster registered with hostPort exposure (issue 39, docs/kubernetes.md "Two deployments on one
// cluster"), against the shared cluster of test/k8s/cluster.sh up with the anvil image on its node
// (a counted skip, saying why, without it). A hostPort cluster takes no NodePort, so nothing is
// made ahead at create: the start is where another deployment's object of the node's name is
// found. The service's anvil node runs there and is stopped; its Service is then labelled with
// another deployment's id through the cluster API (as another database sharing the namespace and
// prefix would hold it): POST /nodes/{id}/start and /restart are a 409 NODE_START_FAILED in the
// one error body naming the Service and the other deployment, and nothing on the cluster changed
// (the five objects' uid and resourceVersion, replicas 0, no pod); the label back, the start runs.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as k8s from '@kubernetes/client-node';
import { adminAuth, call, startServer, type TestServer } from '../../helpers/server.ts';
import { requires } from '../../helpers/requirements.ts';
import { adminKubeConfig, clusterImageMissing, k8sAnvilImage, testCluster } from '../../helpers/kubernetes.ts';
import { until } from '../evm/evmLifecycle.ts';

const skipReason = await clusterImageMissing(k8sAnvilImage);
const t = requires(suite('kubernetes: a start refused through the API on a hostPort cluster'), 'kubernetes', skipReason);
const cluster = testCluster();
const c = () => cluster!.connection;
const ns = () => c().namespace;
const PREFIX = `k8shpref${process.pid % 10000}-`;
const HOST_PORT = 19100 + (process.pid % 400);
const OTHER = `other-deployment-${process.pid}`;
let server: TestServer;
let core: k8s.CoreV1Api;
let apps: k8s.AppsV1Api;
let nodeId = 0;
const api = (method: string, p: string, body?: unknown) => call(server.api, method, p, { headers: adminAuth(), body });
const name = () => `${PREFIX}node-${nodeId}`;

type Meta = { metadata?: k8s.V1ObjectMeta };
/** The node's five objects as the cluster has them: uid and resourceVersion, by kind. */
async function objects() {
  const read = async (kind: string, get: () => Promise<Meta>) => {
    const o = await get().catch(() => null);
    return [kind, o ? { uid: o.metadata?.uid, resourceVersion: o.metadata?.resourceVersion } : null] as const;
  };
  return Object.fromEntries(await Promise.all([
    read('StatefulSet', () => apps.readNamespacedStatefulSet({ name: name(), namespace: ns() })),
    read('Service', () => core.readNamespacedService({ name: name(), namespace: ns() })),
    read('Secret', () => core.readNamespacedSecret({ name: `${name()}-keys`, namespace: ns() })),
    read('ConfigMap', () => core.readNamespacedConfigMap({ name: `${name()}-config`, namespace: ns() })),
    read('PersistentVolumeClaim', () => core.readNamespacedPersistentVolumeClaim({ name: `${name()}-data`, namespace: ns() })),
  ]));
}
/** The Service's lnm.deployment label set to `id` through the cluster API. */
async function labelService(id: string) {
  const svc = await core.readNamespacedService({ name: name(), namespace: ns() });
  await core.replaceNamespacedService({ name: name(), namespace: ns(), body: { ...svc, metadata: { ...svc.metadata, labels: { ...svc.metadata!.labels, 'lnm.deployment': id } } } });
}

t.before(async () => {
  const kc = adminKubeConfig();
  core = kc.makeApiClient(k8s.CoreV1Api);
  apps = kc.makeApiClient(k8s.AppsV1Api);
  server = await startServer({ env: { KEY_ENCRYPTION_KEY: 'k8s-hostport-refusal-e2e-key-encryption-0123456789', LNM_HOST_CHECK_SECONDS: '2', LNM_DOCKER_PREFIX: PREFIX, LNM_NODE_ENGINE: 'process' } });
});

t.after(async () => {
  if (!server) return;
  if (nodeId) {
    await labelService((await call(server.api, 'GET', '/health')).json?.deployment?.id).catch(() => undefined);
    await api('DELETE', `/nodes/${nodeId}?deleteVolume=true`).catch(() => undefined);
    await until('the node\'s objects gone', async () => Object.values(await objects()).every((o) => o === null), 90_000).catch(() => undefined);
  }
  await server.stop();
});

t('POST /nodes/{id}/start and /restart of a node whose Service another deployment holds: 409 in the one error body, nothing changed on the cluster', async () => {
  const own = (await call(server.api, 'GET', '/health')).json.deployment.id as string;
  const host = await api('POST', '/hosts', { name: 'hostport-cluster', kind: 'kubernetes', url: c().server, externalIp: c().nodeAddress, kubernetes: { caCertificate: c().caCertificate, token: c().token, namespace: ns(), storageClass: c().storageClass, exposure: 'hostPort' } });
  assert.is(host.status, 201, host.text);
  const net = await api('POST', '/networks', { name: 'hostport-refusal', type: 'evm', validatorBalance: '1000000000000000000000', genesis: { chain_id: 42791, consensus: 'QBFT', block_time: 1 } });
  assert.is(net.status, 201, net.text);
  const r = await api('POST', '/nodes', { name: 'hostport-node', platform: 'EVM', nodeType: 'EVM_FULLNODE', networkId: net.json.id, config: { hostId: host.json.id, rpcHttpPort: HOST_PORT, p2pPort: HOST_PORT + 1 } });
  assert.is(r.status, 201, r.text);
  nodeId = r.json.id;
  const running = await until('the node running', async () => {
    const got = (await api('GET', `/nodes/${nodeId}`)).json;
    return got.status === 'running' || got.status === 'error' ? got : null;
  }, 180_000);
  assert.is(running.status, 'running', JSON.stringify({ status: running.status, error: running.error }));
  assert.is((await core.readNamespacedService({ name: name(), namespace: ns() })).spec?.type, 'ClusterIP', 'hostPort: no NodePort');
  const stop = await api('POST', `/nodes/${nodeId}/stop`);
  assert.ok(stop.status < 300, stop.text);
  await until('the node stopped', async () => (await api('GET', `/nodes/${nodeId}`)).json.status === 'stopped', 90_000);
  await until('its pod gone', async () => !(await core.readNamespacedPod({ name: `${name()}-0`, namespace: ns() }).then(() => true, () => false)), 90_000);

  await labelService(OTHER);
  const before = await objects();
  for (const kind of Object.keys(before)) assert.ok(before[kind], `${kind} there`);
  for (const action of ['start', 'restart']) {
    const refused = await api('POST', `/nodes/${nodeId}/${action}`);
    assert.is(refused.status, 409, `${action}: ${refused.text}`);
    assert.is(refused.json.status, 409);
    assert.is(refused.json.code, 'NODE_START_FAILED', refused.text);
    assert.ok(refused.json.message.includes(`Service ${name()}`) && refused.json.message.includes(OTHER), `${action} names the Service and the other deployment: ${refused.json.message}`);
    assert.match(refused.json.message, /LNM_DOCKER_PREFIX/);
    assert.equal(refused.json.context?.object, { kind: 'Service', name: name(), namespace: ns() }, refused.text);
    assert.is(refused.json.context?.otherDeployment, OTHER);
    assert.is(refused.json.context?.deployment, own);
    assert.ok(typeof refused.json.requestId === 'string' && refused.json.requestId.length > 0, 'the request id in the body');
    assert.not.ok(refused.text.includes(c().token!), 'no token in the answer');
  }
  // A few checks of the cluster (every 2 s) later: nothing of the node was written or scaled.
  await new Promise((r) => setTimeout(r, 5000));
  assert.equal(await objects(), before, 'the five objects untouched (uid, resourceVersion)');
  assert.is((await apps.readNamespacedStatefulSet({ name: name(), namespace: ns() })).spec?.replicas, 0, 'still scaled to 0');
  assert.not.ok(await core.readNamespacedPod({ name: `${name()}-0`, namespace: ns() }).then(() => true, () => false), 'no pod');
  const row = (await api('GET', `/nodes/${nodeId}`)).json;
  assert.is(row.status, 'stopped', `nothing recorded: the node as it was (${row.status}: ${row.error})`);
  assert.not.ok(server.output().includes(c().token!), 'no token in the server log');

  // The Service this deployment's again: the same start runs.
  await labelService(own);
  const start = await api('POST', `/nodes/${nodeId}/start`);
  assert.ok(start.status < 300, start.text);
  const again = await until('the node running again', async () => {
    const got = (await api('GET', `/nodes/${nodeId}`)).json;
    return got.status === 'running' || got.status === 'error' ? got : null;
  }, 180_000);
  assert.is(again.status, 'running', JSON.stringify({ status: again.status, error: again.error }));
});

t.run();
