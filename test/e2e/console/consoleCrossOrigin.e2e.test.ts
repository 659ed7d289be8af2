// Cross-site requests in a real Chromium (issue 36, item 3). Signed in to the console, the
// browser visits a page on another port of the same host: the same site, so the SameSite=Lax
// session cookie goes along with what that page sends. Its bodiless POST must not restart the
// node, and its WebSocket must not open the node's log; the console itself keeps working (its
// calls carry its own Origin and X-Requested-With). Swagger UI is served with the console's
// content policy and framing refusal, and still renders under them (its start-up script runs by
// its hash).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { adminAuth, call, type TestServer } from '../../helpers/server.ts';
import { requires } from '../../helpers/requirements.ts';
import { chromiumMissing } from '../../helpers/browser.ts';
import { startConsoleSession, type ConsoleSession } from '../../helpers/consoleSession.ts';
import { api, killLeftoverNodes, until } from '../evm/evmLifecycle.ts';

// Page functions run in the browser; the project's tsconfig has no DOM library.
declare const document: { querySelectorAll(s: string): { length: number } };
declare const fetch: (url: string, init: Record<string, unknown>) => Promise<unknown>;
declare class WebSocket {
  constructor(url: string);
  onopen: (() => void) | null;
  onmessage: ((m: { data: string }) => void) | null;
  onerror: (() => void) | null;
  onclose: (() => void) | null;
  close(): void;
}

const it = requires(test, 'chromium', chromiumMissing());
let ui: ConsoleSession;
let s: TestServer;
let page: Page;
let elsewhere: http.Server;
let elsewhereUrl = '';
let nodeId = 0;

const restarts = async () => ((await api(s, 'GET', `/nodes/${nodeId}/events?limit=500`)).json.items as Array<{ type: string; data: { restart?: boolean } }>).filter((e) => e.type === 'NodeStartRequested' && e.data.restart === true).length;

it.before(async () => {
  ui = await startConsoleSession({ signIn: true });
  ({ server: s, page } = ui);
  let r = await api(s, 'POST', '/networks', { name: 'xsite-4646', type: 'evm', genesis: { chain_id: 4646, consensus: 'IBFT_2', block_time: 1, gas_limit: '0x1C9C380', validators: [], accounts: {} } });
  assert.is(r.status, 201, r.text);
  r = await api(s, 'POST', `/networks/${r.json.id}/nodes`, { name: 'xsite-4646-validator', type: 'validator' });
  assert.is(r.status, 201, r.text);
  nodeId = r.json.id;
  r = await api(s, 'POST', `/nodes/${nodeId}/start`);
  assert.is(r.json.status, 'running', r.text);
  // The other page: same host, another port.
  elsewhere = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Elsewhere</title><p>another site on this host</p>'));
  await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
  elsewhereUrl = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}/`;
});

it.after(async () => {
  await ui?.close();
  await new Promise((r) => (elsewhere ? elsewhere.close(r) : r(undefined)));
  if (s) killLeftoverNodes(s.dataDir);
});

it('a page on another port of the same host cannot restart a node with the console\'s cookie, nor read its log over a WebSocket', async () => {
  const before = await restarts();
  await page.goto(elsewhereUrl);
  const sent = await page.evaluate(async ({ base, id }) => {
    // No body, no preflight: the browser sends it with the cookie; the answer is opaque to the page.
    await fetch(`${base}/api/v1/nodes/${id}/restart`, { method: 'POST', mode: 'no-cors', credentials: 'include' }).catch(() => undefined);
    return new Promise<{ opened: boolean; lines: number }>((resolve) => {
      const ws = new WebSocket(`${base.replace('http', 'ws')}/api/v1/nodes/${id}/logs?tail=5`);
      let lines = 0;
      ws.onmessage = () => {
        lines++;
        ws.close();
        resolve({ opened: true, lines });
      };
      ws.onerror = () => resolve({ opened: false, lines });
      ws.onclose = () => resolve({ opened: false, lines });
    });
  }, { base: s.url, id: nodeId });
  assert.equal(sent, { opened: false, lines: 0 }, 'the log WebSocket did not open from the other page');
  assert.is(await restarts(), before, 'the node was not restarted');
  const log = await call(s.api, 'GET', '/audit-logs?status=denied&limit=50', { headers: adminAuth() });
  const denied = log.json.items.filter((e: any) => e.details?.code === 'CROSS_ORIGIN');
  assert.ok(denied.some((e: any) => e.endpoint === `/api/v1/nodes/${nodeId}/restart` && e.method === 'POST'), JSON.stringify(log.json.items.slice(0, 3)));
  assert.ok(denied.some((e: any) => e.endpoint === `/api/v1/nodes/${nodeId}/logs`), 'the refused WebSocket is audited as denied');
});

it('the console itself still restarts the node (its Origin is the service\'s own)', async () => {
  const before = await restarts();
  await page.goto(`${s.url}/`);
  await page.getByRole('heading', { name: 'Dashboard', exact: true }).waitFor();
  const status = await page.evaluate(async ({ id }) => {
    const r = (await fetch(`/api/v1/nodes/${id}/restart`, { method: 'POST', credentials: 'same-origin' })) as { status: number };
    return r.status;
  }, { id: nodeId });
  assert.is(status, 200);
  await until('the restart to be recorded', async () => (await restarts()) === before + 1, 30_000);
});

it('Swagger UI is served with the console\'s content policy and framing refusal, and renders under them in Chromium', async () => {
  const violations: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text());
  });
  const res = await page.goto(`${s.url}/api/swagger/`);
  const headers = res!.headers();
  assert.match(headers['content-security-policy'] ?? '', /frame-ancestors 'none'/);
  assert.match(headers['content-security-policy'] ?? '', /script-src 'self' 'sha256-[A-Za-z0-9+/=]+'/);
  assert.is(headers['x-frame-options'], 'DENY');
  assert.is(headers['x-content-type-options'], 'nosniff');
  // The start-up script ran: it fetched the document and rendered its title and operations.
  await page.getByRole('heading', { name: /Ledger network manager API/ }).waitFor();
  await page.locator('.opblock').first().waitFor();
  assert.ok(await page.evaluate(() => document.querySelectorAll('.opblock').length > 0));
  assert.equal(violations, []);
});

it.run();
