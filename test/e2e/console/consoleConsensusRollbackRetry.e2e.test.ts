// The console's display of a migration whose rollback did not complete, and its way out, in
// Chromium on real Fabric 3.1 (issue 37 item 9 for item 7; LNM_FABRIC_RELEASES with a 3.1 release,
// a counted skip without it or without Chromium). Four raft orderers and a peer on 3.1 at V3_0
// (fourOrdererRaftChannel, over the API). The migration is started from the page with "Wait per
// step" 40 s (the body's waitSeconds; the default is 180) and meets a real fault: another program takes orderer 0's port when phase backup stops it and holds it through the
// rollback (as consortiumConsensusRollbackRetry.e2e does), so the 409 says "rollback incomplete",
// the orderer given up after 40 s. After a reload the network page shows the recorded failure: the outcome "The rollback did not complete"
// with the service's reason naming the orderer, and "Take the rollback up again" (no "Start
// over"). The port given back, that button posts it again: the page shows the new 409's outcome,
// rolled back (backups put back, orderers on etcdraft, channels out of maintenance), with "Start
// over (dry run first)"; the facts say etcdraft and the channel commits.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import type { TestServer } from '../../helpers/server.ts';
import { fabricReleaseOf } from '../../helpers/programs.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { chromiumMissing } from '../../helpers/browser.ts';
import type { ConsoleSession } from '../../helpers/consoleSession.ts';
import { apiOf, channelCommits, consortiumEnv, fourOrdererRaftChannel, portTakenInPhase } from '../consortium/consortiumApi.ts';
import { fabricConsoleSession } from './fabricConsole.ts';

const r31 = fabricReleaseOf('3.1');
const t = requiresAll(suite('console: a migration rollback that did not complete, taken up again (real Fabric 3.1, Chromium)'), ['chromium', chromiumMissing()], ['fabric-releases', !r31.ok ? r31.reason : undefined]);
let server: TestServer;
const api = apiOf(() => server);
let ui: ConsoleSession;
let page: Page;
let setup: Awaited<ReturnType<typeof fourOrdererRaftChannel>>;
const channel = 'rrui';
const configPath = () => `/networks/${setup.network.id}/channels/${channel}/config`;
const commits = channelCommits(api, () => setup.network.id, 'Org1MSP', () => setup.peer.config.port, () => setup.height(), { heightMs: 120_000, updateMs: 180_000, everyMs: 3000 });

fabricConsoleSession(t, () => consortiumEnv({ LNM_FABRIC_RELEASES: r31.ok ? r31.release.binDir : '', LNM_NODE_ENGINE: 'process' }), (s) => ({ ui, server, page } = s));

t('the recorded "rollback did not complete" with its reason and "Take the rollback up again"; the port given back, the button takes it up again: rolled back, etcdraft, committing', async () => {
  setup = await fourOrdererRaftChannel(api, 'rrui', 'rruinet', channel, { fabricVersion: r31.ok ? r31.release.version : '' });
  const raised = await api('PUT', configPath(), { capabilities: { channel: 'V3_0' } });
  assert.is(raised.status, 200, raised.text);
  await commits('after V3_0');
  const orderer0 = setup.orderers[0];

  // The migration from the page with "Wait per step" 40 s (default 180), and the fault: orderer 0's
  // port held from phase backup until the failure was shown and read back after a reload.
  await ui.signIn();
  await page.goto(`${server.url}/networks/consortium/${setup.network.id}`);
  await page.getByRole('button', { name: 'Migrate to SmartBFT' }).click({ timeout: 60_000 });
  const opened = page.getByRole('group', { name: 'Migrate to SmartBFT' });
  await opened.getByLabel(/Wait per step/).fill('40');
  await opened.getByRole('button', { name: 'Dry run' }).click();
  const dry = opened.getByTestId('migration-dry-run');
  await dry.waitFor({ timeout: 60_000 });
  await dry.getByRole('button', { name: 'Migrate…' }).click();
  await opened.getByRole('group', { name: 'Confirm the migration' }).getByRole('button', { name: 'Migrate now' }).click();
  const taken = await portTakenInPhase(api, setup.network.id, orderer0.config.port);
  try {
    const shown = opened.getByTestId('migration-failed');
    await shown.waitFor({ timeout: 400_000 });
    assert.match(await shown.innerText(), /rollback incomplete: /);
    assert.match(await shown.innerText(), /given up after 40 s/, 'the page\'s wait per step reached the service');

    await page.reload();
    const region = page.getByRole('region', { name: 'Consensus migration' });
    const recorded = region.getByTestId('migration-failed');
    await recorded.waitFor({ timeout: 60_000 });
    assert.is(await recorded.getAttribute('data-recorded'), 'true');
    const outcome = recorded.getByTestId('migration-failure-outcome');
    assert.is(await outcome.getAttribute('data-outcome'), 'incomplete', await recorded.innerText());
    const said = await outcome.innerText();
    assert.match(said, /The rollback did not complete \(orderer rr(ui)?-orderer0 started on its restored data \(given up after 40 s\): /);
    assert.match(said, /already in use/);
    assert.match(said, /take the rollback up again/);
    assert.is(await recorded.getByRole('button', { name: 'Start over (dry run first)' }).count(), 0, 'no new migration offered while the channel may be in maintenance');
    await ui.accessible('a rollback that did not complete');
  } finally {
    taken.close();
  }

  // The port given back: the button posts it again; the page shows the new answer.
  await page.getByRole('region', { name: 'Consensus migration' }).getByRole('button', { name: 'Take the rollback up again' }).click();
  const panel = page.getByRole('group', { name: 'Migrate to SmartBFT' });
  const failed = panel.getByTestId('migration-failed');
  await failed.filter({ hasText: /taken up again/ }).waitFor({ timeout: 400_000 });
  const outcome = failed.getByTestId('migration-failure-outcome');
  assert.is(await outcome.getAttribute('data-outcome'), 'rolled-back', await failed.innerText());
  assert.match(await outcome.innerText(), /Rolled back: nothing was migrated/);
  const steps = await failed.getByTestId('migration-failed-steps').locator('li').allInnerTexts();
  assert.ok(steps.some((s) => s.startsWith('rollback incomplete: ')), JSON.stringify(steps));
  assert.ok(steps.some((s) => s.startsWith('resumed: the rollback of migration')), JSON.stringify(steps));
  // The step recorded before the first backup goes back (a retry puts them back when it is there).
  assert.ok(steps.some((s) => s.startsWith('rollback: putting the backups back')), JSON.stringify(steps));
  assert.ok(steps[steps.length - 1].startsWith('restored: backups put back'), JSON.stringify(steps));
  assert.ok(await failed.getByRole('button', { name: 'Start over (dry run first)' }).isVisible());
  await page.getByTestId('ordering-health').filter({ hasText: /^Can order 4 of 4 raft orderers running.*\(crash\)/ }).waitFor({ timeout: 120_000 });
  await ui.accessible('the rollback taken up again');
  const c = (await api('GET', configPath())).json.config.channel_group.groups.Orderer.values.ConsensusType.value;
  assert.equal([c.type, c.state], ['etcdraft', 'STATE_NORMAL']);
  await commits('after the rollback taken up again');
});

t.run();
