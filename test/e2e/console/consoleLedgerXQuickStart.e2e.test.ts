// The ledgerX quick start page in Chromium against the real Fabric-X programs (LNM_FABRIC_X_BIN):
// reached from the dashboard, its form starts the server-side quick start and the page follows
// the record, showing the steps as they complete (a step seen done while later ones still wait)
// until the network is ready and linked; the API agrees. A second run whose router port is taken
// (from outside, once its group is made) stops at the group's join, and the page names the router,
// the reason and its log tail. Bad input (a taken MSP id) is refused on the form. The ledgerX
// networks list links to the page; a VIEWER sees no quick start. axe-core checks each state.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import net from 'node:net';
import type { Page } from 'playwright-core';
import { ADMIN, type TestServer } from '../../helpers/server.ts';
import { fabricXMissing, fabricXServiceEnv } from '../../helpers/programs.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { chromiumMissing, screenshot } from '../../helpers/browser.ts';
import { startConsoleSession, type ConsoleSession } from '../../helpers/consoleSession.ts';
import { apiOf, until } from '../consortium/consortiumApi.ts';
import { freePortBlock } from '../../helpers/ports.ts';

const t = requiresAll(suite('console: ledgerX quick start (real Fabric-X, Chromium)'), ['chromium', chromiumMissing()], ['fabric-x', fabricXMissing]);
let server: TestServer;
const api = apiOf(() => server);
let ui: ConsoleSession;
let page: Page;
const VIEWER = { username: 'lxqs-viewer', password: 'lxqs-viewer-password-1' };

/** A gRPC base with room for one group at +0.. and a committer at +10.., each with monitoring ports at +100... */
const freeBase = (): Promise<number> => freePortBlock(Array.from({ length: 2 }, (_, g) => Array.from({ length: 5 }, (_, i) => [10 * g + i, 10 * g + 100 + i]).flat()).flat());

const accessible = (what: string) => ui.accessible(what);

const signIn = (user: { username: string; password: string }) => ui.signIn(user);

async function fillForm(name: string, org: string, base: number) {
  await page.getByLabel('Network name', { exact: true }).fill(name);
  await page.getByLabel('Organization 1 name').fill(org);
  await page.getByLabel('Organization 1 MSP id').fill(`${org}MSP`);
  await page.getByLabel(/^gRPC base port/).fill(String(base));
}

t.before(async () => {
  ui = await startConsoleSession({ server: { env: { ...fabricXServiceEnv(), KEY_ENCRYPTION_KEY: 'ledgerx-console-quickstart-key', LNM_LEDGERX_JOIN_TIMEOUT_SECONDS: '60' } } });
  ({ server, page } = ui);
  const v = await api('POST', '/users', { ...VIEWER, role: 'VIEWER' });
  assert.is(v.status, 201, v.text);
});

t.after(async () => {
  if (!server) return;
  const nodes = (await api('GET', '/nodes/platform/LEDGERX?limit=100')).json?.items ?? [];
  for (const n of nodes.filter((x: { nodeType: string }) => x.nodeType === 'LEDGERX_COMMITTER' || x.nodeType === 'LEDGERX_ORDERER_GROUP')) await api('DELETE', `/nodes/${n.id}`).catch(() => undefined);
  await until('every ledgerX node removed', async () => ((await api('GET', '/nodes/platform/LEDGERX')).json?.total === 0 ? true : null), 60_000).catch(() => undefined);
  await ui.close();
  server.reapNodes();
});

