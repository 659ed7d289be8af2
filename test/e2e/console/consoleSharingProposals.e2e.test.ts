// Config update proposals on the console's node sharing page, in Chromium against two real
// servers (pro, sharing listeners) and real Fabric 2.5: B's organization is in A's channel (made
// over the API, as test/e2e/sharing/crossInstanceChannel does), so an Endorsement policy change
// needs B's admin. On A's page the change is proposed (sent to B); on B's page the received
// proposal shows what it writes and is signed; on A's page it is submitted, and the channel's
// config read back through the API has the new policy. axe-core checks the page.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { startServer, ADMIN, type TestServer } from '../../helpers/server.ts';
import { fabricMissing } from '../../helpers/fabric.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { axeViolations, chromiumMissing, describeViolations } from '../../helpers/browser.ts';
import { startConsoleSession, type ConsoleSession } from '../../helpers/consoleSession.ts';
import { apiOf, consortiumEnv, node, organization, until } from '../consortium/consortiumApi.ts';

const t = requiresAll(suite('console: sharing proposals across two instances (real Fabric, Chromium)'), ['chromium', chromiumMissing()], ['fabric', fabricMissing]);
let a: TestServer;
let b: TestServer;
const apiA = apiOf(() => a);
const apiB = apiOf(() => b);
const made: Array<{ api: typeof apiA; id: number }> = [];
let ui: ConsoleSession;
let page: Page;
let networkId = 0;
// B is opened as localhost, A as 127.0.0.1: the two session cookies do not meet.
const bUrl = () => b.url.replace('127.0.0.1', 'localhost');

const signIn = (url: string) => ui.signIn(ADMIN, { url });

t.before(async () => {
  const env = consortiumEnv({ LNM_SHARING_PORT: '0' });
  [a, b] = await Promise.all([startServer({ env: { ...env, LNM_CHAINCODE_PORT_FROM: '9560' } }), startServer({ env: { ...env, LNM_CHAINCODE_PORT_FROM: '9760' } })]);
  const orgA = await organization(apiA, 'PropOrgA', 'PropOrgAMSP');
  const ordererA = await node(apiA, 'prop-orderer-a', 'CONSORTIUM_ORDERER', orgA.id);
  made.push({ api: apiA, id: ordererA.id });
  let r = await apiA('POST', '/networks/consortium', { name: 'prop-channel', channelName: 'propchannel', ordererIds: [ordererA.id], organizationIds: [orgA.id] });
  assert.is(r.status, 201, r.text);
  networkId = r.json.id;
  assert.is((await apiA('POST', `/networks/consortium/${networkId}/orderers/${ordererA.id}/join`)).status, 200);
  await organization(apiB, 'PropOrgB', 'PropOrgBMSP');
  const inv = await apiA('POST', '/nodesharing/invitations', { bidirectional: true });
  assert.is(inv.status, 201, inv.text);
  r = await apiB('POST', '/nodesharing/accept', { invitation_jwt: inv.json.invitation_jwt, fingerprint: inv.json.key_fingerprint });
  assert.is(r.status, 201, r.text);
  const peerOnB = r.json.id;
  r = await until('B\'s organization added to A\'s channel (once A\'s orderer has a raft leader)', async () => {
    const u = await apiA('PUT', `/networks/${networkId}/channels/propchannel/config`, { organizations: ['PropOrgAMSP', 'PropOrgBMSP'] });
    return u.status === 200 ? u : null;
  }, 60_000, 2000);
  assert.is(r.json.status, 'updated', r.text);
  // B syncs and records the channel (a proposal is for a channel the signer knows).
  r = await apiB('POST', '/nodesharing/sync', { peer_node_id: peerOnB });
  assert.is(r.status, 200, r.text);
  const shared = r.json.networks.find((n: { channel_name: string }) => n.channel_name === 'propchannel');
  assert.ok(shared, r.text);
  r = await apiB('POST', `/nodesharing/peers/${peerOnB}/networks/${shared.network_id}/import`, {});
  assert.is(r.status, 201, r.text);
  ui = await startConsoleSession({ server: a });
  ({ page } = ui);
});

t.after(async () => {
  await ui?.close();
  for (const n of made.reverse()) await n.api('DELETE', `/nodes/${n.id}`).catch(() => undefined);
  if (a) await until('every node removed', async () => ((await apiA('GET', '/nodes/platform/CONSORTIUM')).json?.total === 0 ? true : null), 30_000).catch(() => undefined);
  await Promise.all([a?.stop(), b?.stop()]);
  for (const s of [a, b]) s?.reapNodes();
});

t('a policy change needing B\'s admin: proposed on A\'s page, signed on B\'s, submitted on A\'s; the channel has it', async () => {
  await signIn(a.url);
  await page.goto(a.url + '/sharing');
  await page.getByRole('heading', { name: 'Config update proposals' }).waitFor();
  await page.getByText('No proposals sent or received yet.').waitFor();
  const form = page.getByRole('form', { name: 'Propose a policy change' });
  await form.getByLabel('Network').locator('option', { hasText: 'prop-channel (propchannel)' }).waitFor({ state: 'attached' });
  await form.getByLabel('Network').selectOption({ label: 'prop-channel (propchannel)' });
  await form.getByLabel('Policy').selectOption('Endorsement');
  await form.getByLabel('Type').selectOption('ImplicitMeta');
  await form.getByLabel('Rule').fill('ANY Endorsement');
  await form.getByLabel(/^What the other operator/).fill('endorsement by any organization');
  await form.getByRole('button', { name: 'Propose' }).click();
  const sent = form.getByTestId('proposal-sent').or(form.getByRole('alert'));
  await sent.waitFor({ timeout: 60_000 });
  const text = await sent.innerText();
  const id = /proposal (\S+)\.$/.exec(text)?.[1];
  assert.ok(id, `${text}\n${a.output().split('\n').filter((l) => /error|500/i.test(l)).slice(-5).join('\n')}`);
  assert.match(text, /Sent for signatures to the peer holding PropOrgBMSP/);
  await page.getByTestId(`proposal-status-${id}`).getByText('awaiting-signatures').waitFor({ timeout: 15_000 });
  const v = await axeViolations(page);
  assert.is(v.length, 0, describeViolations(v));

  await signIn(bUrl());
  await page.goto(bUrl() + '/sharing');
  const row = page.getByRole('row', { name: new RegExp(id!) });
  await row.getByText('/Channel/Application/policies/Endorsement', { exact: false }).waitFor({ timeout: 30_000 });
  await row.getByRole('button', { name: `Sign proposal ${id}` }).click();
  await page.getByRole('status').getByText('Signed by PropOrgBMSP; the signatures went back to the proposer.').waitFor({ timeout: 60_000 });

  await page.goto(a.url + '/sharing');
  const before = (await apiA('GET', `/networks/consortium/${networkId}/channel-config`)).json.sequence;
  await page.getByRole('button', { name: `Submit proposal ${id}` }).click();
  const done = page.getByTestId('proposal-submitted').or(page.getByRole('alert'));
  await done.waitFor({ timeout: 60_000 });
  assert.match(await done.innerText(), /^Submitted: configuration sequence \d+/);
  const after = (await apiA('GET', `/networks/consortium/${networkId}/channel-config`)).json;
  assert.ok(after.sequence > before, `${after.sequence} > ${before}`);
  assert.is(after.config.channel_group.groups.Application.policies.Endorsement.policy.value.rule, 'ANY');
  await page.getByTestId(`proposal-status-${id}`).getByText('submitted').waitFor({ timeout: 15_000 });
});

t.run();
