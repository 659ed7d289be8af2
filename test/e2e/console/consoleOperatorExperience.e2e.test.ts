// The operator's first look (issue 35) in Chromium against the real server, with anvil:
// - the console's Metrics page reloaded (or opened from a bookmark) is the console, while the
//   service's own /metrics still answers scrapers (Prometheus's Accept, */*, none) its exposition;
// - an anvil network stopped and restarted from its page (POST /networks/{id}/stop, /restart),
//   the page saying each node's status after, the API and the audit log agreeing;
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { adminAuth, call, type TestServer } from '../../helpers/server.ts';
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

it.before(async () => {
  ui = await startConsoleSession({ signIn: true });
  ({ server: s, page } = ui);
});

it.after(async () => {
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

it.run();
