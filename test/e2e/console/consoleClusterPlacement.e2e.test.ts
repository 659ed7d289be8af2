// The console's consortium quick start placed on a Kubernetes cluster (issue 39, "Placing nodes
// from POST /networks"), in Chromium against the cluster of test/k8s/cluster.sh up with the
// Fabric 2.5 images on its node and real Fabric programs here (counted skips, saying why,
// without them): the registered cluster is offered in "Where its peers and orderers run"; chosen,
// the quick start's orderer and peer are made there (their config.hostId, a StatefulSet each in
// the namespace) and the channel is made, joined and its anchor peer set, every step Done. Every
// object the run made on the cluster is deleted after (prefix k8splace<pid>-). With the anvil and
// service images there too: the EVM network create's "Where its nodes run" set to the cluster,
// an anvil network created and started: its placement recorded, its node a StatefulSet there.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as k8s from '@kubernetes/client-node';
import type { Page } from 'playwright-core';
import type { TestServer } from '../../helpers/server.ts';
import { fabricMissing } from '../../helpers/fabric.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { chromiumMissing } from '../../helpers/browser.ts';
import { startConsoleSession, type ConsoleSession } from '../../helpers/consoleSession.ts';
import { adminKubeConfig, clusterImageMissing, k8sAnvilImage, serviceImage, serviceImageSkipReason, testCluster } from '../../helpers/kubernetes.ts';
import { requires } from '../../helpers/requirements.ts';
import { apiOf, consortiumEnv, until } from '../consortium/consortiumApi.ts';

const PEER_IMAGE = 'lnm-fabric-peer:local';
const ORDERER_IMAGE = 'lnm-fabric-orderer:local';
const clusterMissing = (await clusterImageMissing(PEER_IMAGE)) ?? (await clusterImageMissing(ORDERER_IMAGE));
const t = requiresAll(suite('console: a consortium quick start placed on a Kubernetes cluster (Chromium)'), ['chromium', chromiumMissing()], ['kubernetes', clusterMissing], ['fabric', fabricMissing]);
const withAnvil = requires(t, 'kubernetes', (await serviceImageSkipReason()) ?? (await clusterImageMissing(k8sAnvilImage)));
const cluster = testCluster();
const c = () => cluster!.connection;
// The cluster is shared with other engineers' runs: this run's objects carry its own prefix.
const PREFIX = `k8splace${process.pid % 100000}-`;
let server: TestServer;
const api = apiOf(() => server);
let ui: ConsoleSession;
let page: Page;
let hostId = 0;
let apps: k8s.AppsV1Api;

t.before(async () => {
  apps = adminKubeConfig().makeApiClient(k8s.AppsV1Api);
  ui = await startConsoleSession({ server: { env: consortiumEnv({ LNM_NODE_ENGINE: 'process', LNM_IMAGE_FABRIC_PEER: PEER_IMAGE, LNM_IMAGE_FABRIC_ORDERER: ORDERER_IMAGE, LNM_HOST_CHECK_SECONDS: '2', LNM_DOCKER_PREFIX: PREFIX, LNM_IMAGE_SERVICE: serviceImage }) } });
  ({ server, page } = ui);
  const h = await api('POST', '/hosts', { name: 'cluster', kind: 'kubernetes', url: c().server, externalIp: c().nodeAddress, kubernetes: { caCertificate: c().caCertificate, token: c().token, namespace: c().namespace, storageClass: c().storageClass } });
  assert.is(h.status, 201, h.text);
  hostId = h.json.id;
});

t.after(async () => {
  if (!server) return;
  const nodes = ((await api('GET', '/nodes?limit=100')).json?.items ?? []) as Array<{ id: number; name: string }>;
  for (const n of nodes) await api('DELETE', `/nodes/${n.id}?deleteVolume=true`).catch(() => undefined);
  for (const n of nodes) {
    await until(`${n.name} gone from the cluster`, async () => apps.readNamespacedStatefulSet({ name: `${PREFIX}node-${n.id}`, namespace: c().namespace }).then(() => null, () => true), 90_000).catch(() => undefined);
  }
  for (const n of ((await api('GET', '/networks/evm')).json?.items ?? []) as Array<{ id: number }>) await api('DELETE', `/networks/evm/${n.id}`).catch(() => undefined);
  if (hostId) await api('DELETE', `/hosts/${hostId}`).catch(() => undefined);
  await ui.close();
  server.reapNodes();
});

