// A besu QBFT network placed on a Kubernetes cluster (issue 39 item 3), against the shared cluster of
// test/k8s/cluster.sh up; the service a child process. No besu image can be pulled here, so its nodes
// run the besu stand-in's image (test/standins/besuStandinImage.ts, loaded into the cluster's
// containerd: `test/k8s/cluster.sh import lnm-besu-standin:local`, a counted skip saying so when it
// is not there): it checks besu's options and proves its peers' node keys in a handshake of its own,
// but produces no blocks and speaks no devp2p. What this proves is the cluster's wiring for besu:
// - POST /networks/evm (besu, QBFT, two validators) with placement {hostId} of the cluster, started:
//   each validator a StatefulSet of the besu image on the cluster, its RPC and enode at the
//   cluster's node address on NodePorts;
// - the two validators find each other through those addresses (each lists the other's node key
//   among its peers), and the chain reports both genesis validators;
// - deleted with deleteVolume: its objects gone.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as k8s from '@kubernetes/client-node';
import { adminAuth, call, startServer, type TestServer } from '../../helpers/server.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { dockerSkipReason } from '../../helpers/dockerAvailability.ts';
import { adminKubeConfig, clusterImageMissing, kubernetesSkipReason, testCluster } from '../../helpers/kubernetes.ts';
import { besuStandinImage as BESU_STANDIN_IMAGE, ensureBesuStandinImage } from '../../standins/besuStandinImage.ts';
import { until } from '../evm/evmLifecycle.ts';

const clusterMissing = await kubernetesSkipReason();
const t = requiresAll(
  suite('kubernetes: a besu network placed on a cluster (the besu stand-in image)'),
  ['kubernetes', clusterMissing],
  ['docker', await dockerSkipReason()],
  ['besu-standin-image', clusterMissing ? undefined : await clusterImageMissing(BESU_STANDIN_IMAGE)],
);
// Unique per run: the cluster is shared with other engineers' runs.
const PREFIX = `k8sbesu${process.pid % 100000}-`;
let server: TestServer;
let hostId: number;
let networkId: number;
let nodes: any[] = [];
const api = (method: string, p: string, body?: unknown) => call(server.api, method, p, { headers: adminAuth(), body });
const rpc = async (url: string, method: string, params: unknown[] = []) => {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), signal: AbortSignal.timeout(3000) });
  return ((await r.json()) as { result: any }).result;
};
const statefulSet = (n: { id: number }) => `${PREFIX}node-${n.id}`;

t.before(async () => {
  const image = await ensureBesuStandinImage();
  const c = testCluster()!.connection;
  server = await startServer({ env: { KEY_ENCRYPTION_KEY: 'k8s-besu-e2e-key-encryption-key-0123456789', LNM_HOST_CHECK_SECONDS: '2', LNM_DOCKER_PREFIX: PREFIX, LNM_NODE_ENGINE: 'docker', LNM_IMAGE_BESU: image } });
  const h = await api('POST', '/hosts', { name: 'cluster', kind: 'kubernetes', url: c.server, externalIp: c.nodeAddress, kubernetes: { caCertificate: c.caCertificate, token: c.token, namespace: c.namespace, storageClass: c.storageClass } });
  assert.is(h.status, 201, h.text);
  hostId = h.json.id;
});

t.after(async () => {
  if (!server) return;
  const c = testCluster()!.connection;
  const kc = adminKubeConfig();
  const apps = kc.makeApiClient(k8s.AppsV1Api);
  for (const n of nodes) await api('DELETE', `/nodes/${n.id}?deleteVolume=true`).catch(() => undefined);
  for (const n of nodes) await until('the node\'s StatefulSet gone', async () => !(await apps.readNamespacedStatefulSet({ name: statefulSet(n), namespace: c.namespace }).then(() => true, () => false)), 90_000).catch(() => undefined);
  if (networkId) await api('DELETE', `/networks/evm/${networkId}`).catch(() => undefined);
  await api('DELETE', `/hosts/${hostId}`).catch(() => undefined);
  await server.stop();
});

t('POST /networks/evm (besu, QBFT, 2 validators) placed on the cluster, started: each validator a StatefulSet of the besu image, reached at the cluster\'s address', async () => {
  const c = testCluster()!.connection;
  const n = await api('POST', '/networks/evm', { name: 'besu-placed', client: 'besu', validatorCount: 2, genesis: { chain_id: 43291, consensus: 'QBFT', block_time: 2 }, placement: { hostId } });
  assert.is(n.status, 201, n.text);
  networkId = n.json.id;
  assert.is(n.json.client, 'besu');
  assert.equal(n.json.placement, { hostId });
  const r = await api('POST', `/networks/${networkId}/start`);
  assert.is(r.status, 200, r.text);
  nodes = r.json.nodes;
  assert.is(nodes.length, 2, r.text);
  nodes = await Promise.all(
    nodes.map((x) =>
      until(`node ${x.id} running`, async () => {
        const g = (await api('GET', `/nodes/${x.id}`)).json;
        if (g?.status === 'error') throw new Error(`node ${x.id} failed: ${g.error}`);
        return g?.status === 'running' ? g : null;
      }, 180_000),
    ),
  );
  const apps = adminKubeConfig().makeApiClient(k8s.AppsV1Api);
  const at = c.nodeAddress.replace(/\./g, '\\.');
  for (const node of nodes) {
    assert.is(node.host_id, hostId);
    assert.is(node.role, 'validator');
    const set = await apps.readNamespacedStatefulSet({ name: statefulSet(node), namespace: c.namespace });
    assert.is(set.spec?.template.spec?.containers[0].image, BESU_STANDIN_IMAGE, `node ${node.id}'s pod runs the besu image`);
    assert.match(node.endpoints.rpc_http, new RegExp(`^http://${at}:3\\d{4}$`));
    assert.match(node.enode, new RegExp(`@${at}:3\\d{4}$`));
  }
});

t('the two validators peer through the cluster\'s addresses, and the chain reports both genesis validators', async () => {
  const [a, b] = nodes;
  const idOf = (n: any) => '0x' + /^enode:\/\/([0-9a-f]+)@/.exec(n.enode)![1];
  const peersOf = async (n: any) => ((await rpc(n.endpoints.rpc_http, 'admin_peers')) ?? []) as Array<{ id: string }>;
  await until('the first validator peered with the second', async () => (await peersOf(a)).find((p) => p.id === idOf(b)), 90_000);
  await until('the second validator peered with the first', async () => (await peersOf(b)).find((p) => p.id === idOf(a)), 90_000);
  for (const n of nodes) await until(`peer count of node ${n.id}`, async () => ((await api('GET', `/nodes/${n.id}`)).json.peer_count ?? 0) >= 1, 30_000);
  const v = (await api('GET', `/networks/${networkId}/validators`)).json;
  assert.is(v.source, 'chain', JSON.stringify(v));
  assert.equal(v.validators.map((x: { address: string }) => x.address.toLowerCase()).sort(), nodes.map((n) => n.validator_address.toLowerCase()).sort());
});

t.run();
