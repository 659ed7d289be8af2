import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { constants, createHash, verify } from 'node:crypto';
import { startVaultStandin, type VaultStandin } from './vaultStandin.ts';

// The stand-in must refuse what Vault refuses; these pin the checks the adapter tests do not reach.
const test = suite<{ vault: VaultStandin }>('vault stand-in checks what Vault checks', {} as { vault: VaultStandin });

async function call(vault: VaultStandin, method: string, path: string, body?: unknown, token: string | null = vault.rootToken) {
  const res = await fetch(`${vault.address}/v1/${path}`, {
    method,
    headers: { ...(token ? { 'X-Vault-Token': token } : {}), 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

test.before(async (ctx) => {
  ctx.vault = await startVaultStandin({ initialized: true });
});
test.after(async (ctx) => ctx.vault.close());

test('RSA signing defaults to PSS as in Vault; pkcs1v15 only when asked; verify says valid or not', async ({ vault }) => {
  await call(vault, 'POST', 'transit/keys/rsa', { type: 'rsa-2048' });
  const pem = (await call(vault, 'GET', 'transit/keys/rsa')).body.data.keys['1'].public_key;
  const input = Buffer.from('hello').toString('base64');
  const pss = (await call(vault, 'POST', 'transit/sign/rsa/sha2-256', { input })).body.data.signature as string;
  const sig = Buffer.from(pss.split(':')[2], 'base64');
  assert.ok(verify('sha256', Buffer.from('hello'), { key: pem, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_AUTO }, sig));
  assert.not.ok(verify('sha256', Buffer.from('hello'), pem, sig));
  assert.is((await call(vault, 'POST', 'transit/verify/rsa/sha2-256', { input, signature: pss })).body.data.valid, true);
  const other = Buffer.from('other').toString('base64');
  assert.is((await call(vault, 'POST', 'transit/verify/rsa/sha2-256', { input: other, signature: pss })).body.data.valid, false);
  const none = await call(vault, 'POST', 'transit/sign/rsa', { input, hash_algorithm: 'none' });
  assert.equal(none, { status: 400, body: { errors: ['hash_algorithm=none requires both prehashed=true and signature_algorithm=pkcs1v15'] } });
  const short = await call(vault, 'POST', 'transit/sign/rsa', { input, prehashed: true, signature_algorithm: 'pkcs1v15' });
  assert.is(short.status, 500, 'a "digest" of the wrong length is refused, as by Go crypto/rsa');
});

test('ECDSA with jws marshaling gives r||s in base64url; asn1 by default', async ({ vault }) => {
  await call(vault, 'POST', 'transit/keys/ec', { type: 'ecdsa-p256' });
  const digest = createHash('sha256').update('m').digest().toString('base64');
  const jws = (await call(vault, 'POST', 'transit/sign/ec', { input: digest, prehashed: true, marshaling_algorithm: 'jws' })).body.data.signature as string;
  assert.is(Buffer.from(jws.split(':')[2], 'base64url').length, 64);
  const asn1 = (await call(vault, 'POST', 'transit/sign/ec', { input: Buffer.from('m').toString('base64') })).body.data.signature as string;
  const pem = (await call(vault, 'GET', 'transit/keys/ec')).body.data.keys['1'].public_key;
  assert.ok(verify('sha256', Buffer.from('m'), pem, Buffer.from(asn1.split(':')[2], 'base64')));
});

test('unknown key types, bad names and undeletable keys are refused with Vault\'s texts', async ({ vault }) => {
  assert.equal(await call(vault, 'POST', 'transit/keys/k1', { type: 'secp256k1' }), { status: 400, body: { errors: ['unknown key type secp256k1'] } });
  assert.is((await call(vault, 'POST', 'transit/keys/-bad-', { type: 'ecdsa-p256' })).status, 404);
  await call(vault, 'POST', 'transit/keys/keep', { type: 'ecdsa-p384' });
  assert.equal(await call(vault, 'DELETE', 'transit/keys/keep'), { status: 400, body: { errors: ['error deleting policy keep: deletion is not allowed for this key'] } });
  await call(vault, 'POST', 'transit/keys/keep/config', { deletion_allowed: true });
  assert.is((await call(vault, 'DELETE', 'transit/keys/keep')).status, 204);
  assert.equal(await call(vault, 'GET', 'transit/keys/keep'), { status: 404, body: { errors: [] } });
  assert.is((await call(vault, 'POST', 'sys/mounts/transit', { type: 'transit' })).body.errors[0], 'path is already in use at transit/');
});

test('ACL: a read-only policy reads keys but cannot sign; no token at all is permission denied', async ({ vault }) => {
  await call(vault, 'POST', 'transit/keys/acl', { type: 'ecdsa-p256' });
  await call(vault, 'PUT', 'sys/policies/acl/reader', { policy: 'path "transit/keys/*" {\n  capabilities = ["read"]\n}' });
  const token = (await call(vault, 'POST', 'auth/token/create', { policies: ['reader'] })).body.auth.client_token as string;
  assert.is((await call(vault, 'GET', 'transit/keys/acl', undefined, token)).status, 200);
  assert.equal(await call(vault, 'POST', 'transit/sign/acl', { input: 'aGk=' }, token), { status: 403, body: { errors: ['permission denied'] } });
  assert.equal(await call(vault, 'GET', 'transit/keys/acl', undefined, null), { status: 403, body: { errors: ['permission denied'] } });
});

test('ACL: signing is an update operation, as in Vault (no existence check on transit/sign): "create" alone is denied', async ({ vault }) => {
  await call(vault, 'POST', 'transit/keys/ops', { type: 'ecdsa-p256' });
  await call(vault, 'PUT', 'sys/policies/acl/create-only', { policy: 'path "transit/sign/*" {\n  capabilities = ["create"]\n}' });
  await call(vault, 'PUT', 'sys/policies/acl/update-only', { policy: 'path "transit/sign/*" {\n  capabilities = ["update"]\n}' });
  const createOnly = (await call(vault, 'POST', 'auth/token/create', { policies: ['create-only'] })).body.auth.client_token as string;
  const updateOnly = (await call(vault, 'POST', 'auth/token/create', { policies: ['update-only'] })).body.auth.client_token as string;
  assert.is((await call(vault, 'POST', 'transit/sign/ops', { input: 'aGk=' }, createOnly)).status, 403);
  assert.is((await call(vault, 'POST', 'transit/sign/ops', { input: 'aGk=' }, updateOnly)).status, 200);
});

test('BYOK import: a wrapping key to fetch; an existing name, a short or undecryptable ciphertext are refused', async ({ vault }) => {
  const wrapping = await call(vault, 'GET', 'transit/wrapping_key');
  assert.match(wrapping.body.data.public_key, /BEGIN PUBLIC KEY/);
  await call(vault, 'POST', 'transit/keys/taken', { type: 'ecdsa-p256' });
  const long = Buffer.alloc(600, 1).toString('base64');
  assert.match((await call(vault, 'POST', 'transit/keys/taken/import', { type: 'ecdsa-p256', ciphertext: long })).body.errors[0], /cannot be used with an existing key/);
  assert.match((await call(vault, 'POST', 'transit/keys/fresh/import', { type: 'ecdsa-p256', ciphertext: 'AAAA' })).body.errors[0], /ciphertext is too short/);
  const bad = await call(vault, 'POST', 'transit/keys/fresh/import', { type: 'ecdsa-p256', ciphertext: long });
  assert.equal([bad.status, /decryption error/.test(bad.body.errors[0])], [500, true]);
  assert.equal(await call(vault, 'POST', 'transit/keys/fresh/import', { type: 'secp256k1', ciphertext: long }), { status: 400, body: { errors: ['unknown key type: secp256k1'] } });
});

test('Shamir unseal: distinct shares up to the threshold, a repeated share is refused', async () => {
  const vault = await startVaultStandin();
  try {
    const init = (await call(vault, 'PUT', 'sys/init', { secret_shares: 3, secret_threshold: 2 }, null)).body;
    assert.is(init.keys.length, 3);
    assert.equal((await call(vault, 'GET', 'sys/health', undefined, null)).status, 503);
    assert.equal((await call(vault, 'GET', 'transit/keys/x', undefined, init.root_token)).body, { errors: ['Vault is sealed'] });
    assert.is((await call(vault, 'PUT', 'sys/unseal', { key: init.keys[2] }, null)).body.progress, 1);
    assert.is((await call(vault, 'PUT', 'sys/unseal', { key: init.keys[2] }, null)).status, 400);
    assert.is((await call(vault, 'PUT', 'sys/unseal', { key: init.keys_base64[0] }, null)).body.sealed, false);
    assert.is((await call(vault, 'GET', 'sys/health', undefined, null)).status, 200);
    assert.is((await call(vault, 'PUT', 'sys/init', { secret_shares: 1, secret_threshold: 1 }, null)).body.errors[0], 'Vault is already initialized');
  } finally {
    await vault.close();
  }
});

test.run();
