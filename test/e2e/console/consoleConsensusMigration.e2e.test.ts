// The console's etcdraft -> SmartBFT migration (issue 37 item 9 for item 7) in Chromium on real
// Fabric 3.1 (LNM_FABRIC_RELEASES; a counted skip without a 3.1 release, or without Chromium): four
// raft orderers and a peer on 3.1 (made over the API, fourOrdererRaftChannel). From the network
// page: "Migrate to SmartBFT", the dry run refused first because channel capability V3_0 is
// missing (said in words, nothing changed); V3_0 raised; the dry run again shows the channel's diff
// (etcdraft to BFT) and submits nothing; the confirmation says it is one way and that the orderers
// restart. The first "Migrate now" meets a real fault: another program takes orderer 0's port while
// phase backup has it stopped (as consortiumConsensusMigrate.e2e does over the API); the page says
// the migration failed in phase backup, why (the port in use), that it was rolled back (backups put
// back, the orderers on etcdraft, nothing migrated) with the steps, and the network page still says
// etcdraft, can order with 4 of 4 raft orderers; the channel commits. "Start over" brings the dry
// run back; then the migration from the page with its progress (a phase before done, the steps),
// and the page says smartbft with the ordering health SmartBFT (Byzantine). The channel commits after.
// After the failure the page is reloaded: the failure (phase, reason, the channel back on etcdraft,
// the steps) is shown again from GET .../consensus/migration, not from the 409.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import type { TestServer } from '../../helpers/server.ts';
import { fabricReleaseOf } from '../../helpers/programs.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { chromiumMissing } from '../../helpers/browser.ts';
import type { ConsoleSession } from '../../helpers/consoleSession.ts';
import { apiOf, channelCommits, consortiumEnv, fourOrdererRaftChannel, occupyPort, until } from '../consortium/consortiumApi.ts';
import { fabricConsoleSession } from './fabricConsole.ts';

const r25 = fabricReleaseOf('2.5');
const r31 = fabricReleaseOf('3.1');
const t = requiresAll(suite('console: etcdraft -> SmartBFT migration (real Fabric 3.1, Chromium)'), ['chromium', chromiumMissing()], ['fabric-releases', !r31.ok ? r31.reason : undefined]);
const v31 = r31.ok ? r31.release.version : '';
let server: TestServer;
const api = apiOf(() => server);
let ui: ConsoleSession;
let page: Page;
let setup: Awaited<ReturnType<typeof fourOrdererRaftChannel>>;
const channel = 'migui';
const configPath = () => `/networks/${setup.network.id}/channels/${channel}/config`;
const commits = channelCommits(api, () => setup.network.id, 'Org1MSP', () => setup.peer.config.port, () => setup.height());

fabricConsoleSession(t, () => consortiumEnv({ LNM_FABRIC_RELEASES: [r25.ok ? r25.release.binDir : null, r31.ok ? r31.release.binDir : null].filter(Boolean).join(':'), LNM_NODE_ENGINE: 'process' }), (s) => ({ ui, server, page } = s));

