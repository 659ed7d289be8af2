// The console's node list filters, contract calls, node metrics charts and metrics stack page in
// Chromium against the real server, with an anvil network and Debian's Prometheus: the node list
// asks the server for the filtered page (GET /nodes?status=); a contract deployed over the API is
// queried and invoked from the network page (its event and a revert's reason shown, the chain
// agreeing); Prometheus is deployed from the metrics page, and the node page charts the node's
// block height from it; an EVM network made from the create form with an imported validator key
// (a key on another curve refused beside its field, nothing made), the network running with that
// key's address; a VIEWER sees none of the controls. axe-core checks every page.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { Contract, JsonRpcProvider, Wallet } from 'ethers';
import { generateKeyPairSync } from 'node:crypto';
import { ADMIN, adminAuth, call, type TestServer } from '../../helpers/server.ts';
import { requires } from '../../helpers/requirements.ts';
import { chromiumMissing, screenshot } from '../../helpers/browser.ts';
import { startConsoleSession, type ConsoleSession } from '../../helpers/consoleSession.ts';
import { killLeftoverNodes } from '../evm/evmLifecycle.ts';
import { COUNTER_ABI, COUNTER_BYTECODE } from '../evm/counterContract.ts';

declare const document: { querySelector(s: string): { textContent: string | null; getAttribute(a: string): string | null } | null };

const it = requires(test, 'chromium', chromiumMissing());
const VIEWER = { username: 'evm-viewer', password: 'evm-viewer-password-1' };

let s: TestServer;
let ui: ConsoleSession;
let page: Page;
const net = { id: 0, nodeId: 0, nodeName: '', rpcUrl: '', address: '' };
const api = (method: string, p: string, body?: unknown) => call(s.api, method, p, { headers: adminAuth(), body });

const accessible = (what: string) => ui.accessible(what);

const signIn = (user: { username: string; password: string }) => ui.signIn(user);

/** Scrolls the element to the top of the viewport (the screenshots show the viewport). */
const scrollTo = (l: ReturnType<Page['getByRole']>) => l.evaluate((el) => (el as unknown as { scrollIntoView(): void }).scrollIntoView());

const nav = (name: string) => ui.nav(name);

it.before(async () => {
  ui = await startConsoleSession();
  ({ server: s, page } = ui);
  let r = await api('POST', '/networks', { name: 'console-calls', type: 'evm', genesis: { chain_id: 31999, consensus: 'QBFT', block_time: 1 } });
  assert.is(r.status, 201, r.text);
  net.id = r.json.id;
  r = await api('POST', `/networks/${net.id}/start`);
  assert.is(r.json.nodes[0].status, 'running', r.text);
  Object.assign(net, { nodeId: r.json.nodes[0].id, nodeName: r.json.nodes[0].name });
  net.rpcUrl = (await api('GET', `/nodes/${net.nodeId}`)).json.endpoints.rpc_http;
  r = await api('POST', '/sc/evm/deploy', { networkId: net.id, name: 'counter', bytecode: COUNTER_BYTECODE, abi: COUNTER_ABI });
  assert.is(r.status, 200, r.text);
  net.address = r.json.address;
  r = await api('POST', '/users', { ...VIEWER, role: 'VIEWER' });
  assert.is(r.status, 201, r.text);
});

it.after(async () => {
  if (s) await api('POST', '/metrics/undeploy').catch(() => undefined);
  await ui?.close();
  if (s) killLeftoverNodes(s.dataDir);
});

it('GET /nodes filters by status on the server; the node list asks for the filtered page only', async () => {
  let r = await api('GET', '/nodes?status=running');
  assert.is(r.status, 200, r.text);
  assert.ok(r.json.items.length >= 1 && r.json.items.every((n: { status: string }) => n.status === 'running'), r.text);
  assert.is(r.json.total, r.json.items.length);
  r = await api('GET', '/nodes?status=stopped&platform=EVM');
  assert.equal([r.json.total, r.json.items], [0, []]);
  r = await api('GET', '/nodes/platform/EVM?status=running');
  assert.is(r.json.total, 1, r.text);
  for (const bad of ['RUNNING', 'bogus', "running' OR 1=1", '']) {
    r = await api('GET', `/nodes?status=${encodeURIComponent(bad)}`);
    assert.is(r.status, 400, `${bad}: ${r.text}`);
  }

  await signIn(ADMIN);
  await nav('Nodes').click();
  await page.getByTestId('node-table').waitFor();
  const asked = page.waitForRequest((q) => /\/api\/v1\/nodes\?/.test(q.url()) && new URL(q.url()).searchParams.get('status') === 'stopped');
  await page.getByLabel('Status').selectOption('stopped');
  assert.is(new URL((await asked).url()).searchParams.get('limit'), '50');
  await page.getByText('No node matches these filters.').waitFor();
  assert.match(page.url(), /status=stopped/);
  await page.getByLabel('Status').selectOption('running');
  await page.getByRole('link', { name: net.nodeName }).waitFor();
  await page.getByText('1 in all').waitFor();
  await accessible('nodes filtered by status');
});

