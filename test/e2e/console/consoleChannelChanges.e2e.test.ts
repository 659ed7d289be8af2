// The console's channel changes of issue 37 items 4 and 7 (item 9) in Chromium on the real Fabric
// 2.5 and 3.1 releases side by side (LNM_FABRIC_RELEASES; a counted skip without both, or without
// Chromium): a channel of Org1MSP with one raft orderer and one peer, both made on 2.5 over the API.
// From the network page: the raft options changed, a value Fabric would refuse first (said beside
// its field, nothing submitted); a new intermediate CA (with the root it chains to) added to
// Org1MSP's MSP (the section says how many CAs the channel holds for it, before and after); the
// orderer organization's endpoints set (its endpoints in the channel shown beside it). Each shows the dry run's diff before
// Submit, and the dry run submits nothing (the config sequence is unchanged). Then the orderer is
// upgraded 2.5 -> 3.1 from its node page (its page and its own /version say 3.1 after); channel
// capability V3_0 is refused while the peer runs 2.5 (the page lists the peer with its release),
// the peer is upgraded the same way, and V3_0 is accepted. The channel commits after the changes.
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import type { TestServer } from '../../helpers/server.ts';
import { fabricReleaseOf } from '../../helpers/programs.ts';
import { testOrganization } from '../../helpers/fabric.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { chromiumMissing } from '../../helpers/browser.ts';
import type { ConsoleSession } from '../../helpers/consoleSession.ts';
import { apiOf, channelCommits, consortiumEnv, oneOrganizationChannel } from '../consortium/consortiumApi.ts';
import { shownDiff, submitChange } from './configChangePanel.ts';
import { issueCertificate } from '../../../adapters/x509/certificateBuilder.ts';
import { organizationCaProfile } from '../../../adapters/x509/certificateProfiles.ts';
import { fabricConsoleSession } from './fabricConsole.ts';

const r25 = fabricReleaseOf('2.5');
const r31 = fabricReleaseOf('3.1');
const t = requiresAll(suite('console: capabilities, raft options, MSP, orderer endpoints and the rolling upgrade (real Fabric 2.5 and 3.1, Chromium)'), ['chromium', chromiumMissing()], ['fabric-releases', !r25.ok ? r25.reason : !r31.ok ? r31.reason : undefined]);
const v25 = r25.ok ? r25.release.version : '';
const v31 = r31.ok ? r31.release.version : '';
let server: TestServer;
const api = apiOf(() => server);
let ui: ConsoleSession;
let page: Page;
let setup: Awaited<ReturnType<typeof oneOrganizationChannel>>;
const channel = 'govui';
const configPath = () => `/networks/${setup.network.id}/channels/${channel}/config`;

async function channelConfig(): Promise<{ sequence: number; config: any }> {
  const r = await api('GET', configPath());
  assert.is(r.status, 200, r.text);
  return r.json;
}
const height = async () => {
  const r = await api('GET', `/networks/consortium/${setup.network.id}/info`);
  return r.status === 200 ? Number(r.json.height) : null;
};
/** The channel orders: an anchor peer update commits a config block the peer then has. */
const commits = channelCommits(api, () => setup.network.id, 'Org1MSP', () => setup.peer.config.port, height);
const networkPage = () => page.goto(`${server.url}/networks/consortium/${setup.network.id}`);

