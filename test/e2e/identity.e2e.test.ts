// Users, authentication, roles, API keys, audit logs, reports, settings and editions, driven
// over HTTP against the server running as a child process.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { ADMIN, adminAuth, basic, call, startServer, type TestServer } from '../helpers/server.ts';
import { parseCsv, readPdf } from '../helpers/documents.ts';
import { allRoutes } from '../../http/routes/index.ts';
import { hasPermission, type Permission } from '../../domain/users/permissions.ts';

const t = suite('identity end to end');
let server: TestServer;
const PW = 'correct-horse-battery';
const viewer = { username: 'vera-viewer', password: PW };
const operator = { username: 'otto-operator', password: PW };

const pathOf = (p: string) => p.replace(/:keyID|:keyId/g, '1').replace(/:name/g, 'x').replace(/:mspid/g, 'Org1MSP').replace(/:platform/g, 'EVM').replace(/:channelName/g, 'ch').replace(/:blockNum/g, '1').replace(/:txId/g, 'ab').replace(/:[A-Za-z]+/g, '1');

t.before(async () => {
  server = await startServer();
  for (const [u, role] of [[viewer, 'VIEWER'], [operator, 'OPERATOR']] as const) {
    const r = await call(server.api, 'POST', '/users', { headers: adminAuth(), body: { username: u.username, password: u.password, role } });
    assert.is(r.status, 201, r.text);
  }
});

t('without credentials every route but login and health answers 401 with the error body', async () => {
  const wrong: string[] = [];
  for (const r of allRoutes) {
    if (r.permission === 'PUBLIC') continue;
    const res = await call(server.api, r.method.toUpperCase(), pathOf(r.path), r.method === 'get' || r.method === 'delete' ? {} : { body: {} });
    if (res.status !== 401 || res.json?.code !== 'UNAUTHENTICATED') wrong.push(`${r.method.toUpperCase()} ${r.path}: ${res.status}`);
  }
  assert.equal(wrong, []);
});

t('a VIEWER gets 403 on every route outside its role, and each denial is in the audit log with status denied', async () => {
  const denied: string[] = [];
  const wrong: string[] = [];
  for (const r of allRoutes) {
    if (r.permission === 'PUBLIC' || hasPermission('VIEWER', r.permission as Permission)) continue;
    const res = await call(server.api, r.method.toUpperCase(), pathOf(r.path), { headers: { authorization: basic(viewer.username, viewer.password) }, ...(r.method === 'get' || r.method === 'delete' ? {} : { body: {} }) });
    if (res.status !== 403) wrong.push(`${r.method.toUpperCase()} ${r.path}: ${res.status} ${res.text.slice(0, 120)}`);
    else denied.push(`${r.method.toUpperCase()} /api/v1${pathOf(r.path)}`);
  }
  assert.equal(wrong, []);
  assert.ok(denied.length > 10);
  const log = await call(server.api, 'GET', `/audit-logs?status=denied&limit=500`, { headers: adminAuth() });
  assert.is(log.status, 200);
  const seen = new Set(log.json.items.filter((e: any) => e.username === viewer.username).map((e: any) => `${e.method} ${e.endpoint}`));
  assert.equal(denied.filter((d) => !seen.has(d)), [], 'every denial audited');
  const one = log.json.items.find((e: any) => e.username === viewer.username);
  assert.is(one.status, 'denied');
  assert.is(one.response_code, 403);
  assert.ok(one.ip_address && one.user_agent !== undefined && one.request_id);
});

t('the right role succeeds: OPERATOR reads users, VIEWER reads its own account, ADMIN manages users', async () => {
  assert.is((await call(server.api, 'GET', '/users', { headers: { authorization: basic(operator.username, operator.password) } })).status, 200);
  const me = await call(server.api, 'GET', '/auth/me', { headers: { authorization: basic(viewer.username, viewer.password) } });
  assert.is(me.status, 200);
  assert.is(me.json.role, 'VIEWER');
  assert.is(me.json.edition, 'pro');
  assert.is(me.json.authMethod, 'basic');
  assert.ok(me.json.permissions.includes('ACCOUNT_SELF'));
  assert.not.ok(me.json.permissions.includes('USER_CREATE'));
});

