// A whole evm network placed on a Kubernetes cluster from its create (issue 39, "Placing nodes
// from POST /networks"), against the cluster of test/k8s/cluster.sh up with the anvil and
// service images on its node (a counted skip, saying why, without them), the service a child
// process:
// - POST /networks/evm with placement {hostId: <cluster>} records the placement on the network;
//   POST /networks/{id}/start makes its node on the cluster (host_id, a StatefulSet of this run's
//   prefix in the namespace, its pod Ready) and blocks are produced at its NodePort;
// - the node deleted, the next start makes a new one there again (the recorded placement);
// - the cluster at its capacity: another placed create is a 409 HOST_FULL and the quick start's
//   check for two nodes too, with nothing recorded.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as k8s from '@kubernetes/client-node';
import { adminAuth, call, startServer, type TestServer } from '../../helpers/server.ts';
import { requires } from '../../helpers/requirements.ts';
import { adminKubeConfig, clusterImageMissing, k8sAnvilImage, serviceImage, serviceImageSkipReason, testCluster } from '../../helpers/kubernetes.ts';
import { until } from '../evm/evmLifecycle.ts';

const skipReason = (await serviceImageSkipReason()) ?? (await clusterImageMissing(k8sAnvilImage));
const t = requires(suite('kubernetes: an evm network placed on a cluster from its create'), 'kubernetes', skipReason);
const cluster = testCluster();
const c = () => cluster!.connection;
// Unique per run: the cluster is shared with other engineers' runs.
const PREFIX = `k8splace${process.pid % 100000}-`;
let server: TestServer;
let hostId: number;
let networkId: number;
let apps: k8s.AppsV1Api;
let core: k8s.CoreV1Api;
const made: number[] = [];
const api = (method: string, p: string, body?: unknown) => call(server.api, method, p, { headers: adminAuth(), body });
const rpc = async (url: string, method: string, params: unknown[] = []) => {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), signal: AbortSignal.timeout(3000) });
  return ((await r.json()) as { result: any }).result;
};
const sts = (nodeId: number) => `${PREFIX}node-${nodeId}`;
const total = async (p: string) => (await api('GET', p)).json.total as number;

/** Starts the network; its one node is on the cluster, its pod Ready, and blocks come at its endpoint. */
async function startedOnCluster() {
  const r = await api('POST', `/networks/${networkId}/start`);
  assert.is(r.status, 200, r.text);
  assert.is(r.json.nodes.length, 1, r.text);
  const node = r.json.nodes[0];
  made.push(node.id);
  assert.is(node.host_id, hostId, 'the node is placed on the cluster');
  const set = await apps.readNamespacedStatefulSet({ name: sts(node.id), namespace: c().namespace });
  assert.is(set.spec!.replicas, 1);
  await until('its pod Ready', async () => {
    const pod = await core.readNamespacedPod({ name: `${sts(node.id)}-0`, namespace: c().namespace }).catch(() => null);
    return pod?.status?.conditions?.some((x) => x.type === 'Ready' && x.status === 'True');
  }, 180_000);
  const url = node.endpoints.rpc_http as string;
  assert.ok(url.startsWith(`http://${c().nodeAddress}:`), url);
  const first = await until('a block', async () => Number(await rpc(url, 'eth_blockNumber').catch(() => -1)) >= 1 || null, 120_000);
  assert.ok(first);
  const h = Number(await rpc(url, 'eth_blockNumber'));
  await until('more blocks', async () => Number(await rpc(url, 'eth_blockNumber').catch(() => -1)) >= h + 2 || null, 30_000);
  return node;
}