t('from the dashboard: the form starts the quick start and the page shows each step as it completes, then links the network', async () => {
  await signIn(ADMIN);
  await page.getByRole('link', { name: 'Quick start: a ledgerX network' }).click();
  await page.getByRole('heading', { name: 'Quick start: a ledgerX network' }).waitFor();
  await accessible('ledgerX quick start form');
  // Bad input stays on the form with the API's reason, nothing started.
  const taken = await api('POST', '/organizations', { name: 'LxTaken', mspId: 'LxTakenMSP' });
  assert.is(taken.status, 201, taken.text);
  await fillForm('lxbad', 'LxTaken', await freeBase());
  await page.getByRole('button', { name: 'Create the network' }).click();
  // The taken MSP id (organizations[i].mspId) is said beside its field, the banner points there.
  await page.locator('form [data-testid^="field-error-organizations."]').getByText(/LxTakenMSP/).waitFor();
  await page.locator('form').getByRole('alert').getByText('see the field marked above', { exact: false }).waitFor();
  assert.match(page.url(), /\/networks\/ledgerx\/quick-start$/);

  const base = await freeBase();
  await fillForm('lxqs', 'LxQs1', base);
  await page.getByRole('button', { name: 'Create the network' }).click();
  await page.waitForURL(/\/networks\/ledgerx\/quick-start\/\d+$/);
  const steps = page.getByRole('list', { name: 'Quick start steps' });
  // A step shown done while a later one still waits or works: the page follows the run.
  await steps.getByText(/^Done: Organization LxQs1MSP/).waitFor({ timeout: 60_000 });
  const early = await steps.locator('li').allInnerTexts();
  assert.ok(early.some((s) => /^(Waiting|Working):/.test(s)), `steps still to come were shown: ${early.join(' | ')}`);
  await accessible('ledgerX quick start in progress');
  await page.getByRole('link', { name: 'Open the network lxqs' }).waitFor({ timeout: 300_000 });
  const shown = (await steps.locator('li').allInnerTexts()).map((s) => s.replace(/\s+—.*$/s, '').trim());
  assert.equal(shown, [
    'Done: Organization LxQs1MSP',
    'Done: Orderer group lxqs-orderer1',
    'Done: Committer lxqs-committer',
    'Done: Network lxqs',
    'Done: Join of the orderer group lxqs-orderer1',
    'Done: Join of the committer lxqs-committer',
  ]);
  assert.is((await page.getByTestId('quickstart-status').innerText()).trim(), 'Completed');
  await accessible('ledgerX quick start completed');
  await screenshot(page, 'ledgerx-quick-start');
  const id = Number(page.url().split('/').pop());
  const record = (await api('GET', `/networks/ledgerx/quickstart/${id}`)).json;
  assert.is(record.status, 'COMPLETED');
  const network = (await api('GET', `/networks/ledgerx/${record.network_id}`)).json;
  assert.ok(network.nodes.length >= 2 && network.nodes.every((n: { joined: boolean }) => n.joined), JSON.stringify(network.nodes));
  await page.getByRole('link', { name: 'Open the network lxqs' }).click();
  await page.getByRole('heading', { name: 'lxqs', exact: true, level: 1 }).waitFor();
});

t('a router whose port is taken: the page shows the failed join with the router, the reason and its log tail, and nothing after it', async () => {
  await page.goto(server.url + '/networks');
  await page.getByRole('link', { name: 'Quick start: a ledgerX network' }).click();
  await page.getByRole('heading', { name: 'Quick start: a ledgerX network' }).waitFor();
  const base = await freeBase();
  await fillForm('lxfail', 'LxQs2', base);
  await page.getByRole('button', { name: 'Create the network' }).click();
  await page.waitForURL(/\/networks\/ledgerx\/quick-start\/\d+$/);
  const id = Number(page.url().split('/').pop());
  // Once the group is made (its ports checked free), something else takes the router's port.
  await until('the orderer group made', async () => ((await api('GET', `/networks/ledgerx/quickstart/${id}`)).json.steps[1].status === 'DONE' ? true : null), 120_000, 50);
  const holder = net.createServer();
  await new Promise<void>((res) => holder.listen(base, '0.0.0.0', () => res()));
  try {
    const steps = page.getByRole('list', { name: 'Quick start steps' });
    const failed = steps.locator('li[data-state="failed"]');
    await failed.waitFor({ timeout: 300_000 });
    const text = await failed.innerText();
    assert.match(text, /^Failed: Join of the orderer group lxfail-orderer1/);
    assert.match(text, 'The router');
    assert.match(text, `port ${base} is already in use`);
    await failed.getByLabel('Log tail of the failed step').waitFor();
    await failed.getByRole('link', { name: /^node #\d+$/ }).waitFor();
    const after = (await steps.locator('li').allInnerTexts()).slice(5);
    assert.ok(after.every((s) => s.startsWith('Waiting:')), `nothing ran after the failed step: ${after.join(' | ')}`);
    assert.is((await page.getByTestId('quickstart-status').innerText()).trim(), 'Failed');
    await page.getByRole('link', { name: 'Start another quick start' }).waitFor();
    await accessible('ledgerX quick start failed');
  } finally {
    holder.close();
  }
  // An unknown record is the error state, not an empty page.
  await page.goto(server.url + '/networks/ledgerx/quick-start/999999');
  await page.getByRole('heading', { name: 'Not found' }).waitFor();
});

t('a VIEWER sees no ledgerX quick start, on the dashboard or the networks page', async () => {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await signIn(VIEWER);
  assert.is(await page.getByRole('link', { name: /Quick start/ }).count(), 0);
  await page.goto(server.url + '/networks');
  await page.getByRole('heading', { name: 'LedgerX networks' }).waitFor();
  await page.getByRole('link', { name: 'lxqs', exact: true }).waitFor();
  assert.is(await page.getByRole('link', { name: 'Quick start: a ledgerX network' }).count(), 0);
  await page.goto(server.url + '/networks/ledgerx/quick-start');
  await page.getByText('Your role may not create networks', { exact: false }).waitFor();
  assert.is(await page.getByRole('button', { name: 'Create the network' }).count(), 0);
  await accessible('ledgerX quick start (viewer)');
});

t.run();
