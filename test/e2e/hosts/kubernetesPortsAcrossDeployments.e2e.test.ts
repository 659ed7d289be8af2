// Default NodePorts across deployments (issue 39, docs/kubernetes.md "Default ports across
// deployments"), against the shared cluster of test/k8s/cluster.sh up with the anvil and service
// images on its node (a counted skip, saying why, without them): two instances of the service,
// each with its own database and LNM_DOCKER_PREFIX, register the same cluster and namespace.
// - each places an anvil network there with default ports and starts it: both nodes run and
//   produce blocks, on different NodePorts (the second deployment's default was taken by the first);
// - the second one asks for the first one's NodePort explicitly: a 409 naming the port, no node
//   recorded, nothing of it on the cluster.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as k8s from '@kubernetes/client-node';
import { adminAuth, call, startServer, type TestServer } from '../../helpers/server.ts';
import { requires } from '../../helpers/requirements.ts';
import { adminKubeConfig, clusterImageMissing, k8sAnvilImage, serviceImage, serviceImageSkipReason, testCluster } from '../../helpers/kubernetes.ts';
import { until } from '../evm/evmLifecycle.ts';

const skipReason = (await serviceImageSkipReason()) ?? (await clusterImageMissing(k8sAnvilImage));
const t = requires(suite('kubernetes: default NodePorts of two deployments on one cluster'), 'kubernetes', skipReason);
const cluster = testCluster();
const c = () => cluster!.connection;
const RUN = `k8sports${process.pid % 100000}`;

interface Deployment { prefix: string; server: TestServer; hostId: number; networks: number[]; nodes: number[] }
const deployments: Deployment[] = [];
let apps: k8s.AppsV1Api;
let core: k8s.CoreV1Api;

const api = (d: Deployment, method: string, p: string, body?: unknown) => call(d.server.api, method, p, { headers: adminAuth(), body });
const rpc = async (url: string, method: string) => {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }), signal: AbortSignal.timeout(3000) });
  return ((await r.json()) as { result: any }).result;
};
/** The Services of deployment `d` on the cluster (its prefix label). */
const servicesOf = async (d: Deployment) => (await core.listNamespacedService({ namespace: c().namespace, labelSelector: `lnm.prefix=${d.prefix.replace(/-$/, '')}` })).items;

async function deployment(letter: string): Promise<Deployment> {
  const prefix = `${RUN}${letter}-`;
  const server = await startServer({ env: { KEY_ENCRYPTION_KEY: `k8s-ports-e2e-key-encryption-key-${letter}-0123456789`, LNM_HOST_CHECK_SECONDS: '2', LNM_DOCKER_PREFIX: prefix, LNM_NODE_ENGINE: 'process', LNM_IMAGE_SERVICE: serviceImage } });
  const d: Deployment = { prefix, server, hostId: 0, networks: [], nodes: [] };
  deployments.push(d);
  const h = await api(d, 'POST', '/hosts', { name: 'cluster', kind: 'kubernetes', url: c().server, externalIp: c().nodeAddress, kubernetes: { caCertificate: c().caCertificate, token: c().token, namespace: c().namespace, storageClass: c().storageClass } });
  assert.is(h.status, 201, h.text);
  d.hostId = h.json.id;
  return d;
}

/** An anvil network of `d` placed on the cluster with default ports, started: its node running there, blocks at its NodePort. */
async function placedAnvil(d: Deployment, name: string) {
  const n = await api(d, 'POST', '/networks/evm', { name, client: 'anvil', genesis: { consensus: 'QBFT', block_time: 1 }, placement: { hostId: d.hostId } });
  assert.is(n.status, 201, n.text);
  d.networks.push(n.json.id);
  const r = await api(d, 'POST', `/networks/${n.json.id}/start`);
  assert.is(r.status, 200, r.text);
  const node = r.json.nodes[0];
  d.nodes.push(node.id);
  assert.is(node.host_id, d.hostId);
  const got = await until(`node ${name} running`, async () => {
    const row = (await api(d, 'GET', `/nodes/${node.id}`)).json;
    return row.status === 'running' || row.status === 'error' ? row : null;
  }, 240_000);
  assert.is(got.status, 'running', JSON.stringify({ status: got.status, error: got.error }));
  const url = got.endpoints.rpc_http as string;
  assert.ok(url.startsWith(`http://${c().nodeAddress}:`), url);
  const h = await until('blocks', async () => {
    const b = Number(await rpc(url, 'eth_blockNumber').catch(() => -1));
    return b >= 1 ? b : null;
  }, 120_000);
  await until('more blocks', async () => Number(await rpc(url, 'eth_blockNumber').catch(() => -1)) >= h + 2 || null, 30_000);
  return { id: node.id as number, port: Number(new URL(url).port), url };
}

