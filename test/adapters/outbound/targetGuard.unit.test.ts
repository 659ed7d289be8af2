import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isPrivateAddress, targetRefusal } from '../../../adapters/outbound/targetGuard.ts';
import { createHttpOutbound } from '../../../adapters/outbound/httpOutbound.ts';
import { startReceiver } from '../../helpers/webhookReceiver.ts';

test('loopback, link-local, private, shared, multicast and unspecified addresses are private; public ones are not', () => {
  for (const a of ['127.0.0.1', '127.8.9.10', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '::1', '::', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1']) assert.ok(isPrivateAddress(a), a);
  for (const a of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '192.169.0.1', '2001:4860:4860::8888', '::ffff:8.8.8.8']) assert.not.ok(isPrivateAddress(a), a);
});

test('a URL naming or resolving to a private address is refused unless private targets are allowed', async () => {
  assert.match((await targetRefusal('http://127.0.0.1:8080/x', false))!, /127\.0\.0\.1.*private/);
  assert.match((await targetRefusal('http://localhost/x', false))!, /localhost resolves to/);
  assert.match((await targetRefusal('http://[::1]/x', false))!, /::1/);
  assert.match((await targetRefusal('http://169.254.169.254/latest/meta-data', false))!, /private/);
  assert.match((await targetRefusal('file:///etc/passwd', false))!, /scheme/);
  assert.match((await targetRefusal('http://user:pw@example.com/', false))!, /credentials/);
  assert.is(await targetRefusal('http://127.0.0.1:8080/x', true), null);
  assert.is(await targetRefusal('https://8.8.8.8/x', false), null);
});

test('at delivery time the guard refuses a private answer of DNS and a literal private address, and lets them through when allowed', async () => {
  const rx = await startReceiver();
  const strict = createHttpOutbound({ allowPrivateTargets: false });
  const byName = await strict.post({ url: `http://localhost:${rx.port}/`, headers: {}, body: '{}', timeoutMs: 2000 });
  assert.is(byName.ok, false);
  assert.match(byName.error!, /private/);
  const literal = await strict.post({ url: `${rx.url}/`, headers: {}, body: '{}', timeoutMs: 2000 });
  assert.is(literal.ok, false);
  assert.match(literal.error!, /private/);
  assert.is(rx.received.length, 0);
  const open = createHttpOutbound({ allowPrivateTargets: true });
  const ok = await open.post({ url: `http://localhost:${rx.port}/`, headers: { 'content-type': 'application/json' }, body: '{"a":1}', timeoutMs: 2000 });
  assert.is(ok.ok, true, ok.error ?? '');
  assert.is(ok.statusCode, 200);
  assert.is(rx.received.length, 1);
  rx.delayMs = 1500;
  const slow = await open.post({ url: rx.url, headers: {}, body: '{}', timeoutMs: 300 });
  assert.is(slow.ok, false);
  assert.match(slow.error!, /no answer within 0.3 s/);
  rx.delayMs = 0;
  rx.respond = 500;
  const failed = await open.post({ url: rx.url, headers: {}, body: '{}', timeoutMs: 2000 });
  assert.equal([failed.ok, failed.statusCode, failed.excerpt], [false, 500, 'receiver says 500']);
  await rx.close();
});

test('a receiver streaming an endless body: the status counts, 500 characters are kept, the rest is not read', async () => {
  const http = await import('node:http');
  const server = http.createServer((_req, res) => {
    res.writeHead(200);
    const t = setInterval(() => res.write('x'.repeat(1000)), 5);
    res.on('close', () => clearInterval(t));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as import('node:net').AddressInfo).port;
  const r = await createHttpOutbound({ allowPrivateTargets: true }).post({ url: `http://127.0.0.1:${port}/`, headers: {}, body: '{}', timeoutMs: 5000 });
  assert.equal([r.ok, r.statusCode, r.excerpt?.length], [true, 200, 500]);
  assert.ok(r.durationMs < 2000, `${r.durationMs} ms`);
  server.closeAllConnections();
  await new Promise<void>((res) => server.close(() => res()));
});

test('IPv6 forms that carry a private IPv4 address are private: mapped (dotted or hex), compatible, translated, 6to4, local-use NAT64', () => {
  for (const a of ['::ffff:7f00:1', '::FFFF:127.0.0.1', '::7f00:1', '::127.0.0.1', '::ffff:0:7f00:1', '::ffff:0:10.0.0.1', '2002:7f00:1::1', '2002:a9fe:a9fe::', '64:ff9b:1::a00:1', '::ffff:a9fe:a9fe']) assert.ok(isPrivateAddress(a), a);
  for (const a of ['::ffff:808:808', '2002:808:808::1', '2001:db8::1']) assert.not.ok(isPrivateAddress(a), a);
});

test('every spelling of a private address in a URL is refused before any connection: decimal, octal, hex, short, bracketed IPv6 forms', async () => {
  for (const u of ['http://2130706433/', 'http://0x7f000001/', 'http://0177.0.0.1/', 'http://0x7f.1/', 'http://127.1/', 'http://[::ffff:127.0.0.1]/', 'http://[::ffff:7f00:1]/', 'http://[::127.0.0.1]/', 'http://[::ffff:0:7f00:1]/', 'http://[2002:7f00:1::]/', 'http://[::ffff:169.254.169.254]/']) {
    assert.ok(await targetRefusal(u, false), u);
    const r = await createHttpOutbound({ allowPrivateTargets: false }).post({ url: u, headers: {}, body: '{}', timeoutMs: 1000 });
    assert.is(r.ok, false, u);
    assert.match(r.error!, /private/, u);
  }
});

test('a redirect is not followed: the 3xx is the answer, and the place it points at receives nothing', async () => {
  const target = await startReceiver();
  const http = await import('node:http');
  const server = http.createServer((_req, res) => {
    res.writeHead(307, { location: `${target.url}/internal` });
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as import('node:net').AddressInfo).port;
  const r = await createHttpOutbound({ allowPrivateTargets: true }).post({ url: `http://127.0.0.1:${port}/`, headers: {}, body: '{}', timeoutMs: 2000 });
  assert.equal([r.ok, r.statusCode], [false, 307]);
  assert.is(target.received.length, 0);
  await new Promise<void>((res) => server.close(() => res()));
  await target.close();
});

test.run();