/** What the node's own operations endpoint says it runs. */
async function runningVersion(operationsPort: number): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${operationsPort}/version`);
  return ((await res.json()) as { Version: string }).Version;
}

/** A node upgraded to 3.1 from its page: the release picked, the confirmation, the answer; its page says 3.1 after. */
async function upgradeFromConsole(node: { id: number; name: string; config: { operationsPort: number } }) {
  await page.goto(`${server.url}/nodes/${node.id}`);
  await page.getByTestId('node-fabric-version').getByText(v25, { exact: true }).waitFor({ timeout: 30_000 });
  await page.getByLabel('Upgrade to').selectOption({ label: `Fabric ${v31}` });
  await page.getByRole('button', { name: 'Upgrade', exact: true }).click();
  const confirm = page.getByRole('group', { name: 'Confirm upgrade' });
  assert.match(await confirm.innerText(), new RegExp(`switch it from Fabric ${v25.replace(/\./g, '\\.')} to ${v31.replace(/\./g, '\\.')}`));
  await confirm.getByRole('button', { name: 'Upgrade now' }).click();
  const done = page.getByRole('status').filter({ hasText: `Upgraded to Fabric ${v31}` });
  await done.or(page.getByRole('alert')).first().waitFor({ timeout: 300_000 });
  if (!(await done.count())) assert.unreachable(`upgrade refused: ${await page.getByRole('alert').first().innerText()}`);
  await page.getByTestId('node-fabric-version').getByText(v31, { exact: true }).waitFor({ timeout: 30_000 });
  assert.is((await api('GET', `/nodes/${node.id}`)).json.fabric_version, v31);
  assert.is(await runningVersion(node.config.operationsPort), v31);
}

fabricConsoleSession(t, () => consortiumEnv({ LNM_FABRIC_RELEASES: `${r25.ok && r25.release.binDir}:${r31.ok && r31.release.binDir}`, LNM_NODE_ENGINE: 'process' }), (s) => ({ ui, server, page } = s));

t('raft options: the current values shown; a heartbeat tick not below the election tick is said beside the election tick, nothing submitted; then a change shown as a diff and submitted', async () => {
  // Made in the test, not in before (uvu drops a before hook's error).
  setup = await oneOrganizationChannel(api, 'gov-ui', channel, { fabricVersion: v25 });
  await ui.signIn();
  await networkPage();
  const shown = page.getByTestId('raft-options');
  await shown.waitFor({ timeout: 90_000 });
  assert.is(await page.getByTestId('raft-electionTick').innerText(), '10');
  assert.is(await page.getByTestId('raft-heartbeatTick').innerText(), '1');
  assert.is(await page.getByTestId('raft-maxInflightBlocks').innerText(), '5');
  assert.is(await page.getByTestId('raft-tickInterval').innerText(), '500ms');
  const before = await channelConfig();

  const form = page.getByRole('form', { name: 'Change the raft options' });
  await form.getByLabel(/\(heartbeatTick\)/).fill('10');
  await form.getByRole('button', { name: 'Preview the raft options change' }).click();
  const fieldError = page.getByTestId('field-error-raftOptions.electionTick');
  await fieldError.waitFor({ timeout: 60_000 });
  assert.match(await fieldError.innerText(), /heartbeat/i);
  assert.is(await form.getByLabel(/\(electionTick\)/).getAttribute('aria-invalid'), 'true');
  assert.is(await page.getByTestId('config-diff').count(), 0, 'no diff for a refused change');
  await ui.accessible('the raft options form with a refused field');
  assert.is((await channelConfig()).sequence, before.sequence, 'nothing submitted');

  await form.getByLabel(/\(heartbeatTick\)/).fill('1');
  await form.getByLabel(/\(maxInflightBlocks\)/).fill('7');
  await form.getByRole('button', { name: 'Preview the raft options change' }).click();
  const change = page.getByRole('form', { name: `Change the raft options of channel ${channel}` });
  const diff = await shownDiff(change);
  assert.equal(diff.map(([p, b, a]) => [p.replace(/^.*metadata\./, ''), b, a]), [['options.max_inflight_blocks', '5', '7']]);
  assert.is(await fieldError.count(), 0, 'the field error is gone');
  assert.is((await channelConfig()).sequence, before.sequence, 'the dry run submitted nothing');
  assert.match(await submitChange(change), /^Updated: configuration sequence \d+, block \d+, signed by Org1MSP\.$/);
  const after = await channelConfig();
  assert.equal(after.config.channel_group.groups.Orderer.values.ConsensusType.value.metadata.options, { election_tick: 10, heartbeat_tick: 1, max_inflight_blocks: 7, snapshot_interval_size: 16 * 1024 * 1024, tick_interval: '500ms' });
  await page.getByTestId('raft-maxInflightBlocks').getByText('7', { exact: true }).waitFor({ timeout: 30_000 });
  await commits('after the raft options change');
});

t('the MSP of Org1MSP: a new intermediate CA (and the root it chains to) pasted, the diff seen first, then submitted; the channel holds them', async () => {
  assert.ok(setup, 'the channel of the first test');
  const now = new Date();
  const root = await testOrganization('Org1MSP', 'neworg1.example.com');
  const key = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
  const intermediate = await issueCertificate({ ...organizationCaProfile({ domain: 'int.org1.example.com' }, now, 5), isCa: true }, createPublicKey(key).export({ type: 'spki', format: 'pem' }).toString(), { certificatePem: root.signCa.certPem, signer: root.signCa.signer });
  const before = await channelConfig();
  await networkPage();
  const section = page.getByRole('region', { name: 'Update an organization\'s MSP' });
  // What the channel holds for Org1MSP now, said before the change.
  await section.getByTestId('msp-now').getByText(/^Now in the channel: 1 root CA, no intermediate CAs, /).waitFor({ timeout: 60_000 });
  await section.getByLabel('Root CA certificates to add').fill(root.signCa.certPem);
  await section.getByLabel('Intermediate CA certificates to add').fill(intermediate.pem);
  await section.getByRole('button', { name: 'Preview the update' }).click();
  const change = page.getByRole('form', { name: `Update the MSP of Org1MSP in channel ${channel}` });
  const diff = await shownDiff(change);
  assert.ok(diff.some(([p, b]) => p.endsWith('Org1MSP.values.MSP.value.config.intermediate_certs[]') && b === '—'), JSON.stringify(diff));
  assert.ok(diff.some(([p, b]) => p.endsWith('Org1MSP.values.MSP.value.config.root_certs[]') && b === '—'), JSON.stringify(diff));
  assert.is((await channelConfig()).sequence, before.sequence, 'the dry run submitted nothing');
  await ui.accessible('an MSP update shown as a dry run');
  assert.match(await submitChange(change), /^Updated: configuration sequence \d+, block \d+, signed by Org1MSP\.$/);
  const msp = (await channelConfig()).config.channel_group.groups.Application.groups.Org1MSP.values.MSP.value.config;
  assert.equal(msp.intermediate_certs.map((b: string) => Buffer.from(b, 'base64').toString().trim()), [intermediate.pem.trim()]);
  assert.is(msp.root_certs.length, 2);
  await section.getByTestId('msp-now').getByText(/^Now in the channel: 2 root CAs, 1 intermediate CA, /).waitFor({ timeout: 30_000 });
  await change.getByRole('button', { name: 'Close' }).click();
  await commits('after the MSP update');
});

t('the orderer organization\'s endpoints set from the page: the diff first, then submitted; the channel has them', async () => {
  assert.ok(setup, 'the channel of the first test');
  const port = setup.orderer.config.port;
  const before = await channelConfig();
  await networkPage();
  const was: string[] = before.config.channel_group.groups.Orderer.groups.Org1MSP.values.Endpoints?.value.addresses ?? [];
  const shownNow = page.getByTestId('orderer-endpoints-Org1MSP');
  await shownNow.getByText(was.join(', ') || 'no endpoints of its own', { exact: true }).waitFor({ timeout: 60_000 });
  await page.getByLabel('Endpoints of Org1MSP').fill(`127.0.0.1:${port}, localhost:${port}`);
  await page.getByRole('button', { name: 'Set endpoints' }).click();
  const change = page.getByRole('form', { name: 'Set the orderer endpoints of Org1MSP' });
  const diff = await shownDiff(change);
  assert.ok(diff.some(([p, b, a]) => p.endsWith('Org1MSP.values.Endpoints.value.addresses[]') && b === '—' && a === JSON.stringify(`localhost:${port}`)), JSON.stringify(diff));
  assert.is((await channelConfig()).sequence, before.sequence, 'the dry run submitted nothing');
  assert.match(await submitChange(change), /^Updated: configuration sequence \d+, block \d+, signed by Org1MSP\.$/);
  assert.equal((await channelConfig()).config.channel_group.groups.Orderer.groups.Org1MSP.values.Endpoints.value.addresses, [`127.0.0.1:${port}`, `localhost:${port}`]);
  await shownNow.getByText(`127.0.0.1:${port}, localhost:${port}`, { exact: true }).waitFor({ timeout: 30_000 });
  await change.getByRole('button', { name: 'Close' }).click();
  await commits('after the endpoints change');
});

t('the orderer upgraded to 3.1 from its page; channel V3_0 then refused naming the 2.5 peer; the peer upgraded; V3_0 accepted (diff first)', async () => {
  assert.ok(setup, 'the channel of the first test');
  await upgradeFromConsole(setup.orderer);
  await commits('after the orderer runs 3.1');

  await networkPage();
  await page.getByTestId('capability-channel').getByText('V2_0', { exact: true }).waitFor({ timeout: 90_000 });
  assert.is(await page.getByTestId('capability-application').innerText(), 'V2_5');
  const before = await channelConfig();
  const form = page.getByRole('form', { name: 'Raise the capabilities' });
  // Never lowered: the levels below the channel's are not offered.
  assert.equal(await form.getByLabel('Channel (/Channel)').locator('option').allInnerTexts(), ['V2_0 (now)', 'V3_0']);
  await form.getByLabel('Channel (/Channel)').selectOption('V3_0');
  await form.getByRole('button', { name: 'Preview the capability change' }).click();
  const refused = page.getByTestId('capability-refused');
  await refused.waitFor({ timeout: 60_000 });
  assert.equal(await refused.getByTestId('nodes-below-v3').getByRole('listitem').allInnerTexts(), [`${setup.peer.name} (peer, Fabric ${v25})`]);
  assert.is((await channelConfig()).sequence, before.sequence, 'nothing submitted');
  await ui.accessible('a capability refused naming the nodes below 3.0');

  await upgradeFromConsole(setup.peer);
  await networkPage();
  await form.getByLabel('Channel (/Channel)').selectOption('V3_0');
  await form.getByRole('button', { name: 'Preview the capability change' }).click();
  const change = page.getByRole('form', { name: `Raise the capabilities of channel ${channel}` });
  const diff = await shownDiff(change);
  assert.equal(diff, [
    ['channel_group.values.Capabilities.value.capabilities.V2_0', '{}', '—'],
    ['channel_group.values.Capabilities.value.capabilities.V3_0', '—', '{}'],
  ]);
  assert.is((await channelConfig()).sequence, before.sequence, 'the dry run submitted nothing');
  assert.match(await submitChange(change), /^Updated: configuration sequence \d+, block \d+, signed by Org1MSP\.$/);
  assert.equal(Object.keys((await channelConfig()).config.channel_group.values.Capabilities.value.capabilities), ['V3_0']);
  await page.getByTestId('capability-channel').getByText('V3_0', { exact: true }).waitFor({ timeout: 30_000 });
  await commits('after V3_0');
});

t.run();
