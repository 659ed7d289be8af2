// A SmartBFT network made with the console's consortium quick start in Chromium, on the real Fabric
// 3.1 release (LNM_FABRIC_RELEASES or LNM_FABRIC_BIN; a counted skip without it or Chromium): two
// organizations, four orderers spread over them and a peer each, consensus smartbft with one
// SmartBFT option typed; every step done, the network the API reads is smartbft on 3.1 orderers
// with the option in its channel config; the network page's ordering health says 4 of 4 running,
// 3 needed, one Byzantine fault tolerated; with one orderer stopped it still can order, with two
// it cannot and says which are not running; both started again, it can. axe-core checks the pages.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import type { TestServer } from '../../helpers/server.ts';
import { fabricReleaseOf } from '../../helpers/programs.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { chromiumMissing } from '../../helpers/browser.ts';
import { startConsoleSession, type ConsoleSession } from '../../helpers/consoleSession.ts';
import { apiOf, consortiumEnv, removeConsortiumNodes, until } from '../consortium/consortiumApi.ts';

const r31 = fabricReleaseOf('3.1');
const r25 = fabricReleaseOf('2.5');
const t = requiresAll(suite('console: a SmartBFT quick start and its ordering health (real Fabric 3.1, Chromium)'), ['chromium', chromiumMissing()], ['fabric-3', r31.ok ? undefined : r31.reason]);
const v31 = r31.ok ? r31.release.version : '';
let server: TestServer;
const api = apiOf(() => server);
let ui: ConsoleSession;
let page: Page;

t.before(async () => {
  // Both releases where both are found, so that the quick start offers the choice; 3.1 alone otherwise.
  const releases = [r25.ok ? r25.release.binDir : null, r31.ok ? r31.release.binDir : null].filter(Boolean).join(':');
  ui = await startConsoleSession({ server: { env: consortiumEnv({ LNM_FABRIC_RELEASES: releases, LNM_NODE_ENGINE: 'process' }) } });
  ({ server, page } = ui);
});

t.after(async () => {
  if (!server) return;
  await removeConsortiumNodes(api, server.dataDir).catch(() => undefined);
  await ui.close();
});

