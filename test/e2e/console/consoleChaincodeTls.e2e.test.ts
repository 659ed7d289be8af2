// The console's chaincode deploy form with its TLS option and the server's placement, and the
// chaincode server's certificate renewal, in Chromium against real Fabric 2.5 nodes (made over
// the API: one organization, a raft orderer and a peer, the channel joined, its anchor peer).
// The sample is deployed from the form with TLS on (the API's default: tls not sent); the chaincode
// table shows the server's mutual TLS with the certificate's serial and expiry (the API's);
// "Renew" there renews it (a new serial shown, the API's and the one the server presents, the
// chaincode still answers); the server's node page renews it too. The form's TLS switched off and
// its placement set to the registered test cluster (test/k8s/cluster.sh; skipped, saying why,
// without it) are sent as the API takes them (tls false; placement {hostId}), and the API's
// refusal for a version already recorded otherwise is shown. axe-core checks the page.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page, Request } from 'playwright-core';
import type { TestServer } from '../../helpers/server.ts';
import { fabricMissing } from '../../helpers/fabric.ts';
import { requires, requiresAll } from '../../helpers/requirements.ts';
import { freePortBlock } from '../../helpers/ports.ts';
import { chromiumMissing, axeViolations, describeViolations } from '../../helpers/browser.ts';
import { startConsoleSession, type ConsoleSession } from '../../helpers/consoleSession.ts';
import { kubernetesSkipReason, testCluster } from '../../helpers/kubernetes.ts';
import { apiOf, consortiumEnv, hexSerial, installedConnection, oneOrganizationChannel, presentedCertificate, removeConsortiumNodes } from '../consortium/consortiumApi.ts';

const t = requiresAll(suite('console: chaincode deploy with TLS and placement, server certificate renewal (real Fabric, Chromium)'), ['chromium', chromiumMissing()], ['fabric', fabricMissing]);
/** The placement choice lists registered Kubernetes clusters only: it needs the test cluster registered as a host. */
const withCluster = requires(t, 'kubernetes', await kubernetesSkipReason());
let server: TestServer;
const api = apiOf(() => server);
let ui: ConsoleSession;
let page: Page;
let network: any;
let peer: any;
let deployed: any;
let hostId = 0;

const deployBody = (r: Request) => JSON.parse(r.postData() ?? '{}');
const chaincode = async (name: string) => (await api('GET', `/sc/consortium/chaincodes?networkId=${network.id}&name=${name}`)).json.items[0];

t.before(async () => {
  // Its own block of chaincode server ports: the default range is shared with every other consortium test on this machine.
  ui = await startConsoleSession({ server: { env: consortiumEnv({ LNM_CHAINCODE_PORT_FROM: String(await freePortBlock(Array.from({ length: 6 }, (_, i) => i))) }) } });
  ({ server, page } = ui);
});

t.after(async () => {
  if (!server) return;
  await removeConsortiumNodes(api, server.dataDir);
  if (hostId) await api('DELETE', `/hosts/${hostId}`).catch(() => undefined);
  await ui.close();
  server.reapNodes();
});

