// Bad input anywhere is a 4xx with the one error body, never a 500: every operation of the
// server's own OpenAPI document is called with ids that do not exist, an empty body, a body of
// wrong types, and a malformed id, as a careless client would.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { adminAuth, call, startServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
const auth = adminAuth();

test.before(async () => {
  s = await startServer();
});
test.after(async () => {
  await s?.stop();
});

interface Operation {
  method: string;
  path: string;
  hasBody: boolean;
}

async function operations(): Promise<Operation[]> {
  const doc = (await (await fetch(`${s.url}/api/swagger/doc.json`)).json()) as { paths: Record<string, Record<string, { requestBody?: unknown }>> };
  const ops: Operation[] = [];
  for (const [p, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      // Logging out would end the caller's own session; it takes no input anyway.
      if (p.endsWith('/auth/logout')) continue;
      ops.push({ method: method.toUpperCase(), path: p, hasBody: Boolean(op.requestBody) });
    }
  }
  return ops;
}

const fill = (p: string, value: string) => p.replace(/\{[^}]+\}/g, value);
const apiPath = (p: string) => p.replace(/^\/api\/v1/, '');

test('every operation answers missing ids, empty and wrongly typed bodies and malformed ids with a 4xx error body, never a 500', async () => {
  const ops = await operations();
  assert.ok(ops.length > 80, `the OpenAPI document lists ${ops.length} operations`);
  const wrongTypes = { name: 42, id: 'x', networkId: 'x', providerId: [], config: 'x', genesis: 7, address: 5, data: {}, enabled: 'yes', items: 3 };
  const failures: string[] = [];
  let calls = 0;
  const statuses: Record<number, number> = {};
  for (const op of ops) {
    const variants: Array<{ path: string; body?: unknown; what: string }> = [{ path: fill(op.path, '999999'), what: 'unknown id' }];
    if (op.path.includes('{')) variants.push({ path: fill(op.path, 'not-an-id'), what: 'malformed id' });
    if (op.hasBody) {
      variants.push({ path: fill(op.path, '999999'), body: {}, what: 'empty body' });
      variants.push({ path: fill(op.path, '999999'), body: wrongTypes, what: 'wrong types' });
      if (!op.path.includes('{')) {
        variants.push({ path: op.path, body: {}, what: 'empty body, real path' });
        variants.push({ path: op.path, body: wrongTypes, what: 'wrong types, real path' });
      }
    }
    for (const v of variants) {
      calls++;
      const r = await call(s.api, op.method, apiPath(v.path), { headers: auth, ...(v.body !== undefined ? { body: v.body } : op.hasBody ? { body: {} } : {}) });
      statuses[r.status] = (statuses[r.status] ?? 0) + 1;
      const where = `${op.method} ${v.path} (${v.what}) -> ${r.status}`;
      if (r.status >= 500 && r.status !== 503) failures.push(`${where}: ${r.text.slice(0, 200)}`);
      else if (r.status >= 400 && (typeof r.json?.code !== 'string' || typeof r.json?.message !== 'string' || r.json?.status !== r.status)) failures.push(`${where}: not the error body: ${r.text.slice(0, 200)}`);
    }
  }
  console.log(`  ${ops.length} operations, ${calls} calls, statuses: ${JSON.stringify(statuses)}`);
  assert.equal(failures, [], `${failures.length} of ${calls} calls`);
  assert.not.match(s.output(), /"status":500/, 'no 500 in the request log');
});

test.run();
