// A channel migrated from etcdraft to SmartBFT (issue 37 item 7) with its orderers and peer on a
// Kubernetes cluster (issue 39), against the shared cluster of test/k8s/cluster.sh up with the
// Fabric 3.1 release images and the service's image on its node (`cluster.sh import
// lnm-fabric-peer:3.1.5`, the orderer's, and ledger-network-manager:local for the copy helper):
// Org1's four raft orderers and a peer placed on the cluster (StatefulSets on lnm-fabric-*:3.1.x,
// their data in claims there, which this machine reaches through the API server only), one
// channel committing, V3_0. The migration backs each stopped orderer's data directory up out of
// its claim (a helper pod of the service's image mounting it read-only) and, on a failure, writes
// it back into the stopped orderer's claim (a helper pod mounting it read-write; only `data/`).
// (a) A real fault after the switch: two of the four orderers' StatefulSets scaled to 0 behind
// the service's back once phase normal is recorded, so the BFT cluster has no quorum; meanwhile
// the peer has pulled the switch block. 409 MIGRATION_FAILED in phase normal, the backups written
// back, the cluster peer rolled back to the restored chain (`peer node rollback` in a one-off pod
// of its StatefulSet's pod template on its claim), the channel etcdraft in STATE_NORMAL,
// committing, every block hash kept, the five StatefulSets at one replica on the same claims, no
// copy-helper or one-off pod left. (b) Then the migration succeeds: BFT with 4 ConsenterMapping
// entries at the cluster's node address, the peer commits, the network says smartbft, no backup
// left. Against the code before, both fail on their first POST: 400 MIGRATION_ENGINE. Counted
// skips, saying why, without the cluster, the images on its node, or Fabric here (the service's
// channel tools).
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as k8s from '@kubernetes/client-node';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { fabricMissing } from '../../helpers/fabric.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { adminKubeConfig, clusterFabricReleases, kubernetesSkipReason, serviceImage, serviceImageSkipReason, testCluster } from '../../helpers/kubernetes.ts';
import { apiOf, blockHashes, channelCommits, consortiumEnv, fourOrdererRaftChannel, migratedAgain, migrationRolledBack, migrationStruckInPhaseNormal, orderersSay, until } from '../consortium/consortiumApi.ts';

const PEER = 'lnm-fabric-peer:local';
const ORDERER = 'lnm-fabric-orderer:local';
const clusterMissing = await kubernetesSkipReason();
const v31 = clusterMissing ? undefined : (await clusterFabricReleases(PEER, ORDERER)).find((v) => v.startsWith('3.1.'));
const imagesMissing = clusterMissing || v31 ? undefined : 'the cluster\'s node needs lnm-fabric-peer and lnm-fabric-orderer images of Fabric 3.1.x; test/k8s/cluster.sh import lnm-fabric-peer:3.1.5 (and lnm-fabric-orderer:3.1.5) loads them';
const t = requiresAll(
  suite('kubernetes: consensus migration etcdraft -> smartbft of Fabric nodes on the cluster'),
  ['kubernetes', clusterMissing],
  ['fabric-release-images', imagesMissing],
  ['service-image', clusterMissing ? undefined : await serviceImageSkipReason()],
  ['fabric', fabricMissing],
);
const cluster = testCluster();
const c = () => cluster!.connection;
const PREFIX = `k8smig${process.pid % 100000}-`;
const stsName = (id: number) => `${PREFIX}node-${id}`;
let server: TestServer;
const api = apiOf(() => server);
let hostId = 0;
let apps: k8s.AppsV1Api;
let core: k8s.CoreV1Api;
interface Node { id: number; name: string; config: { port: number; hostId: number; externalEndpoint: string } }
let orderers: Node[] = [];
let peer: Node;
let networkId = 0;
let height: () => Promise<number | null>;
const channel = 'k8smigrate';
const configPath = () => `/networks/${networkId}/channels/${channel}/config`;
/** POST .../consensus/migrate: with its rollback over 300 s on the loaded test cluster; the tests' call waits for it (test/helpers/httpCall.ts). */
const migrate = () => api('POST', `/networks/consortium/${networkId}/consensus/migrate`, { to: 'smartbft' });
const progress = () => api('GET', `/networks/consortium/${networkId}/consensus/migration`);
const commits = channelCommits(api, () => networkId, 'Org1MSP', () => peer.config.port, () => height(), { heightMs: 120_000, updateMs: 180_000, everyMs: 3000, explain: () => orderersSay(api, networkId, orderers) });
const consensusNow = async () => (await api('GET', configPath())).json.config.channel_group.groups.Orderer.values.ConsensusType.value;
/** What the migration left on this machine for the cluster's nodes: backups read out of claims, restores pending. */
const leftHere = (dir: string) => (existsSync(path.join(server.dataDir, dir)) ? readdirSync(path.join(server.dataDir, dir), { recursive: true }).map(String) : []);
/** The copy-helper and one-off command pods of this run on the cluster. */
const helperPods = async () => (await core.listNamespacedPod({ namespace: c().namespace, labelSelector: 'lnm.role in (volume-copy,node-command)' })).items.map((p) => p.metadata!.name!).filter((n) => n.startsWith(PREFIX));
/** Each node's StatefulSet replicas, image and claim uid. */
const placed = async () => Promise.all([...orderers, peer].map(async (n) => {
  const sts = await apps.readNamespacedStatefulSet({ name: stsName(n.id), namespace: c().namespace });
  const claim = await core.readNamespacedPersistentVolumeClaim({ name: `${stsName(n.id)}-data`, namespace: c().namespace });
  return { name: n.name, replicas: sts.spec!.replicas, image: sts.spec!.template.spec!.containers[0]!.image ?? '', claim: claim.metadata!.uid };
}));

