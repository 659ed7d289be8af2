// Credentials made with an API key stay within it (issue 36, item 1): a key that may only create
// keys, for a day, cannot mint one with more scopes or a longer life, nor issue a node-sharing
// invitation that outlives it; each refusal is a 403 naming the rule, in the audit log.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { adminAuth, call, startServer, type TestServer } from '../helpers/server.ts';

const t = suite('credential delegation end to end');
let server: TestServer;

t.before(async () => {
  server = await startServer({ env: { LNM_SHARING_PORT: '0' } });
});
t.after(async () => server?.stop());

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

t('a key that may only create keys, for a day, mints nothing beyond its scopes or its expiry', async () => {
  const parent = await call(server.api, 'POST', '/api-keys', { headers: adminAuth(), body: { name: 'minter', scopes: ['API_KEY_CREATE'], expiresInDays: 1 } });
  assert.is(parent.status, 201, parent.text);
  const k = bearer(parent.json.key);

  // Left out, scopes and expiry are the parent's: not every scope of the user, not forever.
  const plain = await call(server.api, 'POST', '/api-keys', { headers: k, body: { name: 'child' } });
  assert.is(plain.status, 201, plain.text);
  assert.equal(plain.json.scopes, ['API_KEY_CREATE']);
  assert.is(plain.json.expiresAt, parent.json.expiresAt);
  assert.is((await call(server.api, 'GET', '/users', { headers: bearer(plain.json.key) })).status, 403, 'the child cannot read /users');

  const refusals: [string, Record<string, unknown>, string][] = [
    ['a scope it lacks', { name: 'wide', scopes: ['USER_READ'] }, 'scopes within the delegating credential'],
    ['every scope of the user', { name: 'wide', scopes: ['API_KEY_CREATE', 'USER_READ', 'USER_CREATE'] }, 'scopes within the delegating credential'],
    ['no expiry', { name: 'forever', scopes: ['API_KEY_CREATE'], expiresAt: null }, 'expiry within the delegating credential'],
    ['a longer life', { name: 'long', expiresInDays: 2 }, 'expiry within the delegating credential'],
    ['a later expiresAt', { name: 'late', expiresAt: new Date(Date.now() + 3 * 86_400_000).toISOString() }, 'expiry within the delegating credential'],
  ];
  for (const [what, body, rule] of refusals) {
    const r = await call(server.api, 'POST', '/api-keys', { headers: k, body });
    assert.is(r.status, 403, `${what}: ${r.text}`);
    assert.is(r.json.code, 'DELEGATION_EXCEEDED', what);
    assert.is(r.json.context?.rule, rule, what);
    assert.ok(r.json.requestId, 'the project\'s error body');
  }
  const keys = await call(server.api, 'GET', '/api-keys?limit=100', { headers: adminAuth() });
  assert.is(keys.json.items.length, 2, 'nothing was made by the refused requests');

  const log = await call(server.api, 'GET', '/audit-logs?status=denied&limit=100', { headers: adminAuth() });
  const denied = log.json.items.filter((e: any) => e.endpoint === '/api/v1/api-keys' && e.method === 'POST');
  assert.is(denied.length, refusals.length, 'each refusal is audited as denied');
  assert.ok(denied.every((e: any) => /outlive|scopes it holds/.test(e.error_message)), 'naming the rule');
  assert.not.match(log.text, parent.json.key, 'never the key itself');

  // A key without expiry, made by a session-less password caller, still may mint without expiry.
  const free = await call(server.api, 'POST', '/api-keys', { headers: adminAuth(), body: { name: 'free', scopes: ['API_KEY_CREATE', 'USER_READ'] } });
  const child = await call(server.api, 'POST', '/api-keys', { headers: bearer(free.json.key), body: { name: 'free-child', scopes: ['USER_READ'] } });
  assert.is(child.status, 201, child.text);
  assert.is(child.json.expiresAt, null);
});

