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
import { deleteNodePod } from '../../helpers/kubernetes.ts';
import { GETH_IMAGE, gethOnClusterSuite, height, heightOr, oneChainAt, peerCount, startGethOnCluster, type GethOnCluster } from './gethOnCluster.ts';
import { until } from '../evm/evmLifecycle.ts';

const t = await gethOnClusterSuite(suite('kubernetes: a geth network placed on a cluster from its create'));
// Unique per run: the cluster is shared with other engineers' runs.
const PREFIX = `k8sgethp${process.pid % 100000}-`;
let g: GethOnCluster;
let hostId: number;
let networkId: number;
let nodes: any[] = [];
const c = () => g.connection;
const api = (method: string, p: string, body?: unknown) => g.api(method, p, body);
/** The Service standing for another deployment's, holding the first default NodePorts (when this run made it). */
const HOLDER = `${PREFIX}other-deployment`;
const HELD = [30303, 31545];
let holderMade = false;

t.before(async () => {
  g = await startGethOnCluster(PREFIX, 'k8s-geth-placement-e2e-key-encryption-key-01');
  hostId = g.hostId;
  try {
    await g.core.createNamespacedService({ namespace: c().namespace, body: { metadata: { name: HOLDER }, spec: { type: 'NodePort', selector: { app: HOLDER }, ports: HELD.map((p) => ({ name: `p${p}`, port: p, nodePort: p, protocol: 'TCP' })) } } });
    holderMade = true;
  } catch (err) {
    // Held already (another deployment sharing the cluster): the case this test makes.
    if ((err as { code?: number }).code !== 422) throw err;
  }
});

t.after(async () => {
  await g?.stop(nodes, async () => {
    if (holderMade) await g.core.deleteNamespacedService({ name: HOLDER, namespace: c().namespace }).catch(() => undefined);
    if (networkId) await api('DELETE', `/networks/evm/${networkId}`).catch(() => undefined);
  });
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
  nodes = await Promise.all(nodes.map((x) => until(`${x.name} running on the cluster`, () => g.running(x.id), 300_000)));
  for (const x of nodes) {
    assert.is(x.host_id, hostId);
    const used = [Number(new URL(x.endpoints.rpc_http).port), ...Object.values(x.config ?? {})];
    for (const p of HELD) assert.ok(!used.includes(p), `${x.name} does not take ${p}, held by another Service of the cluster`);
    assert.ok(String(x.endpoints.rpc_http).startsWith(`http://${c().nodeAddress}:`), x.endpoints.rpc_http);
    const pod = await g.core.readNamespacedPod({ name: `${g.statefulSet(x)}-0`, namespace: c().namespace });
    assert.is(pod.spec!.containers[0]!.image, GETH_IMAGE);
  }
  for (const x of nodes) await until(`${x.name} with two peers`, async () => (await peerCount(x)) >= 2, 120_000);
  const h = await until('blocks sealed', async () => {
    const b = await heightOr(nodes[0], -1);
    return b >= 3 ? b : null;
  }, 120_000);
  await oneChainAt(nodes, h);
});

t('one sealer\'s pod deleted: downtime, Kubernetes makes it again, recovery, the chain goes on with it, one node.started', async () => {
  const victim = nodes[1];
  const before = await height(nodes[0]);
  await deleteNodePod(g.statefulSet(victim), c().namespace, { gracePeriodSeconds: 0 });
  await until('node.downtime', async () => (await g.events(victim.id)).find((e) => e.event === 'node.downtime'), 60_000);
  await until('node.recovery', async () => (await g.events(victim.id)).find((e) => e.event === 'node.recovery'), 180_000);
  await until('the chain past where it was', async () => (await heightOr(nodes[0], -1)) > before + 2, 90_000);
  await until(`${victim.name} peered again`, async () => (await peerCount(victim)) >= 1, 120_000);
  await oneChainAt(nodes, (await height(nodes[0])) + 2);
  assert.is((await g.events(victim.id)).filter((e) => e.event === 'node.started').length, 1, 'a pod Kubernetes makes again is not a second start');
});

t.run();
