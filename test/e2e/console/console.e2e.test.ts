// The web console in a real Chromium (Debian's, driven by playwright-core) against the real
// server (child process) with its real backends: sign in, an EVM network on anvil created from
// the page whose block height grows on screen, stop and start of its node seen without a
// reload, live logs, a VIEWER without create or operate controls and with a 403 shown as such,
// audit verify (valid, then the altered entry after a row is changed in the database), and a
// webhook whose test shows the receiver's status. axe-core checks every page visited.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { readFileSync } from 'node:fs';
import type { BrowserContext, Page } from 'playwright-core';
import { ADMIN, adminAuth, call, type TestServer } from '../../helpers/server.ts';
import { requires } from '../../helpers/requirements.ts';
import { chromiumMissing, fillCodeEditor, screenshot } from '../../helpers/browser.ts';
import { pluginYaml, startConsoleSession, type ConsoleSession } from '../../helpers/consoleSession.ts';
import { startReceiver, type Receiver } from '../../helpers/webhookReceiver.ts';
import { killLeftoverNodes, STORE_ABI, STORE_BYTECODE } from '../evm/evmLifecycle.ts';
import { Contract, JsonRpcProvider } from 'ethers';

// Page functions run in the browser; the project's tsconfig has no DOM library.
declare const document: { querySelector(s: string): { textContent: string | null } | null; querySelectorAll(s: string): { length: number } };
declare const window: unknown;

const it = requires(test, 'chromium', chromiumMissing());
const PLUGIN_YAML = pluginYaml('console-plugin', 'Installed from the console');
const VIEWER = { username: 'viewer', password: 'viewer-password-for-tests' };
const FUNDED = '0x00000000000000000000000000000000000f00d5';

let ui: ConsoleSession;
let s: TestServer;
let browser: BrowserContext;
let page: Page;
let receiver: Receiver;
let nodeName = '';
let nodeId = 0;

const accessible = (what: string) => ui.accessible(what);
const signIn = (user: { username: string; password: string }) => ui.signIn(user);
const nav = (name: string) => ui.nav(name);

const text = async (testId: string) => ((await page.getByTestId(testId).textContent()) ?? '').trim();

it.before(async () => {
  receiver = await startReceiver();
  ui = await startConsoleSession({ server: { env: { LNM_ALLOW_PRIVATE_TARGETS: 'true' } } });
  ({ server: s, context: browser, page } = ui);
  const r = await call(s.api, 'POST', '/users', { headers: adminAuth(), body: { ...VIEWER, role: 'VIEWER' } });
  assert.is(r.status, 201, r.text);
});

it.after(async () => {
  await ui?.close();
  await receiver?.close();
  if (s) killLeftoverNodes(s.dataDir);
});

it('the console is served at / and any console address; a wrong password is refused on the page, the right one signs in', async () => {
  const r = await fetch(s.url + '/networks/evm/7');
  assert.is(r.status, 200);
  assert.match(await r.text(), /<div id="root">/);
  assert.is((await fetch(s.api + '/no-such-route')).status, 404);

  await page.goto(s.url + '/');
  await page.getByRole('heading', { name: 'Sign in', exact: true }).waitFor();
  await page.getByText('First start: created ADMIN user', { exact: false }).waitFor();
  await accessible('sign-in page');
  await screenshot(page, 'sign-in');
  await page.getByLabel('Username').fill(ADMIN.username);
  await page.getByLabel('Password').fill('not-the-password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').filter({ hasText: 'Invalid username or password.' }).waitFor();

  await signIn(ADMIN);
  await page.getByText('No nodes yet', { exact: false }).waitFor();
  await accessible('dashboard (empty)');
  const cookies = await browser.cookies(s.url);
  const session = cookies.find((c) => c.name === 'lnm_session');
  assert.ok(session?.httpOnly, 'the session cookie is HttpOnly');
});