t('session cookie: login sets an HttpOnly SameSite cookie, the cookie authenticates, logout revokes it', async () => {
  const login = await call(server.api, 'POST', '/auth/login', { body: ADMIN });
  assert.is(login.status, 200);
  const setCookie = login.headers.get('set-cookie')!;
  assert.match(setCookie, /lnm_session=/);
  assert.match(setCookie.toLowerCase(), /httponly/);
  assert.match(setCookie.toLowerCase(), /samesite=lax/);
  assert.not.match(login.text, /password/i, 'no password or hash in the response');
  const cookie = setCookie.split(';')[0];
  assert.is((await call(server.api, 'GET', '/auth/me', { headers: { cookie } })).json.authMethod, 'session');
  assert.is((await call(server.api, 'POST', '/auth/logout', { headers: { cookie, 'x-requested-with': 'test' } })).status, 204);
  assert.is((await call(server.api, 'GET', '/auth/me', { headers: { cookie } })).status, 401);
});

t('a password change ends every session of that user', async () => {
  const u = { username: 'pat-changer', password: PW };
  await call(server.api, 'POST', '/users', { headers: adminAuth(), body: { ...u, role: 'OPERATOR' } });
  const cookie = (await call(server.api, 'POST', '/auth/login', { body: u })).headers.get('set-cookie')!.split(';')[0];
  const weak = await call(server.api, 'POST', '/auth/change-password', { headers: { cookie, 'x-requested-with': 'test' }, body: { currentPassword: PW, newPassword: 'short' } });
  assert.is(weak.status, 400);
  assert.is(weak.json.details[0].field, 'newPassword');
  const ch = await call(server.api, 'POST', '/auth/change-password', { headers: { cookie, 'x-requested-with': 'test' }, body: { currentPassword: PW, newPassword: 'a-brand-new-passphrase' } });
  assert.is(ch.status, 204);
  assert.is((await call(server.api, 'GET', '/auth/me', { headers: { cookie } })).status, 401);
  assert.is((await call(server.api, 'GET', '/auth/me', { headers: { authorization: basic(u.username, PW) } })).status, 401);
  assert.is((await call(server.api, 'GET', '/auth/me', { headers: { authorization: basic(u.username, 'a-brand-new-passphrase') } })).status, 200);
});

t('verified Basic credentials are kept between requests, and forgotten at once on a password change, a role change and a deletion', async () => {
  const u = { username: 'cody-cached', password: PW };
  const created = await call(server.api, 'POST', '/users', { headers: adminAuth(), body: { ...u, role: 'OPERATOR' } });
  assert.is(created.status, 201, created.text);
  const old = { authorization: basic(u.username, PW) };
  // Twice, so the second answer comes from the verified-credentials cache.
  for (let i = 0; i < 2; i++) assert.is((await call(server.api, 'GET', '/users', { headers: old })).status, 200);
  assert.is((await call(server.api, 'PUT', `/users/${created.json.id}/role`, { headers: adminAuth(), body: { role: 'VIEWER' } })).status, 200);
  assert.is((await call(server.api, 'GET', '/users', { headers: old })).status, 403, 'the lower role at once (USER_READ is for OPERATOR and up)');
  assert.is((await call(server.api, 'GET', '/auth/me', { headers: old })).status, 200);
  assert.is((await call(server.api, 'PUT', `/users/${created.json.id}/password`, { headers: adminAuth(), body: { password: 'another-long-passphrase' } })).status, 204);
  assert.is((await call(server.api, 'GET', '/auth/me', { headers: old })).status, 401, 'the old password is refused at once');
  const fresh = { authorization: basic(u.username, 'another-long-passphrase') };
  for (let i = 0; i < 2; i++) assert.is((await call(server.api, 'GET', '/auth/me', { headers: fresh })).status, 200);
  assert.is((await call(server.api, 'DELETE', `/users/${created.json.id}`, { headers: adminAuth() })).status, 204);
  assert.is((await call(server.api, 'GET', '/auth/me', { headers: fresh })).status, 401, 'a deleted user is refused at once');
});

