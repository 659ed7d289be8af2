// Issue 36 item 8: the audit trail's anchor. Each class of tampering is done the way a database
// user with write access would (the test PostgreSQL lets the test be superuser), and verify must
// name it:
//   1. a row of the listing (audit_log) edited: the listing no longer shows what the chain holds;
//   2. the newest events deleted (and their listed rows): the chain is shorter than a checkpoint;
//   3. the newest events changed and the chain's hashes recomputed: another head at a checkpoint's height;
//   4. a checkpoint line forged in the data directory: not this service's signature.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { adminAuth, call, startServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
let db: pg.Client;
const auth = adminAuth();

test.before.each(async () => {
  s = await startServer({ env: { LNM_AUDIT_CHECKPOINT_SECONDS: '0' } });
  db = new pg.Client({ connectionString: s.databaseUrl! });
  await db.connect();
  // Some history: an organization and a user.
  assert.is((await call(s.api, 'POST', '/organizations', { headers: auth, body: { name: 'Anchor Org', mspId: 'AnchorMSP' } })).status, 201);
  assert.is((await call(s.api, 'POST', '/users', { headers: auth, body: { username: 'anchor-viewer', password: 'anchor-viewer-password', role: 'VIEWER' } })).status, 201);
});
test.after.each(async () => {
  await db?.end();
  await s?.stop();
});

const verify = async () => {
  const r = await call(s.api, 'POST', '/audit-logs/verify', { headers: auth, body: { start_id: 1, end_id: 2_000_000_000 } });
  assert.is(r.status, 200, r.text);
  return r.json;
};

async function checkpoint(): Promise<{ height: number; head_hash: string }> {
  const r = await call(s.api, 'POST', '/audit-logs/checkpoints', { headers: auth });
  assert.is(r.status, 201, r.text);
  return r.json;
}

const head = async () => Number((await db.query('SELECT max(position) AS p FROM events')).rows[0].p);

/** As a database user would: with the append-only trigger off. */
async function tamper(sql: string, values: unknown[] = []): Promise<void> {
  await db.query('ALTER TABLE events DISABLE TRIGGER events_append_only');
  try {
    await db.query(sql, values);
  } finally {
    await db.query('ALTER TABLE events ENABLE TRIGGER events_append_only');
  }
}

test('class 1: a listed entry edited in the table is named, though the hash chain is intact', async () => {
  const before = await verify();
  assert.ok(before.valid, JSON.stringify(before));
  const victim = Number((await db.query(`SELECT id FROM audit_log WHERE event_type = 'UserCreated' ORDER BY id DESC LIMIT 1`)).rows[0].id);
  await db.query(`UPDATE audit_log SET username = 'someone-else', resource_name = 'harmless' WHERE id = $1`, [victim]);
  // The listing shows the edit...
  assert.is((await call(s.api, 'GET', `/audit-logs/${victim}`, { headers: auth })).json.resource_name, 'harmless');
  // ...and verify says the listing is not the chain.
  const v = await verify();
  assert.equal([v.valid, v.first_invalid_id, v.reason], [false, victim, 'listing_mismatch'], JSON.stringify(v));
  assert.match(v.message, /field (username|resource_name)/);
  // A listed row removed is named too.
  await db.query('UPDATE audit_log SET username = NULL, resource_name = $2 WHERE id = $1', [victim, 'anchor-viewer']);
  const restored = Number((await db.query('SELECT count(*) AS n FROM audit_log WHERE id = $1 AND username IS NULL', [victim])).rows[0].n);
  assert.is(restored, 1);
  await db.query('DELETE FROM audit_log WHERE id = $1', [victim - 1]);
  const gone = await verify();
  assert.equal([gone.valid, gone.reason], [false, 'listing_missing'], JSON.stringify(gone));
});

test('class 2: the newest events deleted, with their listed rows: verify names the truncated tail against the checkpoint', async () => {
  const c = await checkpoint();
  const cut = c.height - 2;
  await tamper('DELETE FROM events WHERE position > $1', [cut]);
  await db.query('DELETE FROM audit_log WHERE id > $1', [cut]);
  assert.is(await head(), cut);
  const v = await verify();
  assert.equal([v.valid, v.reason], [false, 'truncated'], JSON.stringify(v));
  assert.ok(v.message.includes(`The chain's head at checkpoint ${c.height} (`) && v.message.includes(c.head_hash) && v.message.includes(`now the chain ends at entry ${cut}`), v.message);
});

test('class 3: the newest events changed and every hash after them recomputed: verify names the rewritten head', async () => {
  const c = await checkpoint();
  const from = c.height - 1;
  const last = await head();
  // Change what the event at `from` says (a metadata field the listing does not show), then
  // recompute its body and hash and every later link and hash, as the service would have.
  await db.query('ALTER TABLE events DISABLE TRIGGER events_append_only');
  try {
    await db.query(
      `UPDATE events SET metadata = jsonb_set(metadata, '{correlationId}', '"rewritten"'),
         body = jsonb_build_object('data', data, 'id', id::text, 'metadata', jsonb_set(metadata, '{correlationId}', '"rewritten"'), 'type', type)::text WHERE position = $1`,
      [from],
    );
    for (let p = from; p <= last; p++) {
      await db.query(
        `UPDATE events e SET body = jsonb_build_object('data', e.data, 'id', e.id::text, 'metadata', e.metadata, 'type', e.type)::text,
           prev_hash = (SELECT hash FROM events WHERE position = $1 - 1)
         WHERE position = $1`,
        [p],
      );
      await db.query(`UPDATE events SET hash = encode(sha256(convert_to(prev_hash || '|' || position || '|' || stream_id || '|' || version || '|' || body, 'UTF8')), 'hex') WHERE position = $1`, [p]);
    }
  } finally {
    await db.query('ALTER TABLE events ENABLE TRIGGER events_append_only');
  }
  const v = await verify();
  assert.equal([v.valid, v.reason, v.first_invalid_id], [false, 'head_rewritten', c.height], JSON.stringify(v));
  assert.ok(v.message.includes(`The chain's head at checkpoint ${c.height} (`) && v.message.includes(c.head_hash) && v.message.includes(`now entry ${c.height} hashes to`), v.message);
});

test('class 4: a checkpoint added to the file without the service\'s key is refused as forged; the signed ones are listed and audited', async () => {
  const c = await checkpoint();
  const listed = await call(s.api, 'GET', '/audit-logs/checkpoints', { headers: auth });
  assert.equal(listed.json.items.map((x: { height: number; signed: boolean }) => [x.height, x.signed]), [[c.height, true]]);
  // The signature is an audit entry of its own.
  const entry = (await call(s.api, 'GET', `/audit-logs/${c.height + 1}`, { headers: auth })).json;
  assert.equal([entry.action, entry.resource_type, entry.event_type], ['SIGN', 'audit_checkpoint', 'AuditCheckpointSigned']);
  assert.ok((await verify()).valid);
  appendFileSync(path.join(s.dataDir, 'audit-checkpoints.jsonl'), JSON.stringify({ height: c.height, headHash: 'f'.repeat(64), at: new Date().toISOString(), signer: 'me', signature: '0'.repeat(64) }) + '\n');
  const v = await verify();
  assert.equal([v.valid, v.reason], [false, 'checkpoint_forged'], JSON.stringify(v));
});

test.run();
