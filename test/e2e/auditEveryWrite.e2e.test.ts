// Issue 35 item 2: every mutating route of the OpenAPI document (/api/swagger/doc.json), called
// by an authenticated ADMIN, leaves an audit entry whatever its answer: a body its schema
// refuses (400), an unknown id (404), a body the parser refuses before the route is reached
// (400 JSON_TOO_DEEP, 415), or a success. Requests without credentials are noise: no entry.
// Fabric is absent here, so the routes that need it are exercised on their refusals.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { adminAuth, call, startServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
let db: pg.Pool;
const auth = adminAuth();

test.before(async () => {
  s = await startServer();
  db = new pg.Pool({ connectionString: s.databaseUrl!, max: 2 });
});
test.after(async () => {
  await db?.end();
  await s?.stop();
});

interface Sent { requestId: string; method: string; path: string; status: number; what: string }

const deep = '{"a":'.repeat(200) + '1' + '}'.repeat(200);

/** The request ids that have an audit entry, once the projector has caught up (waited for, up to 20 s). */
async function audited(ids: string[]): Promise<Set<string>> {
  let found = new Set<string>();
  for (const deadline = Date.now() + 20_000; found.size < ids.length && Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
    const r = await db.query('SELECT DISTINCT request_id FROM audit_log WHERE request_id = ANY($1)', [ids]);
    found = new Set(r.rows.map((x) => x.request_id as string));
  }
  return found;
}

test('every mutating route leaves an audit entry for an authenticated caller: refused bodies, unknown ids, parser refusals, successes', async () => {
  const doc = (await call(s.url, 'GET', '/api/swagger/doc.json')).json as { paths: Record<string, Record<string, { parameters?: Array<{ in: string; name: string; schema: { type?: string } }>; requestBody?: unknown }>> };
  const sent: Sent[] = [];
  let n = 0;
  for (const [template, ops] of Object.entries(doc.paths)) {
    if (!template.startsWith('/api/v1/')) continue;
    for (const [method, op] of Object.entries(ops)) {
      if (!['post', 'put', 'patch', 'delete'].includes(method)) continue;
      // Well-formed ids that name nothing: the route's own 404 (or its body's 400 first).
      const path = template.replace('/api/v1', '').replace(/\{(\w+)\}/g, (_m, name: string) => {
        const p = op.parameters?.find((x) => x.in === 'path' && x.name === name);
        return p?.schema.type === 'integer' ? '2147483000' : 'no-such-thing';
      });
      const tries: Array<[string, { raw?: string; headers?: Record<string, string> }]> = op.requestBody
        ? [['a body the schema refuses', { raw: '{"audit_walk_unknown_field":1}' }], ['JSON_TOO_DEEP', { raw: deep }], ['a text/plain body', { raw: 'x', headers: { 'content-type': 'text/plain' } }]]
        : [['no body', {}]];
      for (const [what, o] of tries) {
        const requestId = `audit-walk-${++n}`;
        const r = await call(s.api, method.toUpperCase(), path, { raw: o.raw, headers: { ...auth, 'x-request-id': requestId, ...(o.raw !== undefined ? { 'content-type': 'application/json' } : {}), ...o.headers } });
        assert.ok(r.status !== 500 && r.status !== 401, `${method.toUpperCase()} ${path} (${what}): ${r.status} ${r.text.slice(0, 300)}`);
        sent.push({ requestId, method: method.toUpperCase(), path, status: r.status, what });
      }
    }
  }
  assert.ok(sent.length > 200, `walked ${sent.length} requests`);
  const found = await audited(sent.map((x) => x.requestId));
  const missing = sent.filter((x) => !found.has(x.requestId)).map((x) => `${x.method} ${x.path} (${x.what}) -> ${x.status}`);
  assert.equal(missing, [], `${missing.length} of ${sent.length} authenticated requests left no audit entry`);
});

test('requests without credentials leave no entry each, even with a body the parser refuses', async () => {
  const ids: string[] = [];
  for (const [i, raw] of [deep, '{"name":1}', 'x'].entries()) {
    const requestId = `audit-walk-anon-${i}`;
    const r = await call(s.api, 'POST', '/organizations', { raw, headers: { 'x-request-id': requestId, 'content-type': i === 2 ? 'text/plain' : 'application/json' } });
    assert.ok(r.status >= 400 && r.status < 500, r.text);
    ids.push(requestId);
  }
  // An authenticated write after them: once its entry is in, theirs would be too.
  const marker = await call(s.api, 'POST', '/organizations', { body: { bogus: 1 }, headers: { ...auth, 'x-request-id': 'audit-walk-anon-marker' } });
  assert.is(marker.status, 400, marker.text);
  const found = await audited([...ids, 'audit-walk-anon-marker']);
  assert.ok(found.has('audit-walk-anon-marker'));
  assert.equal(ids.filter((x) => found.has(x)), []);
});

test.run();