t('a node-sharing invitation issued with an API key ends no later than the key', async () => {
  const soon = new Date(Date.now() + 3_600_000).toISOString();
  const key = await call(server.api, 'POST', '/api-keys', { headers: adminAuth(), body: { name: 'inviter', scopes: ['SHARING_MANAGE'], expiresAt: soon } });
  assert.is(key.status, 201, key.text);
  const long = await call(server.api, 'POST', '/nodesharing/invitations', { headers: bearer(key.json.key), body: { expiresInSeconds: 86_400 } });
  assert.is(long.status, 403, long.text);
  assert.is(long.json.code, 'DELEGATION_EXCEEDED');
  const byDefault = await call(server.api, 'POST', '/nodesharing/invitations', { headers: bearer(key.json.key), body: {} });
  assert.is(byDefault.status, 201, byDefault.text);
  assert.ok(Date.parse(byDefault.json.expires_at) <= Date.parse(soon), `${byDefault.json.expires_at} is not after ${soon}`);
  const short = await call(server.api, 'POST', '/nodesharing/invitations', { headers: bearer(key.json.key), body: { expiresInSeconds: 600 } });
  assert.is(short.status, 201, short.text);
});

t('an API key gives no account more than it holds: no user, password or role beyond its scopes, none from a key that expires', async () => {
  const manage = ['USER_READ', 'USER_CREATE', 'USER_PASSWORD_RESET', 'USER_ROLE_ASSIGN'];
  const key = await call(server.api, 'POST', '/api-keys', { headers: adminAuth(), body: { name: 'user-admin', scopes: manage } });
  assert.is(key.status, 201, key.text);
  const k = bearer(key.json.key);
  const viewer = await call(server.api, 'POST', '/users', { headers: adminAuth(), body: { username: 'vic-viewer', password: 'correct-horse-battery', role: 'VIEWER' } });
  assert.is(viewer.status, 201, viewer.text);
  const refusals: [string, string, string, unknown][] = [
    ['a new ADMIN', 'POST', '/users', { username: 'mallory', password: 'correct-horse-battery', role: 'ADMIN' }],
    ['a new VIEWER (its permissions are not the key\'s either)', 'POST', '/users', { username: 'mallory2', password: 'correct-horse-battery' }],
    ['the ADMIN\'s password', 'PUT', '/users/1/password', { password: 'mallory-knows-this-one' }],
    ['a promotion to ADMIN', 'PUT', `/users/${viewer.json.id}/role`, { role: 'ADMIN' }],
  ];
  for (const [what, method, path, body] of refusals) {
    const r = await call(server.api, method, path, { headers: k, body });
    assert.is(r.status, 403, `${what}: ${r.text}`);
    assert.is(r.json.code, 'DELEGATION_EXCEEDED', what);
  }
  const users = await call(server.api, 'GET', '/users?limit=100', { headers: adminAuth() });
  assert.not.ok(users.json.items.some((u: any) => u.username.startsWith('mallory')), 'no user made');
  assert.is(users.json.items.find((u: any) => u.id === viewer.json.id).role, 'VIEWER');
  assert.is((await call(server.api, 'GET', '/auth/me', { headers: adminAuth() })).status, 200, 'the ADMIN\'s password unchanged');
  // Every scope, but for a day: a password it handed out would outlive it.
  const day = await call(server.api, 'POST', '/api-keys', { headers: adminAuth(), body: { name: 'all-for-a-day', expiresInDays: 1 } });
  const short = await call(server.api, 'POST', '/users', { headers: bearer(day.json.key), body: { username: 'mallory3', password: 'correct-horse-battery', role: 'VIEWER' } });
  assert.is(short.status, 403, short.text);
  assert.is(short.json.context.rule, 'expiry within the delegating credential');
  // A lowering is no delegation: the key may take a role back.
  const op = await call(server.api, 'POST', '/users', { headers: adminAuth(), body: { username: 'olga-operator', password: 'correct-horse-battery', role: 'OPERATOR' } });
  assert.is((await call(server.api, 'PUT', `/users/${op.json.id}/role`, { headers: k, body: { role: 'VIEWER' } })).status, 200);
});

t.run();
