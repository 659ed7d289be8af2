// Fabric releases of consortium nodes on a registered Kubernetes cluster (issue 37 items 1 and 7),
// against the shared cluster of test/k8s/cluster.sh up with the per-release images on its node
// (`cluster.sh import lnm-fabric-peer:2.5.12`, and lnm-fabric-orderer:2.5.12, and the same of a
// newer release), a counted skip saying which is missing (a fresh CI machine has no cluster):
// - GET /nodes/defaults/consortium-peer?hostId= lists the releases whose peer and orderer images
//   are on the cluster's node, newest first;
// - a version not there is a 400 naming those there are, nothing recorded;
// - a peer created with fabricVersion 2.5.x records it and runs it: its StatefulSet's container is
//   lnm-fabric-peer:2.5.x, the peer's own /version says so; a peer created without one records
//   and runs the newest;
// - the 2.5 peer upgraded (POST /nodes/{id}/upgrade): the StatefulSet's image is the newer
//   release's, the same claim, the peer's /version the new one.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as k8s from '@kubernetes/client-node';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { adminKubeConfig, clusterFabricReleases, clusterImageMissing, kubernetesSkipReason, testCluster } from '../../helpers/kubernetes.ts';
import { apiOf, consortiumEnv, node, organization, until } from '../consortium/consortiumApi.ts';

const PEER = 'lnm-fabric-peer:local';
const ORDERER = 'lnm-fabric-orderer:local';
const clusterMissing = await kubernetesSkipReason();
/** The releases with a peer and an orderer image on the cluster's node, newest first. */
const onCluster = await clusterFabricReleases(PEER, ORDERER);
const v25 = onCluster.find((v) => v.startsWith('2.5.'));
const newest = onCluster[0];
const imagesMissing = clusterMissing
  ? undefined
  : !v25 || newest === v25
    ? `the cluster's node needs lnm-fabric-peer and lnm-fabric-orderer images of Fabric 2.5.x and of a newer release (found: ${onCluster.join(', ') || 'none'}); test/k8s/cluster.sh import lnm-fabric-peer:2.5.12 (and lnm-fabric-orderer:2.5.12, lnm-fabric-peer:3.1.5, lnm-fabric-orderer:3.1.5) loads them`
    : await clusterImageMissing(PEER);
const t = requiresAll(suite('kubernetes: consortium nodes record and run their Fabric release'), ['kubernetes', clusterMissing], ['fabric-release-images', imagesMissing]);
const cluster = testCluster();
const c = () => cluster!.connection;
const PREFIX = `fabrel${process.pid % 100000}-`;
let server: TestServer;
const api = apiOf(() => server);
let hostId = 0;
let orgId = 0;
const made: number[] = [];
let core: k8s.CoreV1Api;
let apps: k8s.AppsV1Api;
const stsName = (id: number) => `${PREFIX}node-${id}`;
const stsOf = (id: number) => apps.readNamespacedStatefulSet({ name: stsName(id), namespace: c().namespace });
/** The peer's own word on its release: GET /version on its operations port (a NodePort). */
const versionOf = (p: { config: { operationsPort: number } }) =>
  until('the peer\'s /version', async () => {
    const r = await fetch(`http://${c().nodeAddress}:${p.config.operationsPort}/version`, { signal: AbortSignal.timeout(3000) }).catch(() => null);
    return r?.ok ? ((await r.json()) as { Version: string }).Version : null;
  }, 90_000, 1000);

t.before(async () => {
  await setup();
});
async function setup() {
  const kc = adminKubeConfig();
  core = kc.makeApiClient(k8s.CoreV1Api);
  apps = kc.makeApiClient(k8s.AppsV1Api);
  server = await startServer({ env: consortiumEnv({ LNM_NODE_ENGINE: 'process', LNM_IMAGE_FABRIC_PEER: PEER, LNM_IMAGE_FABRIC_ORDERER: ORDERER, LNM_HOST_CHECK_SECONDS: '2', LNM_DOCKER_PREFIX: PREFIX }) });
  const h = await api('POST', '/hosts', { name: 'cluster', kind: 'kubernetes', url: c().server, externalIp: c().nodeAddress, kubernetes: { caCertificate: c().caCertificate, token: c().token, namespace: c().namespace, storageClass: c().storageClass } });
  assert.is(h.status, 201, h.text);
  hostId = h.json.id;
  orgId = (await organization(api, 'RelOrg', 'RelOrgMSP')).id;
}