t.before(async () => {
  const kc = adminKubeConfig();
  apps = kc.makeApiClient(k8s.AppsV1Api);
  core = kc.makeApiClient(k8s.CoreV1Api);
  server = await startServer({ env: consortiumEnv({ LNM_NODE_ENGINE: 'process', LNM_IMAGE_FABRIC_PEER: PEER, LNM_IMAGE_FABRIC_ORDERER: ORDERER, LNM_IMAGE_SERVICE: serviceImage, LNM_HOST_CHECK_SECONDS: '2', LNM_DOCKER_PREFIX: PREFIX }) });
  const h = await api('POST', '/hosts', { name: 'cluster', kind: 'kubernetes', url: c().server, externalIp: c().nodeAddress, kubernetes: { caCertificate: c().caCertificate, token: c().token, namespace: c().namespace, storageClass: c().storageClass } });
  assert.is(h.status, 201, h.text);
  hostId = h.json.id;
  const made = await fourOrdererRaftChannel(api, 'k8smig', 'k8smignet', channel, { fabricVersion: v31!, hostId });
  ({ orderers, peer } = made);
  networkId = made.network.id;
  height = made.height;
  for (const n of [...orderers, peer]) {
    assert.is(n.config.hostId, hostId, `${n.name} on the cluster`);
    assert.is(n.config.externalEndpoint, `${c().nodeAddress}:${n.config.port}`, n.name);
  }
  await commits('after the joins');
  const raised = await api('PUT', configPath(), { capabilities: { channel: 'V3_0' } });
  assert.is(raised.status, 200, raised.text);
  await commits('after V3_0');
});
t.after(async () => {
  if (!server) return;
  // Every node of this run with its claim: the cluster's volumes are shared.
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

t('(a) a real fault after the switch (two orderers\' StatefulSets scaled to 0 in phase normal): 409 MIGRATION_FAILED, the backups written back into the claims, the cluster peer rolled back, raft orders again and the peer follows', async () => {
  const before = await placed();
  for (const p of before) {
    assert.is(p.replicas, 1, JSON.stringify(p));
    assert.ok(p.image.endsWith(`:${v31}`), JSON.stringify(p));
  }
  const h = (await height())!;
  const hashes = await blockHashes(api, networkId, h);
  // Phase normal recorded (the orderers restarted as BFT): the fault.
  const failed = await migrationStruckInPhaseNormal(api, networkId, migrate, async () => {
    // Behind the service's back, as an operator or a lost cluster node would: no pod, none made again.
    for (const o of orderers.slice(2)) {
      const sts = await apps.readNamespacedStatefulSet({ name: stsName(o.id), namespace: c().namespace });
      sts.spec!.replicas = 0;
      await apps.replaceNamespacedStatefulSet({ name: stsName(o.id), namespace: c().namespace, body: sts });
    }
  }, 1_200_000);
  const restoredHeight = migrationRolledBack(failed, peer.name, channel, h);

  const consensus = await consensusNow();
  assert.is(consensus.type, 'etcdraft');
  assert.is(consensus.state, 'STATE_NORMAL');
  assert.is((await api('GET', `/networks/consortium/${networkId}`)).json.consensus, 'etcdraft');
  const hAfter = await commits('after the rollback');
  assert.ok(hAfter > restoredHeight + 1, `the peer's height ${hAfter}, the restored chain's ${restoredHeight}`);
  assert.equal(await blockHashes(api, networkId, h), hashes, 'every block before the migration kept its hash');
  const p = await progress();
  assert.is(p.json.status, 'failed', p.text);
  assert.is(p.json.phase, 'rollback', p.text);
  // Every node at one replica on its own claim and the 3.1 image again; no helper or one-off pod left.
  assert.equal(await placed(), before);
  assert.equal(await helperPods(), [], 'no copy-helper or one-off pod left');
  assert.equal(leftHere('hosted-restore'), [], 'no restore pending: the backups were written into the claims at the rollback');
  for (const o of orderers) assert.ok(existsSync(path.join(server.dataDir, 'hosted-backups', `node-${o.id}`, 'raft-to-bft')), `orderer ${o.name}'s backup kept after a failure`);
});

t('(b) migrated: BFT in STATE_NORMAL with the same 4 consenters, the peer commits, the network says smartbft, no backup left', async () => {
  await migratedAgain(api, { networkId, channel, migrate, height, commits, consenters: orderers.map((o, i) => ({ id: i + 1, host: c().nodeAddress, port: o.config.port })) });
  assert.equal(leftHere('hosted-backups'), [], 'every backup dropped');
  assert.equal(leftHere('hosted-restore'), [], 'no restore pending');
  assert.equal(await helperPods(), [], 'no copy-helper or one-off pod left');
  for (const x of await placed()) assert.is(x.replicas, 1, JSON.stringify(x));
});

t.run();
