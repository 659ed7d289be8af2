// The console's resume of a consensus migration that failed part way (issue 37 item 9 for item 7)
// in Chromium on real Fabric 3.1 (LNM_FABRIC_RELEASES; a counted skip without a 3.1 release, or
// without Chromium). Two raft networks, one channel each, on the same four orderers and peer
// (raftChannels), both at V3_0. The migration is started from the first network's page (dry
// run naming both channels, "Migrate now"); once one channel has left maintenance on BFT, two of
// the four orderers crash (SIGKILL, crashOnceOneChannelLeft: the BFT orderers have no quorum, the
// other channel cannot leave maintenance). The page says the migration failed in phase normal, that
// part of it is done and nothing was rolled back (the backups kept), which channel runs SmartBFT
// and which is still in maintenance, and offers "Resume the migration", not "Start over". The
// other network's page, loaded afresh, says the same from the recorded migration (GET
// .../consensus/migration). The crashed orderers started again, "Resume the migration" there takes
// the held channel out of maintenance on BFT: the page says migrated and smartbft, and both
// channels commit on BFT.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import type { TestServer } from '../../helpers/server.ts';
import { fabricReleaseOf } from '../../helpers/programs.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { chromiumMissing } from '../../helpers/browser.ts';
import type { ConsoleSession } from '../../helpers/consoleSession.ts';
import { apiOf, consortiumEnv, crashOnceOneChannelLeft, restartedOrderers, raftChannels } from '../consortium/consortiumApi.ts';
import { fabricConsoleSession } from './fabricConsole.ts';

const r31 = fabricReleaseOf('3.1');
const t = requiresAll(suite('console: resuming a consensus migration that failed after one channel left maintenance (real Fabric 3.1, Chromium)'), ['chromium', chromiumMissing()], ['fabric-releases', !r31.ok ? r31.reason : undefined]);
let server: TestServer;
const api = apiOf(() => server);
let ui: ConsoleSession;
let page: Page;

fabricConsoleSession(t, () => consortiumEnv({ LNM_FABRIC_RELEASES: r31.ok ? r31.release.binDir : '', LNM_NODE_ENGINE: 'process' }), (s) => ({ ui, server, page } = s));

const consensusOf = async (n: { id: number; channel: string }) =>
  (await api('GET', `/networks/${n.id}/channels/${n.channel}/config`)).json.config.channel_group.groups.Orderer.values.ConsensusType.value as { type: string; state: string };

