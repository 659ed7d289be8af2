// Issue 35 item 9 in Chromium against the real server: a refusal is said beside its field (from
// the error body's details, or the field a 409 names) and not a second time under the form; the
// EVM create form shows the API's defaults; a page for an unknown id is one not-found message
// with no sections or forms; the node page offers the button that deploys the metrics stack
// instead of telling the user to call an API route.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { adminAuth, call, type TestServer } from '../../helpers/server.ts';
import { requires } from '../../helpers/requirements.ts';
import { chromiumMissing } from '../../helpers/browser.ts';
import { startConsoleSession, type ConsoleSession } from '../../helpers/consoleSession.ts';
import { killLeftoverNodes } from '../evm/evmLifecycle.ts';

const it = requires(test, 'chromium', chromiumMissing());

let s: TestServer;
let ui: ConsoleSession;
let page: Page;
const api = (method: string, p: string, body?: unknown) => call(s.api, method, p, { headers: adminAuth(), body });

it.before(async () => {
  ui = await startConsoleSession({ signIn: true });
  ({ server: s, page } = ui);
});

it.after(async () => {
  await ui?.close();
  if (s) killLeftoverNodes(s.dataDir);
});

it('a refusal is said beside its field and once: a taken chain id (409) and a bad gas limit (400); the form shows the API defaults', async () => {
  let r = await api('POST', '/networks/evm', { name: 'taken-chain', genesis: { chain_id: 31500 } });
  assert.is(r.status, 201, r.text);
  await page.goto(`${s.url}/networks/evm/new`);
  await page.getByRole('heading', { name: 'Create an EVM network' }).waitFor();
  const chainId = page.getByLabel('Chain id');
  await page.waitForFunction(() => (globalThis as any).document.querySelector('input[aria-describedby~="chain-id-help"]')?.placeholder === '1337');
  assert.is(await page.getByLabel('Block period (seconds)').getAttribute('placeholder'), '5', 'the API default, not a copy');
  await page.getByLabel('Name').fill('forms-dup');
  await chainId.fill('31500');
  await page.getByLabel('Start the network after creating it').uncheck();
  await page.getByRole('button', { name: 'Create network' }).click();
  await page.getByTestId('field-error-chain_id').getByText(/already used by network taken-chain/).waitFor({ timeout: 30_000 });
  assert.is(await chainId.getAttribute('aria-invalid'), 'true');
  const said = page.locator('.action-error');
  await said.getByText('see the field marked above', { exact: false }).waitFor();
  assert.not.match((await said.textContent()) ?? '', /already used/, 'not said a second time under the form');
  assert.is(await page.getByText(/already used by network taken-chain/).count(), 1);

  await chainId.fill('');
  await page.getByLabel('Gas limit (optional)').fill('lots');
  await page.getByRole('button', { name: 'Create network' }).click();
  await page.getByTestId('field-error-gas_limit').getByText(/hex or decimal/).waitFor({ timeout: 30_000 });
  assert.is(await page.getByTestId('field-error-chain_id').count(), 0, 'the earlier refusal is gone');
  assert.not.match((await said.textContent()) ?? '', /hex or decimal/);
  assert.is(await page.getByText(/must be a hex or decimal string/).count(), 1);
  r = await api('GET', '/networks/evm?limit=100');
  assert.is(r.json.items.filter((n: { name: string }) => n.name === 'forms-dup').length, 0, 'nothing made');
  await ui.accessible('create EVM network: refusals at their fields');
});

/** The field's refusal is drawn inside the field's own label, the control marked, and its text is on the page once. */
async function saidOnceAtField(form: import('playwright-core').Locator, control: import('playwright-core').Locator, field: string, text: RegExp) {
  const at = form.getByTestId(`field-error-${field}`);
  await at.getByText(text).waitFor({ timeout: 30_000 });
  assert.is(await control.locator('xpath=ancestor::label[1]').getByTestId(`field-error-${field}`).count(), 1, `${field}: beside its control (in its label)`);
  assert.is(await control.getAttribute('aria-invalid'), 'true');
  assert.is(await control.getAttribute('aria-describedby'), `field-error-${field}`);
  assert.is(await page.getByText(text).count(), 1, `${field}: said once on the page`);
  const banner = form.locator('.action-error');
  await banner.getByText('see the field marked above', { exact: false }).waitFor();
  assert.not.match((await banner.textContent()) ?? '', text, `${field}: not said again under the form`);
}