t.after(async () => {
  if (!server) return;
  for (const id of made) await api('DELETE', `/nodes/${id}?deleteVolume=true`).catch(() => undefined);
  for (const id of made) {
    await until('the peer\'s objects gone', async () => {
      const there = await stsOf(id).then(() => true, () => false);
      const claim = await core.readNamespacedPersistentVolumeClaim({ name: `${stsName(id)}-data`, namespace: c().namespace }).then(() => true, () => false);
      return !there && !claim;
    }, 90_000).catch(() => undefined);
  }
  if (hostId) await api('DELETE', `/hosts/${hostId}`).catch(() => undefined);
  await server.stop();
});

const created = async (name: string, config: Record<string, unknown>) => {
  const p = await node(async (...args) => {
    const r = await api(...args);
    if (r.json?.id) made.push(r.json.id);
    return r;
  }, name, 'CONSORTIUM_PEER', orgId, { hostId, ...config });
  return p;
};

t('the releases on the cluster are offered; one not there is a 400 naming those there are, nothing recorded', async () => {
  const d = await api('GET', `/nodes/defaults/consortium-peer?hostId=${hostId}`);
  assert.is(d.status, 200, d.text);
  assert.equal(d.json.hostFabricReleases, onCluster);
  assert.is((await api('GET', '/nodes/defaults/consortium-peer?hostId=999999')).status, 404);
  const absent = await api('POST', '/nodes', { name: 'rel-absent', platform: 'CONSORTIUM', nodeType: 'CONSORTIUM_PEER', organizationId: orgId, config: { hostId, fabricVersion: '9.9.9' } });
  assert.is(absent.status, 400, absent.text);
  assert.match(absent.json.message, `Fabric 9.9.9 is not among the releases available for node host cluster: ${onCluster.join(', ')}`);
  assert.is(absent.json.details[0].field, 'fabricVersion');
  assert.is((await api('GET', '/nodes/platform/CONSORTIUM')).json.total, 0, 'nothing recorded');
});

let old: any;
t('a peer created with Fabric 2.5 records and runs it (the StatefulSet\'s image); without a version, the newest', async () => {
  old = await created('rel-peer25', { fabricVersion: v25 });
  assert.is(old.fabric_version, v25);
  assert.is((await api('GET', `/nodes/${old.id}`)).json.fabric_version, v25);
  assert.is((await stsOf(old.id)).spec!.template.spec!.containers[0]!.image, `lnm-fabric-peer:${v25}`);
  assert.is(await versionOf(old), v25);

  const dflt = await created('rel-peer-newest', {});
  assert.is(dflt.fabric_version, newest);
  assert.is((await stsOf(dflt.id)).spec!.template.spec!.containers[0]!.image, `lnm-fabric-peer:${newest}`);
  assert.is(await versionOf(dflt), newest);
});

t('the 2.5 peer upgraded on the cluster: the newer release\'s image on the same claim', async () => {
  const claimBefore = (await core.readNamespacedPersistentVolumeClaim({ name: `${stsName(old.id)}-data`, namespace: c().namespace })).metadata!.uid;
  const u = await api('POST', `/nodes/${old.id}/upgrade`, { fabricVersion: newest });
  assert.is(u.status, 200, u.text);
  assert.is(u.json.from_version, v25, u.text);
  assert.is((await api('GET', `/nodes/${old.id}`)).json.fabric_version, newest);
  assert.is((await stsOf(old.id)).spec!.template.spec!.containers[0]!.image, `lnm-fabric-peer:${newest}`);
  assert.is((await core.readNamespacedPersistentVolumeClaim({ name: `${stsName(old.id)}-data`, namespace: c().namespace })).metadata!.uid, claimBefore, 'the same claim');
  assert.is(await versionOf(old), newest);
});

t.run();
