// test/helpers/httpCall.ts: the tests' HTTP call over node:http (no 300 s limit on an answer's
// headers, unlike fetch): what the suites rely on from it, as fetch did it. The limit itself is not
// tested here (it takes five minutes to show).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { call } from '../helpers/httpCall.ts';

test('JSON both ways, every header of an answer (two set-cookie), redirects followed as fetch follows them', async () => {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push(`${req.method} ${req.url} ${req.headers['content-type'] ?? '-'} ${body || '-'}`);
      if (req.url === '/see-other') return res.writeHead(303, { location: '/landed' }).end();
      if (req.url === '/again') return res.writeHead(307, { location: '/echo' }).end();
      if (req.url === '/slow') return setTimeout(() => res.writeHead(200, { 'content-type': 'text/plain' }).end('late'), 300);
      res.setHeader('set-cookie', ['a=1', 'b=2']);
      res.writeHead(req.url === '/missing' ? 404 : 200, { 'content-type': 'application/json', 'x-thing': 'yes' });
      res.end(req.url === '/missing' ? '{"code":"NOT_FOUND"}' : JSON.stringify({ method: req.method, url: req.url, body: body ? JSON.parse(body) : null }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const r = await call(base, 'POST', '/echo', { body: { n: 1, s: 'ü' }, headers: { authorization: 'Basic eA==' } });
    assert.is(r.status, 200);
    assert.equal(r.json, { method: 'POST', url: '/echo', body: { n: 1, s: 'ü' } });
    assert.is(r.headers.get('x-thing'), 'yes');
    assert.equal(r.headers.getSetCookie(), ['a=1', 'b=2']);
    const missing = await call(base, 'GET', '/missing');
    assert.is(missing.status, 404);
    assert.is(missing.json.code, 'NOT_FOUND');
    // 303: on as a GET without the body; 307: the same request again.
    const landed = await call(base, 'POST', '/see-other', { body: { x: 1 } });
    assert.equal(landed.json, { method: 'GET', url: '/landed', body: null });
    const again = await call(base, 'PUT', '/again', { raw: '{"y":2}' });
    assert.equal(again.json, { method: 'PUT', url: '/echo', body: { y: 2 } });
    assert.ok(seen.includes('GET /landed - -'), seen.join('\n'));
    const slow = await call(base, 'GET', '/slow');
    assert.equal([slow.status, slow.text, slow.json], [200, 'late', null]);
    // Nothing listening: the call rejects (as fetch did), it does not answer.
    server.close();
    const refused = await call(base, 'GET', '/echo').then(() => null, (err: Error & { code?: string }) => err);
    assert.ok(refused, 'a call to nothing rejects');
  } finally {
    server.close();
  }
});

test.run();
