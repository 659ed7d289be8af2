// The console's orderer organization actions (issue 37 item 9 for item 4) in Chromium on real
// Fabric 2.5 (a counted skip without Fabric or Chromium): a channel of Org1MSP with one raft
// orderer and one peer, made over the API, and Org2MSP an organization of this service only.
// From the network page: an endpoint that is not host:port is refused in words (nothing
// submitted); Org2MSP is added as orderer organization with its orderer endpoints (the dry run's
// diff and whose admins sign first, the config sequence unchanged by it), then listed with its
// endpoints; then removed the same way, and no longer listed. The channel commits after each.
// Then the signatures-missing path: a second instance B holds Org3MSP, shared with this one and
// added as orderer organization over the API, so /Channel/Orderer/Admins (MAJORITY) needs Org3MSP's
// admin, which this instance does not hold. Adding Org2MSP and removing Org3MSP from the page: the
// dry run names Org3MSP missing (and Org1MSP held), no Submit is offered, the page offers "Ask the
// other organizations to sign" instead, and that makes a signing proposal waiting for Org3MSP; the
// channel's config sequence is unchanged throughout.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { fabricMissing } from '../../helpers/fabric.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { chromiumMissing } from '../../helpers/browser.ts';
import type { ConsoleSession } from '../../helpers/consoleSession.ts';
import { apiOf, channelCommits, consortiumEnv, oneOrganizationChannel, organization, until } from '../consortium/consortiumApi.ts';
import { shownDiff, submitChange } from './configChangePanel.ts';
import { fabricConsoleSession } from './fabricConsole.ts';

const t = requiresAll(suite('console: an orderer organization added and removed (real Fabric 2.5, Chromium)'), ['chromium', chromiumMissing()], ['fabric', fabricMissing]);
let server: TestServer;
let b: TestServer;
const api = apiOf(() => server);
const apiB = apiOf(() => b);
/** Both instances: the instance-to-instance sharing listener on (the second test's Org3MSP lives on B). */
const env = () => consortiumEnv({ LNM_SHARING_PORT: '0' });
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

fabricConsoleSession(t, env, (s) => ({ ui, server, page } = s), async () => {
  await b?.stop();
});

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

t('Org3MSP of instance B an orderer organization: adding Org2MSP and removing Org3MSP from the page name Org3MSP missing, offer no Submit but a signing proposal', async () => {
  assert.ok(setup, 'the channel of the first test');
  b = await startServer({ env: env(), timeoutMs: 180_000 });
  await organization(apiB, 'Org3', 'Org3MSP');
  const inv = await api('POST', '/nodesharing/invitations', { bidirectional: true });
  assert.is(inv.status, 201, inv.text);
  assert.is((await apiB('POST', '/nodesharing/accept', { invitation_jwt: inv.json.invitation_jwt, fingerprint: inv.json.key_fingerprint })).status, 201);
  // Signed by Org1MSP alone (the MAJORITY of one orderer organization); 503 until B's organizations are synced here.
  await until('Org3MSP added as orderer organization', async () => {
    const x = await api('POST', `/networks/consortium/${setup.network.id}/channels/${channel}/orderer-organizations`, { msp_id: 'Org3MSP', endpoints: ['orderer0.org3.example.com:7050'] });
    if (x.status !== 200 && x.status !== 503) assert.unreachable(x.text);
    return x.status === 200 ? x : null;
  }, 120_000, 3000);
  await commits('with Org3MSP an orderer organization');
  const before = await channelConfig();

  await page.goto(`${server.url}/networks/consortium/${setup.network.id}`);
  const section = page.getByRole('region', { name: 'Orderer organizations' });
  await section.getByTestId('orderer-endpoints-Org3MSP').waitFor({ timeout: 90_000 });

  // Adding Org2MSP now needs Org3MSP's admin too.
  const add = section.getByRole('form', { name: 'Add an orderer organization' });
  await add.getByLabel('Organization').selectOption('Org2MSP');
  await add.getByLabel('Its orderer endpoints').fill('orderer0.org2.example.com:7050');
  await add.getByRole('button', { name: 'Preview the addition' }).click();
  const adding = section.getByRole('form', { name: `Add orderer organization Org2MSP to channel ${channel}` });
  const diff = await shownDiff(adding);
  assert.ok(diff.some(([p, b]) => p.startsWith('channel_group.groups.Orderer.groups.Org2MSP') && b === '—'), JSON.stringify(diff));
  assert.is(await adding.getByTestId('required-organizations').innerText(), 'Org1MSP, Org3MSP');
  assert.is(await adding.getByTestId('held-organizations').innerText(), 'Org1MSP');
  assert.is(await adding.getByTestId('missing-organizations').innerText(), 'Org3MSP');
  assert.match(await adding.getByTestId('unmet-policies').innerText(), /^\/Channel\/Orderer\/Admins \(.+\): 1 more signature needed, from Org3MSP$/);
  assert.match(await adding.getByRole('alert').first().innerText(), /^Needs admin signatures this service does not hold: Org3MSP\.$/);
  assert.is(await adding.getByRole('button', { name: 'Submit', exact: true }).count(), 0, 'no Submit offered');
  const ask = adding.getByRole('group', { name: 'Ask the other organizations to sign' });
  await ask.getByLabel(/Detached signatures uploaded here/).check();
  await ui.accessible('an orderer organization addition missing a signature');
  await ask.getByRole('button', { name: 'Ask the other organizations to sign' }).click();
  const created = ask.getByTestId('proposal-created');
  await created.waitFor({ timeout: 60_000 });
  assert.match(await created.innerText(), /^Proposal \S+: signed by Org1MSP, waiting for Org3MSP\./);
  await adding.getByRole('button', { name: 'Close' }).click();

  // Removing Org3MSP needs its own admin's signature too.
  await section.getByRole('button', { name: 'Remove Org3MSP', exact: true }).click();
  const removal = section.getByRole('form', { name: `Remove orderer organization Org3MSP from channel ${channel}` });
  const removedDiff = await shownDiff(removal);
  assert.ok(removedDiff.some(([p, , a]) => p.startsWith('channel_group.groups.Orderer.groups.Org3MSP') && a === '—'), JSON.stringify(removedDiff));
  assert.is(await removal.getByTestId('missing-organizations').innerText(), 'Org3MSP');
  assert.is(await removal.getByRole('button', { name: 'Submit', exact: true }).count(), 0, 'no Submit offered');
  await removal.getByRole('group', { name: 'Ask the other organizations to sign' }).getByRole('button', { name: 'Ask the other organizations to sign' }).waitFor({ timeout: 10_000 });

  // Nothing submitted: the config is where it was, both proposals wait for Org3MSP.
  assert.is((await channelConfig()).sequence, before.sequence);
  assert.equal((await ordererOrganizations()).sort(), ['Org1MSP', 'Org3MSP']);
  const waiting = (await api('GET', '/nodesharing/proposals')).json.items.filter((x: any) => x.channel_name === channel && x.status !== 'submitted');
  assert.equal(waiting.map((x: any) => [x.kinds, x.missing_organizations]), [[['addOrdererOrganization'], ['Org3MSP']]]);
});

t.run();