it('an EVM network created from the page starts on anvil, its block height grows on screen, and a contract deployed from the page answers', async () => {
  await nav('Networks').click();
  await page.getByRole('heading', { name: 'Networks', exact: true }).waitFor();
  await page.getByText('No EVM networks yet.').waitFor();
  await accessible('networks (empty)');
  await page.getByRole('link', { name: 'Create EVM network' }).click();
  await page.getByLabel('Name').fill('console-evm');
  await page.getByLabel('Chain id').fill('31777');
  await page.getByLabel('Block period (seconds)').fill('1');
  await page.getByLabel('Client').selectOption('anvil');
  await page.getByLabel('Description (optional)').fill('made from the console');
  // A genesis allocation: a half-filled row is the API's 400 naming it, shown on the page.
  await page.getByRole('button', { name: 'Add an account' }).click();
  await page.getByLabel('Account 1 address').fill(FUNDED);
  await page.getByRole('button', { name: 'Create network' }).click();
  await page.getByRole('alert').getByText(`accounts.${FUNDED}.balance`, { exact: false }).waitFor();
  await page.getByLabel('Account 1 balance (wei)').fill('123456789000000000000');
  await accessible('create EVM network');
  await page.getByRole('button', { name: 'Create network' }).click();
  await page.getByRole('heading', { name: /console-evm/, level: 1 }).waitFor({ timeout: 120_000 });
  assert.match(page.url(), /\/networks\/evm\/\d+$/);

  await page.waitForFunction(() => /^\d+$/.test(document.querySelector('[data-testid="block-height"]')?.textContent?.trim() ?? ''), null, { timeout: 60_000 });
  const first = Number(await text('block-height'));
  await page.evaluate(() => ((window as unknown as { marker: number }).marker = 42));
  await page.waitForFunction((h) => Number(document.querySelector('[data-testid="block-height"]')?.textContent) > h + 1, first, { timeout: 30_000 });
  assert.is(await page.evaluate(() => (window as unknown as { marker?: number }).marker), 42, 'the height grew without a reload');
  await accessible('EVM network detail');
  await screenshot(page, 'evm-network');

  // A contract deployed from the page answers on the chain.
  await page.getByLabel('Contract name (optional)').fill('store42');
  await page.getByLabel('Creation bytecode (hex)').fill(STORE_BYTECODE);
  await page.getByLabel('ABI (JSON array, optional)').fill(JSON.stringify(STORE_ABI));
  await page.getByLabel('Constructor arguments (JSON array, optional)').fill('[42]');
  await page.getByRole('button', { name: 'Deploy', exact: true }).click();
  await page.getByTestId('contract-address').waitFor({ timeout: 120_000 });
  const address = await text('contract-address');
  await page.getByRole('table', { name: 'Contracts' }).getByText(address).waitFor();
  const networkId = Number(/\/networks\/evm\/(\d+)$/.exec(page.url())![1]);
  const rpc = (await call(s.api, 'GET', `/networks/evm/${networkId}/nodes`, { headers: adminAuth() })).json.items[0].endpoints.rpc_http as string;
  const provider = new JsonRpcProvider(rpc, undefined, { staticNetwork: true });
  assert.is(await new Contract(address, STORE_ABI, provider).get(), 42n);
  // The allocation from the form is in the genesis the node started from, and the description is kept.
  assert.is(await provider.getBalance(FUNDED), 123456789000000000000n);
  provider.destroy();
  const network = (await call(s.api, 'GET', `/networks/evm/${networkId}`, { headers: adminAuth() })).json;
  assert.is(network.description, 'made from the console', JSON.stringify(network).slice(0, 300));
});

it('stopping and starting a node shows each status without a reload, and its live logs arrive', async () => {
  const link = page.getByRole('table', { name: 'Nodes of the network' }).getByRole('link').first();
  nodeName = ((await link.textContent()) ?? '').trim();
  await link.click();
  await page.getByRole('heading', { name: new RegExp(nodeName) }).waitFor();
  nodeId = Number(page.url().split('/').pop());
  await page.waitForFunction(() => document.querySelector('[data-testid="node-status"]')?.textContent === 'running');
  await page.evaluate(() => ((window as unknown as { marker: number }).marker = 7));

  // Live logs over the WebSocket: lines arrive (anvil prints each RPC call the health probe makes).
  await page.getByText('Live', { exact: true }).waitFor();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="log-view"] > div').length > 0, null, { timeout: 30_000 });
  const before = await page.locator('[data-testid="log-view"] > div').count();
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid="log-view"] > div').length > n, before, { timeout: 30_000 });
  await accessible('node detail');
  await screenshot(page, 'node');

  await page.getByRole('button', { name: `Stop node ${nodeName}` }).click();
  await page.waitForFunction(() => document.querySelector('[data-testid="node-status"]')?.textContent === 'stopped', null, { timeout: 60_000 });
  await page.getByRole('button', { name: `Start node ${nodeName}` }).waitFor();
  await page.getByRole('button', { name: `Start node ${nodeName}` }).click();
  await page.waitForFunction(() => document.querySelector('[data-testid="node-status"]')?.textContent === 'running', null, { timeout: 60_000 });
  assert.is(await page.evaluate(() => (window as unknown as { marker?: number }).marker), 7, 'no reload happened');
  assert.is((await call(s.api, 'GET', `/nodes/${nodeId}`, { headers: adminAuth() })).json.status, 'running');

  await nav('Nodes').click();
  await page.getByTestId('node-table').waitFor();
  await page.getByLabel('Platform').selectOption('EVM');
  await page.getByRole('link', { name: nodeName }).waitFor();
  await page.getByLabel('Platform').selectOption('CONSORTIUM');
  await page.getByText('No node matches these filters.').waitFor();
  await page.getByLabel('Platform').selectOption('');
  await accessible('nodes list');
  await screenshot(page, 'nodes');
  await nav('Dashboard').click();
  await page.getByTestId('node-total').waitFor();
  assert.is(await text('node-total'), '1');
  await accessible('dashboard');
  await screenshot(page, 'dashboard');
});