it('a contract is queried and invoked from the network page: the answer, the event, a revert\'s reason', async () => {
  await page.goto(`${s.url}/networks/evm/${net.id}`);
  await page.getByRole('heading', { name: 'Call a contract' }).waitFor();
  const calls = page.getByRole('region', { name: 'Call a contract' });
  await calls.getByLabel('Contract').selectOption({ label: `counter (${net.address})` });
  await page.getByLabel('Function').selectOption('get()');
  await page.getByRole('button', { name: 'Query get' }).click();
  await page.getByTestId('call-result').getByText('0', { exact: true }).waitFor();

  await page.getByLabel('Function').selectOption('set(uint256)');
  await page.getByLabel('value (uint256)').fill('123456789012345678901234567890');
  await page.getByRole('button', { name: 'Send set transaction' }).click();
  await page.getByTestId('call-events').getByText('Changed(value: 123456789012345678901234567890)').waitFor({ timeout: 60_000 });
  const rpc = new JsonRpcProvider(net.rpcUrl, 31999, { staticNetwork: true });
  try {
    assert.is(await new Contract(net.address, COUNTER_ABI, rpc).get(), 123456789012345678901234567890n, 'the chain holds what the page sent');
  } finally {
    rpc.destroy();
  }
  await accessible('contract call');
  await scrollTo(page.getByRole('heading', { name: 'Call a contract' }));
  await screenshot(page, 'evm-contract-call');

  await page.getByLabel('value (uint256)').fill('0');
  await page.getByRole('button', { name: 'Send set transaction' }).click();
  await page.getByRole('alert').filter({ hasText: 'reverts on this chain: zero' }).waitFor({ timeout: 60_000 });
  await page.getByLabel('Function').selectOption('get()');
  await page.getByRole('button', { name: 'Query get' }).click();
  await page.getByTestId('call-result').getByText('123456789012345678901234567890').waitFor();
});

it('Prometheus is deployed from the metrics page; the node page charts the node from it', async () => {
  await page.goto(`${s.url}/nodes/${net.nodeId}`);
  await page.getByTestId('metrics-unavailable').getByText('not deployed', { exact: false }).waitFor();
  await page.getByTestId('metrics-unavailable').getByRole('link', { name: 'Deploy the metrics stack' }).click();
  await page.getByRole('heading', { name: 'Metrics', exact: true }).waitFor();
  await page.getByText('The metrics stack is not deployed').waitFor();
  await accessible('metrics stack (not deployed)');
  await page.getByLabel('Engine').selectOption('process');
  await page.getByLabel('Scrape interval (seconds)').fill('5');
  await page.getByRole('button', { name: 'Deploy Prometheus' }).click();
  await page.waitForFunction(() => document.querySelector('[data-testid="stack-status"]')?.textContent === 'running', null, { timeout: 60_000 });
  assert.is((await api('GET', '/metrics/status')).json.status, 'running');
  await page.waitForFunction(() => /^[1-9]\d* \/ /.test(document.querySelector('[data-testid="targets-up"]')?.textContent ?? ''), null, { timeout: 60_000 });
  await accessible('metrics stack (running)');
  await screenshot(page, 'metrics-stack');

  await page.goto(`${s.url}/nodes/${net.nodeId}`);
  await page.getByLabel('Series').selectOption('block_height');
  // Two scrapes at least, then the chart draws the series the API answers.
  await page.waitForFunction(() => Number(document.querySelector('[data-testid="chart"]')?.getAttribute('data-points') ?? 0) >= 2, null, { timeout: 90_000, polling: 1000 });
  const label = (await page.getByTestId('chart').getAttribute('aria-label')) ?? '';
  assert.match(label, /^Block height, last 15 minutes\. Block height.*samples, from \d+ to \d+/);
  const reported = Number(await page.getByTestId('metrics-block-height').textContent());
  assert.ok(reported > 0, `block height from Prometheus: ${reported}`);
  await accessible('node metrics');
  await scrollTo(page.getByRole('heading', { name: 'Metrics', exact: true }));
  await screenshot(page, 'node-metrics');
});

