// The consortium quick start of the console in Chromium against real Fabric 2.5 programs: from the
// dashboard, one form makes two organizations, an orderer, a peer each, the network, the joins
// and the anchor peers, each step shown as it completes; the network's explorer then shows its
// blocks, and the API agrees on what was made. The same form run again fails at its first step
// (the organization exists) and says so; a node that does not start fails its step with its log
// tail, the page lists what the run made, and "Remove what was made" removes the organization,
// the node and their keys (counted over the API). axe-core checks the page.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { startServer, ADMIN, type TestServer } from '../../helpers/server.ts';
import { fabricMissing } from '../../helpers/fabric.ts';
import { fabricProgram } from '../../helpers/programs.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { chromiumMissing, axeViolations, describeViolations, screenshot } from '../../helpers/browser.ts';
import { startConsoleSession, type ConsoleSession } from '../../helpers/consoleSession.ts';
import { apiOf, consortiumEnv, removeConsortiumNodes } from '../consortium/consortiumApi.ts';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const t = requiresAll(suite('console: consortium quick start (real Fabric, Chromium)'), ['chromium', chromiumMissing()], ['fabric', fabricMissing]);
let server: TestServer;
const api = apiOf(() => server);
let ui: ConsoleSession;
let page: Page;

t.before(async () => {
  ui = await startConsoleSession({ server: { env: consortiumEnv() } });
  ({ server, page } = ui);
});

t.after(async () => {
  if (!server) return;
  await removeConsortiumNodes(api, server.dataDir).catch(() => undefined);
  await ui.close();
  // The deployed chaincode's server is a node of the service too: none outlives this suite.
  server.reapNodes();
});

t('quick start from the dashboard: two organizations, an orderer, a peer each, joined, anchor peers set; the explorer shows blocks', async () => {
  await ui.signIn();
  await page.getByRole('link', { name: 'Quick start: a consortium network' }).click();
  await page.getByRole('heading', { name: 'Quick start: a consortium network' }).waitFor();
  await page.getByLabel('Network name').fill('qsnet');
  await page.getByLabel('Channel name').fill('qschannel');
  await page.getByRole('combobox', { name: /^Organizations/ }).selectOption('2');
  await page.getByLabel('First organization MSP id').fill('QsOrg1MSP');
  await page.getByLabel('Second organization MSP id').fill('QsOrg2MSP');
  await page.getByLabel('Orderers (raft, of the first organization)').fill('1');
  await page.getByLabel('Peers per organization').fill('1');
  const v0 = await axeViolations(page);
  assert.is(v0.length, 0, describeViolations(v0));
  await page.getByRole('button', { name: 'Create the network' }).click();
  const steps = page.getByRole('list', { name: 'Quick start steps' });
  // Steps appear as they complete, before the whole run ends.
  await steps.getByText('Done: Organization QsOrg1MSP created').waitFor({ timeout: 30_000 });
  await page.getByRole('link', { name: 'Open the network qsnet' }).waitFor({ timeout: 300_000 });
  const shown = (await steps.locator('li').allInnerTexts()).map((s) => s.replace(/ — .*$/s, ''));
  assert.equal(shown, [
    'Done: Checked: names free, Fabric programs present (nothing made yet)',
    'Done: Organization QsOrg1MSP created',
    'Done: Organization QsOrg2MSP created',
    'Done: Orderer qsnet-orderer0 started',
    'Done: Peer qsnet-peer0-qsorg1 started',
    'Done: Peer qsnet-peer0-qsorg2 started',
    'Done: Network qsnet (channel qschannel) created',
    'Done: Orderer qsnet-orderer0 joined',
    'Done: Peer qsnet-peer0-qsorg1 joined',
    'Done: Peer qsnet-peer0-qsorg2 joined',
    'Done: Anchor peer of QsOrg1MSP set (qsnet-peer0-qsorg1)',
    'Done: Anchor peer of QsOrg2MSP set (qsnet-peer0-qsorg2)',
  ]);
  const v1 = await axeViolations(page);
  assert.is(v1.length, 0, describeViolations(v1));
  await screenshot(page, 'consortium-quick-start');

  // What the API says was made.
  const networks = (await api('GET', '/networks/consortium')).json.items as Array<{ id: number; name: string; channel_name: string; organizations: Array<{ msp_id: string }> }>;
  const net = networks.find((n) => n.name === 'qsnet');
  assert.ok(net, 'the network exists');
  assert.is(net!.channel_name, 'qschannel');
  const members = (await api('GET', `/networks/consortium/${net!.id}/nodes`)).json.items as Array<{ networks: Array<{ network_id: number; joined: boolean }> }>;
  assert.is(members.length, 3);
  assert.ok(members.every((m) => m.networks.find((x) => x.network_id === net!.id)?.joined), 'every node joined');

  // The explorer shows the channel's blocks: the genesis block and the two anchor peer updates.
  await page.getByRole('link', { name: 'Open the network qsnet' }).click();
  await page.getByRole('heading', { name: /qsnet/, level: 1 }).waitFor();
  await page.getByRole('button', { name: '#2', exact: true }).waitFor({ timeout: 60_000 });
  await page.getByRole('button', { name: '#0', exact: true }).click();
  await page.getByRole('heading', { name: 'Block #0', exact: true }).waitFor();
});

