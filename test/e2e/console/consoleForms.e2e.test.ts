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

it('a page for an unknown id is one not-found message, no other sections and no forms', async () => {
  for (const path of ['/networks/evm/999999', '/networks/consortium/999999', '/nodes/999999', '/webhooks/999999']) {
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
