// Issue 20, classes 1-5, against the real server: each class is refused at its boundary with a 4xx
// and the one error body, never a 500, and a refused write still leaves its audit trace.
//   1. text PostgreSQL cannot store (NUL, lone surrogates): 400 at validation, audit made storable
//   2. integers outside PostgreSQL's range: 400 at validation
//   3. deep JSON: 400 at the body parser
//   4. Object.prototype names as keys: own-key lookups (template bindings)
//   5. bodies that are not JSON: 415 at the content-type gate; no body where one is needed: 400
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import { adminAuth, basic, call, startServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
const auth = adminAuth();

test.before(async () => {
  s = await startServer();
});
test.after(async () => {
  await s?.stop();
});

/** A request exactly as given: any content type, a chunked body, a body that is not JSON. */
function raw(method: string, path: string, headers: Record<string, string>, chunks: string[] | null): Promise<{ status: number; json: any; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${s.api}${path}`, { method, headers: { ...auth, ...headers } }, (res) => {
      let text = '';
      res.on('data', (b: Buffer) => (text += b.toString()));
      res.on('end', () => {
        let json: any = null;
        try {
          json = JSON.parse(text);
        } catch {
          /* not JSON */
        }
        resolve({ status: res.statusCode!, json, text });
      });
    });
    req.on('error', reject);
    for (const c of chunks ?? []) req.write(c);
    req.end();
  });
}

const isErrorBody = (r: { status: number; json: any; text: string }, status: number, code?: string) => {
  assert.is(r.status, status, r.text);
  assert.is(r.json?.status, status, r.text);
  assert.type(r.json?.message, 'string');
  if (code) assert.is(r.json.code, code, r.text);
};

/** The audit entry of a request (failed writes are recorded after the answer: waited for, up to 10 s). */
async function auditEntryOf(requestId: string) {
  for (const deadline = Date.now() + 10_000; ; await new Promise((r) => setTimeout(r, 100))) {
    const r = await call(s.api, 'GET', '/audit-logs?limit=100', { headers: auth });
    assert.is(r.status, 200, r.text);
    const found = (r.json.items as Array<Record<string, unknown>>).find((e) => e.request_id === requestId);
    if (found || Date.now() > deadline) return found;
  }
}

async function chainValid() {
  const head = (await call(s.api, 'GET', '/audit-logs?limit=1', { headers: auth })).json.items[0].id as number;
  const v = await call(s.api, 'POST', '/audit-logs/verify', { headers: auth, body: { start_id: 1, end_id: head } });
  assert.is(v.status, 200, v.text);
  assert.ok(v.json.valid, v.text);
}

test('class 1: NUL and lone surrogates are a 400 in login bodies, other bodies, path and query; the refusal is audited', async () => {
  for (const username of ['ad\\u0000min', '\\ud800', 'x\\udfff']) {
    const r = await raw('POST', '/auth/login', { 'content-type': 'application/json', authorization: '' }, [`{"username":"${username}","password":"whatever-password"}`]);
    isErrorBody(r, 400, 'VALIDATION_FAILED');
    assert.equal(r.json.details.map((d: { field: string }) => d.field), ['username']);
    // The refused login is in the audit log, its request quoted storably.
    const entry = await auditEntryOf(r.json.requestId);
    assert.ok(entry, `an audit entry for the refused login ${r.json.requestId}`);
    assert.is(entry!.response_code, 400);
  }
  // A body field, with a key that is itself unstorable.
  const org = await raw('POST', '/organizations', { 'content-type': 'application/json' }, ['{"mspId":"Org1MSP","name":"a\\u0000b"}']);
  isErrorBody(org, 400, 'VALIDATION_FAILED');
  const key = await raw('PUT', '/settings', { 'content-type': 'application/json' }, ['{"\\ud800":1}']);
  isErrorBody(key, 400);
  // Query strings (a GET that used to reach SQL) and path parameters.
  isErrorBody(await call(s.api, 'GET', '/audit-logs?action=x%00y', { headers: auth }), 400, 'VALIDATION_FAILED');
  const path = await call(s.api, 'DELETE', '/plugins/a%00b', { headers: auth });
  isErrorBody(path, 400, 'VALIDATION_FAILED');
  const entry = await auditEntryOf(path.json.requestId);
  assert.ok(entry, 'the refused delete is audited');
  assert.is(entry!.resource_id, 'a\uFFFDb', 'the path parameter is quoted with U+FFFD for the NUL');
  // Basic credentials carrying a NUL: refused as malformed (401), not looked up.
  const b = await call(s.api, 'GET', '/auth/me', { headers: { authorization: basic('admin\u0000', 'x') } });
  isErrorBody(b, 401, 'UNAUTHENTICATED');
  // A User-Agent with bytes beyond ASCII is stored as given (Node refuses NUL in headers itself).
  const ua = await raw('POST', '/organizations', { 'content-type': 'application/json', 'user-agent': 'fuzz\u00ff' }, ['{}']);
  isErrorBody(ua, 400);
  assert.ok(await auditEntryOf(ua.json.requestId));
  await chainValid();
});

test('class 1: text parsed out of a string field (a YAML or JSON plugin descriptor) is checked too: its escapes can spell NUL or a lone surrogate', async () => {
  const descriptor = (description: string) => [
    'apiVersion: dev.platform/v1', 'kind: Plugin', 'metadata:', '  name: nul-check', `  description: "${description}"`, 'spec:', '  dockerCompose:', '    contents: |',
    '      services:', '        web:', '          image: "{{ .parameters.image }}"', '  parameters:', '    type: object', '    properties:', '      image: { type: string }',
  ].join('\n');
  for (const d of ['a\\0b', 'x\\uD800', 'y\\x00']) {
    const r = await call(s.api, 'POST', '/plugins', { headers: auth, body: { descriptor: descriptor(d) } });
    isErrorBody(r, 400, 'VALIDATION_FAILED');
    assert.equal(r.json.details.map((x: { field: string }) => x.field), ['descriptor.metadata.description']);
    assert.ok(await auditEntryOf(r.json.requestId), 'the refused install is audited');
  }
  const json = await call(s.api, 'POST', '/plugins', { headers: auth, body: { descriptor: JSON.stringify({ apiVersion: 'dev.platform/v1', kind: 'Plugin', metadata: { name: 'nul-check', description: 'z\u0000' }, spec: { dockerCompose: { contents: 'services: {}' }, parameters: { type: 'object' } } }) } });
  isErrorBody(json, 400, 'VALIDATION_FAILED');
  const deep = await call(s.api, 'POST', '/plugins', { headers: auth, body: { descriptor: descriptor('d').replace('image: { type: string }', `image: { type: string, default: ${'['.repeat(3000)}${']'.repeat(3000)} }`) } });
  isErrorBody(deep, 400, 'VALIDATION_FAILED');
  assert.is((await call(s.api, 'GET', '/plugins/nul-check', { headers: auth })).status, 404, 'nothing installed');
  await chainValid();
});

test('class 2: ids and numbers outside PostgreSQL\'s integer range are a 400 in path, query and body, never a 500', async () => {
  for (const id of ['18446744073709551616', '1e308', '2147483648', '-0', '1.5', '99999999999999999999999999']) {
    isErrorBody(await call(s.api, 'GET', `/nodes/${id}`, { headers: auth }), 400, 'VALIDATION_FAILED');
    isErrorBody(await call(s.api, 'GET', `/audit-logs/${id}`, { headers: auth }), 400, 'VALIDATION_FAILED');
    // (offset=-0 is offset 0)
    if (id !== '-0') isErrorBody(await call(s.api, 'GET', `/audit-logs?offset=${id}`, { headers: auth }), 400, 'VALIDATION_FAILED');
  }
  // A well-formed id that is absent stays a 404.
  isErrorBody(await call(s.api, 'GET', '/nodes/2147483647', { headers: auth }), 404);
  for (const n of ['18446744073709551616', '1e308', '2147483648', '-0', '1.5']) {
    isErrorBody(await raw('POST', '/audit-logs/verify', { 'content-type': 'application/json' }, [`{"start_id":1,"end_id":${n}}`]), 400, 'VALIDATION_FAILED');
  }
  isErrorBody(await raw('PUT', '/settings', { 'content-type': 'application/json' }, ['{"sessionTimeoutMinutes":1e308}']), 400);
});

test('class 3: JSON nested thousands of levels deep is refused by the body parser (400 JSON_TOO_DEEP)', async () => {
  const deep = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
  for (const [path, body] of [
    ['/networks/templates/validate', `{"template":{"version":"2.0.0","platform":"EVM","name":"t","variables":[],"network":${deep(5000)}}}`],
    ['/settings', deep(100_000)],
    ['/plugins', `{"descriptor":${'['.repeat(200_000)}${']'.repeat(200_000)}}`],
  ] as const) {
    isErrorBody(await raw('POST', path, { 'content-type': 'application/json' }, [body]), 400, 'JSON_TOO_DEEP');
  }
  // 64 levels are fine as far as the parser goes (the route's own schema decides).
  const ok = await raw('POST', '/networks/templates/validate', { 'content-type': 'application/json' }, [`{"template":{"version":"2.0.0","platform":"EVM","name":"t","variables":[],"network":${deep(60)}}}`]);
  assert.ok(ok.status < 500 && ok.json?.code !== 'JSON_TOO_DEEP', ok.text);
});

test('class 4: template variables named constructor, __proto__, toString, valueOf or hasOwnProperty are variables like any other', async () => {
  for (const name of ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty']) {
    const template = { version: '2.0.0', platform: 'EVM', name: 't', variables: [{ name, type: 'key' }], network: { chainId: 1337, validatorKeys: [`\${${name}.id}`] } };
    // Not bound: MISSING_BINDING, not "bound" by Object.prototype.
    const r = await raw('POST', '/networks/templates/validate', { 'content-type': 'application/json' }, [JSON.stringify({ template, variableBindings: {} })]);
    assert.is(r.status, 200, r.text);
    assert.equal(r.json.errors.map((e: { code: string }) => e.code), ['MISSING_BINDING'], `${name}: ${r.text}`);
    // Bound to a key that does not exist: BINDING_NOT_FOUND (the JSON key __proto__ is an own key).
    const b = await raw('POST', '/networks/templates/validate', { 'content-type': 'application/json' }, [`{"template":${JSON.stringify(template)},"variableBindings":{${JSON.stringify(name)}:{"keyId":424242}}}`]);
    assert.is(b.status, 200, b.text);
    assert.equal(b.json.errors.map((e: { code: string }) => e.code), ['BINDING_NOT_FOUND'], `${name}: ${b.text}`);
  }
});

test('class 5: only application/json bodies are read (415 otherwise); no body or an unparsable one is a 400; settings are never reset by either', async () => {
  const before = (await call(s.api, 'GET', '/settings', { headers: auth })).json;
  const changed = await call(s.api, 'PUT', '/settings', { headers: auth, body: { ...before.general, sessionIdleTimeoutMinutes: before.general.sessionIdleTimeoutMinutes + 7 } });
  assert.is(changed.status, 200, changed.text);
  const want = changed.json.general;
  const attempts: Array<[Record<string, string>, string[] | null, number, string]> = [
    [{ 'content-type': 'text/plain', 'transfer-encoding': 'chunked' }, ['hello', ' world'], 415, 'UNSUPPORTED_MEDIA_TYPE'],
    [{ 'content-type': 'text/plain' }, ['{}'], 415, 'UNSUPPORTED_MEDIA_TYPE'],
    [{ 'content-type': 'application/vnd.evil+json' }, ['{}'], 415, 'UNSUPPORTED_MEDIA_TYPE'],
    [{ 'content-type': 'application/x-www-form-urlencoded' }, ['a=1'], 415, 'UNSUPPORTED_MEDIA_TYPE'],
    [{ 'content-type': 'application/json; charset=latin1' }, ['{}'], 415, 'UNSUPPORTED_MEDIA_TYPE'],
    [{ 'content-type': 'application/json', 'content-encoding': 'gzip' }, ['{}'], 415, 'UNSUPPORTED_MEDIA_TYPE'],
    [{ 'transfer-encoding': 'chunked' }, ['{}'], 415, 'UNSUPPORTED_MEDIA_TYPE'],
    [{ 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, ['{"sessionIdle', 'TimeoutMinutes":'], 400, 'MALFORMED_JSON'],
    [{ 'content-type': 'application/json' }, ['null'], 400, 'MALFORMED_JSON'],
    [{ 'content-type': 'application/json' }, ['"text"'], 400, 'MALFORMED_JSON'],
    [{ 'content-type': 'application/json' }, [''], 400, 'BODY_REQUIRED'],
    [{ 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, ['  \n '], 400, 'BODY_REQUIRED'],
    [{}, null, 400, 'BODY_REQUIRED'],
  ];
  for (const [headers, chunks, status, code] of attempts) {
    for (const method of ['PUT', 'POST']) {
      const r = await raw(method, '/settings', headers, chunks);
      isErrorBody(r, status, code);
    }
  }
  assert.equal((await call(s.api, 'GET', '/settings', { headers: auth })).json.general, want, 'no attempt changed a setting');
  // A route whose body is all optional fields creates nothing from no body.
  const backups = (await call(s.api, 'GET', '/backups', { headers: auth })).json?.total;
  isErrorBody(await raw('POST', '/backups', {}, null), 400, 'BODY_REQUIRED');
  assert.is((await call(s.api, 'GET', '/backups', { headers: auth })).json?.total, backups);
  // The JSON that works keeps working, with or without a charset.
  const ok = await raw('PUT', '/settings', { 'content-type': 'application/json; charset=utf-8' }, [JSON.stringify(before.general)]);
  assert.is(ok.status, 200, ok.text);
  assert.equal(ok.json.general, before.general);
  assert.not.match(s.output(), /"status":500/, 'no 500 in the request log');
});

test('a 503 from a route (a feature this server is not set up for) names it and says when to retry, like every 503', async () => {
  const r = await new Promise<{ status: number; retryAfter: string | undefined; json: any }>((resolve, reject) => {
    const req = http.request(`${s.api}/nodesharing/invitations/preview`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (b: Buffer) => (text += b.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, retryAfter: res.headers['retry-after'] as string | undefined, json: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(JSON.stringify({ invitation_jwt: 'eyJhbGciOiJFUzI1NiJ9.eyJhIjoxfQ.c2ln' }));
  });
  assert.is(r.status, 503, JSON.stringify(r.json));
  assert.is(r.json.code, 'SHARING_NOT_CONFIGURED');
  assert.match(r.json.message, /LNM_SHARING_PORT/, 'the message names what is missing');
  assert.ok(Number(r.retryAfter) > 0, `Retry-After: ${r.retryAfter}`);
});

test('a method no route implements (PROPFIND, MKCOL, PURGE) is a 405 in the error body, not the router\'s bare 501', async () => {
  for (const method of ['PROPFIND', 'MKCOL', 'PURGE']) {
    for (const path of ['/users', '/nodes/1', '/no-such-route']) {
      const r = await raw(method, path, {}, null);
      assert.ok(r.status === 405 || r.status === 404, `${method} ${path}: ${r.status} ${r.text}`);
      isErrorBody(r, r.status);
    }
  }
});

test.run();
