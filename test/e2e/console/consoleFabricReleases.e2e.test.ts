// The console's Fabric release and consensus choices (issue 37 item 9) in Chromium against the real
// Fabric 2.5 and 3.1 releases side by side (LNM_FABRIC_RELEASES; a counted skip without both, or
// without Chromium): an orderer created from the node form on 3.1 and another on 2.5, each running
// the release picked (its operations endpoint's /version says so) and its page showing it; the
// network create form with consensus smartbft lists the orderers with their release and says the
// API's refusals beside their fields (fewer than 4 orderers, an orderer on 2.5, a SmartBFT option
// that is no duration), nothing recorded; "Add a peer or orderer" on a network page offers the
// releases too, and a peer added there on 2.5 (not the newest) runs it. axe-core checks the forms.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import type { TestServer } from '../../helpers/server.ts';
import { fabricReleaseOf } from '../../helpers/programs.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { chromiumMissing } from '../../helpers/browser.ts';
import { startConsoleSession, type ConsoleSession } from '../../helpers/consoleSession.ts';
import { apiOf, consortiumEnv, organization, removeConsortiumNodes, until } from '../consortium/consortiumApi.ts';

const r25 = fabricReleaseOf('2.5');
const r31 = fabricReleaseOf('3.1');
const t = requiresAll(suite('console: Fabric releases side by side and the consensus choice (real Fabric 2.5 and 3.1, Chromium)'), ['chromium', chromiumMissing()], ['fabric-releases', !r25.ok ? r25.reason : !r31.ok ? r31.reason : undefined]);
const v25 = r25.ok ? r25.release.version : '';
const v31 = r31.ok ? r31.release.version : '';
let server: TestServer;
const api = apiOf(() => server);
let ui: ConsoleSession;
let page: Page;
let orgLabel = '';

t.before(async () => {
  ui = await startConsoleSession({ server: { env: consortiumEnv({ LNM_FABRIC_RELEASES: `${r25.ok && r25.release.binDir}:${r31.ok && r31.release.binDir}`, LNM_NODE_ENGINE: 'process' }) } });
  ({ server, page } = ui);
});

t.after(async () => {
  if (!server) return;
  await removeConsortiumNodes(api, server.dataDir);
  await ui.close();
});

