// A geth Clique network placed on a Kubernetes cluster from its create (issue 39; docs/kubernetes.md
// "A whole network"), against the shared cluster of test/k8s/cluster.sh up with lnm-geth:local on
// its node and geth here (the genesis hash is computed with it; LNM_GETH_BIN), a counted skip saying
// which is missing; the service a child process:
// - the cluster is shared: another deployment's Service holds the first default NodePorts (P2P
//   30303, RPC 31545; the test makes one of its own unless another run already holds them);
// - POST /networks/evm of a geth Clique network of three validators with placement {hostId} records
//   the placement; POST /networks/{id}/start makes its three sealers there with default NodePorts:
//   pods of the geth image on the cluster, each sealer peered with the two others, blocks sealed, one
//   block hash on all three;
// - one sealer's pod deleted with no grace: node.downtime, Kubernetes makes it again, node.recovery,
//   the chain goes on and the sealer is back on it, no second node.started.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as k8s from '@kubernetes/client-node';
import { adminAuth, call, startServer, type TestServer } from '../../helpers/server.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { adminKubeConfig, clusterImageMissing, deleteNodePod, kubernetesSkipReason, testCluster } from '../../helpers/kubernetes.ts';
import { gethMissing, gethServiceEnv } from '../../helpers/programs.ts';
import { until } from '../evm/evmLifecycle.ts';

const GETH_IMAGE = process.env.LNM_IMAGE_GETH ?? 'lnm-geth:local';
const clusterMissing = await kubernetesSkipReason();
const t = requiresAll(
  suite('kubernetes: a geth network placed on a cluster from its create'),
  ['kubernetes', clusterMissing],
  ['geth', gethMissing],
  ['geth-image', clusterMissing ? undefined : await clusterImageMissing(GETH_IMAGE)],
);
const cluster = testCluster();
const c = () => cluster!.connection;
// Unique per run: the cluster is shared with other engineers' runs.
const PREFIX = `k8sgethp${process.pid % 100000}-`;
let server: TestServer;
let hostId: number;
let networkId: number;
let nodes: any[] = [];
let core: k8s.CoreV1Api;
let apps: k8s.AppsV1Api;
/** The Service standing for another deployment's, holding the first default NodePorts (when this run made it). */
const HOLDER = `${PREFIX}other-deployment`;
const HELD = [30303, 31545];
let holderMade = false;
const api = (method: string, p: string, body?: unknown) => call(server.api, method, p, { headers: adminAuth(), body });
const events = async (nodeId: number) => (await api('GET', `/nodes/${nodeId}/events?limit=500`)).json.items as Array<{ event: string }>;
async function rpc<T = any>(n: any, method: string, params: unknown[] = []): Promise<T> {
  const r = await fetch(n.endpoints.rpc_http, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), signal: AbortSignal.timeout(3000) });
  const body = (await r.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}
const hex = (n: number) => '0x' + n.toString(16);
const height = async (n: any) => Number(await rpc<string>(n, 'eth_blockNumber'));
const heightOr = (n: any, fallback: number) => height(n).catch(() => fallback);
const hashAt = async (n: any, block: number) => (await rpc<{ hash: string }>(n, 'eth_getBlockByNumber', [hex(block), false])).hash;
const sts = (n: any) => `${PREFIX}node-${n.id}`;
const running = async (id: number) => {
  const r = (await api('GET', `/nodes/${id}`)).json;
  if (r?.status === 'error') throw new Error(`node ${id} failed: ${r.error}`);
  return r?.status === 'running' ? r : null;
};

async function oneChainAt(block: number) {
  await until(`every sealer at block ${block}`, async () => (await Promise.all(nodes.map((n) => heightOr(n, -1)))).every((h) => h >= block), 120_000);
  assert.is(new Set(await Promise.all(nodes.map((n) => hashAt(n, block)))).size, 1, `one block hash at ${block} on all three`);
}