t('a refused quick start (its names taken) fails at the check with its reason, and nothing is made', async () => {
  const organizations = async () => (await api('GET', '/organizations?limit=100')).json.total as number;
  const before = await organizations();
  await page.goto(server.url + '/networks/consortium/quick-start');
  await page.getByLabel('Network name').fill('qsnet');
  await page.getByLabel('First organization MSP id').fill('QsOrg1MSP');
  await page.getByRole('button', { name: 'Create the network' }).click();
  const steps = page.getByRole('list', { name: 'Quick start steps' });
  await steps.getByText(/^Failed: Checked/).waitFor({ timeout: 30_000 });
  assert.match(await steps.locator('li').first().innerText(), /HTTP 4\d\d/);
  assert.is(await steps.locator('li').count(), 1, 'nothing after the failed step');
  assert.is(await organizations(), before, 'no organization was made');
  await page.getByRole('button', { name: 'Create the network' }).waitFor();
  assert.ok(await page.getByRole('button', { name: 'Create the network' }).isEnabled());
  const v = await axeViolations(page);
  assert.is(v.length, 0, describeViolations(v));
});

t('a node that does not start: its step fails with the node\'s log tail', async () => {
  // A second server whose orderer program prints a line and exits (the peer is the real one).
  const bin = mkdtempSync(path.join(tmpdir(), 'lnm-broken-orderer-'));
  writeFileSync(path.join(bin, 'orderer'), '#!/bin/sh\necho "broken orderer on purpose: cannot open the ledger" >&2\nexit 3\n', { mode: 0o755 });
  symlinkSync(fabricProgram('peer'), path.join(bin, 'peer'));
  const broken = await startServer({ env: consortiumEnv({ LNM_FABRIC_BIN: bin }) });
  try {
    const keysBefore = (await apiOf(() => broken)('GET', '/keys?limit=1')).json.total as number;
    await ui.signIn(ADMIN, { url: broken.url });
    await page.goto(broken.url + '/networks/consortium/quick-start');
    await page.getByLabel('Network name').fill('brokennet');
    await page.getByRole('button', { name: 'Create the network' }).click();
    const steps = page.getByRole('list', { name: 'Quick start steps' });
    await steps.getByText(/^Failed: Orderer brokennet-orderer0 started/).waitFor({ timeout: 60_000 });
    const tail = await steps.getByLabel('Log tail of the failed step').innerText();
    assert.match(tail, 'broken orderer on purpose: cannot open the ledger');
    assert.is(await steps.locator('li').count(), 3, 'the check, the organization, then the failed orderer; nothing after');
    // The failure names its step and lists what was made; one button removes all of it.
    const failure = page.getByRole('region', { name: 'The quick start failed' });
    await failure.waitFor({ timeout: 30_000 });
    assert.match(await failure.innerText(), 'Failed step: Orderer brokennet-orderer0 started');
    const made = await failure.getByRole('list', { name: 'Made by the quick start' }).getByRole('listitem').allInnerTexts();
    assert.is(made.length, 2, made.join(' | '));
    assert.ok(made.some((m) => /^Organization #\d+$/.test(m)) && made.some((m) => /^Node #\d+$/.test(m)), made.join(' | '));
    const b = apiOf(() => broken);
    const org = (await b('GET', '/organizations/by-mspid/Org1MSP')).json;
    assert.is((await b('GET', `/keys?limit=1&organizationId=${org.id}`)).json.total, 5, 'the organization\'s three keys and the orderer\'s two');
    const v = await axeViolations(page);
    assert.is(v.length, 0, describeViolations(v));
    await failure.getByRole('button', { name: 'Remove what was made' }).click();
    const removed = page.getByRole('region', { name: 'What the quick start made is removed' });
    await removed.getByRole('status').waitFor({ timeout: 60_000 });
    assert.match(await removed.innerText(), /Removed: (Node #\d+, Organization #\d+)/);
    assert.is((await b('GET', '/organizations/by-mspid/Org1MSP')).status, 404, 'the organization is gone');
    assert.is((await b('GET', '/nodes/platform/CONSORTIUM')).json.total, 0, 'the node is gone');
    assert.is((await b('GET', `/keys?limit=1&organizationId=${org.id}`)).json.total, 0, 'no key of theirs remains');
    assert.is((await b('GET', '/keys?limit=1')).json.total, keysBefore, 'as many keys as before the run');
  } finally {
    const b = apiOf(() => broken);
    await removeConsortiumNodes(b, broken.dataDir).catch(() => undefined);
    await broken.stop();
    rmSync(bin, { recursive: true, force: true });
  }
});

t.run();
