// The health monitor's pipelined GETs (adapters/system/probeHttp.ts pipelinedGets) against local
// servers: several GETs written at once on one kept connection are answered in order
// (Content-Length, chunked, or to the close), every call is a real request (a changed answer is
// seen at once), a connection the endpoint closed while idle is replaced, and an endpoint that is
// down, silent, too talkative or not HTTP is an error, never an answer.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { pipelinedGets } from '../../../adapters/system/probeHttp.ts';
import { freePort } from '../../../adapters/postgres/embeddedPostgres.ts';

let server: http.Server;
let base = '';
let connections = 0;
let requests = 0;
let health = 'OK';

const listen = async (s: net.Server) => {
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
};

test.before(async () => {
  server = http.createServer((req, res) => {
    requests++;
    if (req.url === '/healthz') {
      res.writeHead(health === 'OK' ? 200 : 503, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ status: health }));
    }
    if (req.url === '/metrics') {
      // Chunked (no content-length), several chunks, as Go's promhttp answers.
      res.writeHead(200, { 'content-type': 'text/plain' });
      for (let i = 0; i < 300; i++) res.write(`ledger_blockchain_height{channel="c${i}"} ${i}\n`);
      return void res.end();
    }
    if (req.url === '/empty') {
      res.writeHead(204);
      return void res.end();
    }
    if (req.url === '/hang') return;
    res.writeHead(404);
    res.end('no');
  });
  server.on('connection', () => connections++);
  base = await listen(server);
});

test.after(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

test('GETs written together come back in order, on one connection for many calls', async () => {
  const c0 = connections;
  const r0 = requests;
  for (let i = 0; i < 10; i++) {
    const [healthz, metrics, missing, empty] = await pipelinedGets(base, ['/healthz', '/metrics', '/missing', '/empty'], { timeoutMs: 2000 });
    assert.equal(healthz, { status: 200, text: '{"status":"OK"}' });
    assert.is(metrics.status, 200);
    assert.is(metrics.text.split('\n').length, 301);
    assert.ok(metrics.text.startsWith('ledger_blockchain_height{channel="c0"} 0\n'));
    assert.equal(missing, { status: 404, text: 'no' });
    assert.equal(empty, { status: 204, text: '' });
  }
  assert.is(connections - c0, 1, 'one kept connection');
  assert.is(requests - r0, 40, 'every GET reached the endpoint');
});

test('every call asks again: a changed answer is seen at the next call', async () => {
  health = 'Unavailable';
  try {
    const [healthz] = await pipelinedGets(base, ['/healthz'], { timeoutMs: 2000 });
    assert.equal(healthz, { status: 503, text: '{"status":"Unavailable"}' });
  } finally {
    health = 'OK';
  }
  assert.is((await pipelinedGets(base, ['/healthz'], { timeoutMs: 2000 }))[0].status, 200);
});

test('a kept connection the endpoint closed while idle is replaced', async () => {
  await pipelinedGets(base, ['/healthz'], { timeoutMs: 2000 });
  const c0 = connections;
  server.closeIdleConnections();
  await new Promise((r) => setTimeout(r, 50));
  const [healthz] = await pipelinedGets(base, ['/healthz'], { timeoutMs: 2000 });
  assert.is(healthz.status, 200);
  assert.is(connections - c0, 1);
});

test('an endpoint that went down is refused; one that does not answer times out', async () => {
  const gone = http.createServer((_q, s) => s.end('{"status":"OK"}'));
  const url = await listen(gone);
  assert.is((await pipelinedGets(url, ['/healthz'], { timeoutMs: 2000 }))[0].text, '{"status":"OK"}');
  gone.closeAllConnections();
  await new Promise((r) => gone.close(r));
  const down = await pipelinedGets(url, ['/healthz', '/metrics'], { timeoutMs: 2000 }).then(() => null, (e: Error & { code?: string }) => e);
  assert.ok(down, 'a stopped endpoint answered');
  assert.ok(['ECONNREFUSED', 'ECONNRESET'].includes(down!.code ?? ''), String(down!.code));
  const closed = await pipelinedGets(`http://127.0.0.1:${await freePort()}`, ['/healthz'], { timeoutMs: 2000 }).then(() => null, (e: Error & { code?: string }) => e);
  assert.is(closed?.code, 'ECONNREFUSED');
  const silent = await pipelinedGets(base, ['/healthz', '/hang'], { timeoutMs: 300 }).then(() => null, (e: Error) => e);
  assert.is(silent?.name, 'TimeoutError');
  // The next call opens a fresh connection and is answered.
  assert.is((await pipelinedGets(base, ['/healthz'], { timeoutMs: 2000 }))[0].status, 200);
});

test('an answer larger than maxBytes, or not HTTP, is an error and the connection is dropped', async () => {
  const tooLarge = await pipelinedGets(base, ['/metrics'], { timeoutMs: 2000, maxBytes: 1000 }).then(() => null, (e: Error) => e);
  assert.is(tooLarge?.name, 'TooLargeError');
  const liar = net.createServer((s) => {
    s.on('data', () => s.write('SSH-2.0-OpenSSH_9.6\r\n\r\n'));
    s.on('error', () => undefined);
  });
  const url = await listen(liar);
  try {
    const bad = await pipelinedGets(url, ['/healthz'], { timeoutMs: 2000 }).then(() => null, (e: Error) => e);
    assert.is(bad?.name, 'ProtocolError');
    const huge = net.createServer((s) => {
      s.on('data', () => s.write(`HTTP/1.1 200 OK\r\nX-Pad: ${'a'.repeat(40_000)}`));
      s.on('error', () => undefined);
    });
    const hugeUrl = await listen(huge);
    const head = await pipelinedGets(hugeUrl, ['/healthz'], { timeoutMs: 2000 }).then(() => null, (e: Error) => e);
    assert.is(head?.name, 'ProtocolError');
    huge.close();
  } finally {
    liar.close();
  }
  assert.is((await pipelinedGets(base, ['/healthz'], { timeoutMs: 2000 }))[0].status, 200);
});

test('only plain http and plain paths', async () => {
  await pipelinedGets('https://127.0.0.1:1', ['/healthz'], { timeoutMs: 100 }).then(() => assert.unreachable(), (e: Error) => assert.match(e.message, /plain http/));
  await pipelinedGets(base, ['/a b\r\nX: y'], { timeoutMs: 100 }).then(() => assert.unreachable(), (e: Error) => assert.match(e.message, /white space/));
});

test.run();