t('API keys: shown once, work as Bearer and X-API-Key, respect scopes, and a revoked or expired key gives 401 at once', async () => {
  const created = await call(server.api, 'POST', '/api-keys', { headers: adminAuth(), body: { name: 'ci', scopes: ['USER_READ', 'ACCOUNT_SELF'] } });
  assert.is(created.status, 201, created.text);
  const key: string = created.json.key;
  assert.match(key, /^lnm_[0-9A-Za-z]+$/);
  const listed = await call(server.api, 'GET', '/api-keys', { headers: adminAuth() });
  assert.not.match(listed.text, key, 'the key is never shown again');
  assert.is((await call(server.api, 'GET', '/users', { headers: { authorization: `Bearer ${key}` } })).status, 200);
  assert.is((await call(server.api, 'GET', '/users', { headers: { 'x-api-key': key } })).status, 200);
  const outOfScope = await call(server.api, 'GET', '/audit-logs', { headers: { 'x-api-key': key } });
  assert.is(outOfScope.status, 403, 'SYSTEM_MONITOR is not in the scopes');
  const tooMuch = await call(server.api, 'POST', '/api-keys', { headers: { authorization: basic(viewer.username, viewer.password) }, body: { name: 'x', scopes: ['USER_CREATE'] } });
  assert.is(tooMuch.status, 403, 'a VIEWER cannot create keys');
  const badScope = await call(server.api, 'POST', '/api-keys', { headers: { authorization: basic(operator.username, operator.password) }, body: { name: 'x', scopes: ['USER_CREATE'] } });
  assert.is(badScope.status, 400, 'scopes must be within the role');
  assert.is((await call(server.api, 'DELETE', `/api-keys/${created.json.id}`, { headers: adminAuth() })).status, 204);
  const revoked = await call(server.api, 'GET', '/users', { headers: { authorization: `Bearer ${key}` } });
  assert.is(revoked.status, 401);
  assert.match(revoked.json.message, /revoked/);
  assert.is((await call(server.api, 'GET', '/users', { headers: { authorization: 'Bearer lnm_garbage' } })).status, 401);

  const soon = await call(server.api, 'POST', '/api-keys', { headers: adminAuth(), body: { name: 'short-lived', expiresAt: new Date(Date.now() + 1500).toISOString() } });
  assert.is((await call(server.api, 'GET', '/users', { headers: { 'x-api-key': soon.json.key } })).status, 200);
  await new Promise((r) => setTimeout(r, 1700));
  const expired = await call(server.api, 'GET', '/users', { headers: { 'x-api-key': soon.json.key } });
  assert.is(expired.status, 401);
  assert.match(expired.json.message, /expired/);
  const events = await call(server.api, 'GET', '/audit-logs?resource_type=api_key&limit=50', { headers: adminAuth() });
  assert.ok(events.json.items.some((e: any) => e.action === 'API_KEY_REVOKE' && e.event === 'security.api_key.revoked'), 'revocation audited as security.api_key.revoked');
  assert.ok(events.json.items.some((e: any) => e.event === 'security.api_key.created'), 'creation audited as security.api_key.created');
  assert.ok(events.json.items.some((e: any) => e.action === 'CREATE' && e.after && !JSON.stringify(e.after).includes('keyHash')), 'creation audited without the hash');
});

