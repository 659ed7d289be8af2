// SIGTERM with requests in flight: the server stops taking requests, answers every request it
// had accepted (no connection cut mid-way, no 500 from a pool closed under a handler), then
// exits; after a restart every acknowledged write is there.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import { readdirSync } from 'node:fs';
import { adminAuth, call, startServer } from '../helpers/server.ts';

/** One request on its own connection (no keep-alive), so an answer or a refusal is unambiguous. */
function post(url: string, body: unknown): Promise<{ status: number; text: string } | { error: string }> {
  return new Promise((resolve) => {
    const data = JSON.stringify(body);
    const req = http.request(url, { method: 'POST', agent: false, headers: { ...adminAuth(), 'content-type': 'application/json', 'content-length': Buffer.byteLength(data), connection: 'close' } }, (res) => {
      let text = '';
      res.on('data', (b: Buffer) => (text += b.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      res.on('error', (err) => resolve({ error: (err as NodeJS.ErrnoException).code ?? err.message }));
    });
    req.on('error', (err) => resolve({ error: (err as NodeJS.ErrnoException).code ?? err.message }));
    req.end(data);
  });
}

test('requests in flight at SIGTERM are answered (201 or a retryable 503), the server exits cleanly, and every 201 survives a restart', async () => {
  const s = await startServer();
  const n = 24;
  const requests = Array.from({ length: n }, (_, i) => post(`${s.api}/organizations`, { name: `Drain${i}`, mspId: `Drain${i}MSP` }));
  // Stop as soon as the first answer is in: the others are in flight or still connecting.
  await Promise.race(requests);
  const exited = new Promise<number | null>((r) => s.child.once('exit', (code) => r(code)));
  s.child.kill('SIGTERM');
  const results = await Promise.all(requests);
  assert.is(await exited, 0, s.output().slice(-2000));

  const seen = results.map((r) => ('error' in r ? r.error : r.status)).join(' ');
  const created = results.flatMap((r, i) => ('status' in r && r.status === 201 ? [i] : []));
  for (const r of results) {
    if ('error' in r) {
      // Only a connection the server never accepted may fail: it had stopped listening.
      assert.is(r.error, 'ECONNREFUSED', `a request was cut off: ${r.error} (all: ${seen})`);
    } else {
      assert.ok(r.status === 201 || r.status === 503, `${r.status} ${r.text}`);
      if (r.status === 503) assert.match(r.text, 'shutting down');
    }
  }
  assert.ok(created.length >= 1, 'at least the first request was acknowledged');
  assert.not.match(s.output(), 'Cannot use a pool after calling end');

  const again = await startServer({ dataDir: s.dataDir, databaseUrl: s.databaseUrl! });
  try {
    const list = await call(again.api, 'GET', '/organizations?limit=100', { headers: adminAuth() });
    const names = new Set(list.json.items.map((o: { name: string }) => o.name));
    for (const i of created) assert.ok(names.has(`Drain${i}`), `Drain${i} was acknowledged but is missing`);
  } finally {
    await again.stop();
  }
});

test('with the embedded PostgreSQL, SIGTERM drains and then stops the database: exit 0, no postmaster left', async () => {
  const s = await startServer({ embedded: true });
  const exited = new Promise<number | null>((r) => s.child.once('exit', (code) => r(code)));
  s.child.kill('SIGTERM');
  assert.is(await exited, 0, s.output().slice(-2000));
  const pidFiles = readdirSync(s.dataDir, { recursive: true }).map(String).filter((f) => f.endsWith('postmaster.pid'));
  assert.equal(pidFiles, [], 'the embedded database was stopped');
});

test.run();
