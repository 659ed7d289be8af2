import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createVerifiedCredentials, isCredentialStream } from '../../../http/auth/verifiedCredentials.ts';
import type { Identity } from '../../../application/identity.ts';

const alice: Identity = { userId: 1, username: 'alice', role: 'VIEWER', method: 'basic' };
const header = 'Basic YWxpY2U6c2VjcmV0LXBhc3N3b3Jk';

test('kept for its lifetime and never past an API key expiry', async () => {
  const v = createVerifiedCredentials({ lifetimeMs: 1000 });
  let calls = 0;
  await v.remember(header, 0, async () => (calls++, { identity: alice }));
  assert.equal(v.get(header, 999), alice);
  assert.is(v.get(header, 1000), undefined);
  assert.is(v.get('Basic other', 1), undefined, 'keyed by the exact header value');
  await v.remember('key k', 0, async () => ({ identity: alice, expiresAt: 300 }));
  assert.ok(v.get('key k', 299));
  assert.is(v.get('key k', 300), undefined);
  assert.is(calls, 1);
});

test('an event of the users stream or an API key stream empties it; other streams do not', async () => {
  const v = createVerifiedCredentials();
  await v.remember(header, 0, async () => ({ identity: alice }));
  v.streamChanged('organization-3');
  assert.ok(v.get(header, 1));
  v.streamChanged('api-key-7');
  assert.is(v.get(header, 1), undefined);
  await v.remember(header, 0, async () => ({ identity: alice }));
  v.streamChanged('users');
  assert.is(v.get(header, 1), undefined);
  assert.ok(isCredentialStream('users') && isCredentialStream('api-key-1') && !isCredentialStream('user-settings'));
});

test('a verification that overlaps an invalidation or a hold is not kept', async () => {
  const v = createVerifiedCredentials();
  let finish!: () => void;
  const pending = v.remember(header, 0, () => new Promise((r) => (finish = () => r({ identity: alice }))));
  v.streamChanged('users');
  finish();
  assert.equal(await pending, alice, 'the caller still gets its answer');
  assert.is(v.get(header, 1), undefined);
  const release = v.hold();
  await v.remember(header, 0, async () => ({ identity: alice }));
  assert.is(v.get(header, 1), undefined, 'nothing kept while held');
  release();
  await v.remember(header, 0, async () => ({ identity: alice }));
  assert.ok(v.get(header, 1));
  const release2 = v.hold();
  assert.is(v.get(header, 1), undefined, 'a hold forgets what was kept');
  release2();
});

test('a caller cannot change what is kept', async () => {
  const v = createVerifiedCredentials();
  await v.remember(header, 0, async () => ({ identity: { ...alice } }));
  const got = v.get(header, 1)!;
  got.role = 'ADMIN';
  assert.is(v.get(header, 1)!.role, 'VIEWER');
});

test.run();
