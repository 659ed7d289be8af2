// Issue 36 item 8: each audit checkpoint is also sent to an external witness (LNM_AUDIT_WITNESS_URL),
// which then holds the chain's height and head hash, signed, where no database user can reach them.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { adminAuth, call, startServer, type TestServer } from '../helpers/server.ts';
import { startReceiver, type Receiver } from '../helpers/webhookReceiver.ts';

let s: TestServer;
let witness: Receiver;
const auth = adminAuth();

test.before(async () => {
  witness = await startReceiver();
  s = await startServer({ env: { LNM_AUDIT_CHECKPOINT_SECONDS: '0', LNM_AUDIT_WITNESS_URL: `${witness.url}/checkpoints`, LNM_ALLOW_PRIVATE_TARGETS: 'true' } });
});
test.after(async () => {
  await s?.stop();
  await witness?.close();
});

test('a checkpoint signed is POSTed to the witness, and its audit entry says the witness took it', async () => {
  const r = await call(s.api, 'POST', '/audit-logs/checkpoints', { headers: auth });
  assert.is(r.status, 201, r.text);
  assert.is(witness.received.length, 1);
  const got = witness.received[0];
  assert.is(got.path, '/checkpoints');
  assert.equal([got.json.height, got.json.head_hash, got.json.at], [r.json.height, r.json.head_hash, r.json.at]);
  assert.match(got.json.signature, /^[0-9a-f]{64}$/);
  const entry = (await call(s.api, 'GET', `/audit-logs/${r.json.height + 1}`, { headers: auth })).json;
  assert.is(entry.event_type, 'AuditCheckpointSigned');
  assert.equal(entry.details.witness, { ok: true, statusCode: 200, error: null });
});

test.run();
