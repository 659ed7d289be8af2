// The console's Fabric release choice for a node placed on a registered node host (issue 37 items 1
// and 9), in Chromium against the shared Kubernetes cluster of test/k8s/cluster.sh up with the
// per-release images on its node (lnm-fabric-peer/orderer:2.5.12 and :3.1.5, `cluster.sh import`):
// the node form, with the cluster chosen as where it runs, offers the cluster's releases (GET
// /nodes/defaults/consortium-peer?hostId= hostFabricReleases, newest first, after "the newest"),
// not the engine's; a peer created from the form with the 2.5 release records fabric_version 2.5.x
// and its StatefulSet runs lnm-fabric-peer:2.5.x. Counted skips, saying why, without Chromium, the
// cluster, or images of two releases on it (a fresh CI machine has none).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as k8s from '@kubernetes/client-node';
import type { Page } from 'playwright-core';
import type { TestServer } from '../../helpers/server.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { chromiumMissing } from '../../helpers/browser.ts';
import { startConsoleSession, type ConsoleSession } from '../../helpers/consoleSession.ts';
import { adminKubeConfig, clusterImageMissing, kubernetesSkipReason, testCluster } from '../../helpers/kubernetes.ts';
import { releasesAmong } from '../../../adapters/consortium/fabricReleaseImages.ts';
import { apiOf, consortiumEnv, organization, until } from '../consortium/consortiumApi.ts';

const PEER = 'lnm-fabric-peer:local';
const ORDERER = 'lnm-fabric-orderer:local';
const clusterMissing = await kubernetesSkipReason();
/** The releases with a peer and an orderer image on the cluster's node, newest first. */
const onCluster = clusterMissing
  ? []
  : releasesAmong(
      (await adminKubeConfig().makeApiClient(k8s.CoreV1Api).listNode()).items.flatMap((n) => (n.status?.images ?? []).flatMap((i) => (i.names ?? []).map((x) => x.replace(/^docker\.io\/(library\/)?/, '')))),
      PEER,
      ORDERER,
    );
const v25 = onCluster.find((v) => v.startsWith('2.5.'));
const imagesMissing = clusterMissing
  ? undefined
  : !v25 || onCluster[0] === v25
    ? `the cluster's node needs lnm-fabric-peer and lnm-fabric-orderer images of Fabric 2.5.x and of a newer release (found: ${onCluster.join(', ') || 'none'}); test/k8s/cluster.sh import lnm-fabric-peer:2.5.12 (and the orderer's, and 3.1.5's) loads them`
    : await clusterImageMissing(PEER);
const t = requiresAll(suite('console: Fabric releases of a node host (a Kubernetes cluster, Chromium)'), ['chromium', chromiumMissing()], ['kubernetes', clusterMissing], ['fabric-release-images', imagesMissing]);
const cluster = testCluster();
const c = () => cluster!.connection;
const PREFIX = `conrel${process.pid % 100000}-`;
let server: TestServer;
const api = apiOf(() => server);
let ui: ConsoleSession;
let page: Page;
let hostId = 0;
const made: number[] = [];
let apps: k8s.AppsV1Api;
let core: k8s.CoreV1Api;
const stsName = (id: number) => `${PREFIX}node-${id}`;

t.before(async () => {
  const kc = adminKubeConfig();
  apps = kc.makeApiClient(k8s.AppsV1Api);
  core = kc.makeApiClient(k8s.CoreV1Api);
  // The engine's own releases (process programs) are none here: what the form offers is the cluster's.
  ui = await startConsoleSession({ server: { env: consortiumEnv({ LNM_NODE_ENGINE: 'process', LNM_IMAGE_FABRIC_PEER: PEER, LNM_IMAGE_FABRIC_ORDERER: ORDERER, LNM_HOST_CHECK_SECONDS: '2', LNM_DOCKER_PREFIX: PREFIX, LNM_FABRIC_RELEASES: '' }) } });
  ({ server, page } = ui);
  const h = await api('POST', '/hosts', { name: 'cluster', kind: 'kubernetes', url: c().server, externalIp: c().nodeAddress, kubernetes: { caCertificate: c().caCertificate, token: c().token, namespace: c().namespace, storageClass: c().storageClass } });
  assert.is(h.status, 201, h.text);
  hostId = h.json.id;
});

t.after(async () => {
  if (!server) return;
  for (const id of made) await api('DELETE', `/nodes/${id}?deleteVolume=true`).catch(() => undefined);
  for (const id of made) {
    await until('the peer\'s objects gone', async () => {
      const there = await apps.readNamespacedStatefulSet({ name: stsName(id), namespace: c().namespace }).then(() => true, () => false);
      const claim = await core.readNamespacedPersistentVolumeClaim({ name: `${stsName(id)}-data`, namespace: c().namespace }).then(() => true, () => false);
      return !there && !claim;
    }, 90_000).catch(() => undefined);
  }
  if (hostId) await api('DELETE', `/hosts/${hostId}`).catch(() => undefined);
  await ui.close();
});

t('the node form, the cluster chosen, offers the cluster\'s releases; a peer made on 2.5 records it and its StatefulSet runs its image', async () => {
  await organization(api, 'HostRel', 'HostRelMSP');
  await ui.signIn();
  await ui.nav('Nodes').click();
  await page.getByRole('button', { name: 'Create node' }).click();
  const form = page.getByRole('form', { name: 'New node' });
  await form.getByLabel('Name', { exact: true }).fill('host-rel-peer');
  await form.getByLabel('Kind').selectOption('CONSORTIUM_PEER');
  await form.getByLabel('Organization').selectOption({ label: 'HostRel (HostRelMSP)' });
  await form.getByLabel('Where it runs').selectOption(String(hostId));
  const picker = form.getByLabel('Fabric release');
  await until('the cluster\'s releases offered', async () => (await picker.locator('option').count()) === onCluster.length + 1, 20_000);
  assert.equal(await picker.locator('option').allInnerTexts(), [`The newest (${onCluster[0]})`, ...onCluster.map((v) => `Fabric ${v}`)]);
  assert.is(await picker.inputValue(), '', 'the newest is the default');
  await picker.selectOption({ label: `Fabric ${v25}` });
  await ui.accessible('the node form with a cluster\'s releases');
  await form.getByRole('button', { name: 'Create node' }).click();
  await page.getByRole('heading', { name: /^host-rel-peer/, level: 1 }).waitFor({ timeout: 240_000 }).catch(async (err) => {
    throw new Error(`${(err as Error).message}\nthe form says: ${await form.innerText().catch(() => '(gone)')}`);
  });
  const id = Number(new URL(page.url()).pathname.split('/').pop());
  made.push(id);
  const node = (await api('GET', `/nodes/${id}`)).json;
  assert.is(node.fabric_version, v25);
  assert.is(node.config.hostId, hostId);
  const sts = await apps.readNamespacedStatefulSet({ name: stsName(id), namespace: c().namespace });
  assert.equal(sts.spec?.template.spec?.containers.map((x) => x.image), [`lnm-fabric-peer:${v25}`]);
  await page.getByTestId('node-fabric-version').getByText(v25!, { exact: true }).waitFor({ timeout: 20_000 });
});

t.run();
