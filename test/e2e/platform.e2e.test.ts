// The core platform as a user meets it: the server started as a child process, driven over HTTP.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { ADMIN, adminAuth, call, startServer, type TestServer } from '../helpers/server.ts';
import { onGlobalTeardown } from '../helpers/globalTeardown.ts';

const t = suite('platform end to end');

function killEmbeddedPostgres(dataDir: string) {
  const pidFile = path.join(dataDir, 'postgres', 'cluster', 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  try {
    process.kill(pid, 'SIGINT');
  } catch {
    /* already gone */
  }
}

t('a fresh data directory: the server starts its own embedded PostgreSQL and answers /health with 200; a second start reuses the data', async () => {
  const first = await startServer({ embedded: true });
  onGlobalTeardown(() => killEmbeddedPostgres(first.dataDir));
  const h = await call(first.api, 'GET', '/health');
  assert.is(h.status, 200);
  assert.is(h.json.status, 'healthy');
  assert.is(h.json.database.status, 'up');
  assert.is(h.json.eventStore.kind, 'postgres');
  const created = await call(first.api, 'POST', '/users', { headers: adminAuth(), body: { username: 'kept-user', password: 'a-long-enough-password', role: 'VIEWER' } });
  assert.is(created.status, 201);
  await first.stop();
  assert.ok(!existsSync(path.join(first.dataDir, 'postgres', 'cluster', 'postmaster.pid')), 'embedded PostgreSQL stopped with the server');
  const second = await startServer({ embedded: true, dataDir: first.dataDir, env: { ADMIN_PASSWORD: 'a-different-password-ignored' } });
  const users = await call(second.api, 'GET', '/users', { headers: adminAuth() });
  assert.is(users.status, 200, 'the first admin still logs in with the original password');
  assert.ok(users.json.items.some((u: { username: string }) => u.username === 'kept-user'));
  await second.stop();
});

let server: TestServer;
t.before(async () => {
  server = await startServer();
});

t('malformed JSON, wrong types, unknown fields, oversized bodies and wrong content types get 4xx with the one error body', async () => {
  const h = adminAuth();
  const cases: Array<[string, Parameters<typeof call>[3], number, string]> = [
    ['malformed JSON', { headers: h, raw: '{"username": "x", ' }, 400, 'MALFORMED_JSON'],
    ['wrong types', { headers: h, body: { username: 42, password: true } }, 400, 'VALIDATION_FAILED'],
    ['unknown field', { headers: h, body: { username: 'abc', password: 'a-long-enough-password', colour: 'red' } }, 400, 'VALIDATION_FAILED'],
    ['oversized body', { headers: h, body: { username: 'abc', password: 'x'.repeat(2 * 1024 * 1024) } }, 413, 'PAYLOAD_TOO_LARGE'],
    ['a JSON array instead of an object', { headers: h, raw: '[1,2,3]' }, 400, 'VALIDATION_FAILED'],
    ['null body', { headers: h, raw: 'null' }, 400, 'MALFORMED_JSON'],
  ];
  for (const [name, opts, status, code] of cases) {
    const r = await call(server.api, 'POST', '/users', opts);
    assert.is(r.status, status, `${name}: ${r.text}`);
    assert.is(r.json.code, code, name);
    assert.type(r.json.message, 'string');
    assert.is(r.json.requestId, r.headers.get('x-request-id'), `${name}: request id in body and header`);
  }
  const wrongType: any = await call(server.api, "POST", "/users", { headers: h, body: { username: 42, password: true } });
  assert.equal(wrongType.json.details.map((d: { field: string }) => d.field).sort(), ['password', 'username']);
  const form = await fetch(server.api + '/users', { method: 'POST', headers: { ...h, 'content-type': 'text/plain' }, body: 'username=x' });
  assert.is(form.status, 415);
  assert.is(((await form.json()) as { code: string }).code, 'UNSUPPORTED_MEDIA_TYPE');
  const badId = await call(server.api, 'GET', '/users/not-a-number', { headers: h });
  assert.is(badId.status, 400);
  assert.is(badId.json.details[0].field, 'id');
  const badPage = await call(server.api, 'GET', '/users?limit=100000', { headers: h });
  assert.is(badPage.status, 400);
  const unknown = await call(server.api, 'GET', '/no-such-thing', { headers: h });
  assert.is(unknown.status, 404);
  assert.is(unknown.json.code, 'ROUTE_NOT_FOUND');
  assert.not.match(server.output(), /"status":500/, 'no 500 in the request log');
});

t('lists page with limit and offset and report the total', async () => {
  const h = adminAuth();
  for (let i = 0; i < 5; i++) await call(server.api, 'POST', '/users', { headers: h, body: { username: `pager-${i}`, password: 'a-long-enough-password' } });
  const p1 = await call(server.api, 'GET', '/users?limit=2&offset=1', { headers: h });
  assert.is(p1.status, 200);
  assert.is(p1.json.items.length, 2);
  assert.is(p1.json.limit, 2);
  assert.is(p1.json.offset, 1);
  assert.ok(p1.json.total >= 6);
});

t('the OpenAPI document and the Swagger UI are served without internet access', async () => {
  const doc = await call(server.url, 'GET', '/api/swagger/doc.json');
  assert.is(doc.status, 200);
  assert.is(doc.json.openapi, '3.0.3');
  assert.ok(doc.json.paths['/api/v1/health'].get);
  assert.ok(doc.json.paths['/api/v1/users'].post.requestBody);
  const ui = await fetch(server.url + '/api/swagger/');
  const html = await ui.text();
  assert.is(ui.status, 200);
  assert.not.match(html, /(src|href)="https?:/, 'the UI loads nothing from another host');
  const scripts = [...html.matchAll(/src="([^"]+)"/g)].map((m) => m[1]);
  assert.ok(scripts.length >= 2);
  for (const s of scripts) assert.is((await fetch(server.url + s)).status, 200, s);
});

t('SIGKILL in the middle of a burst of writes: every acknowledged write is there after a restart, read models agree with the events, sagas catch up', async () => {
  const h = adminAuth();
  const acknowledged: Array<{ kind: 'user' | 'key'; id: number }> = [];
  let stop = false;
  const writer = async (n: number) => {
    for (let i = 0; !stop; i++) {
      try {
        if (i % 2 === 0) {
          const r = await call(server.api, 'POST', '/users', { headers: h, body: { username: `burst-${n}-${i}`, password: 'a-long-enough-password' } });
          if (r.status === 201) acknowledged.push({ kind: 'user', id: r.json.id });
        } else {
          const r = await call(server.api, 'POST', '/api-keys', { headers: h, body: { name: `burst-${n}-${i}`, expiresInDays: 30 } });
          if (r.status === 201) acknowledged.push({ kind: 'key', id: r.json.id });
        }
      } catch {
        return; // connection refused or reset: the server is gone
      }
    }
  };
  const writers = Array.from({ length: 6 }, (_, n) => writer(n));
  const until = Date.now() + 60_000;
  while (acknowledged.length < 40 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  await server.kill();
  stop = true;
  await Promise.all(writers);
  assert.ok(acknowledged.length >= 40);

  server = await startServer({ dataDir: server.dataDir, databaseUrl: server.databaseUrl!, port: server.port });
  for (const a of acknowledged) {
    const r = await call(server.api, 'GET', a.kind === 'user' ? `/users/${a.id}` : `/api-keys/${a.id}`, { headers: h });
    assert.is(r.status, 200, `acknowledged ${a.kind} ${a.id} is readable after the crash`);
  }
  const db = new pg.Client({ connectionString: server.databaseUrl! });
  await db.connect();
  try {
    const userEvents = Number((await db.query(`SELECT count(*) FROM events WHERE type = 'UserCreated'`)).rows[0].count) - Number((await db.query(`SELECT count(*) FROM events WHERE type = 'UserDeleted'`)).rows[0].count);
    assert.is(Number((await db.query('SELECT count(*) FROM users')).rows[0].count), userEvents, 'users table matches the events');
    const keyEvents = Number((await db.query(`SELECT count(*) FROM events WHERE type = 'ApiKeyCreated'`)).rows[0].count);
    assert.is(Number((await db.query('SELECT count(*) FROM api_keys')).rows[0].count), keyEvents, 'api_keys table matches the events');
    const head = Number((await db.query('SELECT max(position) FROM events')).rows[0].max);
    for (let i = 0; i < 200; i++) {
      const cp = Number((await db.query(`SELECT position FROM saga_checkpoints WHERE name = 'api-key-expiry'`)).rows[0].position);
      if (cp >= head) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const timers = Number((await db.query(`SELECT count(*) FROM saga_timers WHERE saga = 'api-key-expiry'`)).rows[0].count);
    assert.is(timers, keyEvents, 'the expiry saga resumed and scheduled exactly one timer per key');
    const chain = await call(server.api, 'POST', '/audit-logs/verify', { headers: h, body: { start_id: 1, end_id: head } });
    assert.is(chain.json.valid, true);
  } finally {
    await db.end();
  }
});

t('`lnm projections rebuild` replays every event and yields the same read models', async () => {
  const db = new pg.Client({ connectionString: server.databaseUrl! });
  await db.connect();
  const dump = async () => {
    const out: Record<string, unknown[]> = {};
    for (const table of ['users', 'api_keys', 'settings_current', 'audit_log']) out[table] = (await db.query(`SELECT * FROM ${table} ORDER BY 1`)).rows;
    return JSON.stringify(out);
  };
  await server.stop();
  const before = await dump();
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'bin/lnm.ts', 'projections', 'rebuild'], { env: { ...process.env, DATABASE_URL: server.databaseUrl!, LOG_LEVEL: 'silent' }, encoding: 'utf8' });
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stdout, /rebuilt \d+ projection\(s\) from \d+ event\(s\)/);
  assert.is(await dump(), before);
  await db.end();
});

t('the command line answers --help and applies migrations with `lnm migrate`', async () => {
  const help = spawnSync(process.execPath, ['--import', 'tsx', 'bin/lnm.ts', '--help'], { encoding: 'utf8' });
  assert.is(help.status, 0);
  for (const word of ['serve', 'migrate', 'projections rebuild', 'DATABASE_URL', 'PORT']) assert.match(help.stdout, word);
  const m = spawnSync(process.execPath, ['--import', 'tsx', 'bin/lnm.ts', 'migrate'], { env: { ...process.env, DATABASE_URL: server.databaseUrl!, LOG_LEVEL: 'silent' }, encoding: 'utf8' });
  assert.is(m.status, 0, m.stderr);
  assert.match(m.stdout, /applied 0 migration\(s\); \d+ already applied/);
  const bad = spawnSync(process.execPath, ['--import', 'tsx', 'bin/lnm.ts', 'serve', '--port', 'seventy'], { encoding: 'utf8' });
  assert.is(bad.status, 1);
  assert.match(bad.stderr, /PORT must be/);
});

t.run();