it('an EVM network created with an imported validator key: a key on another curve is refused beside its field and nothing is made; the network runs with the key\'s address', async () => {
  const pemOf = (curve: string) => generateKeyPairSync('ec', { namedCurve: curve }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const key = generateKeyPairSync('ec', { namedCurve: 'secp256k1' }).privateKey;
  const pem = key.export({ type: 'pkcs8', format: 'pem' }).toString();
  const address = new Wallet('0x' + Buffer.from(key.export({ format: 'jwk' }).d!, 'base64url').toString('hex')).address;
  const keysBefore = (await api('GET', '/keys?limit=1')).json.total;
  await nav('Networks').click();
  await page.getByRole('link', { name: 'Create EVM network' }).click();
  await page.getByLabel('Name').fill('console-imported-key');
  await page.getByLabel('Chain id').fill('31888');
  await page.getByLabel('Block period (seconds)').fill('1');
  await page.getByLabel('Client').selectOption('anvil');
  await page.getByLabel('Imported: secp256k1 private keys (PEM)').check();
  assert.is(await page.getByLabel('Validators', { exact: true }).count(), 0);
  const field = page.getByLabel('Validator key 1 (PEM)');
  await field.fill(pemOf('prime256v1'));
  await page.getByRole('button', { name: 'Create network' }).click();
  await page.getByTestId('field-error-validatorKeys[0]').getByText(/secp256k1/).waitFor({ timeout: 30_000 });
  assert.is(await field.getAttribute('aria-invalid'), 'true');
  assert.is((await api('GET', '/networks/evm?limit=100')).json.items.filter((n: { name: string }) => n.name === 'console-imported-key').length, 0);
  assert.is((await api('GET', '/keys?limit=1')).json.total, keysBefore);
  await accessible('create EVM network: a key refused');

  await field.fill(pem);
  await page.getByRole('button', { name: 'Create network' }).click();
  await page.getByRole('heading', { name: 'console-imported-key', level: 1 }).waitFor({ timeout: 120_000 });
  const id = Number(/\/networks\/evm\/(\d+)$/.exec(page.url())?.[1]);
  const made = (await api('GET', `/networks/evm/${id}/map`)).json;
  assert.equal(made.nodes.map((n: { validator_address: string | null }) => n.validator_address?.toLowerCase()), [address.toLowerCase()]);
  assert.is(made.nodes[0].status, 'running', JSON.stringify(made.nodes));
  // The genesis names it, and the service holds its key (anvil has no on-chain validator set to ask).
  const validators = (await api('GET', `/networks/${id}/validators`)).json.validators as Array<{ address: string; key_held: boolean; node_id: number | null }>;
  assert.equal(validators.map((v) => [v.address.toLowerCase(), v.key_held, v.node_id]), [[address.toLowerCase(), true, made.nodes[0].id]]);
  const keys = (await api('GET', '/keys?limit=500')).json.items as Array<{ ethereumAddress?: string }>;
  assert.is(keys.filter((k) => k.ethereumAddress?.toLowerCase() === address.toLowerCase()).length, 1);
  const body = pem.split('\n')[1];
  assert.not.match(JSON.stringify(made) + JSON.stringify(keys), body);
  await page.getByText(address, { exact: false }).first().waitFor();
  await accessible('EVM network with an imported validator key');
  assert.is((await api('DELETE', `/networks/evm/${id}`)).status, 204);
});

it('a VIEWER sees contracts, metrics and charts, and no call, deploy or stack control', async () => {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await signIn(VIEWER);
  await page.goto(`${s.url}/networks/evm/${net.id}`);
  await page.getByRole('cell', { name: 'counter' }).waitFor();
  assert.is(await page.getByRole('heading', { name: 'Call a contract' }).count(), 0);
  assert.is(await page.getByRole('button', { name: 'Deploy' }).count(), 0);
  await nav('Metrics').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="stack-status"]')?.textContent === 'running', null, { timeout: 30_000 });
  for (const name of ['Stop Prometheus', 'Undeploy', 'Deploy Prometheus']) assert.is(await page.getByRole('button', { name }).count(), 0, name);
  await accessible('metrics stack as VIEWER');
});

test.run();
