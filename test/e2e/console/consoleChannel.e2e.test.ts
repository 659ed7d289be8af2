// The consortium network's channel configuration page and a node's certificates in Chromium
// against real Fabric 2.5 nodes (two organizations, one orderer, a peer each, made over the
// API): the page shows the channel's organizations, anchor peers and policies as the orderer
// serves them; an anchor-peer change, an organization added and a policy change are sent from
// the page, each first saying whose admin signatures it needs, and the API's config agrees; a
// batch timeout and preferred block size changed from the page are in the orderer's config
// afterwards (a preferred size above the absolute is refused, said); a
// change whose policy names an organization the service does not hold is refused (409) and the
// page says so in words; a peer's certificates are renewed from its page (new serials, the node
// running again). axe-core checks the pages.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import type { TestServer } from '../../helpers/server.ts';
import { fabricMissing } from '../../helpers/fabric.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { chromiumMissing, screenshot } from '../../helpers/browser.ts';
import { startConsoleSession, type ConsoleSession } from '../../helpers/consoleSession.ts';
import { apiOf, consortiumEnv, organization, removeConsortiumNodes, twoOrganizationChannel, until } from '../consortium/consortiumApi.ts';

const t = requiresAll(suite('console: channel configuration and node certificates (real Fabric, Chromium)'), ['chromium', chromiumMissing()], ['fabric', fabricMissing]);
let server: TestServer;
const api = apiOf(() => server);
let ui: ConsoleSession;
let page: Page;
let made: Awaited<ReturnType<typeof twoOrganizationChannel>>;

const accessible = (what: string) => ui.accessible(what);

/** The change's answer: "Updated: ..." (an error shown instead fails with its text). */
async function outcome(form: ReturnType<Page['getByRole']>) {
  const shown = form.getByTestId('change-outcome').or(form.getByRole('alert'));
  await shown.waitFor({ timeout: 60_000 });
  assert.match(await shown.innerText(), /^Updated: configuration sequence \d+/);
}

const config = async () => (await api('GET', `/networks/consortium/${made.network.id}/channel-config`)).json;
const application = async () => (await config()).config.channel_group.groups.Application;

t.before(async () => {
  ui = await startConsoleSession({ server: { env: consortiumEnv() } });
  ({ server, page } = ui);
  made = await twoOrganizationChannel(api, 'console-config-net', 'configchannel');
  await organization(api, 'Org3', 'Org3MSP');
  await ui.signIn();
});

t.after(async () => {
  if (!server) return;
  await removeConsortiumNodes(api, server.dataDir);
  await ui.close();
  server.reapNodes();
});

t('the channel configuration as the orderer serves it; anchor peers set from the page after it says whose signature they need', async () => {
  await page.goto(`${server.url}/networks/consortium/${made.network.id}`);
  await page.getByRole('heading', { name: 'Channel configuration' }).waitFor();
  await page.getByTestId('anchors-Org1MSP').getByText(`127.0.0.1:${made.peer1.config.port}`).waitFor({ timeout: 60_000 });
  await page.getByTestId('policy-Admins').getByText('ImplicitMeta: MAJORITY Admins').waitFor();
  const before = (await config()).sequence;
  assert.is(await page.getByTestId('config-sequence').innerText(), String(before));

  const form = page.getByRole('form', { name: 'Set anchor peers' });
  await form.getByLabel('Organization').selectOption('Org2MSP');
  await form.getByTestId('signatures-needed').getByText("Needs /Channel/Application/Org2MSP/Admins (OutOf(1, 'Org2MSP.admin')), admins of Org2MSP: this service signs for Org2MSP, enough.").waitFor();
  await form.getByLabel(/Anchor peers/).fill(`127.0.0.1:${made.peer2.config.port}\npeer9.org2.example:7051`);
  await accessible('channel configuration');
  await form.getByRole('button', { name: 'Set anchor peers' }).click();
  await form.getByTestId('change-outcome').getByText(`Updated: configuration sequence ${before + 1}`, { exact: false }).waitFor({ timeout: 60_000 });
  const anchors = (await application()).groups.Org2MSP.values.AnchorPeers.value.anchor_peers;
  assert.equal(anchors, [{ host: '127.0.0.1', port: made.peer2.config.port }, { host: 'peer9.org2.example', port: 7051 }]);
  await page.getByTestId('anchors-Org2MSP').getByText('peer9.org2.example:7051', { exact: false }).waitFor({ timeout: 30_000 });
});

t('the orderer\'s batch settings shown and changed from the page (batch timeout, preferred size): in the channel config afterwards; a preferred size above the absolute is a 400 said', async () => {
  const orderer = async () => (await config()).config.channel_group.groups.Orderer.values;
  const before = await orderer();
  await page.getByTestId('batch-timeout').getByText(before.BatchTimeout.value.timeout, { exact: true }).waitFor();
  assert.is(await page.getByTestId('batch-max-message-count').innerText(), String(before.BatchSize.value.max_message_count));
  const change = page.getByRole('region', { name: 'Change the configuration' });
  await change.getByRole('button', { name: 'Batch settings' }).click();
  const form = page.getByRole('form', { name: 'Change the batch settings' });
  const timeout = before.BatchTimeout.value.timeout === '750ms' ? '900ms' : '750ms';
  await form.getByLabel(/^Batch timeout/).fill(timeout);
  await form.getByLabel(/^Preferred max bytes/).fill(String(before.BatchSize.value.absolute_max_bytes + 1024));
  await form.getByTestId('signatures-needed').getByText(/^Needs \/Channel\/Orderer\/Admins \(MAJORITY Admins\), admins of .+: this service signs for .+, enough\.$/).waitFor();
  await accessible('batch settings');
  const sequence = (await config()).sequence;
  await form.getByRole('button', { name: 'Change the batch settings' }).click();
  const refused = form.getByRole('alert');
  await refused.waitFor({ timeout: 60_000 });
  assert.match(await refused.innerText(), /preferred batch size \(\d+ bytes\) must not exceed the absolute maximum/);
  assert.is((await config()).sequence, sequence, 'nothing was submitted');

  const preferred = before.BatchSize.value.preferred_max_bytes === 1024 * 1024 ? 2 * 1024 * 1024 : 1024 * 1024;
  await form.getByLabel(/^Preferred max bytes/).fill(String(preferred));
  await form.getByRole('button', { name: 'Change the batch settings' }).click();
  await outcome(form);
  const after = await orderer();
  assert.is(after.BatchTimeout.value.timeout, timeout, 'the batch timeout is in the channel config');
  assert.is(after.BatchSize.value.preferred_max_bytes, preferred);
  assert.is(after.BatchSize.value.max_message_count, before.BatchSize.value.max_message_count, 'what was not changed is kept');
  assert.is(after.BatchSize.value.absolute_max_bytes, before.BatchSize.value.absolute_max_bytes);
  await page.getByTestId('batch-timeout').getByText(timeout, { exact: true }).waitFor({ timeout: 30_000 });
});