it('a webhook created on the page shows, on test, the status its receiver answered', async () => {
  receiver.respond = 202;
  await nav('Webhooks').click();
  await page.getByText('No webhooks yet.', { exact: false }).waitFor();
  await page.getByRole('button', { name: 'Create webhook' }).click();
  await page.getByLabel('Name').fill('console-hook');
  await page.getByLabel('URL').fill(receiver.url + '/hook');
  await page.getByRole('group', { name: 'Events' }).getByRole('checkbox').first().check();
  await accessible('create webhook');
  await page.getByRole('button', { name: 'Create webhook' }).click();
  await page.getByRole('heading', { name: 'console-hook', exact: true }).waitFor();
  const received = receiver.received.length;
  await page.getByRole('button', { name: 'Send test' }).click();
  await page.getByTestId('receiver-status').first().waitFor();
  assert.is(await page.getByTestId('receiver-status').first().textContent(), '202');
  assert.ok(receiver.received.length > received, 'the receiver got the test');
  await accessible('webhook detail');
  await screenshot(page, 'webhook');
});

it('audit verify shows the chain valid, then names the entry altered in the database', async () => {
  await nav('Audit').click();
  await page.getByRole('heading', { name: 'Audit', exact: true }).waitFor();
  await page.getByRole('button', { name: /Show audit entry/ }).first().waitFor();
  await page.getByRole('button', { name: /Show audit entry/ }).first().click();
  await page.getByRole('heading', { name: /Audit entry \d+/ }).waitFor();
  await page.getByRole('button', { name: 'Verify', exact: true }).click();
  await page.getByTestId('verify-result').waitFor();
  assert.match(await text('verify-result'), /^Valid/);
  await accessible('audit');
  await screenshot(page, 'audit');

  const head = (await call(s.api, 'POST', '/audit-logs/verify', { headers: adminAuth(), body: { start_id: 1, end_id: 2_000_000_000 } })).json.end_id as number;
  const victim = Math.max(2, Math.floor(head / 2));
  const db = new pg.Client({ connectionString: s.databaseUrl! });
  await db.connect();
  await db.query('ALTER TABLE events DISABLE TRIGGER events_append_only');
  await db.query('ALTER TABLE events DROP CONSTRAINT events_body_matches_columns');
  await db.query(`UPDATE events SET metadata = jsonb_set(metadata, '{ip}', '"10.9.9.9"') WHERE position = $1`, [victim]);
  await db.query('ALTER TABLE events ENABLE TRIGGER events_append_only');
  await db.end();

  // The activity report downloads as CSV from the page.
  const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download activity (CSV)' }).click()]);
  const rows = readFileSync((await csv.path())!, 'utf8').trim().split('\n');
  assert.ok(rows.length > 5, `activity report rows: ${rows.length}`);
  assert.match(csv.suggestedFilename(), /\.csv$/);

  await page.getByRole('button', { name: 'Verify', exact: true }).click();
  await page.waitForFunction((v) => document.querySelector('[data-testid="verify-result"]')?.textContent?.includes(`Altered entry: ${v}`), victim);
});