it('the organization form: a schema refusal (400) of the MSP id is said beside it, once, and nothing is made', async () => {
  await page.goto(`${s.url}/organizations`);
  await page.getByRole('button', { name: 'Create organization' }).click();
  const form = page.locator('form[aria-labelledby="new-org"]');
  await form.getByLabel('Name').fill('forms-org');
  const msp = form.getByLabel('MSP id');
  await msp.fill('bad msp!');
  await form.getByRole('button', { name: 'Create organization' }).click();
  await saidOnceAtField(form, msp, 'mspId', /must match pattern/);
  const r = await api('GET', '/organizations?limit=500');
  assert.is(r.json.items.filter((o: { name: string }) => o.name === 'forms-org').length, 0, 'nothing made');
  await ui.accessible('create organization: refusal at its field');
});

it('the user form: a taken username (409) and a malformed one (400) are said beside the username, once', async () => {
  await page.goto(`${s.url}/users`);
  const form = page.locator('form[aria-label="New user"]');
  const username = form.getByLabel('Username');
  await username.fill('admin');
  await form.getByLabel('Password').fill('a-long-enough-password');
  await form.getByRole('button', { name: 'Create user' }).click();
  await saidOnceAtField(form, username, 'username', /username "admin" is taken/);

  await username.fill('no spaces allowed');
  await form.getByRole('button', { name: 'Create user' }).click();
  await saidOnceAtField(form, username, 'username', /must be 2-64 characters/);
  assert.is(await page.getByText(/is taken/).count(), 0, 'the earlier refusal is gone');
  const r = await api('GET', '/users?limit=500');
  assert.is(r.json.items.filter((u: { username: string }) => u.username === 'no spaces allowed').length, 0, 'nothing made');
});

it('a page for an unknown id is one not-found message, no other sections and no forms', async () => {
  for (const path of ['/networks/evm/999999', '/networks/consortium/999999', '/networks/ledgerx/999999', '/networks/ledgerx/quick-start/999999', '/nodes/999999', '/webhooks/999999', '/organizations/999999', '/plugins/no-such-plugin']) {
    await page.goto(`${s.url}${path}`);
    await page.getByRole('heading', { name: 'Not found' }).first().waitFor({ timeout: 30_000 });
    await page.waitForLoadState('networkidle'); // every section's request answered and drawn
    assert.is(await page.getByRole('heading', { name: 'Not found' }).count(), 1, `${path}: one not-found`);
    assert.is(await page.getByRole('alert').count(), 1, `${path}: one message`);
    assert.is(await page.locator('main form').count(), 0, `${path}: no forms`);
  }
});

it('the node page offers the way to deploy the metrics stack, not an API route', async () => {
  let r = await api('POST', '/networks/evm', { name: 'forms-metrics', genesis: { block_time: 1 } });
  assert.is(r.status, 201, r.text);
  r = await api('POST', `/networks/${r.json.id}/start`);
  assert.is(r.status, 200, r.text);
  const nodeId = r.json.nodes[0].id;
  await page.goto(`${s.url}/nodes/${nodeId}`);
  const box = page.getByTestId('metrics-unavailable');
  await box.getByText('not deployed', { exact: false }).waitFor({ timeout: 30_000 });
  assert.not.match((await page.locator('main').textContent()) ?? '', /\b(GET|POST|PUT|DELETE|PATCH) \/[a-z]/);
  await box.getByRole('link', { name: 'Deploy the metrics stack' }).click();
  await page.getByRole('button', { name: 'Deploy Prometheus' }).waitFor();
});

test.run();