t('an organization added from the page (a majority of the admins signs), then a policy changed', async () => {
  const change = page.getByRole('region', { name: 'Change the configuration' });
  await change.getByRole('button', { name: 'Add organizations' }).click();
  const form = page.getByRole('form', { name: 'Add organizations' });
  await form.getByLabel(/Org3MSP/).check();
  await form.getByTestId('signatures-needed').getByText('Needs /Channel/Application/Admins (MAJORITY Admins), admins of Org1MSP, Org2MSP: this service signs for Org1MSP, Org2MSP, enough.').waitFor();
  await form.getByRole('button', { name: 'Add to the channel' }).click();
  await outcome(form);
  assert.ok((await application()).groups.Org3MSP, 'Org3MSP is in the channel');

  // Admins then names only the new organization: allowed now (a majority of the admins signs).
  await change.getByRole('button', { name: 'A policy' }).click();
  const policy = page.getByRole('form', { name: 'Change a policy' });
  await policy.getByLabel(/^Policy/).selectOption('Admins');
  await policy.getByLabel(/^Type/).selectOption('Signature');
  await policy.getByLabel(/^Rule/).fill("OR('Org3MSP.admin')");
  await policy.getByTestId('signatures-needed').getByText('admins of Org1MSP, Org2MSP, Org3MSP: this service signs for Org1MSP, Org2MSP, Org3MSP, enough.', { exact: false }).waitFor();
  await policy.getByRole('button', { name: 'Set Admins' }).click();
  await outcome(policy);
  assert.equal((await application()).policies.Admins.policy.value.identities[0].principal.msp_identifier, 'Org3MSP');
  await page.getByTestId('policy-Admins').getByText("Signature: OutOf(1, 'Org3MSP.admin')").waitFor({ timeout: 30_000 });
});

t('a rule naming an organization that is not in the channel: refused beside the rule, nothing submitted', async () => {
  // A channel whose Admins only an absent organization could satisfy could never be changed again:
  // the service refuses such a rule (400 naming the organization) before anything is signed.
  const policy = page.getByRole('form', { name: 'Change a policy' });
  await policy.getByLabel(/^Policy/).selectOption('Writers');
  await policy.getByLabel(/^Type/).selectOption('Signature');
  await policy.getByLabel(/^Rule/).fill("OR('Org9MSP.member')");
  await policy.getByTestId('signatures-needed').getByText("Needs /Channel/Application/Admins (OutOf(1, 'Org3MSP.admin')), admins of Org3MSP: this service signs for Org3MSP, enough.").waitFor();
  const sequence = (await config()).sequence;
  await policy.getByRole('button', { name: 'Set Writers' }).click();
  const refused = policy.getByTestId('field-error-policies.Writers.rule');
  await refused.waitFor({ timeout: 60_000 });
  assert.match(await refused.innerText(), /Org9MSP/);
  assert.is((await config()).sequence, sequence, 'nothing was submitted');
  assert.is((await application()).policies.Writers.policy.type, 3, 'Writers is still the ImplicitMeta policy');
  await accessible('a refused change');
  await screenshot(page, 'channel-config');
});

t('a peer\'s certificates renewed from its page: new serial numbers, the peer running again', async () => {
  await page.goto(`${server.url}/nodes/${made.peer1.id}`);
  await page.getByRole('heading', { name: 'Certificates' }).waitFor();
  const serial = page.getByTestId('serial-identity');
  await serial.waitFor();
  const before = [await serial.innerText(), await page.getByTestId('serial-TLS').innerText()];
  await page.getByRole('button', { name: 'Renew certificates' }).click();
  await page.getByRole('group', { name: 'Confirm renewal' }).getByText('it restarts to serve them', { exact: false }).waitFor();
  await page.getByRole('button', { name: 'Renew now' }).click();
  await page.getByRole('status').getByText('Renewed 2 certificates; the node is running.').waitFor({ timeout: 120_000 });
  await until('new serials on the page', async () => ((await serial.innerText()) !== before[0] && (await page.getByTestId('serial-TLS').innerText()) !== before[1] ? true : null), 30_000);
  const identity = (await api('GET', `/keys/${made.peer1.identity_key_id}`)).json;
  assert.is(identity.certificate.serialNumber, await serial.innerText());
  await accessible('node certificates');
  await page.getByRole('heading', { name: 'Certificates' }).evaluate((el) => (el as unknown as { scrollIntoView(): void }).scrollIntoView());
  await screenshot(page, 'node-certificates');
});

t.run();