it('organizations, backups, users, notifications and settings show their empty states; a plugin installs from YAML, a broken descriptor says why', async () => {
  await nav('Organizations and keys').click();
  await page.getByText('No organizations yet.', { exact: false }).waitFor();
  await page.getByRole('table', { name: 'Key providers' }).waitFor();
  await accessible('organizations and keys');
  await nav('Backups').click();
  await page.getByText('No backup targets yet.', { exact: false }).waitFor();
  await page.getByText('No backups yet.').waitFor();
  await accessible('backups');
  await nav('Users and API keys').click();
  await page.getByRole('table', { name: 'Users' }).getByText(VIEWER.username, { exact: true }).waitFor();
  await accessible('users');
  await nav('Notifications').click();
  await page.getByText('No notification providers.', { exact: false }).waitFor();
  await accessible('notifications');
  await nav('Settings').click();
  await page.getByText('nodeHealthCheckIntervalSeconds', { exact: true }).waitFor();
  await accessible('settings');

  await nav('Plugins').click();
  await page.getByText('No plugins installed.', { exact: false }).waitFor();
  await page.getByRole('button', { name: 'Install plugin' }).click();
  const editor = page.getByLabel('Descriptor (YAML)');
  await fillCodeEditor(editor, 'kind: [');
  await page.getByRole('button', { name: 'Install', exact: true }).click();
  await page.getByRole('alert').first().waitFor();
  // The code editor keeps the text and names the syntax error.
  assert.is((await editor.textContent())?.trim(), 'kind: [');
  await page.getByRole('list', { name: 'YAML syntax errors' }).waitFor();
  await fillCodeEditor(editor, PLUGIN_YAML);
  await accessible('plugin install');
  await page.getByRole('button', { name: 'Install', exact: true }).click();
  await page.getByRole('table', { name: 'Installed plugins' }).getByText('console-plugin', { exact: true }).waitFor();
  const listed = await call(s.api, 'GET', '/plugins', { headers: adminAuth() });
  assert.equal(listed.json.items.map((p: { name: string }) => p.name), ['console-plugin']);
  await screenshot(page, 'plugins');
});

it('a VIEWER sees no create, operate or log controls, and a page it may not read says 403', async () => {
  await ui.signOut();
  await signIn(VIEWER);
  assert.is(await page.getByRole('link', { name: /Quick start/ }).count(), 0);
  assert.is(await nav('Audit').count(), 0);
  assert.is(await nav('Webhooks').count(), 0);
  await nav('Networks').click();
  await page.getByRole('link', { name: 'console-evm' }).waitFor();
  assert.is(await page.getByRole('link', { name: 'Create EVM network' }).count(), 0);
  assert.is(await page.getByRole('link', { name: 'Create consortium network' }).count(), 0);
  await page.getByRole('link', { name: 'console-evm' }).click();
  await page.getByTestId('block-height').waitFor();
  await page.getByRole('link', { name: nodeName }).waitFor();
  assert.is(await page.getByRole('button').filter({ hasText: /^(Start|Stop|Restart|Delete)/ }).count(), 0);
  await nav('Nodes').click();
  await page.getByTestId('node-table').waitFor();
  assert.is(await page.getByRole('button', { name: 'Create node' }).count(), 0);
  await page.goto(`${s.url}/nodes/${nodeId}`);
  await page.getByTestId('node-status').waitFor();
  assert.is(await page.getByRole('button', { name: /node / }).count(), 0, 'no start/stop/restart/delete');
  assert.is(await page.getByRole('heading', { name: 'Logs', exact: true }).count(), 0, 'a VIEWER may not read logs');
  await accessible('node detail (viewer)');
  await page.goto(`${s.url}/audit`);
  await page.getByRole('heading', { name: 'Permission denied (403)', exact: true }).waitFor();
  await page.goto(`${s.url}/webhooks`);
  await page.getByRole('heading', { name: 'Permission denied (403)', exact: true }).waitFor();
  assert.is(await page.getByRole('button', { name: 'Create webhook' }).count(), 0);
  await accessible('403 page');
});

it('changing the password ends the session; the new password signs in', async () => {
  await page.getByRole('link', { name: /Account of viewer/ }).click();
  await page.getByLabel('Current password').fill(VIEWER.password);
  await page.getByLabel('New password', { exact: true }).fill('viewer-password-changed');
  await page.getByLabel('Confirm new password').fill('viewer-password-changed');
  await accessible('account');
  await page.getByRole('button', { name: 'Change password' }).click();
  await page.getByRole('heading', { name: 'Sign in', exact: true }).waitFor();
  await signIn({ username: VIEWER.username, password: 'viewer-password-changed' });
});

it.run();