t('users: 400 with field details on bad input, 409 on a duplicate username, 404 on unknown ids, and the last ADMIN stays', async () => {
  const h = adminAuth();
  const bad = await call(server.api, 'POST', '/users', { headers: h, body: { username: 'x y', password: 'short', role: 'KING' } });
  assert.is(bad.status, 400);
  assert.ok(bad.json.details.some((d: any) => d.field === 'role'));
  const weak = await call(server.api, 'POST', '/users', { headers: h, body: { username: 'new-one', password: 'short' } });
  assert.is(weak.status, 400);
  assert.is(weak.json.details[0].field, 'password');
  const dup = await call(server.api, 'POST', '/users', { headers: h, body: { username: viewer.username.toUpperCase(), password: PW } });
  assert.is(dup.status, 409);
  assert.is(dup.json.code, 'DUPLICATE_USERNAME');
  for (const [m, p, body] of [['GET', '/users/99999', undefined], ['PUT', '/users/99999', { email: 'a@b.co' }], ['DELETE', '/users/99999', undefined], ['PUT', '/users/99999/role', { role: 'VIEWER' }], ['PUT', '/users/99999/password', { password: PW }], ['GET', '/audit-logs/99999999', undefined]] as const) {
    const r = await call(server.api, m, p, { headers: h, body });
    assert.is(r.status, 404, `${m} ${p}`);
  }
  const me = (await call(server.api, 'GET', '/auth/me', { headers: h })).json;
  const demote = await call(server.api, 'PUT', `/users/${me.id}/role`, { headers: h, body: { role: 'VIEWER' } });
  assert.is(demote.status, 409);
  assert.is(demote.json.code, 'LAST_ADMIN');
  assert.is((await call(server.api, 'DELETE', `/users/${me.id}`, { headers: h })).status, 409);
  const role = await call(server.api, 'PUT', `/users/${(await call(server.api, 'GET', '/users?role=OPERATOR', { headers: h })).json.items[0].id}/role`, { headers: h, body: { role: 'OPERATOR' } });
  assert.is(role.status, 200);
});

t('a role change is audited as permission_changed with before and after', async () => {
  const h = adminAuth();
  const u = await call(server.api, 'POST', '/users', { headers: h, body: { username: 'rita-role', password: PW, role: 'VIEWER' } });
  await call(server.api, 'PUT', `/users/${u.json.id}/role`, { headers: h, body: { role: 'OPERATOR' } });
  const log = await call(server.api, 'GET', '/audit-logs?action=permission_changed', { headers: h });
  const e = log.json.items.find((x: any) => x.resource_id === String(u.json.id));
  assert.ok(e);
  assert.equal(e.before, { role: 'VIEWER' });
  assert.equal(e.after, { role: 'OPERATOR' });
  assert.is(e.username, ADMIN.username);
  assert.is(e.method, 'PUT');
  assert.is(e.endpoint, `/api/v1/users/${u.json.id}/role`);
});

t('repeated failed logins are slowed then locked out (429), raise the unauthorized-access event, and never tell whether a user exists', async () => {
  const unknown = await call(server.api, 'POST', '/auth/login', { body: { username: 'nobody-here', password: 'whatever-it-is' } });
  const wrongPw = await call(server.api, 'POST', '/auth/login', { body: { username: operator.username, password: 'whatever-it-is' } });
  assert.is(unknown.status, 401);
  assert.is(wrongPw.status, 401);
  assert.is(unknown.json.message, wrongPw.json.message);
  const target = { username: 'brute-target', password: PW };
  await call(server.api, 'POST', '/users', { headers: adminAuth(), body: target });
  const statuses: number[] = [];
  for (let i = 0; i < 14; i++) statuses.push((await call(server.api, 'POST', '/auth/login', { body: { username: target.username, password: `guess-${i}-xxxxxxxx` } })).status);
  assert.ok(statuses.includes(429), `statuses ${statuses}`);
  const locked = await call(server.api, 'POST', '/auth/login', { body: target });
  assert.is(locked.status, 429, 'even the right password waits out the lockout');
  assert.ok(Number(locked.headers.get('retry-after')) > 0);
  const log = await call(server.api, 'GET', '/audit-logs?status=denied&action=LOGIN', { headers: adminAuth() });
  assert.ok(log.json.items.some((e: any) => e.event === 'security.unauthorized_access' && e.resource_name === target.username));
});

