// http/console.ts over a real listening Koa app and a built-like dist folder: index.html for
// every GET outside /api that names no file, immutable caching for hashed assets, no-cache for
// index.html, /api untouched, missing assets and escapes from the folder refused.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import Koa from 'koa';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { consoleMiddleware } from '../../http/console.ts';

let dir: string;
let server: Server;
let base: string;
const INDEX = '<!doctype html><title>console</title><script type="module" src="/assets/index-abc123.js"></script>';
const BIG_JS = 'console.log("' + 'x'.repeat(5000) + '");';

test.before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'lnm-console-'));
  mkdirSync(path.join(dir, 'assets'));
  writeFileSync(path.join(dir, 'index.html'), INDEX);
  writeFileSync(path.join(dir, 'assets', 'index-abc123.js'), BIG_JS);
  writeFileSync(path.join(dir, 'favicon.svg'), '<svg/>');
  writeFileSync(path.join(tmpdir(), 'lnm-console-secret.txt'), 'secret');
  const app = new Koa();
  app.use(consoleMiddleware(dir));
  app.use(async (ctx) => {
    ctx.status = 404;
    ctx.body = { code: 'ROUTE_NOT_FOUND' };
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

test.after(() => {
  server?.close();
  rmSync(dir, { recursive: true, force: true });
  rmSync(path.join(tmpdir(), 'lnm-console-secret.txt'), { force: true });
});

test('/ and any console route answer index.html, revalidated on every load, with a CSP', async () => {
  for (const p of ['/', '/nodes', '/networks/evm/12', '/audit?offset=50']) {
    const r = await fetch(base + p);
    assert.is(r.status, 200, p);
    assert.is(await r.text(), INDEX, p);
    assert.match(r.headers.get('content-type')!, /text\/html/);
    assert.is(r.headers.get('cache-control'), 'no-cache');
    assert.match(r.headers.get('content-security-policy')!, /script-src 'self'/);
  }
});

test('hashed assets are cached for a year as immutable and sent gzipped when accepted', async () => {
  const r = await fetch(base + '/assets/index-abc123.js', { headers: { 'accept-encoding': 'gzip' } });
  assert.is(r.status, 200);
  assert.is(r.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  assert.is(r.headers.get('content-encoding'), 'gzip');
  assert.match(r.headers.get('content-type')!, /javascript/);
  assert.is(await r.text(), BIG_JS);
  const plain = await fetch(base + '/favicon.svg');
  assert.is(plain.headers.get('cache-control'), 'public, max-age=3600');
});

test('/api paths and other methods pass through to the API (its JSON 404s stay)', async () => {
  for (const p of ['/api', '/api/v1/nope', '/api/swagger/x']) {
    const r = await fetch(base + p);
    assert.is(r.status, 404, p);
    assert.equal(await r.json(), { code: 'ROUTE_NOT_FOUND' });
  }
  const post = await fetch(base + '/nodes', { method: 'POST' });
  assert.is(post.status, 404);
  assert.equal(await post.json(), { code: 'ROUTE_NOT_FOUND' });
});

test('a missing asset is a 404, never index.html; paths cannot leave the folder', async () => {
  const r = await fetch(base + '/assets/gone-123.js');
  assert.is(r.status, 404);
  assert.not.match(await r.text(), /<!doctype/);
  for (const p of ['/../lnm-console-secret.txt', '/%2e%2e/lnm-console-secret.txt', '/assets/..%2f..%2flnm-console-secret.txt']) {
    const res = await fetch(base + p);
    assert.not.match(await res.text(), /secret/, p);
  }
});

test('without a build, the console answers 503 with how to build it', async () => {
  const app = new Koa();
  app.use(consoleMiddleware(path.join(dir, 'nothing-here')));
  const s = app.listen(0, '127.0.0.1');
  await new Promise((r) => s.once('listening', r));
  const r = await fetch(`http://127.0.0.1:${(s.address() as AddressInfo).port}/`);
  s.close();
  assert.is(r.status, 503);
  assert.match(await r.text(), /npm run build:web/);
});

test.run();
