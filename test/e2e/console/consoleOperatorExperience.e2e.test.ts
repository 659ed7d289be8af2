// The operator's first look (issue 35) in Chromium against the real server, with anvil:
// - the console's Metrics page reloaded (or opened from a bookmark) is the console, while the
//   service's own /metrics still answers scrapers (Prometheus's Accept, */*, none) its exposition;
// - an anvil network stopped and restarted from its page (POST /networks/{id}/stop, /restart),
//   the page saying each node's status after, the API and the audit log agreeing;
// - an anvil node's log on its page is the node's own output (mined blocks), without the lines of
//   the service's eth_blockNumber polling (health checks every second here); a consortium peer that
//   never ran (no Fabric program where this server looks) says so with its last error, not "Disconnected: Node node-N
//   was not found" with a Reconnect button;
// - smaller: the EVM network page's block height asked live (GET /nodes/{id}) while it is open; a
//   community server's menu marking Webhooks, Templates and Node sharing as pro, and its empty
//   dashboard saying "No networks yet" without a table header; a user created with a confirmation;
// - the dashboard at a glance: the node in error with its reason, each network's height, a CA
//   certificate (openssl, 5 days) expiring, the backup schedules and failing webhooks (none).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ADMIN, adminAuth, call, type TestServer } from '../../helpers/server.ts';
import { requires } from '../../helpers/requirements.ts';
import { chromiumMissing } from '../../helpers/browser.ts';
import { startConsoleSession, type ConsoleSession } from '../../helpers/consoleSession.ts';
import { killLeftoverNodes } from '../evm/evmLifecycle.ts';

const it = requires(test, 'chromium', chromiumMissing());
const PROMETHEUS_ACCEPT = 'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1';

let s: TestServer;
let ui: ConsoleSession;
let page: Page;
const api = (method: string, p: string, body?: unknown) => call(s.api, method, p, { headers: adminAuth(), body });

// Fabric's programs are looked up in an empty directory here, so a consortium peer made on this
// server never runs, on any machine (the node-that-never-ran tests).
const noFabric = mkdtempSync(path.join(tmpdir(), 'lnm-no-fabric-'));

it.before(async () => {
  ui = await startConsoleSession({ signIn: true, server: { env: { LNM_FABRIC_BIN: noFabric } } });
  ({ server: s, page } = ui);
});

it.after(async () => {
  rmSync(noFabric, { recursive: true, force: true });
  await ui?.close();
  if (s) killLeftoverNodes(s.dataDir);
});