t('settings: GET, partial POST, replacing PUT, validation, and history from the event store', async () => {
  const h = adminAuth();
  const before = await call(server.api, 'GET', '/settings', { headers: h });
  assert.is(before.json.general.sessionIdleTimeoutMinutes, 30);
  const post = await call(server.api, 'POST', '/settings', { headers: h, body: { sessionIdleTimeoutMinutes: 45 } });
  assert.is(post.json.general.sessionIdleTimeoutMinutes, 45);
  assert.is(post.json.general.loginHardLimit, 10);
  const bad = await call(server.api, 'POST', '/settings', { headers: h, body: { sessionIdleTimeoutMinutes: 0, unknown: 1 } });
  assert.is(bad.status, 400);
  assert.equal(bad.json.details.map((d: any) => d.field).sort(), ['sessionIdleTimeoutMinutes', 'unknown']);
  const cross = await call(server.api, 'POST', '/settings', { headers: h, body: { loginSoftLimit: 20 } });
  assert.is(cross.status, 400);
  const put = await call(server.api, 'PUT', '/settings', { headers: h, body: { nodeHealthCheckIntervalSeconds: 5 } });
  assert.is(put.json.general.sessionIdleTimeoutMinutes, 30, 'PUT resets what it leaves out');
  const audit = await call(server.api, 'POST', '/settings/audit', { headers: h, body: { retention_days: 2555, archive_after_days: 90, include_in_backups: true } });
  assert.equal(audit.json, { retention_days: 2555, archive_after_days: 90, include_in_backups: true });
  const tooLong = await call(server.api, 'POST', '/settings/audit', { headers: h, body: { retention_days: 4000 } });
  assert.is(tooLong.status, 400);
  const hist = await call(server.api, 'GET', '/settings/history', { headers: h });
  assert.ok(hist.json.total >= 3);
  assert.is(hist.json.items[0].type, 'AuditSettingsUpdated');
  assert.is(hist.json.items[1].after.nodeHealthCheckIntervalSeconds, 5);
});

t('audit listing filters by user, action, status and dates; both path spellings answer', async () => {
  const h = adminAuth();
  const me = (await call(server.api, 'GET', '/auth/me', { headers: h })).json;
  const a = await call(server.api, 'GET', `/audit-logs?user_id=${me.id}&action=CREATE&status=success&days=1`, { headers: h });
  const b = await call(server.api, 'GET', `/audit/logs?user_id=${me.id}&action=CREATE&status=success&days=1`, { headers: h });
  assert.is(a.status, 200);
  assert.equal(a.json, b.json);
  assert.ok(a.json.items.length > 0);
  for (const e of a.json.items) {
    assert.is(e.user_id, me.id);
    assert.is(e.action, 'CREATE');
    assert.is(e.status, 'success');
  }
  const one = await call(server.api, 'GET', `/audit/logs/${a.json.items[0].id}`, { headers: h });
  assert.equal(one.json, (await call(server.api, 'GET', `/audit-logs/${a.json.items[0].id}`, { headers: h })).json);
  const future = await call(server.api, 'GET', '/audit-logs?start_date=2099-01-01', { headers: h });
  assert.is(future.json.total, 0);
  const badDate = await call(server.api, 'GET', '/audit-logs?start_date=yesterday', { headers: h });
  assert.is(badDate.status, 400);
});

t('audit verify: an untouched range verifies; an event row changed in the database fails at that entry', async () => {
  const h = adminAuth();
  const head = (await call(server.api, 'GET', '/health')).json.eventStore.headPosition;
  const ok = await call(server.api, 'POST', '/audit-logs/verify', { headers: h, body: { start_id: 1, end_id: head } });
  assert.is(ok.json.valid, true);
  const db = new pg.Client({ connectionString: server.databaseUrl! });
  await db.connect();
  const victim = Math.max(2, Math.floor(head / 2));
  await db.query('ALTER TABLE events DISABLE TRIGGER events_append_only');
  // The body constraint (migration 1140) refuses a metadata column that disagrees with the row's
  // body; the table's owner can drop it, and verify then compares each row itself.
  await db.query('ALTER TABLE events DROP CONSTRAINT events_body_matches_columns');
  await db.query(`UPDATE events SET metadata = jsonb_set(metadata, '{ip}', '"10.9.9.9"') WHERE position = $1`, [victim]);
  await db.query('ALTER TABLE events ENABLE TRIGGER events_append_only');
  await db.end();
  const bad = await call(server.api, 'POST', '/audit-logs/verify', { headers: h, body: { start_id: 1, end_id: head } });
  assert.is(bad.json.valid, false);
  assert.is(bad.json.first_invalid_id, victim);
  const before = await call(server.api, 'POST', '/audit-logs/verify', { headers: h, body: { start_id: 1, end_id: victim - 1 } });
  assert.is(before.json.valid, true, 'the range before the tampered entry still verifies');
  const reversed = await call(server.api, 'POST', '/audit-logs/verify', { headers: h, body: { start_id: 5, end_id: 2 } });
  assert.is(reversed.status, 400);
});

