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
import { GETH_IMAGE, gethOnClusterSuite, height, heightOr, hex, oneChainAt, peerCount, rpc, startGethOnCluster, type GethOnCluster } from './gethOnCluster.ts';
import { until } from '../evm/evmLifecycle.ts';

const t = await gethOnClusterSuite(suite('kubernetes: a geth Clique network on a cluster'));
// Unique per run: the cluster and its NodePorts are shared with other engineers' runs.
const PREFIX = `k8sevmg${process.pid % 100000}-`;
const BASE = 30000 + ((process.pid * 7 + 600) % 2300);
let g: GethOnCluster;
let hostId: number;
let networkId: number;
let nodes: any[] = [];
const c = () => g.connection;
const api = (method: string, p: string, body?: unknown) => g.api(method, p, body);
const podName = (n: any) => `${g.statefulSet(n)}-0`;

t.before(async () => {
  g = await startGethOnCluster(PREFIX, 'k8s-geth-e2e-key-encryption-key-0123456789ab');
  hostId = g.hostId;
  const n = await api('POST', '/networks', { name: 'clique-on-cluster', type: 'evm', validatorCount: 3, genesis: { chain_id: 43821, consensus: 'CLIQUE', block_time: 1 } });
  assert.is(n.status, 201, n.text);
  assert.is(n.json.client, 'geth', 'auto picks geth for Clique');
  networkId = n.json.id;
});

t.after(async () => {
  await g?.stop(nodes);
});

t('three sealers on the cluster peer through their NodePorts, each seals, one chain on all three', async () => {
  for (let i = 0; i < 3; i++) {
    const p = BASE + 4 * i;
    const r = await api('POST', '/nodes', { name: `sealer-${i}`, platform: 'EVM', nodeType: 'EVM_FULLNODE', networkId, config: { hostId, p2pPort: p, rpcHttpPort: p + 1, rpcWsPort: p + 2, metricsPort: p + 3 } });
    assert.is(r.status, 201, r.text);
    assert.is(r.json.role, 'validator');
    nodes.push(r.json);
  }
  nodes = await Promise.all(nodes.map((n) => until(`${n.name} running on the cluster`, () => g.running(n.id), 240_000)));
  for (const n of nodes) {
    assert.is(n.host_id, hostId);
    assert.match(n.enode, new RegExp(`@${c().nodeAddress.replace(/\./g, '\\.')}:${n.config?.p2pPort ?? '\\d+'}`), 'the enode names the cluster\'s node address');
    const pod = await g.core.readNamespacedPod({ name: podName(n), namespace: c().namespace });
    assert.is(pod.spec!.containers[0]!.image, GETH_IMAGE);
  }
  for (const n of nodes) await until(`${n.name} with two peers`, async () => (await peerCount(n)) >= 2, 120_000);
  const signers = new Set(nodes.map((n) => String(n.validator_address).toLowerCase()));
  const sealed = new Set<string>();
  let scanned = 0;
  await until('blocks sealed by each of the three', async () => {
    const top = await height(nodes[0]);
    for (; scanned < top; scanned++) sealed.add((await rpc<string>(nodes[0], 'clique_getSigner', [hex(scanned + 1)])).toLowerCase());
    return [...signers].every((s) => sealed.has(s));
  }, 120_000);
  await oneChainAt(nodes, Math.max(2, (await height(nodes[0])) - 1));
});

t('a sealer\'s pod deleted: downtime, Kubernetes makes it again, recovery, it catches up, one node.started', async () => {
  const victim = nodes[1];
  const before = await height(nodes[0]);
  await g.core.deleteNamespacedPod({ name: podName(victim), namespace: c().namespace, gracePeriodSeconds: 0 });
  await until('node.downtime', async () => (await g.events(victim.id)).find((e) => e.event === 'node.downtime'), 60_000);
  await until('node.recovery', async () => (await g.events(victim.id)).find((e) => e.event === 'node.recovery'), 180_000);
  await until('the chain past where it was on the others', async () => (await heightOr(nodes[0], -1)) > before + 2, 60_000);
  await until(`${victim.name} peered again`, async () => (await peerCount(victim)) >= 1, 120_000);
  await oneChainAt(nodes, (await height(nodes[0])) + 1);
  assert.is((await g.events(victim.id)).filter((e) => e.event === 'node.started').length, 1, 'a pod Kubernetes makes again is not a second start');
});

t('a sealer stopped (scale 0) and started (scale 1) keeps its chain and catches up', async () => {
  const victim = nodes[2];
  const had = await height(victim);
  assert.ok((await api('POST', `/nodes/${victim.id}/stop`)).status < 300);
  await until('stopped', async () => (await api('GET', `/nodes/${victim.id}`)).json.status === 'stopped', 90_000);
  assert.is((await g.apps.readNamespacedStatefulSet({ name: g.statefulSet(victim), namespace: c().namespace })).spec!.replicas, 0);
  const others = await height(nodes[0]);
  await until('the other two go on sealing', async () => (await heightOr(nodes[0], -1)) > others + 2, 60_000);
  assert.ok((await api('POST', `/nodes/${victim.id}/start`)).status < 300);
  await until(`${victim.name} running again`, () => g.running(victim.id), 180_000);
  assert.ok((await height(victim)) >= had - 1, 'its chain kept in its volume');
  await oneChainAt(nodes, (await height(nodes[0])) + 1);
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
  const up = await Promise.all(mixed.map((m) => until(`${m.name} running`, () => g.running(m.id), 240_000)));
  assert.is(up[0].host_id, hostId);
  assert.is(up[1].host_id ?? null, null);
  for (const m of up) await until(`${m.name} with two peers`, async () => (await peerCount(m)) >= 2, 120_000);
  const top = (await height(up[0])) + 2;
  await oneChainAt(up, top);
});

t.run();