t.before(async () => {
  const kc = adminKubeConfig();
  apps = kc.makeApiClient(k8s.AppsV1Api);
  core = kc.makeApiClient(k8s.CoreV1Api);
  await deployment('a');
  await deployment('b');
});

t.after(async () => {
  for (const d of deployments) {
    for (const id of d.nodes) await api(d, 'DELETE', `/nodes/${id}?deleteVolume=true`).catch(() => undefined);
    for (const id of d.nodes) {
      const sts = `${d.prefix}node-${id}`;
      await until('the node\'s objects gone', async () => {
        const there = await apps.readNamespacedStatefulSet({ name: sts, namespace: c().namespace }).then(() => true, () => false);
        const claim = await core.readNamespacedPersistentVolumeClaim({ name: `${sts}-data`, namespace: c().namespace }).then(() => true, () => false);
        return !there && !claim;
      }, 90_000).catch(() => undefined);
    }
    for (const id of d.networks) await api(d, 'DELETE', `/networks/evm/${id}`).catch(() => undefined);
    await api(d, 'DELETE', `/hosts/${d.hostId}`).catch(() => undefined);
    await d.server.stop();
    // Whatever a failed run left of this deployment on the shared cluster.
    for (const s of await servicesOf(d).catch(() => [])) await core.deleteNamespacedService({ name: s.metadata!.name!, namespace: c().namespace }).catch(() => undefined);
  }
});

let first: { id: number; port: number };

t('two deployments place an anvil node each with default ports: both run and produce blocks, on different NodePorts', async () => {
  const [a, b] = deployments;
  first = await placedAnvil(a!, 'ports-a');
  const second = await placedAnvil(b!, 'ports-b');
  assert.is.not(second.port, first.port, 'the second deployment skipped the NodePort the first one holds');
  const nodePorts = async (d: Deployment, id: number) => (await core.readNamespacedService({ name: `${d.prefix}node-${id}`, namespace: c().namespace })).spec!.ports!.map((p) => p.nodePort);
  assert.ok((await nodePorts(a!, first.id)).includes(first.port));
  assert.ok((await nodePorts(b!, second.id)).includes(second.port));
});

t('a NodePort given explicitly that another deployment holds: 409 naming it, no node recorded, nothing made on the cluster', async () => {
  const b = deployments[1]!;
  const n = await api(b, 'POST', '/networks/evm', { name: 'ports-b-explicit', client: 'anvil', genesis: { consensus: 'QBFT', block_time: 1 } });
  assert.is(n.status, 201, n.text);
  b.networks.push(n.json.id);
  const nodesBefore = (await api(b, 'GET', '/nodes')).json.total;
  const servicesBefore = (await servicesOf(b)).map((s) => s.metadata!.name).sort();
  const r = await api(b, 'POST', '/nodes', { name: 'ports-b-taken', platform: 'EVM', nodeType: 'EVM_FULLNODE', networkId: n.json.id, config: { hostId: b.hostId, rpcHttpPort: first.port } });
  if (r.status < 300 && r.json?.id) b.nodes.push(r.json.id);
  assert.is(r.status, 409, r.text);
  // Taken on the cluster (by deployment a), not among this deployment's own records.
  assert.is(r.json.code, 'PORT_IN_USE', r.text);
  assert.ok(r.json.message.includes('cluster'), r.json.message);
  assert.ok(r.json.message.includes(String(first.port)), r.json.message);
  assert.ok(r.json.message.includes('config.rpcHttpPort'), r.json.message);
  assert.is((await api(b, 'GET', '/nodes')).json.total, nodesBefore, 'no node recorded');
  assert.equal((await servicesOf(b)).map((s) => s.metadata!.name).sort(), servicesBefore, 'nothing made on the cluster');
  const statefulSets = (await apps.listNamespacedStatefulSet({ namespace: c().namespace, labelSelector: `lnm.prefix=${b.prefix.replace(/-$/, '')}` })).items;
  assert.is(statefulSets.length, 1, 'only the running node of deployment b');
});

t.run();