t.before(async () => {
  const kc = adminKubeConfig();
  apps = kc.makeApiClient(k8s.AppsV1Api);
  core = kc.makeApiClient(k8s.CoreV1Api);
  server = await startServer({ env: { KEY_ENCRYPTION_KEY: 'k8s-placement-e2e-key-encryption-key-01234', LNM_HOST_CHECK_SECONDS: '2', LNM_DOCKER_PREFIX: PREFIX, LNM_NODE_ENGINE: 'process', LNM_IMAGE_SERVICE: serviceImage } });
  const h = await api('POST', '/hosts', { name: 'cluster', kind: 'kubernetes', url: c().server, externalIp: c().nodeAddress, kubernetes: { caCertificate: c().caCertificate, token: c().token, namespace: c().namespace, storageClass: c().storageClass } });
  assert.is(h.status, 201, h.text);
  hostId = h.json.id;
});

t.after(async () => {
  for (const id of made) await api('DELETE', `/nodes/${id}?deleteVolume=true`).catch(() => undefined);
  for (const id of made) {
    await until('the node\'s objects gone', async () => {
      const there = await apps.readNamespacedStatefulSet({ name: sts(id), namespace: c().namespace }).then(() => true, () => false);
      const claim = await core.readNamespacedPersistentVolumeClaim({ name: `${sts(id)}-data`, namespace: c().namespace }).then(() => true, () => false);
      return !there && !claim;
    }, 90_000).catch(() => undefined);
  }
  if (networkId) await api('DELETE', `/networks/evm/${networkId}`).catch(() => undefined);
  if (hostId) await api('DELETE', `/hosts/${hostId}`).catch(() => undefined);
  await server?.stop();
});

t('POST /networks/evm with placement {hostId}: recorded on the network; its start runs the node on the cluster, blocks produced', async () => {
  const n = await api('POST', '/networks/evm', { name: 'placed-on-cluster', client: 'anvil', genesis: { consensus: 'QBFT', block_time: 1 }, placement: { hostId } });
  assert.is(n.status, 201, n.text);
  networkId = n.json.id;
  assert.equal(n.json.placement, { hostId });
  assert.is(n.json.engine, 'docker');
  await startedOnCluster();
});

t('the node deleted: the next start makes a new node on the cluster again (the recorded placement)', async () => {
  const gone = made[made.length - 1]!;
  const d = await api('DELETE', `/nodes/${gone}?deleteVolume=true`);
  assert.ok(d.status < 300, d.text);
  await until('the node\'s StatefulSet gone', async () => apps.readNamespacedStatefulSet({ name: sts(gone), namespace: c().namespace }).then(() => false, () => true), 90_000);
  const again = await startedOnCluster();
  assert.is.not(again.id, gone);
});

t('the cluster at its capacity: a placed create and the quick start check are a 409 HOST_FULL, nothing recorded', async () => {
  const cap = await api('PUT', `/hosts/${hostId}`, { capacity: { maxNodes: 2 } });
  assert.is(cap.status, 200, cap.text);
  const before = [await total('/networks/evm'), await total('/keys'), await total('/nodes'), await total('/organizations')];
  // One node is on it: room for one more, not for the quick start's two.
  const quick = await api('POST', '/networks/consortium/quickstart/check', {
    name: 'placed-quick', channelName: 'placedchannel', organizations: [{ name: 'Placed-Org1', mspId: 'PlacedMSP' }],
    nodes: [{ name: 'placed-orderer0', nodeType: 'CONSORTIUM_ORDERER' }, { name: 'placed-peer0', nodeType: 'CONSORTIUM_PEER' }], placement: { hostId },
  });
  assert.is(quick.status, 409, quick.text);
  assert.is(quick.json.code, 'HOST_FULL', quick.text);
  assert.is((await api('PUT', `/hosts/${hostId}`, { capacity: { maxNodes: 1 } })).status, 200);
  const full = await api('POST', '/networks/evm', { name: 'placed-full', client: 'anvil', genesis: { consensus: 'QBFT', block_time: 1 }, placement: { hostId } });
  assert.is(full.status, 409, full.text);
  assert.is(full.json.code, 'HOST_FULL', full.text);
  assert.equal([await total('/networks/evm'), await total('/keys'), await total('/nodes'), await total('/organizations')], before);
});

t.run();