/** What the node's own operations endpoint says it runs. */
async function runningVersion(operationsPort: number): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${operationsPort}/version`);
  return ((await res.json()) as { Version: string }).Version;
}

/** An orderer made with the node form, its release picked beside its organization; its page's id. */
async function ordererFromForm(name: string, release: string): Promise<number> {
  await ui.nav('Nodes').click();
  await page.getByRole('button', { name: 'Create node' }).click();
  const form = page.getByRole('form', { name: 'New node' });
  await form.getByLabel('Name', { exact: true }).fill(name);
  await form.getByLabel('Kind').selectOption('CONSORTIUM_ORDERER');
  await form.getByLabel('Organization').selectOption({ label: orgLabel });
  // Beside the organization, not under Advanced (which stays closed).
  const picker = form.getByLabel('Fabric release');
  assert.is(await form.locator('details.advanced[open]').count(), 0);
  // The releases the service finds, newest first, after "the newest".
  await until('the releases offered', async () => (await picker.locator('option').count()) === 3, 20_000);
  assert.equal(await picker.locator('option').allInnerTexts(), [`The newest (${v31})`, `Fabric ${v31}`, `Fabric ${v25}`]);
  await picker.selectOption({ label: `Fabric ${release}` });
  await ui.accessible('the node form with the Fabric release');
  await form.getByRole('button', { name: 'Create node' }).click();
  await page.getByRole('heading', { name: new RegExp(`^${name}`), level: 1 }).waitFor({ timeout: 120_000 });
  return Number(new URL(page.url()).pathname.split('/').pop());
}

t('an orderer on 3.1 and one on 2.5 created from the node form: each runs the release picked, and its page says which', async () => {
  const org = await organization(api, 'Releases', 'ReleasesMSP');
  orgLabel = 'Releases (ReleasesMSP)';
  await ui.signIn();
  for (const [name, release] of [['rel-orderer-31', v31], ['rel-orderer-25', v25]] as const) {
    const id = await ordererFromForm(name, release);
    const node = (await api('GET', `/nodes/${id}`)).json;
    assert.is(node.organization_id, org.id);
    assert.is(node.status, 'running', `${name}: ${node.status} ${node.error ?? ''}`);
    assert.is(node.fabric_version, release);
    assert.is(node.config.fabricVersion, release);
    // The real program: its operations endpoint reports the release picked, not only the record.
    assert.is(await runningVersion(node.config.operationsPort), release);
    await page.getByTestId('node-fabric-version').getByText(release, { exact: true }).waitFor();
  }
});

t('the network create form with consensus smartbft: orderers listed with their release; fewer than 4, an orderer on 2.5 and an option that is no duration are said beside their fields; nothing recorded', async () => {
  await ui.nav('Networks').click();
  await page.getByRole('link', { name: 'Create consortium network' }).click();
  await page.getByLabel('Name', { exact: true }).fill('bft-console');
  await page.getByLabel('Channel name').fill('bftconsole');
  await page.getByLabel('Consensus').selectOption('smartbft');
  await page.getByText(/at least 4 orderers, each running Fabric 3\.x/).waitFor();
  for (const [name, release] of [['rel-orderer-31', v31], ['rel-orderer-25', v25]]) {
    const box = page.getByLabel(`${name} (Fabric ${release})`);
    await box.check();
  }
  // Raft's batch fields give way to the SmartBFT options, their defaults as placeholders.
  assert.is(await page.getByLabel('Batch timeout').count(), 0);
  const interval = page.getByLabel(/^Longest wait for a block to fill/);
  assert.is(await interval.getAttribute('placeholder'), '200ms');
  await interval.fill('soon');
  await ui.accessible('the network create form with SmartBFT options');
  await page.getByRole('button', { name: 'Create network' }).click();
  const orderers = page.getByTestId('field-error-ordererIds');
  await orderers.waitFor({ timeout: 30_000 });
  assert.match(await orderers.innerText(), /smartbft needs at least 4 orderers|rel-orderer-25 runs Fabric 2\.5/);
  assert.match(await page.getByTestId('field-error-smartBftOptions.requestBatchMaxInterval').innerText(), /a duration such as 200ms/);
  assert.is(await interval.getAttribute('aria-invalid'), 'true');
  await ui.accessible('the network create form with refusals beside the fields');
  assert.is((await api('GET', '/networks/consortium')).json.items.length, 0, 'nothing recorded');
  // The page did not move on: still the form.
  assert.match(new URL(page.url()).pathname, /\/networks\/consortium\/new$/);
});

t('"Add a peer or orderer" on a network page offers the releases: a peer added on 2.5 (not the newest) runs 2.5 and is said so', async () => {
  const orderer = ((await api('GET', '/nodes/platform/CONSORTIUM?limit=100')).json.items as Array<{ id: number; name: string; organization_id: number }>).find((n) => n.name === 'rel-orderer-25');
  assert.ok(orderer, 'the 2.5 orderer of the first test');
  const made = await api('POST', '/networks/consortium', { name: 'raft-releases', channelName: 'raftreleases', ordererIds: [orderer.id], organizationIds: [orderer.organization_id] });
  assert.is(made.status, 201, made.text);
  await page.goto(`${server.url}/networks/consortium/${made.json.id}`);
  await page.getByRole('button', { name: 'Add a peer or orderer' }).click();
  const form = page.getByRole('form', { name: 'Add a peer or orderer to raft-releases' });
  await form.getByLabel('Node name').fill('rel-peer-25');
  const picker = form.getByLabel('Fabric release');
  // Offered once the defaults (with the releases found) are read.
  await until('the releases offered', async () => (await picker.locator('option').count()) === 3, 20_000);
  assert.equal(await picker.locator('option').allInnerTexts(), [`The newest (${v31})`, `Fabric ${v31}`, `Fabric ${v25}`]);
  await picker.selectOption({ label: `Fabric ${v25}` });
  await ui.accessible('add a member with its Fabric release');
  await form.getByRole('button', { name: 'Add peer' }).click();
  const answer = page.getByRole('status').filter({ hasText: 'rel-peer-25' });
  await answer.getByTestId('member-fabric-version').getByText(v25, { exact: true }).waitFor({ timeout: 120_000 });
  const peer = ((await api('GET', `/networks/consortium/${made.json.id}/nodes`)).json.items as Array<{ id: number; name: string; fabric_version: string; status: string; config: { operationsPort: number } }>).find((n) => n.name === 'rel-peer-25');
  assert.ok(peer, 'a member of the network');
  assert.is(peer.status, 'running');
  assert.is(peer.fabric_version, v25);
  assert.is(await runningVersion(peer.config.operationsPort), v25);
});

t.run();
