// Issue 35 item 3: what an auditor reads as tampering. Every id verify counts is in the listing
// (bookkeeping events and withheld stubs say what they are), the listing's total and verify's
// count agree, a refused sign-in names the user that was tried, and verify's end_id may be left
// out (the head).
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

/** The entry of a request, once projected (waited for, up to 10 s). */
async function entryOf(requestId: string): Promise<Record<string, any> | undefined> {
  for (const deadline = Date.now() + 10_000; ; await new Promise((r) => setTimeout(r, 100))) {
    const found = ((await call(s.api, 'GET', '/audit-logs?limit=100', { headers: auth })).json.items as Array<Record<string, any>>).find((e) => e.request_id === requestId);
    if (found || Date.now() > deadline) return found;
  }
}

test('a refused sign-in is listed with the name that was tried, not "system"', async () => {
  const r = await call(s.api, 'POST', '/auth/login', { body: { username: 'mallory-tried', password: 'not-the-password' }, headers: { 'x-request-id': 'tried-name' } });
  assert.is(r.status, 401, r.text);
  const e = await entryOf('tried-name');
  assert.ok(e, 'the refused sign-in is audited');
  assert.equal([e!.status, e!.user, e!.username, e!.user_id], ['failed', 'mallory-tried', 'mallory-tried', null]);
});

test('verify without end_id checks up to the newest entry', async () => {
  const r = await call(s.api, 'POST', '/audit-logs/verify', { headers: auth, body: { start_id: 1 } });
  assert.is(r.status, 200, r.text);
  assert.ok(r.json.valid, r.text);
  assert.ok(r.json.end_id >= 1 && r.json.checked === r.json.end_id, r.text);
  // The document says so too.
  const doc = (await call(s.url, 'GET', '/api/swagger/doc.json')).json;
  assert.equal(doc.paths['/api/v1/audit-logs/verify'].post.requestBody.content['application/json'].schema.required, ['start_id']);
});

test('every id verify counts is listed; bookkeeping says what it is; the listing total and verify agree', async () => {
  // An organization claims its MSP id: a bookkeeping event (NameClaimed) beside OrganizationCreated.
  const org = await call(s.api, 'POST', '/organizations', { headers: { ...auth, 'x-request-id': 'org-made' }, body: { name: 'Listing Org', mspId: 'ListingMSP' } });
  assert.is(org.status, 201, org.text);
  const list = await call(s.api, 'GET', '/audit-logs?include_archived=true&limit=1', { headers: auth });
  assert.is(list.status, 200, list.text);
  const newest = list.json.items[0].id as number;
  const v = await call(s.api, 'POST', '/audit-logs/verify', { headers: auth, body: { start_id: 1, end_id: newest } });
  assert.ok(v.json.valid, v.text);
  assert.is(list.json.total, v.json.checked, `the listing's total (${list.json.total}) is verify's count (${v.json.checked})`);
  const kinds = new Set<string>();
  for (let id = 1; id <= newest; id++) {
    const e = await call(s.api, 'GET', `/audit-logs/${id}`, { headers: auth });
    assert.is(e.status, 200, `entry ${id}: ${e.text}`);
    kinds.add(e.json.action);
    if (e.json.action === 'BOOKKEEPING') assert.match(e.json.reason, new RegExp(`^bookkeeping \\(${e.json.event_type}\\)`));
  }
  assert.ok(kinds.has('BOOKKEEPING'), 'the MSP id claim is listed as bookkeeping');
});

test.run();
