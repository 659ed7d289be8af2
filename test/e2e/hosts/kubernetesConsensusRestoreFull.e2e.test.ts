// A consensus migration's rollback on a Kubernetes cluster (issues 37 item 7 and 39) whose write of
// an orderer's backup back into its claim fails part way on a full disk, taken up again once there
// is room. The shared cluster of test/k8s/cluster.sh up with the Fabric 3.1 release images and the
// service's image on its node, Fabric here, and root (a tmpfs is mounted on this machine, the
// cluster's node); counted skips saying which is missing. Org1's four raft orderers and a peer on
// the cluster, one channel on V3_0, as kubernetesConsensusMigrate.e2e. The fault: once phase normal
// is recorded, orderers 2 and 3's StatefulSets are scaled to 0 behind the service's back (no BFT
// quorum: the migration fails and rolls back), and with orderer 3's pod gone a 1 MiB tmpfs is
// mounted over the `data/` directory of the hostPath volume its claim is bound to: the copy helper
// pod of the rollback mounts the claim after that, sees the small disk there, and the backup (the
// orderer's ledger, WAL and snapshots) does not fit: ENOSPC after a short write. Checked: 409
// MIGRATION_FAILED "rollback incomplete" naming orderer 3, its backup and the full disk, saying
// what to do; no orderer started on a chain only partly put back (the four StatefulSets at 0
// replicas, no pod, each `stopped`); no copy-helper pod left; the backups kept. The tmpfs unmounted
// (the claim's own disk again, with room), the POST takes the rollback up again: every backup
// written back, the channel etcdraft in STATE_NORMAL, committing, its blocks before the migration
// kept, the five nodes at one replica on the same claims. The tmpfs is unmounted whatever happens.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as k8s from '@kubernetes/client-node';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { adminKubeConfig, serviceImage, testCluster } from '../../helpers/kubernetes.ts';
import { apiOf, blockHashes, channelCommits, consortiumEnv, fourOrdererRaftChannel, migrationStruckInPhaseNormal, orderersSay, rollbackIncomplete, rollbackTakenUpAgain, until } from '../consortium/consortiumApi.ts';
import { CLUSTER_ORDERER_IMAGE, CLUSTER_PEER_IMAGE, clusterFabric31, clusterRunRemoved, onV3, registeredCluster, runNames } from './clusterRun.ts';

const { version: v31, checks } = await clusterFabric31(process.getuid?.() === 0 ? undefined : 'mounting a tmpfs under a volume of the cluster needs root');
const t = requiresAll(suite('kubernetes: a migration rollback whose write into an orderer\'s claim fills the disk, taken up again'), ...checks);
const cluster = testCluster();
const c = () => cluster!.connection;
const { prefix: PREFIX, stsName } = runNames('k8srf');
let server: TestServer;
const api = apiOf(() => server);
let hostId = 0;
let apps: k8s.AppsV1Api;
let core: k8s.CoreV1Api;
interface Node { id: number; name: string; config: { port: number; hostId: number } }
let orderers: Node[] = [];
let peer: Node;
let networkId = 0;
let height: () => Promise<number | null>;
/** The tmpfs over orderer 3's data directory while it is mounted. */
let full: string | null = null;
const channel = 'k8srestorefull';
const configPath = () => `/networks/${networkId}/channels/${channel}/config`;
const migrate = () => api('POST', `/networks/consortium/${networkId}/consensus/migrate`, { to: 'smartbft' });
const commits = channelCommits(api, () => networkId, 'Org1MSP', () => peer.config.port, () => height(), { heightMs: 120_000, updateMs: 180_000, everyMs: 3000, explain: () => orderersSay(api, networkId, orderers) });
const helperPods = async () => (await core.listNamespacedPod({ namespace: c().namespace, labelSelector: 'lnm.role in (volume-copy,node-command)' })).items.map((p) => p.metadata!.name!).filter((n) => n.startsWith(PREFIX));
const podThere = (id: number) => core.readNamespacedPod({ name: `${stsName(id)}-0`, namespace: c().namespace }).then(() => true, () => false);
const placed = async () => Promise.all([...orderers, peer].map(async (n) => {
  const sts = await apps.readNamespacedStatefulSet({ name: stsName(n.id), namespace: c().namespace });
  const claim = await core.readNamespacedPersistentVolumeClaim({ name: `${stsName(n.id)}-data`, namespace: c().namespace });
  return { name: n.name, replicas: sts.spec!.replicas, claim: claim.metadata!.uid };
}));

/** The directory on this machine (the cluster's one node) of the hostPath volume the node's claim is bound to. */
async function volumeDir(id: number): Promise<string> {
  const claim = await core.readNamespacedPersistentVolumeClaim({ name: `${stsName(id)}-data`, namespace: c().namespace });
  const pv = await core.readPersistentVolume({ name: claim.spec!.volumeName! });
  const dir = pv.spec?.hostPath?.path;
  assert.ok(dir && existsSync(dir), `the claim's volume ${pv.metadata?.name} is a hostPath on this machine: ${dir}`);
  return dir!;
}

