// A geth Clique network whose three sealers run on a Kubernetes cluster (issue 39 item 3, geth),
// against the cluster of test/k8s/cluster.sh up with lnm-geth:local on its node and geth here
// (the network's genesis hash is computed with it), a counted skip saying which is missing; the
// service a child process. Each sealer is a StatefulSet of the lnm-geth:local image (`geth init` on
// its volume, then geth), its P2P, RPC, WS and metrics ports NodePorts at the cluster's node
// address, which is also its enode address: the pods reach each other there (no cluster DNS).
// - the three peer, the chain is sealed by each, the same block hash on all three;
// - a sealer's pod deleted: node.downtime, Kubernetes makes it again, node.recovery, it catches up
//   and the chain goes on, no second node.started;
// - a sealer stopped (scale 0) and started (scale 1): it comes back with its chain and catches up;
// - mixed engines: a second network with one sealer on the cluster and two under the process
//   engine here, given config.externalIp = the cluster's node address (the test cluster's bridge
//   is on this machine, so pods reach this machine there): the three peer and share one chain.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as k8s from '@kubernetes/client-node';
import { adminAuth, call, startServer, type TestServer } from '../../helpers/server.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { adminKubeConfig, clusterImageMissing, kubernetesSkipReason, testCluster } from '../../helpers/kubernetes.ts';
import { gethMissing, gethServiceEnv } from '../../helpers/programs.ts';
import { until } from '../evm/evmLifecycle.ts';

const GETH_IMAGE = process.env.LNM_IMAGE_GETH ?? 'lnm-geth:local';
const clusterMissing = await kubernetesSkipReason();
const t = requiresAll(
  suite('kubernetes: a geth Clique network on a cluster'),
  ['kubernetes', clusterMissing],
  ['geth', gethMissing],
  ['geth-image', clusterMissing ? undefined : await clusterImageMissing(GETH_IMAGE)],
);
const cluster = testCluster();
const c = () => cluster!.connection;
// Unique per run: the cluster and its NodePorts are shared with other engineers' runs.
const PREFIX = `k8sevmg${process.pid % 100000}-`;
const BASE = 30000 + ((process.pid * 7 + 600) % 2300);
let server: TestServer;
let hostId: number;
let networkId: number;
let nodes: any[] = [];
let core: k8s.CoreV1Api;
let apps: k8s.AppsV1Api;
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
const podName = (n: any) => `${PREFIX}node-${n.id}-0`;
const running = async (id: number) => {
  const r = (await api('GET', `/nodes/${id}`)).json;
  if (r?.status !== 'running') throw new Error(`node ${id} is ${r?.status}${r?.error ? `: ${r.error}` : ''}`);
  return r;
};

/** Every node at or past `block`, with one hash there: one chain. */
async function oneChainAt(block: number) {
  await until(`every node at block ${block}`, async () => (await Promise.all(nodes.map((n) => heightOr(n, -1)))).every((h) => h >= block), 120_000);
  assert.is(new Set(await Promise.all(nodes.map((n) => hashAt(n, block)))).size, 1, `one block hash at ${block} on all three`);
}

t.before(async () => {
  const kc = adminKubeConfig();
  core = kc.makeApiClient(k8s.CoreV1Api);
  apps = kc.makeApiClient(k8s.AppsV1Api);
  server = await startServer({ env: { ...gethServiceEnv(), KEY_ENCRYPTION_KEY: 'k8s-geth-e2e-key-encryption-key-0123456789ab', LNM_HOST_CHECK_SECONDS: '2', LNM_DOCKER_PREFIX: PREFIX, LNM_NODE_ENGINE: 'process', LNM_IMAGE_GETH: GETH_IMAGE } });
  assert.is((await api('POST', '/settings', { nodeHealthCheckIntervalSeconds: 1, nodeDowntimeThreshold: 2 })).status, 200);
  const h = await api('POST', '/hosts', { name: 'cluster', kind: 'kubernetes', url: c().server, externalIp: c().nodeAddress, kubernetes: { caCertificate: c().caCertificate, token: c().token, namespace: c().namespace, storageClass: c().storageClass } });
  assert.is(h.status, 201, h.text);
  hostId = h.json.id;
  const n = await api('POST', '/networks', { name: 'clique-on-cluster', type: 'evm', validatorCount: 3, genesis: { chain_id: 43821, consensus: 'CLIQUE', block_time: 1 } });
  assert.is(n.status, 201, n.text);
  assert.is(n.json.client, 'geth', 'auto picks geth for Clique');
  networkId = n.json.id;
});

t.after(async () => {
  for (const n of nodes) await api('DELETE', `/nodes/${n.id}?deleteVolume=true`).catch(() => undefined);
  for (const n of nodes) {
    await until('the node\'s objects gone', async () => {
      const sts = await apps.readNamespacedStatefulSet({ name: `${PREFIX}node-${n.id}`, namespace: c().namespace }).then(() => true, () => false);
      const claim = await core.readNamespacedPersistentVolumeClaim({ name: `${PREFIX}node-${n.id}-data`, namespace: c().namespace }).then(() => true, () => false);
      return !sts && !claim;
    }, 90_000).catch(() => undefined);
  }
  if (hostId) await api('DELETE', `/hosts/${hostId}`).catch(() => undefined);
  await server?.stop();
});