t('the quick start with the cluster chosen: its orderer and peer run there, channel joined, anchor peer set', async () => {
  await ui.signIn();
  await page.getByRole('link', { name: 'Quick start: a consortium network' }).click();
  await page.getByRole('heading', { name: 'Quick start: a consortium network' }).waitFor();
  await page.getByLabel('Network name').fill('k8sqs');
  await page.getByLabel('Channel name').fill('k8sqschannel');
  await page.getByLabel('First organization MSP id').fill('K8sQsMSP');
  await page.getByLabel('Orderers (raft, of the first organization)').fill('1');
  await page.getByLabel('Peers per organization').fill('1');
  const where = page.getByLabel('Where its peers and orderers run');
  assert.match(await where.innerText(), 'Host cluster (Kubernetes cluster, reachable');
  await where.selectOption(String(hostId));
  await ui.accessible('quick start with a host choice');
  await page.getByRole('button', { name: 'Create the network' }).click();
  const steps = page.getByRole('list', { name: 'Quick start steps' });
  await page.getByRole('link', { name: 'Open the network k8sqs' }).waitFor({ timeout: 400_000 });
  const shown = (await steps.locator('li').allInnerTexts()).map((s) => s.replace(/ — .*$/s, ''));
  assert.equal(shown, [
    'Done: Checked: names free, Fabric programs present (nothing made yet)',
    'Done: Organization K8sQsMSP created',
    'Done: Orderer k8sqs-orderer0 started',
    'Done: Peer k8sqs-peer0-k8sqs started',
    'Done: Network k8sqs (channel k8sqschannel) created',
    'Done: Orderer k8sqs-orderer0 joined',
    'Done: Peer k8sqs-peer0-k8sqs joined',
    'Done: Anchor peer of K8sQsMSP set (k8sqs-peer0-k8sqs)',
  ]);
  const nodes = (await api('GET', '/nodes/platform/CONSORTIUM?limit=100')).json.items as Array<{ id: number; name: string; status: string; config: { hostId?: number; externalEndpoint?: string } }>;
  assert.is(nodes.length, 2);
  for (const n of nodes) {
    assert.is(n.config.hostId, hostId, `${n.name} on the cluster`);
    assert.is(n.status, 'running', n.name);
    assert.ok(n.config.externalEndpoint?.startsWith(`${c().nodeAddress}:`), n.config.externalEndpoint);
    const set = await apps.readNamespacedStatefulSet({ name: `${PREFIX}node-${n.id}`, namespace: c().namespace });
    assert.is(set.spec!.replicas, 1, n.name);
  }
});

withAnvil('the EVM network create with the cluster chosen: the placement recorded, its start runs the node there', async () => {
  await page.goto(`${server.url}/networks/evm/new`);
  await page.getByRole('heading', { name: 'Create an EVM network' }).waitFor();
  await page.getByLabel('Name').fill('k8sevm');
  await page.getByLabel('Block period (seconds)').fill('1');
  await page.getByRole('combobox', { name: 'Client' }).selectOption('anvil');
  await page.getByLabel('Where its nodes run').selectOption(String(hostId));
  await ui.accessible('EVM network create with a host choice');
  await page.getByRole('button', { name: 'Create network' }).click();
  await page.getByRole('heading', { name: 'k8sevm' }).first().waitFor({ timeout: 240_000 });
  const net = ((await api('GET', '/networks/evm')).json.items as Array<{ id: number; name: string; placement: unknown }>).find((n) => n.name === 'k8sevm');
  assert.ok(net, 'the network was made');
  assert.equal(net!.placement, { hostId });
  const nodes = (await api('GET', `/networks/evm/${net!.id}/nodes`)).json.items as Array<{ id: number; host_id: number | null }>;
  assert.is(nodes.length, 1);
  assert.is(nodes[0]!.host_id, hostId);
  const set = await apps.readNamespacedStatefulSet({ name: `${PREFIX}node-${nodes[0]!.id}`, namespace: c().namespace });
  assert.is(set.spec!.replicas, 1);
});

t.run();
