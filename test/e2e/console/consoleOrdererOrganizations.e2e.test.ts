// The console's orderer organization actions (issue 37 item 9 for item 4) in Chromium on real
// Fabric 2.5 (a counted skip without Fabric or Chromium): a channel of Org1MSP with one raft
// orderer and one peer, made over the API, and Org2MSP an organization of this service only.
// From the network page: an endpoint that is not host:port is refused in words (nothing
// submitted); Org2MSP is added as orderer organization with its orderer endpoints (the dry run's
// diff and whose admins sign first, the config sequence unchanged by it), then listed with its
// endpoints; then removed the same way, and no longer listed. The channel commits after each.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import type { TestServer } from '../../helpers/server.ts';
import { fabricMissing } from '../../helpers/fabric.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { chromiumMissing } from '../../helpers/browser.ts';
import type { ConsoleSession } from '../../helpers/consoleSession.ts';
import { apiOf, channelCommits, consortiumEnv, oneOrganizationChannel, organization } from '../consortium/consortiumApi.ts';
import { shownDiff, submitChange } from './configChangePanel.ts';
import { fabricConsoleSession } from './fabricConsole.ts';

const t = requiresAll(suite('console: an orderer organization added and removed (real Fabric 2.5, Chromium)'), ['chromium', chromiumMissing()], ['fabric', fabricMissing]);
let server: TestServer;
const api = apiOf(() => server);
let ui: ConsoleSession;
let page: Page;
let setup: Awaited<ReturnType<typeof oneOrganizationChannel>>;
const channel = 'ordorgui';

async function channelConfig(): Promise<{ sequence: number; config: any }> {
  const r = await api('GET', `/networks/${setup.network.id}/channels/${channel}/config`);
  assert.is(r.status, 200, r.text);
  return r.json;
}
const height = async () => {
  const r = await api('GET', `/networks/consortium/${setup.network.id}/info`);
  return r.status === 200 ? Number(r.json.height) : null;
};
const commits = channelCommits(api, () => setup.network.id, 'Org1MSP', () => setup.peer.config.port, height);
const ordererOrganizations = async () => (await api('GET', `/networks/consortium/${setup.network.id}`)).json.orderer_organizations.map((o: { msp_id: string }) => o.msp_id);

fabricConsoleSession(t, () => consortiumEnv(), (s) => ({ ui, server, page } = s));

t('Org2MSP added as orderer organization from the page (a bad endpoint refused in words first; the diff and signers before Submit), listed with its endpoints, then removed the same way', async () => {
  // Made in the test, not in before (uvu drops a before hook's error).
  setup = await oneOrganizationChannel(api, 'ordorg-ui', channel);
  await organization(api, 'Org2', 'Org2MSP');
  await ui.signIn();
  await page.goto(`${server.url}/networks/consortium/${setup.network.id}`);
  const section = page.getByRole('region', { name: 'Orderer organizations' });
  await section.getByTestId('orderer-endpoints-Org1MSP').waitFor({ timeout: 90_000 });
  const before = await channelConfig();
  const add = section.getByRole('form', { name: 'Add an orderer organization' });
  await add.getByLabel('Organization').selectOption('Org2MSP');

  // A refusal in words, nothing submitted.
  await add.getByLabel('Its orderer endpoints').fill('no-port');
  await add.getByRole('button', { name: 'Preview the addition' }).click();
  const label = `Add orderer organization Org2MSP to channel ${channel}`;
  const refused = section.getByRole('form', { name: label });
  await refused.getByText(/Orderer endpoints are host:port: "no-port" is not\./).waitFor({ timeout: 60_000 });
  // The field's own message beside the endpoints field (the shared field error display).
  assert.match(await add.getByTestId('field-error-endpoints').innerText({ timeout: 10_000 }), /not host:port/);
  assert.is((await channelConfig()).sequence, before.sequence, 'nothing submitted');
  await refused.getByRole('button', { name: 'Close' }).click();

  await add.getByLabel('Its orderer endpoints').fill('orderer0.org2.example.com:7050, orderer1.org2.example.com:7050');
  await add.getByRole('button', { name: 'Preview the addition' }).click();
  const change = section.getByRole('form', { name: label });
  const diff = await shownDiff(change);
  assert.ok(diff.some(([p, b]) => p.startsWith('channel_group.groups.Orderer.groups.Org2MSP') && b === '—'), JSON.stringify(diff));
  assert.ok(diff.every(([p]) => p.startsWith('channel_group.groups.Orderer.groups.Org2MSP')), JSON.stringify(diff));
  // Signed as /Channel/Orderer/Admins requires: Org1MSP's admin, held here; none missing.
  assert.is(await change.getByTestId('required-organizations').innerText(), 'Org1MSP');
  assert.is(await change.getByTestId('missing-organizations').innerText(), 'none');
  assert.is((await channelConfig()).sequence, before.sequence, 'the dry run submitted nothing');
  await ui.accessible('an orderer organization addition shown as a dry run');
  assert.match(await submitChange(change), /^Updated: configuration sequence \d+, block \d+, signed by Org1MSP\.$/);
  const added = (await channelConfig()).config.channel_group.groups.Orderer.groups;
  assert.equal(Object.keys(added).sort(), ['Org1MSP', 'Org2MSP']);
  assert.equal(added.Org2MSP.values.Endpoints.value.addresses, ['orderer0.org2.example.com:7050', 'orderer1.org2.example.com:7050']);
  assert.equal((await ordererOrganizations()).sort(), ['Org1MSP', 'Org2MSP']);
  await section.getByTestId('orderer-endpoints-Org2MSP').getByText('orderer0.org2.example.com:7050, orderer1.org2.example.com:7050', { exact: true }).waitFor({ timeout: 30_000 });
  // No longer offered for adding.
  assert.is(await add.getByRole('option', { name: 'Org2MSP' }).count(), 0);
  await change.getByRole('button', { name: 'Close' }).click();
  await commits('after Org2MSP joined the orderer group');

  const mid = await channelConfig();
  await section.getByRole('button', { name: 'Remove Org2MSP', exact: true }).click();
  const removal = section.getByRole('form', { name: `Remove orderer organization Org2MSP from channel ${channel}` });
  const removedDiff = await shownDiff(removal);
  assert.ok(removedDiff.some(([p, , a]) => p.startsWith('channel_group.groups.Orderer.groups.Org2MSP') && a === '—'), JSON.stringify(removedDiff));
  assert.is((await channelConfig()).sequence, mid.sequence, 'the dry run submitted nothing');
  assert.match(await submitChange(removal), /^Updated: configuration sequence \d+, block \d+, signed by /);
  assert.equal(Object.keys((await channelConfig()).config.channel_group.groups.Orderer.groups), ['Org1MSP']);
  assert.equal(await ordererOrganizations(), ['Org1MSP']);
  await section.getByTestId('orderer-endpoints-Org2MSP').waitFor({ state: 'detached', timeout: 30_000 });
  await add.getByRole('option', { name: 'Org2MSP' }).waitFor({ state: 'attached', timeout: 30_000 });
  await commits('after Org2MSP left the orderer group');
});

t.run();