t('three sealers on the cluster peer through their NodePorts, each seals, one chain on all three', async () => {
  for (let i = 0; i < 3; i++) {
    const p = BASE + 4 * i;
    const r = await api('POST', '/nodes', { name: `sealer-${i}`, platform: 'EVM', nodeType: 'EVM_FULLNODE', networkId, config: { hostId, p2pPort: p, rpcHttpPort: p + 1, rpcWsPort: p + 2, metricsPort: p + 3 } });
    assert.is(r.status, 201, r.text);
    assert.is(r.json.role, 'validator');
    nodes.push(r.json);
  }
  nodes = await Promise.all(nodes.map((n) => until(`${n.name} running on the cluster`, () => running(n.id), 240_000)));
  for (const n of nodes) {
    assert.is(n.host_id, hostId);
    assert.match(n.enode, new RegExp(`@${c().nodeAddress.replace(/\./g, '\\.')}:${n.config?.p2pPort ?? '\\d+'}`), 'the enode names the cluster\'s node address');
    const pod = await core.readNamespacedPod({ name: podName(n), namespace: c().namespace });
    assert.is(pod.spec!.containers[0]!.image, GETH_IMAGE);
  }
  for (const n of nodes) await until(`${n.name} with two peers`, async () => Number(await rpc<string>(n, 'net_peerCount')) >= 2, 120_000);
  const signers = new Set(nodes.map((n) => String(n.validator_address).toLowerCase()));
  const sealed = new Set<string>();
  let scanned = 0;
  await until('blocks sealed by each of the three', async () => {
    const top = await height(nodes[0]);
    for (; scanned < top; scanned++) sealed.add((await rpc<string>(nodes[0], 'clique_getSigner', [hex(scanned + 1)])).toLowerCase());
    return [...signers].every((s) => sealed.has(s));
  }, 120_000);
  await oneChainAt(Math.max(2, (await height(nodes[0])) - 1));
});

t('a sealer\'s pod deleted: downtime, Kubernetes makes it again, recovery, it catches up, one node.started', async () => {
  const victim = nodes[1];
  const before = await height(nodes[0]);
  await core.deleteNamespacedPod({ name: podName(victim), namespace: c().namespace, gracePeriodSeconds: 0 });
  await until('node.downtime', async () => (await events(victim.id)).find((e) => e.event === 'node.downtime'), 60_000);
  await until('node.recovery', async () => (await events(victim.id)).find((e) => e.event === 'node.recovery'), 180_000);
  await until('the chain past where it was on the others', async () => (await heightOr(nodes[0], -1)) > before + 2, 60_000);
  await until(`${victim.name} peered again`, async () => Number(await rpc<string>(victim, 'net_peerCount')) >= 1, 120_000);
  await oneChainAt((await height(nodes[0])) + 1);
  assert.is((await events(victim.id)).filter((e) => e.event === 'node.started').length, 1, 'a pod Kubernetes makes again is not a second start');
});

t('a sealer stopped (scale 0) and started (scale 1) keeps its chain and catches up', async () => {
  const victim = nodes[2];
  const had = await height(victim);
  assert.ok((await api('POST', `/nodes/${victim.id}/stop`)).status < 300);
  await until('stopped', async () => (await api('GET', `/nodes/${victim.id}`)).json.status === 'stopped', 90_000);
  assert.is((await apps.readNamespacedStatefulSet({ name: `${PREFIX}node-${victim.id}`, namespace: c().namespace })).spec!.replicas, 0);
  const others = await height(nodes[0]);
  await until('the other two go on sealing', async () => (await heightOr(nodes[0], -1)) > others + 2, 60_000);
  assert.ok((await api('POST', `/nodes/${victim.id}/start`)).status < 300);
  await until(`${victim.name} running again`, () => running(victim.id), 180_000);
  assert.ok((await height(victim)) >= had - 1, 'its chain kept in its volume');
  await oneChainAt((await height(nodes[0])) + 1);
});

t('mixed: one sealer on the cluster and two on this machine peer and share one chain', async () => {
  const n = await api('POST', '/networks', { name: 'clique-mixed', type: 'evm', validatorCount: 3, genesis: { chain_id: 43822, consensus: 'CLIQUE', block_time: 1 } });
  assert.is(n.status, 201, n.text);
  const mixed: any[] = [];
  const p = BASE + 12;
  const onCluster = await api('POST', '/nodes', { name: 'mixed-cluster', platform: 'EVM', nodeType: 'EVM_FULLNODE', networkId: n.json.id, config: { hostId, p2pPort: p, rpcHttpPort: p + 1, rpcWsPort: p + 2, metricsPort: p + 3 } });
  assert.is(onCluster.status, 201, onCluster.text);
  mixed.push(onCluster.json);
  for (let i = 0; i < 2; i++) {
    // Outside the NodePort range: kube-proxy holds the cluster's NodePorts on this machine.
    const q = 20000 + ((process.pid * 11) % 5000) + 4 * i;
    const r = await api('POST', '/nodes', { name: `mixed-here-${i}`, platform: 'EVM', nodeType: 'EVM_FULLNODE', networkId: n.json.id, config: { externalIp: c().nodeAddress, p2pPort: q, rpcHttpPort: q + 1, rpcWsPort: q + 2, metricsPort: q + 3 } });
    assert.is(r.status, 201, r.text);
    mixed.push(r.json);
  }
  nodes.push(...mixed);
  const up = await Promise.all(mixed.map((m) => until(`${m.name} running`, () => running(m.id), 240_000)));
  assert.is(up[0].host_id, hostId);
  assert.is(up[1].host_id ?? null, null);
  for (const m of up) await until(`${m.name} with two peers`, async () => Number(await rpc<string>(m, 'net_peerCount')) >= 2, 120_000);
  const top = (await height(up[0])) + 2;
  await until(`every node at block ${top}`, async () => (await Promise.all(up.map((m) => heightOr(m, -1)))).every((h) => h >= top), 120_000);
  assert.is(new Set(await Promise.all(up.map((m) => hashAt(m, top)))).size, 1, `one block hash at ${top} on the three`);
});

t.run();