t('reports: the activity CSV reads back row for row, the user-access PDF is a real document', async () => {
  const h = adminAuth();
  const today = new Date().toISOString().slice(0, 10);
  const csv = await fetch(server.api + '/reports/activity', { method: 'POST', headers: { ...h, 'content-type': 'application/json' }, body: JSON.stringify({ start_date: today, end_date: today, format: 'csv' }) });
  assert.is(csv.status, 200);
  assert.match(csv.headers.get('content-type')!, /text\/csv/);
  assert.match(csv.headers.get('content-disposition')!, /attachment; filename="activity-.*\.csv"/);
  const rows = parseCsv((await csv.text()).replace(/^\uFEFF/, ''));
  assert.equal(rows[0].slice(0, 3), ['id', 'timestamp', 'username']);
  const listed = await call(server.api, 'GET', `/audit-logs?start_date=${today}&end_date=${today}&limit=1`, { headers: h });
  assert.ok(rows.length - 1 >= listed.json.total - 5, `csv rows ${rows.length - 1} vs entries ${listed.json.total}`);
  const me = (await call(server.api, 'GET', '/auth/me', { headers: h })).json;
  const pdf = await fetch(server.api + '/reports/user-access', { method: 'POST', headers: { ...h, 'content-type': 'application/json' }, body: JSON.stringify({ user_id: me.id, start_date: today, end_date: today, format: 'pdf' }) });
  assert.is(pdf.status, 200);
  assert.is(pdf.headers.get('content-type'), 'application/pdf');
  const buf = Buffer.from(await pdf.arrayBuffer());
  assert.is(buf.subarray(0, 5).toString(), '%PDF-');
  const doc = await readPdf(buf);
  assert.match(doc.pages[0], /User access report/);
  assert.match(doc.pages[0], ADMIN.username);
  assert.match(doc.pages.join('\n'), /CREATE/);
  const missing = await call(server.api, 'POST', '/reports/user-access', { headers: h, body: { user_id: 99999, start_date: today, end_date: today, format: 'pdf' } });
  assert.is(missing.status, 404);
  const wrongFormat = await call(server.api, 'POST', '/reports/activity', { headers: h, body: { start_date: today, end_date: today, format: 'xlsx' } });
  assert.is(wrongFormat.status, 400);
});

t('no secret appears in any response or log line', async () => {
  assert.not.match(server.output(), ADMIN.password);
  assert.not.match(server.output(), PW);
  assert.not.match(server.output(), /scrypt\$/);
  const users = await call(server.api, 'GET', '/users?limit=500', { headers: adminAuth() });
  assert.not.match(users.text, /scrypt|password/i);
  const log = await call(server.api, 'GET', '/audit-logs?limit=500', { headers: adminAuth() });
  assert.not.match(log.text, /scrypt\$|passwordHash|keyHash/);
});

t.after(async () => {
  await server.stop();
});

t.run();

const c = suite('editions end to end');
c('the community edition answers API-key features with an error naming the pro edition, and says which edition runs', async () => {
  const community = await startServer({ env: { EDITION: 'community' } });
  const r = await call(community.api, 'POST', '/api-keys', { headers: adminAuth(), body: { name: 'x' } });
  assert.is(r.status, 403);
  assert.is(r.json.code, 'EDITION_REQUIRED');
  assert.match(r.json.message, /pro edition/);
  const bearer = await call(community.api, 'GET', '/users', { headers: { authorization: 'Bearer lnm_whatever' } });
  assert.is(bearer.status, 403);
  assert.is(bearer.json.code, 'EDITION_REQUIRED');
  assert.is((await call(community.api, 'GET', '/health')).json.edition, 'community');
  assert.is((await call(community.api, 'GET', '/auth/me', { headers: adminAuth() })).json.edition, 'community');
  await community.stop();
});
c.run();