t('the quick start with consensus smartbft: four orderers on 3.1 over two organizations, a peer each, an option typed; every step done; the network is BFT with that option', async () => {
  await ui.signIn();
  await page.getByRole('link', { name: 'Quick start: a consortium network' }).click();
  await page.getByRole('heading', { name: 'Quick start: a consortium network' }).waitFor();
  await page.getByLabel('Network name').fill('bftqs');
  await page.getByLabel('Channel name').fill('bftqschannel');
  await page.getByRole('combobox', { name: /^Organizations/ }).selectOption('2');
  await page.getByLabel('First organization MSP id').fill('BftOrg1MSP');
  await page.getByLabel('Second organization MSP id').fill('BftOrg2MSP');
  await page.getByLabel('Consensus').selectOption('smartbft');
  // At least 4 orderers for SmartBFT: the count is raised.
  const orderers = page.getByLabel(/^Orderers \(SmartBFT/);
  assert.is(await orderers.inputValue(), '4');
  if (r25.ok) await page.getByLabel('Fabric release').selectOption({ label: `Fabric ${v31}` });
  await page.getByLabel('Peers per organization').fill('1');
  const interval = page.getByLabel(/^Longest wait for a block to fill/);
  assert.is(await interval.getAttribute('placeholder'), '200ms');
  await interval.fill('500ms');
  await ui.accessible('the quick start with SmartBFT options');
  await page.getByRole('button', { name: 'Create the network' }).click();
  const steps = page.getByRole('list', { name: 'Quick start steps' });
  await Promise.race([
    page.getByRole('link', { name: 'Open the network bftqs' }).waitFor({ timeout: 480_000 }),
    steps.locator('li[data-state="failed"]').waitFor({ timeout: 480_000 }),
  ]);
  const failed = steps.locator('li[data-state="failed"]');
  if (await failed.count()) assert.unreachable(`a step failed: ${await failed.innerText()}`);
  const shown = (await steps.locator('li').allInnerTexts()).map((s) => s.replace(/ — .*$/s, ''));
  assert.equal(shown.filter((s) => /^Done: Orderer bftqs-orderer\d started$/.test(s)).length, 4, JSON.stringify(shown));
  assert.equal(shown.filter((s) => /^Done: Orderer bftqs-orderer\d joined$/.test(s)).length, 4, JSON.stringify(shown));
  assert.ok(shown.every((s) => s.startsWith('Done: ')), JSON.stringify(shown));

  const listed = (await api('GET', '/networks/consortium')).json.items as Array<{ id: number; name: string }>;
  const id = listed.find((n) => n.name === 'bftqs')!.id;
  const network = (await api('GET', `/networks/consortium/${id}`)).json;
  assert.is(network.consensus, 'smartbft');
  assert.equal(network.ordering, { orderers: 4, running: 4, faults_tolerated: 1, quorum: 3, can_order: true, reason: null });
  // Spread over the organizations, each on 3.1.
  const members = (await api('GET', `/networks/consortium/${id}/nodes`)).json.items as Array<{ name: string; nodeType: string; msp_id: string; fabric_version: string }>;
  const ordererNodes = members.filter((m) => m.nodeType === 'CONSORTIUM_ORDERER');
  assert.equal(ordererNodes.map((o) => o.fabric_version), [v31, v31, v31, v31]);
  assert.equal([...new Set(ordererNodes.map((o) => o.msp_id))].sort(), ['BftOrg1MSP', 'BftOrg2MSP']);
  // The option typed is in the channel's SmartBFT options (default 200ms).
  const config = await api('GET', `/networks/consortium/${id}/channel-config`);
  assert.is(config.status, 200, config.text);
  const consensusType = config.json.config.channel_group.groups.Orderer.values.ConsensusType.value;
  assert.is(consensusType.type, 'BFT', JSON.stringify(consensusType).slice(0, 500));
  // The metadata is the SmartBFT Options message: decoded by a Fabric 3.x configtxlator, base64
  // protobuf as a 2.5 one leaves it. Its request_batch_max_interval is the string typed, not the default.
  if (consensusType.metadata && typeof consensusType.metadata === 'object') {
    assert.is(consensusType.metadata.request_batch_max_interval, '500ms', JSON.stringify(consensusType.metadata));
  } else {
    const options = Buffer.from(String(consensusType.metadata), 'base64').toString('latin1');
    assert.ok(options.includes('500ms') && !options.includes('200ms'), JSON.stringify(consensusType.metadata));
  }
});

t('the network page\'s ordering health: 4 of 4, one Byzantine fault tolerated; one orderer stopped, it still orders; two, it cannot and names them; both back, it can', async () => {
  const listed = (await api('GET', '/networks/consortium')).json.items as Array<{ id: number; name: string }>;
  const id = listed.find((n) => n.name === 'bftqs')?.id;
  assert.ok(id, 'the network of the first test');
  await page.goto(`${server.url}/networks/consortium/${id}`);
  const health = page.getByTestId('ordering-health');
  const says = async (text: RegExp) => until(`the ordering health to say ${text}`, async () => text.test(await health.innerText()), 30_000);
  await says(/^Can order 4 of 4 SmartBFT orderers running; 3 needed, tolerates 1 fault \(Byzantine\)\.$/);
  await ui.accessible('a SmartBFT network page');
  const members = (await api('GET', `/networks/consortium/${id}/nodes`)).json.items as Array<{ id: number; name: string; nodeType: string }>;
  const [, , o2, o3] = members.filter((m) => m.nodeType === 'CONSORTIUM_ORDERER');
  try {
    assert.is((await api('POST', `/nodes/${o3.id}/stop`)).json.status, 'stopped');
    await says(/^Can order 3 of 4 SmartBFT orderers running; 3 needed/);
    assert.is((await api('POST', `/nodes/${o2.id}/stop`)).json.status, 'stopped');
    await says(/^Cannot order 2 of 4 SmartBFT orderers running; 3 needed/);
    const reason = await health.getByTestId('ordering-reason').innerText();
    assert.match(reason, `2 of 4 SmartBFT orderers run, 3 are needed; not running: ${o2.name}, ${o3.name}`);
    assert.equal((await api('GET', `/networks/consortium/${id}`)).json.ordering.reason, reason);
    await ui.accessible('a SmartBFT network that cannot order');
  } finally {
    for (const o of [o2, o3]) {
      const started = await api('POST', `/nodes/${o.id}/start`);
      assert.is(started.json?.status, 'running', started.text);
    }
  }
  // The page polls the network every 5 s.
  await until('the ordering health to say 4 of 4 again', async () => /^Can order 4 of 4 SmartBFT orderers running/.test(await health.innerText()), 60_000).catch(async (e) => {
    assert.unreachable(`${(e as Error).message}; the page says: ${await health.innerText()}; the API: ${JSON.stringify((await api('GET', `/networks/consortium/${id}`)).json.ordering)}`);
  });
  assert.is(await health.getByTestId('ordering-reason').count(), 0);
});

t.run();
