// Cross-site requests with the session cookie (issue 36, item 3): a page on another port of the
// same host gets the SameSite=Lax cookie sent along. A bodiless POST (no preflight) must not
// restart a node, and a WebSocket opened from that page must not read the node's log: both are
// 403 CROSS_ORIGIN in the error body and audited as denied. The console's own requests (its
// Origin, or X-Requested-With from a non-browser client), Basic and API keys keep working, and
// LNM_ALLOWED_ORIGINS admits a proxy's public origin. Real server, real anvil node.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import { ADMIN, adminAuth, call, startServer, type TestServer } from '../helpers/server.ts';
import { api, killLeftoverNodes, until } from './evm/evmLifecycle.ts';

let s: TestServer;
let cookie = '';
let nodeId = 0;
const PROXY_ORIGIN = 'https://lnm.example.org';

test.before(async () => {
  s = await startServer({ env: { LNM_ALLOWED_ORIGINS: `${PROXY_ORIGIN}, http://console.example.org:8443` } });
  const login = await call(s.api, 'POST', '/auth/login', { body: ADMIN });
  assert.is(login.status, 200, login.text);
  cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
  let r = await api(s, 'POST', '/networks', { name: 'xorigin-4545', type: 'evm', genesis: { chain_id: 4545, consensus: 'IBFT_2', block_time: 1, gas_limit: '0x1C9C380', validators: [], accounts: {} } });
  assert.is(r.status, 201, r.text);
  r = await api(s, 'POST', `/networks/${r.json.id}/nodes`, { name: 'xorigin-4545-validator', type: 'validator' });
  assert.is(r.status, 201, r.text);
  nodeId = r.json.id;
  r = await api(s, 'POST', `/nodes/${nodeId}/start`);
  assert.is(r.json.status, 'running', r.text);
});

test.after(async () => {
  await s?.stop();
  if (s) killLeftoverNodes(s.dataDir);
});

const foreign = () => `http://127.0.0.1:${s.port + 1}`;
const restarts = async () => ((await api(s, 'GET', `/nodes/${nodeId}/events?limit=500`)).json.items as Array<{ type: string; data: { restart?: boolean } }>).filter((e) => e.type === 'NodeStartRequested' && e.data.restart === true).length;

/** Opens the node-log WebSocket with these headers: the status of the handshake, and the body of a refusal. */
function openLogs(headers: Record<string, string>): Promise<{ status: number; body: string; lines: string[]; ws?: WebSocket }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${s.api.replace('http', 'ws')}/nodes/${nodeId}/logs?tail=3`, { headers });
    const lines: string[] = [];
    ws.on('message', (m) => lines.push(m.toString()));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, lines }));
    });
    ws.once('open', () => resolve({ status: 101, body: '', lines, ws }));
    ws.once('error', () => undefined);
  });
}

test('a bodiless POST with the session cookie from another origin is refused (403 CROSS_ORIGIN, audited as denied) and the node is not restarted', async () => {
  const before = await restarts();
  const cases: Array<[string, Record<string, string>]> = [
    ['a foreign Origin', { origin: foreign() }],
    ['Origin: null', { origin: 'null' }],
    ['Sec-Fetch-Site: same-site, no Origin', { 'sec-fetch-site': 'same-site' }],
    ['neither Origin nor Sec-Fetch-Site nor X-Requested-With', {}],
  ];
  for (const [what, headers] of cases) {
    const r = await call(s.api, 'POST', `/nodes/${nodeId}/restart`, { headers: { cookie, ...headers } });
    assert.is(r.status, 403, `${what}: ${r.text}`);
    assert.is(r.json.code, 'CROSS_ORIGIN', what);
    assert.is(r.json.status, 403);
    assert.ok(r.json.requestId, what);
  }
  // Other state-changing methods too (a DELETE of the node would otherwise be a 409 or a 204).
  const del = await call(s.api, 'DELETE', `/nodes/${nodeId}`, { headers: { cookie, origin: foreign() } });
  assert.is(del.status, 403, del.text);
  assert.is((await api(s, 'GET', `/nodes/${nodeId}`)).json.status, 'running');
  assert.is(await restarts(), before, 'no restart was recorded');
  const log = await call(s.api, 'GET', '/audit-logs?status=denied&limit=50', { headers: adminAuth() });
  const denied = log.json.items.filter((e: any) => e.endpoint === `/api/v1/nodes/${nodeId}/restart` && e.username === ADMIN.username);
  assert.is(denied.length, cases.length, JSON.stringify(log.json.items.slice(0, 3)));
  assert.is(denied[0].response_code, 403);
  assert.match(denied[0].error_message, /another origin/);
});

test('the same POST from the service\'s own origin, from LNM_ALLOWED_ORIGINS, or with X-Requested-With and no Origin restarts the node; Basic needs none of it', async () => {
  const own = `http://127.0.0.1:${s.port}`;
  const allowed: Array<Record<string, string>> = [{ origin: own, 'sec-fetch-site': 'same-origin' }, { origin: PROXY_ORIGIN }, { 'sec-fetch-site': 'same-origin' }, { 'x-requested-with': 'lnm-console' }];
  for (const headers of allowed) {
    const r = await call(s.api, 'POST', `/nodes/${nodeId}/restart`, { headers: { cookie, ...headers } });
    assert.is(r.status, 200, `${JSON.stringify(headers)}: ${r.text}`);
    await until('the node to run again', async () => (await api(s, 'GET', `/nodes/${nodeId}`)).json.status === 'running', 30_000);
  }
  const basic = await call(s.api, 'POST', `/nodes/${nodeId}/restart`, { headers: { ...adminAuth(), origin: foreign() } });
  assert.is(basic.status, 200, basic.text);
  await until('the node to run again', async () => (await api(s, 'GET', `/nodes/${nodeId}`)).json.status === 'running', 30_000);
  // Reads are not state changes: a GET with the cookie and a foreign Origin still answers.
  assert.is((await call(s.api, 'GET', `/nodes/${nodeId}`, { headers: { cookie, origin: foreign() } })).status, 200);
});

test('the node-log WebSocket with the session cookie and a foreign Origin is refused before the upgrade; from the own origin it streams', async () => {
  const refused: Array<Record<string, string>> = [{ cookie, origin: foreign() }, { cookie, origin: 'null' }, { cookie }];
  for (const headers of refused) {
    const r = await openLogs(headers);
    assert.is(r.status, 403, `${JSON.stringify(headers)}: ${r.body}`);
    assert.is(JSON.parse(r.body).code, 'CROSS_ORIGIN');
    assert.equal(r.lines, []);
  }
  const ok = await openLogs({ cookie, origin: `http://127.0.0.1:${s.port}` });
  assert.is(ok.status, 101, ok.body);
  await until('the tail of the log', async () => ok.lines.length > 0, 20_000);
  ok.ws!.close();
  const viaBasic = await openLogs({ ...adminAuth(), origin: foreign() });
  assert.is(viaBasic.status, 101, 'HTTP Basic is not sent by a browser on its own: not checked');
  viaBasic.ws!.close();
  const log = await call(s.api, 'GET', '/audit-logs?status=denied&limit=50', { headers: adminAuth() });
  assert.ok(log.json.items.filter((e: any) => e.endpoint === `/api/v1/nodes/${nodeId}/logs` && e.response_code === 403).length >= 3, 'the refused upgrades are audited as denied');
});

test.run();