function unmount(): void {
  if (!full) return;
  try {
    execFileSync('umount', [full]);
  } catch {
    execFileSync('umount', ['-l', full]);
  }
  full = null;
}

t.before(async () => {
  const kc = adminKubeConfig();
  apps = kc.makeApiClient(k8s.AppsV1Api);
  core = kc.makeApiClient(k8s.CoreV1Api);
  server = await startServer({ env: consortiumEnv({ LNM_NODE_ENGINE: 'process', LNM_IMAGE_FABRIC_PEER: CLUSTER_PEER_IMAGE, LNM_IMAGE_FABRIC_ORDERER: CLUSTER_ORDERER_IMAGE, LNM_IMAGE_SERVICE: serviceImage, LNM_HOST_CHECK_SECONDS: '2', LNM_DOCKER_PREFIX: PREFIX }) });
  hostId = await registeredCluster(api, c());
  const made = await fourOrdererRaftChannel(api, 'k8srf', 'k8srfnet', channel, { fabricVersion: v31!, hostId });
  ({ orderers, peer } = made);
  networkId = made.network.id;
  height = made.height;
  await onV3(api, configPath(), commits);
});
t.after(async () => {
  // Never leave the machine changed: the tmpfs goes whatever happened.
  unmount();
  if (server) await clusterRunRemoved(api, server, { hostId, namespace: c().namespace, stsName, apps, core });
});

t('an orderer\'s backup written back part way (its claim\'s disk full): 409 "rollback incomplete" naming the orderer and ENOSPC, none started; with room, a new POST puts every backup back: etcdraft, committing', async () => {
  const before = await placed();
  const h = (await height())!;
  const hashes = await blockHashes(api, networkId, h);
  const victim = orderers[3]!;
  const dataDir = path.join(await volumeDir(victim.id), 'data');
  assert.ok(existsSync(dataDir), `${dataDir}: orderer ${victim.name}'s data directory in its volume`);
  let failed;
  try {
    failed = await migrationStruckInPhaseNormal(api, networkId, migrate, async () => {
      for (const o of orderers.slice(2)) {
        const sts = await apps.readNamespacedStatefulSet({ name: stsName(o.id), namespace: c().namespace });
        sts.spec!.replicas = 0;
        await apps.replaceNamespacedStatefulSet({ name: stsName(o.id), namespace: c().namespace, body: sts });
      }
      // Its pod gone, the small disk goes over its data directory: only pods made from now on (the
      // rollback's copy helper) mount it.
      await until(`orderer ${victim.name}'s pod gone`, async () => !(await podThere(victim.id)), 120_000);
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m,mode=0777', `lnm-rf-${process.pid}`, dataDir]);
      full = dataDir;
    }, 1_200_000);
    const recorded = await rollbackIncomplete(api, networkId, channel, failed, 'normal (the BFT orderers did not order)', [
      `the backup raft-to-bft of orderer ${victim.name} of organization `,
      /could not be put back/,
      /ENOSPC|no space left on device/,
    ]);
    assert.match(failed.json.message, /POST \.\.\.\/consensus\/migrate takes the rollback up again/);
    // No orderer started on a chain only partly put back.
    for (const o of orderers) {
      const sts = await apps.readNamespacedStatefulSet({ name: stsName(o.id), namespace: c().namespace });
      assert.is(sts.spec!.replicas, 0, `orderer ${o.name}'s StatefulSet at 0 replicas`);
      assert.not.ok(await podThere(o.id), `no pod of orderer ${o.name}`);
      assert.is((await api('GET', `/nodes/${o.id}`)).json.status, 'stopped', `orderer ${o.name} left stopped`);
    }
    assert.equal(await helperPods(), [], 'no copy-helper pod left');
    for (const o of orderers) assert.ok(existsSync(path.join(server.dataDir, 'hosted-backups', `node-${o.id}`, 'raft-to-bft')), `orderer ${o.name}'s backup kept`);
    const written = readdirSync(dataDir, { recursive: true }).length;
    console.log(`  on the 1 MiB disk after the failure: ${written} entries`);

    // Room: the small disk goes, the claim's own disk is there again.
    unmount();
    const again = await rollbackTakenUpAgain(api, { networkId, channel, recorded, commits, hashes });
    assert.is(again.json.context.peers_not_rolled_back, undefined, again.text);
  } finally {
    unmount();
  }
  for (const o of orderers) assert.is((await api('GET', `/nodes/${o.id}`)).json.status, 'running', `orderer ${o.name} running`);
  assert.equal(await placed(), before, 'the five nodes at one replica on their own claims');
  assert.equal(await helperPods(), [], 'no copy-helper or one-off pod left');
});

t.run();
