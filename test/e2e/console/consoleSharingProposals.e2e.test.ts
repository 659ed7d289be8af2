// Config update proposals on the console's node sharing page, in Chromium against two real
// servers (pro, sharing listeners) and real Fabric 2.5: B's organization is in A's channel (made
// over the API, as test/e2e/sharing/crossInstanceChannel does), so an Endorsement policy change
// needs B's admin. On A's page the change is proposed (sent to B); on B's page the received
// proposal shows what it writes and is signed; on A's page it is submitted, and the channel's
// config read back through the API has the new policy. axe-core checks the page.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { ADMIN, type TestServer } from '../../helpers/server.ts';
import { fabricMissing } from '../../helpers/fabric.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { axeViolations, chromiumMissing, describeViolations } from '../../helpers/browser.ts';
import type { ConsoleSession } from '../../helpers/consoleSession.ts';
import { apiOf } from '../consortium/consortiumApi.ts';
import { startSharedChannelConsole, type SharedChannelConsole } from './sharedChannelConsole.ts';

const t = requiresAll(suite('console: sharing proposals across two instances (real Fabric, Chromium)'), ['chromium', chromiumMissing()], ['fabric', fabricMissing]);
let a: TestServer;
const apiA = apiOf(() => a);
let ui: ConsoleSession;
let page: Page;
let networkId = 0;
let bUrl = '';
let session: SharedChannelConsole | undefined;

const signIn = (url: string) => ui.signIn(ADMIN, { url });

t.before(async () => {
  session = await startSharedChannelConsole({ prefix: 'Prop', channelName: 'propchannel', chaincodePorts: [9560, 9760] });
  ({ ui, page, bUrl } = session);
  ({ a, networkId } = session.pair);
});

t.after(async () => {
  await session?.stop();
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

  await signIn(bUrl);
  await page.goto(bUrl + '/sharing');
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