t('the sample deployed from the form with TLS on: the request leaves tls to its default (on), the table shows the server\'s mutual TLS and its certificate\'s expiry', async () => {
  ({ network, peer } = await oneOrganizationChannel(api, 'tlsnet', 'tlschannel'));
  await ui.signIn();
  await page.goto(`${server.url}/networks/consortium/${network.id}`);
  const deploy = page.getByRole('form', { name: 'Deploy a chaincode' });
  await deploy.getByLabel('Chaincode name').fill('tlsassets');
  await deploy.getByLabel('Version').fill('1.0');
  const tlsBox = deploy.getByLabel('Mutual TLS between the peers and the chaincode server');
  assert.ok(await tlsBox.isChecked(), 'TLS is on by default');
  const sent = page.waitForRequest((r) => r.url().endsWith('/api/v1/sc/consortium/deploy') && r.method() === 'POST');
  await deploy.getByRole('button', { name: 'Deploy sample' }).click();
  const body = deployBody(await sent);
  assert.is(body.tls, undefined, 'TLS on: the API\'s default, not sent');
  assert.is(body.placement, undefined, 'no placement chosen: none sent');
  await deploy.getByRole('status').getByText(/commit committed, server running/).waitFor({ timeout: 240_000 });
  deployed = await chaincode('tlsassets');
  assert.ok(deployed.server_tls, JSON.stringify(deployed));
  const cell = page.getByTestId(`server-tls-${deployed.id}`);
  await cell.getByText(deployed.server_tls.server_certificate.serial_number, { exact: true }).waitFor({ timeout: 30_000 });
  assert.match(await cell.innerText(), /^mutual TLS, certificate .+ expires .+ valid; peers' client certificate expires /);
  assert.is(await cell.locator('time').first().getAttribute('datetime'), deployed.server_tls.server_certificate.not_after);
  const v = await axeViolations(page);
  assert.is(v.length, 0, describeViolations(v));
});

t('"Renew" in the chaincode table: the new serial and expiry shown, the API\'s and the one the server presents; the chaincode still answers', async () => {
  assert.ok(deployed, 'the deploy of the first test');
  const old = deployed.server_tls.server_certificate.serial_number;
  await page.getByRole('button', { name: 'Renew the server certificate of tlsassets 1.0' }).click();
  const confirm = page.getByRole('group', { name: 'Renew the TLS certificate of the server of tlsassets 1.0' });
  await confirm.getByText(/The server restarts to serve it/).waitFor();
  await ui.accessible('the renewal confirmation');
  await confirm.getByRole('button', { name: 'Renew now' }).click();
  const done = confirm.getByRole('status');
  await done.waitFor({ timeout: 120_000 });
  const shownSerial = await done.getByTestId('renewed-serial').innerText();
  assert.match(await done.innerText(), /the server is running\.$/);
  const now = await chaincode('tlsassets');
  assert.is(shownSerial, now.server_tls.server_certificate.serial_number);
  assert.is.not(shownSerial, old);
  await page.getByTestId(`server-tls-${deployed.id}`).getByText(shownSerial, { exact: true }).waitFor({ timeout: 30_000 });
  const connection = await installedConnection(server.dataDir, peer.id, deployed.package_id);
  const address = (await api('GET', `/nodes/${deployed.server_node_id}`)).json.config.address;
  assert.is(hexSerial((await presentedCertificate(address, connection)).serialNumber), hexSerial(shownSerial));
  const inv = await api('POST', `/sc/consortium/chaincodes/${deployed.id}/invoke`, { function: 'CreateAsset', args: ['renewed', 'blue', '1', 'Ana', '1'] });
  assert.is(inv.status, 200, inv.text);
  await confirm.getByRole('button', { name: 'Close' }).click();
  await confirm.waitFor({ state: 'detached' });
});

t('the server\'s node page shows its TLS certificate and renews it from its chaincode', async () => {
  assert.ok(deployed, 'the deploy of the first test');
  const before = (await chaincode('tlsassets')).server_tls.server_certificate.serial_number;
  await page.goto(`${server.url}/nodes/${deployed.server_node_id}`);
  await page.getByTestId('serial-TLS').getByText(before, { exact: true }).waitFor({ timeout: 30_000 });
  await page.getByRole('button', { name: 'Renew server certificate' }).click();
  const confirm = page.getByRole('group', { name: /^Renew the TLS certificate of chaincode server / });
  await confirm.getByRole('button', { name: 'Renew now' }).click();
  const shown = await confirm.getByRole('status').getByTestId('renewed-serial').innerText({ timeout: 120_000 });
  assert.is.not(shown, before);
  assert.is(shown, (await chaincode('tlsassets')).server_tls.server_certificate.serial_number);
  await page.getByTestId('serial-TLS').getByText(shown, { exact: true }).waitFor({ timeout: 30_000 });
});

t('TLS switched off in the form is sent as tls false; the API\'s refusal for a version recorded with TLS is shown', async () => {
  assert.ok(deployed, 'the deploy of the first test');
  await page.goto(`${server.url}/networks/consortium/${network.id}`);
  const deploy = page.getByRole('form', { name: 'Deploy a chaincode' });
  await deploy.getByLabel('Chaincode name').fill('tlsassets');
  await deploy.getByLabel('Version').fill('1.0');
  await deploy.getByLabel('Mutual TLS between the peers and the chaincode server').uncheck();
  await deploy.getByText(/Plain text: only for a chaincode server that cannot take TLS/).waitFor();
  const sent = page.waitForRequest((r) => r.url().endsWith('/api/v1/sc/consortium/deploy') && r.method() === 'POST');
  await deploy.getByRole('button', { name: 'Deploy sample' }).click();
  assert.is(deployBody(await sent).tls, false);
  await deploy.getByRole('alert').getByText(/already has tlsassets version 1\.0 with other source, policy, TLS setting or placement/).waitFor({ timeout: 60_000 });
  assert.is((await api('GET', `/sc/consortium/chaincodes?networkId=${network.id}`)).json.total, 1, 'nothing recorded');
});

withCluster('the server\'s placement offers the registered Kubernetes cluster and sends placement {hostId}; the refusal for a version placed otherwise is shown', async () => {
  assert.ok(deployed, 'the deploy of the first test');
  const c = testCluster()!.connection;
  const h = await api('POST', '/hosts', { name: `ccrenew-cluster-${process.pid}`, kind: 'kubernetes', url: c.server, externalIp: c.nodeAddress, kubernetes: { caCertificate: c.caCertificate, token: c.token, namespace: c.namespace, storageClass: c.storageClass } });
  assert.is(h.status, 201, h.text);
  hostId = h.json.id;
  await page.goto(`${server.url}/networks/consortium/${network.id}`);
  const deploy = page.getByRole('form', { name: 'Deploy a chaincode' });
  const where = deploy.getByLabel('Where its chaincode server runs');
  await where.waitFor({ timeout: 30_000 });
  const options = await where.locator('option').allInnerTexts();
  assert.is(options[0], "With the organization's peers (their cluster, else this machine)");
  assert.ok(options.some((o) => o.startsWith(`Host ccrenew-cluster-${process.pid} (Kubernetes cluster`)), options.join(' | '));
  assert.not.ok(options.includes('A host picked by labels'), 'a chaincode server is placed on a cluster by its id only');
  await where.selectOption(String(hostId));
  await deploy.getByLabel('Chaincode name').fill('tlsassets');
  await deploy.getByLabel('Version').fill('1.0');
  const sent = page.waitForRequest((r) => r.url().endsWith('/api/v1/sc/consortium/deploy') && r.method() === 'POST');
  await deploy.getByRole('button', { name: 'Deploy sample' }).click();
  const body = deployBody(await sent);
  assert.equal(body.placement, { hostId });
  assert.is(body.tls, undefined);
  await deploy.getByRole('alert').getByText(/already has tlsassets version 1\.0 with other source, policy, TLS setting or placement/).waitFor({ timeout: 60_000 });
  assert.is((await api('GET', `/sc/consortium/chaincodes?networkId=${network.id}`)).json.total, 1, 'nothing recorded');
  await ui.accessible('the deploy form with a placement');
});

t.run();
