// Custom headers of webhooks and webhook notification providers over HTTP (issue 36): a header
// Node cannot send (a value above U+00FF, CR/LF/NUL, a name that is no token) or one the HTTP
// client owns (Host, Transfer-Encoding, Content-Length, Connection, Keep-Alive, Upgrade, TE,
// Trailer, Proxy-*) is a 400 naming it at creation and update, with nothing written; what Node
// does send (obs-text, U+0080-U+00FF) is accepted and arrives at the receiver.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { adminAuth, call, startServer, type TestServer } from '../helpers/server.ts';
import { startReceiver, type Receiver } from '../helpers/webhookReceiver.ts';

const t = suite('outbound custom headers');
let server: TestServer;
let receiver: Receiver;
const api = (method: string, path: string, body?: unknown) => call(server.api, method, path, { headers: adminAuth(), ...(body === undefined ? {} : { body }) });
// Each value is distinctive (zq9), so an answer that echoed it would be seen.
const BAD: Array<[string, string]> = [
  ['X-Team', 'caf\u00e9 \u20ac-zq9'], ['X-Team', 'line\r\nX-Injected: zq9'], ['X-Team', 'nul\u0000-zq9'], ['Bad Name', 'plain-zq9'],
  ['Host', 'evil-zq9.example'], ['Transfer-Encoding', 'chunked-zq9'], ['content-length', 'zq9'], ['Connection', 'close-zq9'], ['Keep-Alive', 'timeout-zq9'],
  ['Upgrade', 'h2c-zq9'], ['TE', 'trailers-zq9'], ['Trailer', 'X-Sum-zq9'], ['Proxy-Authorization', 'Basic zq9'],
];

t.before(async () => {
  server = await startServer({ env: { LNM_ALLOW_PRIVATE_TARGETS: 'true' } });
  receiver = await startReceiver();
});
t.after(async () => {
  await receiver.close();
  await server.stop();
});

t('a webhook with a header that cannot be sent is refused with a 400 naming it, at creation and update; nothing is written', async () => {
  for (const [name, value] of BAD) {
    const r = await api('POST', '/webhooks', { name: 'h-bad', url: `${receiver.url}/hook`, events: ['node.created'], customHeaders: { [name]: value } });
    assert.is(r.status, 400, `${name}: ${r.text}`);
    assert.is(r.json.code, 'VALIDATION_FAILED');
    assert.ok(r.json.details.some((d: { field: string }) => d.field.endsWith(name)), `${name}: ${r.text}`);
    assert.not.ok(r.text.includes('zq9'), `${name}: the value is not echoed: ${r.text}`);
  }
  assert.is((await api('GET', '/webhooks')).json.total, 0);

  const ok = await api('POST', '/webhooks', { name: 'h-latin1', url: `${receiver.url}/hook`, events: ['node.created'], customHeaders: { 'X-Team': 'caf\u00e9 ops' } });
  assert.is(ok.status, 201, ok.text);
  for (const [name, value] of BAD) {
    const r = await api('PUT', `/webhooks/${ok.json.id}`, { customHeaders: { [name]: value } });
    assert.is(r.status, 400, `${name}: ${r.text}`);
    assert.ok(r.json.details.some((d: { field: string }) => d.field.endsWith(name)), `${name}: ${r.text}`);
  }
  // The stored header is unchanged and is sent: Node writes U+0080-U+00FF as their UTF-8 bytes,
  // which the receiver's parser reads back as Latin-1.
  const sent = await api('POST', `/webhooks/${ok.json.id}/test`);
  assert.is(sent.status, 200, sent.text);
  assert.is(sent.json.success, true, sent.text);
  assert.is(receiver.received.length, 1);
  assert.is(Buffer.from(String(receiver.received[0].headers['x-team']), 'latin1').toString('utf8'), 'caf\u00e9 ops');
});

t('a webhook notification provider with a header that cannot be sent is refused with a 400 naming it; nothing is written', async () => {
  for (const [name, value] of BAD) {
    const r = await api('POST', '/notifications/providers', { type: 'WEBHOOK', name: 'n-bad', config: { url: `${receiver.url}/notify`, customHeaders: { [name]: value } }, notifyNodeDowntime: false });
    assert.is(r.status, 400, `${name}: ${r.text}`);
    assert.ok(JSON.stringify(r.json.details).includes(name) || r.json.message.includes(name), `${name}: ${r.text}`);
    assert.not.ok(r.text.includes('zq9'), `${name}: the value is not echoed: ${r.text}`);
  }
  assert.is((await api('GET', '/notifications/providers')).json.total ?? (await api('GET', '/notifications/providers')).json.length, 0);
  const ok = await api('POST', '/notifications/providers', { type: 'WEBHOOK', name: 'n-ok', config: { url: `${receiver.url}/notify`, customHeaders: { 'X-Team': 'ops' } }, notifyNodeDowntime: false });
  assert.is(ok.status, 201, ok.text);
  const r = await api('PUT', `/notifications/providers/${ok.json.id}`, { config: { url: `${receiver.url}/notify`, customHeaders: { Host: 'evil.example' } } });
  assert.is(r.status, 400, r.text);
});

t.run();
