// An evm (anvil) node placed on a registered Kubernetes cluster (issue 39), against the cluster
// of test/k8s/cluster.sh up (a counted skip, saying why, without one), the service a child process:
// - POST /nodes with config.hostId of the cluster runs the node as a StatefulSet there, its
//   volume seeded with the network's genesis state (block 0 is the network's genesis hash), blocks
//   coming at the cluster's node address; ports outside the NodePort range are a 400, nothing
//   recorded;
// - its logs: the last lines, and the pod's log stream over the node log WebSocket;
// - its pod deleted: node.downtime, Kubernetes makes it again, node.recovery, the chain goes on,
//   and one node.started only (a pod Kubernetes restarts is not a second start);
// - restart rolls the pod (a new template revision, lnm/restartedAt, replicas never 0): a new pod,
//   the chain goes on, one node.started for the restart and nothing more;
// - stop scales to 0 (the claim stays), start brings the chain back where it was;
// - delete removes the StatefulSet, Service, Secret and ConfigMap and keeps the claim (audited
//   as kept); a claim of the node's name already there (another deployment's with the same
//   prefix) fails the start, untouched; ?deleteVolume=true removes the claim too (audited).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as k8s from '@kubernetes/client-node';
import WebSocket from 'ws';
import { adminAuth, call, startServer, type TestServer } from '../../helpers/server.ts';
import { requires } from '../../helpers/requirements.ts';
import { serviceImage, serviceImageSkipReason, testCluster } from '../../helpers/kubernetes.ts';
import { until } from '../evm/evmLifecycle.ts';

