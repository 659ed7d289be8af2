// A whole channel on a Kubernetes cluster upgraded from Fabric 2.5 to 3.1 node by node (issue 37
// item 7, issue 39), against the shared cluster of test/k8s/cluster.sh up with the per-release
// images on its node (`cluster.sh import lnm-fabric-peer:2.5.12`, and the orderer's, and the same
// of 3.1.x) and the sample chaincode's image: three raft orderers and a peer on the cluster
// (POST /nodes with config.hostId and fabricVersion 2.5.x: StatefulSets on lnm-fabric-*:2.5.x),
// the channel joined, the sample chaincode committed (its server on the cluster too) and invoked.
// V3_0 is refused naming the four; each node upgraded in turn (POST /nodes/{id}/upgrade): its
// StatefulSet's image the 3.1 release's on the same claim, its own /version (at its NodePort) 3.1,
// its height at least what it was, an invoke committed after each; then V3_0 accepted, an invoke,
// the asset written on 2.5 read back and block 0's hash unchanged. The steps are
// rollingUpgradeKit.ts's, shared with the docker engine's suite. Counted skips, saying why,
// without the cluster, the images on its node, or Fabric here (the service's channel tools).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as k8s from '@kubernetes/client-node';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { fabricMissing } from '../../helpers/fabric.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { adminKubeConfig, clusterFabricReleases, clusterImageMissing, kubernetesSkipReason, testCluster } from '../../helpers/kubernetes.ts';
import { apiOf, consortiumEnv, until } from '../consortium/consortiumApi.ts';
import { SAMPLE_IMAGE } from '../consortium/dockerFabricKit.ts';
import { rollingUpgrade, upgradeChannel, type UpgradeChannel } from '../consortium/rollingUpgradeKit.ts';

const PEER = 'lnm-fabric-peer:local';
const ORDERER = 'lnm-fabric-orderer:local';
const CHAINCODE_NODE = 'lnm-chaincode-node:local';
const clusterMissing = await kubernetesSkipReason();
const onCluster = await clusterFabricReleases(PEER, ORDERER);
const v25 = onCluster.find((v) => v.startsWith('2.5.'));
const v31 = onCluster.find((v) => v.startsWith('3.1.'));
const imagesMissing = clusterMissing
  ? undefined
  : !v25 || !v31
    ? `the cluster's node needs lnm-fabric-peer and lnm-fabric-orderer images of Fabric 2.5.x and 3.1.x (found: ${onCluster.join(', ') || 'none'}); test/k8s/cluster.sh import lnm-fabric-peer:2.5.12 (and lnm-fabric-orderer:2.5.12, lnm-fabric-peer:3.1.5, lnm-fabric-orderer:3.1.5) loads them`
    : undefined;
const chaincodeMissing = clusterMissing ? undefined : ((await clusterImageMissing(SAMPLE_IMAGE)) ?? (await clusterImageMissing(CHAINCODE_NODE)));
const t = requiresAll(
  suite('kubernetes: a whole channel on the cluster upgraded, Fabric 2.5 -> 3.1'),
  ['kubernetes', clusterMissing],
  ['fabric-release-images', imagesMissing],
  ['chaincode-images', chaincodeMissing],
  ['fabric', fabricMissing],
);
const cluster = testCluster();
const c = () => cluster!.connection;
const PREFIX = `k8supg${process.pid % 100000}-`;
let server: TestServer;
const api = apiOf(() => server);
let hostId = 0;
let ch: UpgradeChannel;
let apps: k8s.AppsV1Api;
let core: k8s.CoreV1Api;
const stsName = (id: number) => `${PREFIX}node-${id}`;

t.before(async () => {
  const kc = adminKubeConfig();
  apps = kc.makeApiClient(k8s.AppsV1Api);
  core = kc.makeApiClient(k8s.CoreV1Api);
  server = await startServer({ env: consortiumEnv({ LNM_NODE_ENGINE: 'process', LNM_IMAGE_FABRIC_PEER: PEER, LNM_IMAGE_FABRIC_ORDERER: ORDERER, LNM_IMAGE_CHAINCODE_NODE: CHAINCODE_NODE, LNM_HOST_CHECK_SECONDS: '2', LNM_DOCKER_PREFIX: PREFIX }) });
  const h = await api('POST', '/hosts', { name: 'cluster', kind: 'kubernetes', url: c().server, externalIp: c().nodeAddress, kubernetes: { caCertificate: c().caCertificate, token: c().token, namespace: c().namespace, storageClass: c().storageClass } });
  assert.is(h.status, 201, h.text);
  hostId = h.json.id;
  ch = await upgradeChannel(api, 'k8supg', 'k8supgrade', { fabricVersion: v25!, hostId });
  for (const n of [...ch.orderers, ch.peer]) assert.is(n.config.hostId, hostId, `${n.name} on the cluster`);
});
t.after(async () => {
  if (!server) return;
  // Every node of this run (the chaincode server's too) with its claim: the cluster's volumes are shared.
  const all = ((await api('GET', '/nodes?limit=100').catch(() => null))?.json?.items ?? []) as Array<{ id: number; name: string }>;
  for (const n of all) await api('DELETE', `/nodes/${n.id}?deleteVolume=true`).catch(() => undefined);
  for (const n of all) {
    await until(`${n.name}'s objects gone`, async () => {
      const there = await apps.readNamespacedStatefulSet({ name: stsName(n.id), namespace: c().namespace }).then(() => true, () => false);
      const claim = await core.readNamespacedPersistentVolumeClaim({ name: `${stsName(n.id)}-data`, namespace: c().namespace }).then(() => true, () => false);
      return !there && !claim;
    }, 120_000).catch(() => undefined);
  }
  if (hostId) await api('DELETE', `/hosts/${hostId}`).catch(() => undefined);
  await server.stop();
  server.reapNodes();
});

const stsOf = (id: number) => apps.readNamespacedStatefulSet({ name: stsName(id), namespace: c().namespace });
const claimUid = async (id: number) => (await core.readNamespacedPersistentVolumeClaim({ name: `${stsName(id)}-data`, namespace: c().namespace })).metadata!.uid;
/** The StatefulSet's image. */
const imageOf = async (id: number) => (await stsOf(id)).spec!.template.spec!.containers[0]!.image;
const upgrade = rollingUpgrade(api, () => ch, { from: v25!, to: v31!, imageOf, address: () => c().nodeAddress });

t('on the cluster, 2.5: V3_0 refused naming the four; each node upgraded to 3.1 in turn (its StatefulSet on the 3.1 image, the same claim), an invoke committed after each', async () => {
  const nodes = [...ch.orderers, ch.peer];
  const claims = await Promise.all(nodes.map((n) => claimUid(n.id)));
  await upgrade.nodeByNode();
  assert.equal(await Promise.all(nodes.map((n) => claimUid(n.id))), claims, 'each node kept its claim (the ledger)');
});

t('all on 3.1: V3_0 accepted, an invoke commits, the ledger written on 2.5 intact', async () => {
  await upgrade.raised();
});

t.run();