it('the Metrics page reloads into the console; scrapers still get the exposition at /metrics', async () => {
  await ui.nav('Metrics').click();
  await page.getByRole('heading', { name: 'Metrics', level: 1 }).waitFor();
  await page.reload();
  await page.getByRole('heading', { name: 'Metrics', level: 1 }).waitFor({ timeout: 15_000 });
  assert.not.match(await page.content(), /# TYPE lnm_/, 'no exposition text in the page');
  // A bookmark opened in a fresh tab.
  const tab = await ui.context.newPage();
  try {
    await tab.goto(`${s.url}/metrics`);
    await tab.getByRole('heading', { name: 'Metrics', level: 1 }).waitFor({ timeout: 15_000 });
  } finally {
    await tab.close();
  }
  for (const accept of [PROMETHEUS_ACCEPT, '*/*', 'text/plain', undefined]) {
    const r = await call(s.url, 'GET', '/metrics', { headers: { ...adminAuth(), ...(accept ? { accept } : {}) } });
    assert.is(r.status, 200, `${accept}: ${r.text.slice(0, 200)}`);
    assert.match(r.headers.get('content-type') ?? '', /text\/plain/, String(accept));
    assert.match(r.text, /# TYPE lnm_http_request_duration_seconds histogram/, String(accept));
  }
  const anonymous = await call(s.url, 'GET', '/metrics', { headers: { accept: PROMETHEUS_ACCEPT } });
  assert.is(anonymous.status, 401, 'a scraper without credentials is still refused');
});

it('an EVM network is stopped and restarted from its page; the API and the audit log agree', async () => {
  let r = await api('POST', '/networks', { name: 'ops-anvil', type: 'evm', genesis: { chain_id: 31777, consensus: 'QBFT', block_time: 1 } });
  assert.is(r.status, 201, r.text);
  const id = r.json.id as number;
  r = await api('POST', `/networks/${id}/start`);
  assert.is(r.json.nodes[0]?.status, 'running', r.text);
  const node = r.json.nodes[0] as { id: number; name: string };
  await page.goto(`${s.url}/networks/evm/${id}`);
  const ops = page.getByRole('group', { name: 'Network operations' });
  await ops.getByRole('button', { name: 'Stop network', exact: true }).click();
  const said = page.getByTestId('network-operation');
  await said.filter({ hasText: 'Network stopped' }).waitFor({ timeout: 60_000 });
  assert.is(await said.innerText(), `Network stopped: ${node.name} stopped.`);
  assert.is((await api('GET', `/nodes/${node.id}`)).json.status, 'stopped');
  await ops.getByRole('button', { name: 'Start network', exact: true }).waitFor();
  assert.is(await ops.getByRole('button', { name: 'Stop network', exact: true }).count(), 0, 'nothing running: no Stop');
  await ui.accessible('network stopped from its page');
  await ops.getByRole('button', { name: 'Restart network' }).click();
  await said.filter({ hasText: 'Network restarted' }).waitFor({ timeout: 90_000 });
  assert.is(await said.innerText(), `Network restarted: ${node.name} running.`);
  assert.is((await api('GET', `/nodes/${node.id}`)).json.status, 'running');
  const audit = await api('GET', '/audit-logs?resource_type=network&limit=20');
  const actions = (audit.json.items as Array<{ action: string; resource_id: string }>).filter((e) => e.resource_id === String(id)).map((e) => e.action);
  assert.ok(actions.includes('STOP') && actions.includes('RESTART'), JSON.stringify(actions));
});

it("an anvil node's log shows the node's own output, not the service's polling", async () => {
  let r = await api('POST', '/settings', { nodeHealthCheckIntervalSeconds: 1 });
  assert.is(r.status, 200, r.text);
  r = await api('POST', '/networks', { name: 'logs-anvil', type: 'evm', genesis: { chain_id: 31778, consensus: 'QBFT', block_time: 1 } });
  assert.is(r.status, 201, r.text);
  r = await api('POST', `/networks/${r.json.id}/start`);
  const node = r.json.nodes[0] as { id: number; status: string };
  assert.is(node.status, 'running', r.text);
  await page.goto(`${s.url}/nodes/${node.id}`);
  const view = page.getByTestId('log-view');
  await view.getByText(/Block Number: [3-9]/).first().waitFor({ timeout: 30_000 });
  // Health checks every second and the page's own live reads have asked eth_blockNumber by now.
  await page.waitForTimeout(4000);
  const shown = await view.innerText();
  assert.match(shown, /Block Hash: 0x[0-9a-f]{64}/);
  assert.not.match(shown, /eth_blockNumber/, 'no line of the service polling');
  const tail = await api('GET', `/nodes/${node.id}/logs?tail=200`);
  assert.ok(tail.json.lines.some((l: string) => /Block Number/.test(l)), tail.text);
  assert.ok(!tail.json.lines.some((l: string) => l.trim() === 'eth_blockNumber'), tail.text);
  assert.ok(tail.json.lines.length <= 200);
});

it('a node that never ran says so on its page, with its last error, not a bogus disconnect', async () => {
  // No Fabric program where this server looks (LNM_FABRIC_BIN is an empty directory): the peer's
  // start fails before it ever runs. (An evm network that needs besu is refused up front now.)
  let r = await api('POST', '/organizations', { name: 'NeverRan', mspId: 'NeverRanMSP' });
  assert.is(r.status, 201, r.text);
  r = await api('POST', '/nodes', { name: 'never-ran-peer', platform: 'CONSORTIUM', nodeType: 'CONSORTIUM_PEER', organizationId: r.json.id, config: {} });
  assert.is(r.status, 201, r.text);
  const failed = r.json as { id: number; status: string; error: string | null };
  assert.is(failed.status, 'error', r.text);
  assert.ok(failed.error, r.text);
  await page.goto(`${s.url}/nodes/${failed.id}`);
  const bar = page.locator('.logs-bar').getByRole('status');
  await bar.getByText('No output: this node has never run').waitFor({ timeout: 15_000 });
  assert.is((await page.getByTestId('log-never-ran').innerText()).trim(), `Why: ${failed.error}`);
  assert.not.match(await page.locator('.logs').innerText(), /was not found|Disconnected/);
  assert.is(await page.getByRole('button', { name: 'Reconnect' }).count(), 0);
  await ui.accessible('node that never ran, its log');
});

it("the EVM network page's block height is the nodes' live height, asked while the page is open", async () => {
  let r = await api('POST', '/networks', { name: 'height-anvil', type: 'evm', genesis: { chain_id: 31780, consensus: 'QBFT', block_time: 1 } });
  assert.is(r.status, 201, r.text);
  const id = r.json.id as number;
  r = await api('POST', `/networks/${id}/start`);
  const nodeId = r.json.nodes[0].id as number;
  const asked = (res: { url(): string; request(): { method(): string } }) => res.request().method() === 'GET' && new URL(res.url()).pathname === `/api/v1/nodes/${nodeId}`;
  const first = page.waitForResponse(asked, { timeout: 15_000 });
  await page.goto(`${s.url}/networks/evm/${id}`);
  await first;
  // The next live answer, and the tile showing that height (or a later one).
  const next = await page.waitForResponse(asked, { timeout: 15_000 });
  const liveHeight = ((await next.json()) as { block_height: number }).block_height;
  assert.type(liveHeight, 'number');
  const tile = page.getByTestId('block-height');
  await tile.filter({ hasText: /^\d+$/ }).waitFor();
  await page.waitForFunction((h) => Number((globalThis as unknown as { document: { querySelector(s: string): { textContent: string } | null } }).document.querySelector('[data-testid="block-height"]')?.textContent) >= h, liveHeight);
});

it('creating a user says so', async () => {
  await page.goto(`${s.url}/users`);
  const form = page.getByRole('form', { name: 'New user' });
  await form.getByLabel('Username').fill('confirmed-user');
  await form.getByLabel('Password').fill('confirmed-user-password-1');
  await form.getByRole('button', { name: 'Create user' }).click();
  await form.getByRole('status').filter({ hasText: 'User confirmed-user created (VIEWER).' }).waitFor();
  assert.is((await api('GET', '/users?limit=100')).json.items.filter((u: { username: string }) => u.username === 'confirmed-user').length, 1);
});

it("community edition: the menu marks the pro areas; the empty dashboard has no table header above 'No networks yet'", async () => {
  const community = await startConsoleSession({ server: { env: { EDITION: 'community' } } });
  try {
    await community.signIn(ADMIN);
    const nav = community.page.getByRole('navigation', { name: 'Areas' });
    for (const area of ['Webhooks', 'Templates', 'Node sharing']) {
      await nav.getByRole('link', { name: `${area} (needs the pro edition)`, exact: true }).waitFor();
    }
    assert.is(await nav.getByTestId('edition-badge').count(), 3, 'only those three');
    await nav.getByRole('link', { name: 'Nodes', exact: true }).waitFor();
    const tile = community.page.getByRole('article').filter({ has: community.page.getByRole('heading', { name: 'Networks', exact: true }) });
    await tile.getByText('No networks yet.').waitFor();
    assert.is(await tile.getByRole('table').count(), 0, 'no table above the empty state');
    await community.accessible('community dashboard and menu');
  } finally {
    await community.close();
  }
});

it('the dashboard shows at a glance: nodes in error with their reason, network heights, certificates expiring, backups, failing webhooks', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'lnm-glance-ca-'));
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '5', '-subj', '/CN=glance-ca',
      '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem')], { stdio: 'ignore' });
    const r = await api('POST', '/keys/import', { name: 'glance-ca', certificate: readFileSync(path.join(dir, 'cert.pem'), 'utf8'), privateKey: readFileSync(path.join(dir, 'key.pem'), 'utf8') });
    assert.is(r.status, 201, r.text);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const inError = (await api('GET', '/nodes?status=error&limit=50')).json.items as Array<{ id: number; name: string; error: string }>;
  assert.ok(inError.length >= 1, 'the peer that never ran is in error');
  const heights = (await api('GET', '/networks/evm?limit=50')).json.items as Array<{ id: number; name: string }>;
  const anvil = heights.find((n) => n.name === 'height-anvil')!;

  await page.goto(`${s.url}/`);
  const errors = page.getByRole('table', { name: 'Nodes in error or down, with their reason' });
  for (const n of inError) {
    const row = errors.getByRole('row').filter({ has: page.getByRole('link', { name: n.name, exact: true }) });
    await row.waitFor({ timeout: 15_000 });
    assert.ok((await row.innerText()).includes(n.error), `${n.name}'s reason shown`);
  }
  const heightRow = page.getByRole('table', { name: "Each network's block height: the highest its nodes report" }).getByRole('row').filter({ has: page.getByRole('link', { name: anvil.name, exact: true }) });
  await heightRow.getByRole('cell').nth(2).filter({ hasText: /^\d+$/ }).waitFor({ timeout: 30_000 });
  assert.match(await heightRow.innerText(), /1 of 1/);
  const certs = page.getByRole('table', { name: 'Certificates expiring within 30 days or expired' });
  await certs.getByRole('row').filter({ hasText: 'glance-ca' }).filter({ hasText: 'expiring' }).waitFor();
  await page.getByRole('article').filter({ has: page.getByRole('heading', { name: 'Last backup per schedule' }) }).getByText('No backup schedules.').waitFor();
  await page.getByRole('article').filter({ has: page.getByRole('heading', { name: 'Webhook deliveries failing' }) }).getByText('No webhook is failing.').waitFor();
  await ui.accessible('dashboard at a glance');
});

it.run();