t('V3_0 missing refused in words first; then the dry run diff, the one-way confirmation; a real fault in phase backup shown as a rolled-back failure; started over, the migration with its progress; the page says smartbft and BFT ordering', async () => {
  // Made in the test, not in before (uvu drops a before hook's error).
  setup = await fourOrdererRaftChannel(api, 'migui', 'miguinet', channel, { fabricVersion: v31 });
  await commits('after the joins');
  await ui.signIn();
  await page.goto(`${server.url}/networks/consortium/${setup.network.id}`);
  await page.getByRole('button', { name: 'Migrate to SmartBFT' }).click({ timeout: 60_000 });
  const panel = page.getByRole('group', { name: 'Migrate to SmartBFT' });
  const sequence = async () => (await api('GET', configPath())).json.sequence as number;
  const before = await sequence();

  await panel.getByRole('button', { name: 'Dry run' }).click();
  const refusal = panel.getByTestId('migration-refusal');
  await refusal.waitFor({ timeout: 60_000 });
  assert.match(await refusal.innerText(), /the channel capability V3_0 is missing/);
  assert.is(await panel.getByTestId('config-diff').count(), 0, 'no diff for a refusal');
  assert.is(await sequence(), before, 'nothing changed by the refusal');

  const raised = await api('PUT', configPath(), { capabilities: { channel: 'V3_0' } });
  assert.is(raised.status, 200, raised.text);
  await commits('after V3_0');
  const raisedSequence = await sequence();

  await panel.getByLabel(/\(requestBatchMaxInterval\)/).fill('300ms');
  await panel.getByRole('button', { name: 'Dry run' }).click();
  const dry = panel.getByTestId('migration-dry-run');
  await dry.waitFor({ timeout: 60_000 });
  assert.is(await refusal.count(), 0, 'the refusal is gone');
  const paths = await dry.getByTestId('config-diff').locator('tbody tr td:first-child').allInnerTexts();
  assert.ok(paths.includes('channel_group.groups.Orderer.values.ConsensusType.value.type'), JSON.stringify(paths));
  assert.match(await dry.innerText(), new RegExp(`Channel ${channel} \\(network miguinet\\)`));
  for (const o of setup.orderers) assert.match(await dry.innerText(), o.name);
  assert.is(await sequence(), raisedSequence, 'the dry run submitted nothing');

  await dry.getByRole('button', { name: 'Migrate…' }).click();
  const confirm = panel.getByRole('group', { name: 'Confirm the migration' });
  const warning = await confirm.innerText();
  assert.match(warning, /one way/);
  assert.match(warning, /cannot go back to etcdraft/);
  assert.match(warning, /stopped, backed up and restarted/);
  await ui.accessible('the migration confirmation');
  await confirm.getByRole('button', { name: 'Migrate now' }).click();

  // The fault: orderer 0's port taken by another program from the moment phase backup stopped it.
  const progressOf = () => api('GET', `/networks/consortium/${setup.network.id}/consensus/migration`);
  await until('the migration in phase backup', async () => {
    const p = await progressOf();
    return p.status === 200 && p.json.status === 'running' && p.json.phase === 'backup' ? p.json : null;
  }, 600_000, 250);
  const taken = await occupyPort(setup.orderers[0].config.port);
  try {
    await until('the rollback recorded', async () => {
      const p = await progressOf();
      return p.status === 200 && (p.json.phase === 'rollback' || p.json.status !== 'running');
    }, 600_000, 250);
  } finally {
    taken.close();
  }
  const failed = panel.getByTestId('migration-failed');
  await failed.waitFor({ timeout: 400_000 });
  const said = await failed.innerText();
  assert.match(said, /The migration failed in phase backup \(stopping the orderers and backing up their data\)\./);
  assert.match(said, /already in use/, 'why, in the service\'s words');
  const outcomeOfFailure = failed.getByTestId('migration-failure-outcome');
  assert.is(await outcomeOfFailure.getAttribute('data-outcome'), 'rolled-back', said);
  assert.match(await outcomeOfFailure.innerText(), /Rolled back: nothing was migrated\. Every orderer's data was put back from its backup and it was started again on etcdraft \(raft\), and the channels left maintenance/);
  const failedSteps = await failed.getByTestId('migration-failed-steps').locator('li').allInnerTexts();
  assert.ok(failedSteps.some((st) => st.startsWith('failed in phase backup:')), JSON.stringify(failedSteps));
  assert.ok(failedSteps.some((st) => st.startsWith('restored: backups put back')), JSON.stringify(failedSteps));
  assert.is(await panel.getByTestId('migration-outcome').count(), 0, 'no success said');
  // The network's facts (the channel configuration's orderer settings say etcdraft too).
  await page.locator('dl.facts:not([data-testid="orderer-settings"]) dt:text-is("Consensus") + dd').filter({ hasText: /^etcdraft$/ }).waitFor({ timeout: 30_000 });
  await page.getByTestId('ordering-health').filter({ hasText: /^Can order 4 of 4 raft orderers running.*\(crash\)/ }).waitFor({ timeout: 60_000 });
  await ui.accessible('the migration failure');
  const rolledBack = (await api('GET', configPath())).json.config.channel_group.groups.Orderer.values.ConsensusType.value;
  assert.equal([rolledBack.type, rolledBack.state], ['etcdraft', 'STATE_NORMAL']);
  await commits('after the rollback');

  // After a reload the 409 is gone: the page says the same from the recorded migration (GET .../consensus/migration).
  await page.reload();
  const lastFailed = page.getByRole('region', { name: 'Consensus migration' }).getByTestId('migration-failed');
  await lastFailed.waitFor({ timeout: 60_000 });
  assert.is(await lastFailed.getAttribute('data-recorded'), 'true');
  const recorded = await lastFailed.innerText();
  assert.match(recorded, /The last migration of this network failed in phase rollback \(restoring the backups \(rollback\)\)\./);
  assert.match(recorded, /failed in phase backup: .*already in use/);
  assert.is(await lastFailed.getByTestId('migration-failure-outcome').getAttribute('data-outcome'), 'rolled-back', recorded);
  assert.equal(await lastFailed.getByTestId('migration-channels').locator('li').allInnerTexts(), [`Channel ${channel}: back on etcdraft (raft) and out of maintenance, as before the migration.`]);
  assert.equal(await lastFailed.getByTestId('migration-failed-steps').locator('li').allInnerTexts(), failedSteps);
  assert.is(await lastFailed.getByTestId('migration-peers-not-rolled-back').count(), 0, 'no peer left behind');
  await ui.accessible('the recorded migration failure after a reload');

  // Started over: the dry run again, then the migration.
  await lastFailed.getByRole('button', { name: 'Start over (dry run first)' }).click();
  assert.is(await lastFailed.count(), 0, 'the failure is cleared');
  assert.is(await failed.count(), 0, 'the failure is cleared');
  // The reload dropped the option typed before: typed again.
  await panel.getByLabel(/\(requestBatchMaxInterval\)/).fill('300ms');
  await panel.getByRole('button', { name: 'Dry run' }).click();
  await dry.waitFor({ timeout: 60_000 });
  await dry.getByRole('button', { name: 'Migrate…' }).click();
  await confirm.getByRole('button', { name: 'Migrate now' }).click();

  // The progress while it runs: a phase before done (the migration takes about 30 s; polled every second).
  const phase = panel.getByTestId('migration-phase');
  await phase.filter({ hasText: /^(checks|maintenance|backup|switch|restart|normal) \(/ }).waitFor({ timeout: 60_000 });
  const outcome = panel.getByTestId('migration-outcome');
  await outcome.or(panel.getByRole('alert').filter({ hasText: /failed|Not migrated/ })).first().waitFor({ timeout: 400_000 });
  if (!(await outcome.count())) assert.unreachable(`migration refused or failed: ${await panel.innerText()}`);
  assert.match(await outcome.innerText(), new RegExp(`Migrated from etcdraft to smartbft: channel ${channel} now order`));
  await phase.filter({ hasText: /^done \(done\)$/ }).waitFor({ timeout: 30_000 });
  const steps = await panel.getByTestId('migration-steps').locator('li').allInnerTexts();
  for (const p of ['maintenance:', 'backup:', 'switch:', 'restart:', 'normal:']) assert.ok(steps.some((s) => s.startsWith(p)), `${p} in ${JSON.stringify(steps)}`);

  await page.locator('dl.facts dt:text-is("Consensus") + dd').filter({ hasText: /^smartbft$/ }).waitFor({ timeout: 30_000 });
  await page.getByTestId('ordering-health').filter({ hasText: /4 of 4 SmartBFT orderers running.*\(Byzantine\)/ }).waitFor({ timeout: 60_000 });
  await ui.accessible('the network page after the migration');
  const consensus = (await api('GET', configPath())).json.config.channel_group.groups.Orderer.values.ConsensusType.value;
  assert.is(consensus.type, 'BFT');
  assert.is(consensus.state, 'STATE_NORMAL');
  assert.is(consensus.metadata.request_batch_max_interval, '300ms');
  await commits('after the migration');
});

t.run();