t('a migration of two channels failed after one left maintenance: the page says what is done and offers Resume (also after a reload on the other network); resumed from the page: both channels on SmartBFT', async () => {
  // Made in the test, not in before (uvu drops a before hook's error).
  const { orderers, nets, commits } = await raftChannels(api, 'mr', 2);
  await ui.signIn();
  await page.goto(`${server.url}/networks/consortium/${nets[0].id}`);
  await page.getByRole('button', { name: 'Migrate to SmartBFT' }).click({ timeout: 60_000 });
  const panel = page.getByRole('group', { name: 'Migrate to SmartBFT' });
  await panel.getByRole('button', { name: 'Dry run' }).click();
  const dry = panel.getByTestId('migration-dry-run');
  await dry.waitFor({ timeout: 60_000 });
  for (const n of nets) assert.match(await dry.innerText(), `Channel ${n.channel} (network ${n.channel.replace('channel', 'net')})`);
  await dry.getByRole('button', { name: 'Migrate…' }).click();
  await panel.getByRole('group', { name: 'Confirm the migration' }).getByRole('button', { name: 'Migrate now' }).click();

  const bftChannel = await crashOnceOneChannelLeft(api, nets[0].id, server.dataDir, orderers.slice(2));
  const bft = nets.find((n) => n.channel === bftChannel)!;
  const held = nets.find((n) => n !== bft)!;

  // What the 409 left on the page the migration was started from.
  const failed = panel.getByTestId('migration-failed');
  await failed.waitFor({ timeout: 600_000 });
  const said = await failed.innerText();
  assert.match(said, /The migration failed in phase normal/);
  assert.match(said, `Channel ${held.channel} did not leave maintenance on BFT`);
  const outcome = failed.getByTestId('migration-failure-outcome');
  assert.is(await outcome.getAttribute('data-outcome'), 'resumable', said);
  assert.match(await outcome.innerText(), /Part of the migration is done: a channel already orders on SmartBFT, so nothing was rolled back and the backups are kept\. Resume the migration/);
  const channelTexts = (await failed.getByTestId('migration-channels').locator('li').allInnerTexts()).sort();
  assert.equal(channelTexts, [
    `Channel ${bft.channel}: runs SmartBFT and orders (it left maintenance on SmartBFT; it cannot go back to etcdraft).`,
    `Channel ${held.channel}: switched to SmartBFT but still in maintenance (no transactions): resuming the migration takes it out of maintenance on SmartBFT.`,
  ].sort());
  assert.is(await failed.getByRole('button', { name: 'Resume the migration' }).count(), 1);
  assert.is(await failed.getByRole('button', { name: 'Start over (dry run first)' }).count(), 0, 'no start over: a channel cannot go back');
  assert.is(await failed.getByTestId('migration-peers-rolled-back').count(), 0, 'nothing rolled back');
  assert.is(await failed.getByTestId('migration-peers-not-rolled-back').count(), 0);
  await ui.accessible('a migration failed in phase normal');
  // As Fabric has them: one channel BFT in STATE_NORMAL, the other BFT still in maintenance.
  const [onBft, onHeld] = [await consensusOf(bft), await consensusOf(held)];
  assert.equal([onBft.type, onBft.state], ['BFT', 'STATE_NORMAL'], bft.channel);
  assert.equal([onHeld.type, onHeld.state], ['BFT', 'STATE_MAINTENANCE'], held.channel);

  // The held network's page, loaded afresh: the same from the recorded migration, with Resume.
  await page.goto(`${server.url}/networks/consortium/${held.id}`);
  const recorded = page.getByRole('region', { name: 'Consensus migration' }).getByTestId('migration-failed');
  await recorded.waitFor({ timeout: 60_000 });
  assert.is(await recorded.getAttribute('data-recorded'), 'true');
  const recordedText = await recorded.innerText();
  assert.match(recordedText, /The last migration of this network failed in phase normal/);
  assert.is(await recorded.getByTestId('migration-failure-outcome').getAttribute('data-outcome'), 'resumable', recordedText);
  assert.equal((await recorded.getByTestId('migration-channels').locator('li').allInnerTexts()).sort(), channelTexts);
  assert.is(await page.getByRole('button', { name: 'Migrate to SmartBFT' }).count(), 0, 'no new migration while one is to be resumed');
  await page.locator('dl.facts:not([data-testid="orderer-settings"]) dt:text-is("Consensus") + dd').filter({ hasText: /^etcdraft$/ }).waitFor({ timeout: 30_000 });
  await ui.accessible('the recorded migration to resume');

  // The crashed orderers started again (over the API: their pages are not what this test is about).
  await restartedOrderers(api, orderers.slice(2));
  await recorded.getByRole('button', { name: 'Resume the migration' }).click();
  const resumedPanel = page.getByRole('group', { name: 'Migrate to SmartBFT' });
  const migrated = resumedPanel.getByTestId('migration-outcome');
  await migrated.or(resumedPanel.getByRole('alert').filter({ hasText: /failed|Not migrated/ })).first().waitFor({ timeout: 600_000 });
  if (!(await migrated.count())) assert.unreachable(`the resume was refused or failed: ${await resumedPanel.innerText()}`);
  assert.match(await migrated.innerText(), /^Migrated from etcdraft to smartbft: channels? /);
  assert.match(await migrated.innerText(), held.channel);
  await page.locator('dl.facts dt:text-is("Consensus") + dd').filter({ hasText: /^smartbft$/ }).waitFor({ timeout: 30_000 });
  await ui.accessible('the network page after the resumed migration');
  for (const n of nets) {
    const c = await consensusOf(n);
    assert.equal([c.type, c.state], ['BFT', 'STATE_NORMAL'], n.channel);
    await commits(n.id, `on BFT after the resume (${n.channel})`);
  }
});

t.run();