// Each anvil pod first runs the state file cleanup in the service's image (anvilStateFile.ts): that image must be on the cluster too.
const skipReason = await serviceImageSkipReason();
const t = requires(suite('kubernetes: an anvil node on a registered cluster'), 'kubernetes', skipReason);
const cluster = testCluster();
const c = () => cluster!.connection;
// Unique per run: the cluster is shared, and every server here numbers its nodes from 1.
const PREFIX = `k8sn${process.pid % 100000}-`;
const PORT = 30000 + ((process.pid * 13) % 2400);
let server: TestServer;
let hostId: number;
let networkId: number;
let node: any;
const keptClaims: string[] = [];
let deletedId = 0;
let core: k8s.CoreV1Api;
let apps: k8s.AppsV1Api;
const api = (method: string, p: string, body?: unknown) => call(server.api, method, p, { headers: adminAuth(), body });
const events = async (nodeId: number) => (await api('GET', `/nodes/${nodeId}/events?limit=500`)).json.items as Array<{ event: string }>;
const rpc = async (method: string, params: unknown[] = []) => {
  const r = await fetch(`http://${c().nodeAddress}:${PORT}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), signal: AbortSignal.timeout(3000) });
  return ((await r.json()) as { result: any }).result;
};
const height = async () => Number(await rpc('eth_blockNumber'));
const heightOr = (fallback: number) => height().catch(() => fallback);
const name = (id: number) => `${PREFIX}node-${id}`;
const ns = () => c().namespace;
const there = (p: Promise<unknown>) => p.then(() => true, () => false);
const objects = async (id: number) => ({
  statefulSet: await there(apps.readNamespacedStatefulSet({ name: name(id), namespace: ns() })),
  service: await there(core.readNamespacedService({ name: name(id), namespace: ns() })),
  secret: await there(core.readNamespacedSecret({ name: `${name(id)}-keys`, namespace: ns() })),
  configMap: await there(core.readNamespacedConfigMap({ name: `${name(id)}-config`, namespace: ns() })),
  claim: await there(core.readNamespacedPersistentVolumeClaim({ name: `${name(id)}-data`, namespace: ns() })),
});

t.before(async () => {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(process.env.LNM_TEST_K8S_KUBECONFIG ?? `${process.env.LNM_K8S_STATE ?? '/tmp/lnm-k8s'}/admin.kubeconfig`);
  core = kc.makeApiClient(k8s.CoreV1Api);
  apps = kc.makeApiClient(k8s.AppsV1Api);
  server = await startServer({ env: { KEY_ENCRYPTION_KEY: 'k8s-nodes-e2e-key-encryption-key-0123456789', LNM_HOST_CHECK_SECONDS: '2', LNM_DOCKER_PREFIX: PREFIX, LNM_NODE_ENGINE: 'process', LNM_IMAGE_SERVICE: serviceImage } });
  assert.is((await api('POST', '/settings', { nodeHealthCheckIntervalSeconds: 1, nodeDowntimeThreshold: 2 })).status, 200);
  const h = await api('POST', '/hosts', { name: 'cluster', kind: 'kubernetes', url: c().server, externalIp: c().nodeAddress, kubernetes: { caCertificate: c().caCertificate, token: c().token, namespace: c().namespace, storageClass: c().storageClass } });
  assert.is(h.status, 201, h.text);
  hostId = h.json.id;
  const n = await api('POST', '/networks', { name: 'on-cluster', type: 'evm', validatorBalance: '1000000000000000000000', genesis: { chain_id: 42779, consensus: 'QBFT', block_time: 1 } });
  assert.is(n.status, 201, n.text);
  networkId = n.json.id;
});

t.after(async () => {
  // Whatever a failed test left: every node still there, with its claim.
  const left = ((await api('GET', '/nodes').catch(() => null))?.json?.items ?? []) as Array<{ id: number }>;
  for (const n of left) await api('DELETE', `/nodes/${n.id}?deleteVolume=true`).catch(() => undefined);
  for (const n of left) await until('the node\'s objects gone', async () => !Object.values(await objects(n.id)).some(Boolean), 90_000).catch(() => undefined);
  await server?.stop();
  for (const claim of keptClaims) await core.deleteNamespacedPersistentVolumeClaim({ name: claim, namespace: ns() }).catch(() => undefined);
});

const audited = async (nodeId: number) =>
  ((await api('GET', `/audit-logs?resource_type=node&action=DELETE&limit=500`)).json.items as Array<{ resource_id: string; details: { volume?: string } | null }>).find((a) => a.resource_id === String(nodeId));
const runningNode = async (nodeName: string, port: number) => {
  const r = await api('POST', '/nodes', { name: nodeName, platform: 'EVM', nodeType: 'EVM_FULLNODE', networkId, config: { hostId, rpcHttpPort: port, p2pPort: port + 1 } });
  assert.is(r.status, 201, r.text);
  return until(`${nodeName} running`, async () => {
    const got = (await api('GET', `/nodes/${r.json.id}`)).json;
    assert.not.equal(got.status, 'error', JSON.stringify(got));
    return got.status === 'running' ? got : null;
  }, 180_000);
};

t('ports outside the NodePort range are a 400, and nothing is recorded', async () => {
  const r = await api('POST', '/nodes', { name: 'low-port', platform: 'EVM', nodeType: 'EVM_FULLNODE', networkId, config: { hostId, rpcHttpPort: 8545 } });
  assert.is(r.status, 400, r.text);
  assert.is(r.json.details[0].field, 'config.rpcHttpPort');
  assert.match(r.json.message, /30000 to 32767/);
  assert.is((await api('GET', '/nodes')).json.total, 0);
});

t('POST /nodes with the cluster\'s hostId runs the node there, block 0 the network\'s genesis, blocks coming', async () => {
  const network = (await api('GET', `/networks/evm/${networkId}`)).json;
  assert.is(network.client, 'anvil', 'a one-validator network without besu runs on anvil');
  const r = await api('POST', '/nodes', { name: 'k8s-validator', platform: 'EVM', nodeType: 'EVM_FULLNODE', networkId, config: { hostId, rpcHttpPort: PORT, p2pPort: PORT + 1 } });
  assert.is(r.status, 201, r.text);
  node = r.json;
  const running = await until('the node running', async () => {
    const got = (await api('GET', `/nodes/${node.id}`)).json;
    assert.not.equal(got.status, 'error', JSON.stringify(got));
    return got.status === 'running' ? got : null;
  }, 180_000);
  assert.is(running.host_id, hostId);
  assert.equal(await objects(node.id), { statefulSet: true, service: true, secret: true, configMap: true, claim: true });
  assert.is((await rpc('eth_getBlockByNumber', ['0x0', false])).hash, network.genesis_block_hash, 'block 0 is the genesis the seed put into the volume');
  const first = await height();
  await until('blocks on the cluster', async () => (await height()) >= first + 2, 20_000);
  const logs = await api('GET', `/nodes/${node.id}/logs?tail=20`);
  assert.is(logs.status, 200, logs.text);
  assert.ok(logs.json.lines.length > 0, logs.text);
});

t('the pod\'s log stream comes over the node log WebSocket', async () => {
  const ws = new WebSocket(`${server.api.replace('http', 'ws')}/nodes/${node.id}/logs`, { headers: adminAuth() });
  const received: string[] = [];
  ws.on('message', (m) => received.push(m.toString()));
  await new Promise<void>((res, rej) => (ws.once('open', () => res()), ws.once('error', rej)));
  try {
    // A call anvil logs (its own log line for each RPC method called).
    await rpc('eth_chainId');
    assert.ok(await until('a followed log line of the pod', async () => received.find((l) => /eth_chainId|Block Number|block/i.test(l)), 20_000));
  } finally {
    ws.close();
  }
});

t('the pod deleted: downtime, Kubernetes makes it again, recovery, the chain goes on, one node.started', async () => {
  const before = await height();
  await core.deleteNamespacedPod({ name: `${name(node.id)}-0`, namespace: ns(), gracePeriodSeconds: 0 });
  await until('node.downtime', async () => (await events(node.id)).find((e) => e.event === 'node.downtime'), 60_000);
  await until('node.recovery', async () => (await events(node.id)).find((e) => e.event === 'node.recovery'), 120_000);
  assert.is((await api('GET', `/nodes/${node.id}`)).json.status, 'running');
  const after = await until('the chain past where it was', async () => ((await heightOr(-1)) > before ? height() : null), 30_000);
  assert.ok(after > before);
  assert.is((await events(node.id)).filter((e) => e.event === 'node.started').length, 1, 'a pod Kubernetes makes again is not a second start');
});

t('restart rolls the pod: a new template revision and pod, replicas kept at 1, the chain goes on, one node.started more', async () => {
  const sts = () => apps.readNamespacedStatefulSet({ name: name(node.id), namespace: ns() });
  const before = await sts();
  const oldPod = (await core.readNamespacedPod({ name: `${name(node.id)}-0`, namespace: ns() })).metadata!.uid;
  const started = (await events(node.id)).filter((e) => e.event === 'node.started').length;
  const h = await height();
  const r = await api('POST', `/nodes/${node.id}/restart`);
  assert.ok(r.status < 300, r.text);
  // Replicas never go to 0 while the pod rolls (a stop and a start scale to 0 and back).
  const replicasSeen = new Set<number>();
  await until('the restart recorded', async () => {
    replicasSeen.add((await sts()).spec!.replicas!);
    const got = (await api('GET', `/nodes/${node.id}`)).json;
    assert.not.equal(got.status, 'error', JSON.stringify(got));
    return got.status === 'running' && (await events(node.id)).filter((e) => e.event === 'node.started').length > started;
  }, 180_000);
  assert.equal([...replicasSeen], [1], 'replicas stayed 1');
  const after = await sts();
  assert.ok(after.spec!.template.metadata?.annotations?.['lnm/restartedAt'], 'the template carries lnm/restartedAt');
  assert.is.not(after.status?.updateRevision, before.status?.updateRevision, 'a new pod template revision');
  const pod = await core.readNamespacedPod({ name: `${name(node.id)}-0`, namespace: ns() });
  assert.is.not(pod.metadata!.uid, oldPod, 'a new pod');
  await until('the chain past where it was', async () => (await heightOr(-1)) > h, 30_000);
  assert.ok((await height()) >= h, 'the chain kept its blocks');
  assert.is((await events(node.id)).filter((e) => e.event === 'node.started').length, started + 1, 'one node.started for the restart, no second');
});

t('stop scales to 0 and keeps the claim; start brings the chain back where it was', async () => {
  const stop = await api('POST', `/nodes/${node.id}/stop`);
  assert.ok(stop.status < 300, stop.text);
  await until('the node stopped', async () => (await api('GET', `/nodes/${node.id}`)).json.status === 'stopped', 60_000);
  const sts = await apps.readNamespacedStatefulSet({ name: name(node.id), namespace: ns() });
  assert.is(sts.spec?.replicas, 0);
  assert.is((await objects(node.id)).claim, true, 'the claim stays');
  const start = await api('POST', `/nodes/${node.id}/start`);
  assert.ok(start.status < 300, start.text);
  await until('the node running again', async () => (await api('GET', `/nodes/${node.id}`)).json.status === 'running', 120_000);
  const back = await height();
  assert.ok(back > 2, `the chain kept its blocks (at ${back})`);
});

t('delete without deleteVolume removes what was made on the cluster but keeps the claim, audited as kept', async () => {
  const id = node.id;
  const r = await api('DELETE', `/nodes/${id}`);
  assert.is(r.status, 204, r.text);
  keptClaims.push(`${name(id)}-data`);
  deletedId = id;
  await until('the node\'s objects but its claim gone', async () => {
    const o = await objects(id);
    return !o.statefulSet && !o.service && !o.secret && !o.configMap;
  }, 90_000);
  node = null;
  assert.is((await objects(id)).claim, true, 'the claim stays');
  assert.equal((await until('the delete audited', () => audited(id), 10_000)).details, { volume: 'kept' });
});

t('a claim of the new node\'s name already there (another deployment\'s, same prefix) fails its start and stays untouched', async () => {
  // The next node id; a deployment with the same prefix and namespace left its claim under that name.
  const next = deletedId + 1;
  const claim = `${name(next)}-data`;
  keptClaims.push(claim);
  const made = await core.createNamespacedPersistentVolumeClaim({ namespace: ns(), body: { metadata: { name: claim, labels: { 'lnm.node': `node-${next}`, 'lnm.prefix': PREFIX.replace(/-$/, ''), 'app.kubernetes.io/managed-by': 'ledger-network-manager' } }, spec: { accessModes: ['ReadWriteOnce'], storageClassName: c().storageClass, resources: { requests: { storage: '1Gi' } } } } });
  const r = await api('POST', '/nodes', { name: 'same-name', platform: 'EVM', nodeType: 'EVM_FULLNODE', networkId, config: { hostId, rpcHttpPort: PORT + 2, p2pPort: PORT + 3 } });
  assert.is(r.status, 201, r.text);
  assert.is(r.json.id, next);
  const failed = await until('its start failed', async () => {
    const got = (await api('GET', `/nodes/${next}`)).json;
    return got.status === 'error' ? got : null;
  }, 60_000);
  assert.match(failed.error, claim);
  assert.is((await core.readNamespacedPersistentVolumeClaim({ name: claim, namespace: ns() })).metadata!.uid, made.metadata!.uid, 'the claim untouched');
  assert.is((await objects(next)).statefulSet, false);
  assert.is((await api('DELETE', `/nodes/${next}`)).status, 204);
});

t('delete with deleteVolume=true removes the claim too, audited as deleted', async () => {
  node = await runningNode('k8s-second', PORT + 4);
  const id = node.id;
  assert.is((await objects(id)).claim, true);
  const r = await api('DELETE', `/nodes/${id}?deleteVolume=true`);
  assert.is(r.status, 204, r.text);
  await until('the node\'s objects gone, its claim too', async () => !Object.values(await objects(id)).some(Boolean), 90_000);
  node = null;
  assert.equal((await until('the delete audited', () => audited(id), 10_000)).details, { volume: 'deleted' });
  assert.is((await api('DELETE', `/hosts/${hostId}`)).status, 204);
});

t.run();