t.before(async () => {
  const kc = adminKubeConfig();
  core = kc.makeApiClient(k8s.CoreV1Api);
  apps = kc.makeApiClient(k8s.AppsV1Api);
  server = await startServer({ env: { ...gethServiceEnv(), KEY_ENCRYPTION_KEY: 'k8s-geth-placement-e2e-key-encryption-key-01', LNM_HOST_CHECK_SECONDS: '2', LNM_DOCKER_PREFIX: PREFIX, LNM_NODE_ENGINE: 'process', LNM_IMAGE_GETH: GETH_IMAGE } });
  assert.is((await api('POST', '/settings', { nodeHealthCheckIntervalSeconds: 1, nodeDowntimeThreshold: 2 })).status, 200);
  const h = await api('POST', '/hosts', { name: 'cluster', kind: 'kubernetes', url: c().server, externalIp: c().nodeAddress, kubernetes: { caCertificate: c().caCertificate, token: c().token, namespace: c().namespace, storageClass: c().storageClass } });
  assert.is(h.status, 201, h.text);
  hostId = h.json.id;
  try {
    await core.createNamespacedService({ namespace: c().namespace, body: { metadata: { name: HOLDER }, spec: { type: 'NodePort', selector: { app: HOLDER }, ports: HELD.map((p) => ({ name: `p${p}`, port: p, nodePort: p, protocol: 'TCP' })) } } });
    holderMade = true;
  } catch (err) {
    // Held already (another deployment sharing the cluster): the case this test makes.
    if ((err as { code?: number }).code !== 422) throw err;
  }
});

t.after(async () => {
  for (const n of nodes) await api('DELETE', `/nodes/${n.id}?deleteVolume=true`).catch(() => undefined);
  for (const n of nodes) {
    await until('the node\'s objects gone', async () => {
      const set = await apps.readNamespacedStatefulSet({ name: sts(n), namespace: c().namespace }).then(() => true, () => false);
      const claim = await core.readNamespacedPersistentVolumeClaim({ name: `${sts(n)}-data`, namespace: c().namespace }).then(() => true, () => false);
      return !set && !claim;
    }, 90_000).catch(() => undefined);
  }
  if (holderMade) await core.deleteNamespacedService({ name: HOLDER, namespace: c().namespace }).catch(() => undefined);
  if (networkId) await api('DELETE', `/networks/evm/${networkId}`).catch(() => undefined);
  if (hostId) await api('DELETE', `/hosts/${hostId}`).catch(() => undefined);
  await server?.stop();
});

t('POST /networks/evm (geth, Clique, 3 validators) with placement {hostId}, started: three sealers on the cluster, peered, sealing one chain', async () => {
  const n = await api('POST', '/networks/evm', { name: 'geth-placed', client: 'geth', validatorCount: 3, genesis: { chain_id: 43831, consensus: 'CLIQUE', block_time: 1 }, placement: { hostId } });
  assert.is(n.status, 201, n.text);
  networkId = n.json.id;
  assert.equal(n.json.placement, { hostId });
  assert.is(n.json.client, 'geth');
  const r = await api('POST', `/networks/${networkId}/start`);
  assert.is(r.status, 200, r.text);
  assert.is(r.json.nodes.length, 3, r.text);
  nodes = r.json.nodes;
  nodes = await Promise.all(nodes.map((x) => until(`${x.name} running on the cluster`, () => running(x.id), 300_000)));
  for (const x of nodes) {
    assert.is(x.host_id, hostId);
    const used = [Number(new URL(x.endpoints.rpc_http).port), ...Object.values(x.config ?? {})];
    for (const p of HELD) assert.ok(!used.includes(p), `${x.name} does not take ${p}, held by another Service of the cluster`);
    assert.ok(String(x.endpoints.rpc_http).startsWith(`http://${c().nodeAddress}:`), x.endpoints.rpc_http);
    const pod = await core.readNamespacedPod({ name: `${sts(x)}-0`, namespace: c().namespace });
    assert.is(pod.spec!.containers[0]!.image, GETH_IMAGE);
  }
  for (const x of nodes) await until(`${x.name} with two peers`, async () => Number(await rpc<string>(x, 'net_peerCount').catch(() => '0')) >= 2, 120_000);
  const h = await until('blocks sealed', async () => {
    const b = await heightOr(nodes[0], -1);
    return b >= 3 ? b : null;
  }, 120_000);
  await oneChainAt(h);
});

t('one sealer\'s pod deleted: downtime, Kubernetes makes it again, recovery, the chain goes on with it, one node.started', async () => {
  const victim = nodes[1];
  const before = await height(nodes[0]);
  await deleteNodePod(sts(victim), c().namespace, { gracePeriodSeconds: 0 });
  await until('node.downtime', async () => (await events(victim.id)).find((e) => e.event === 'node.downtime'), 60_000);
  await until('node.recovery', async () => (await events(victim.id)).find((e) => e.event === 'node.recovery'), 180_000);
  await until('the chain past where it was', async () => (await heightOr(nodes[0], -1)) > before + 2, 90_000);
  await until(`${victim.name} peered again`, async () => Number(await rpc<string>(victim, 'net_peerCount').catch(() => '0')) >= 1, 120_000);
  await oneChainAt((await height(nodes[0])) + 2);
  assert.is((await events(victim.id)).filter((e) => e.event === 'node.started').length, 1, 'a pod Kubernetes makes again is not a second start');
});

t.run();
