import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createDecipheriv, pbkdf2Sync, randomBytes } from 'node:crypto';
import { rejects } from '../../helpers/rejects.ts';
import {
  createKeyEncryption,
  DEFAULT_KDF_ITERATIONS,
  KeyDecryptionError,
  KeyEncryptionKeyError,
  type EncryptedKeyMaterial,
} from '../../../adapters/keyProviders/keyEncryption.ts';

const kek = randomBytes(32).toString('hex');
const secret = Buffer.from('-----pretend this is a PKCS#8 private key-----');

test('the default is AES-256-GCM under PBKDF2-HMAC-SHA256 with 600,000 iterations, decryptable by hand', async () => {
  const sealed = await createKeyEncryption(kek).encrypt(secret, 'key_material:abc');
  assert.is(sealed.iterations, DEFAULT_KDF_ITERATIONS);
  assert.is(DEFAULT_KDF_ITERATIONS, 600_000);
  assert.is(sealed.salt.length, 16);
  assert.is(sealed.iv.length, 12);
  assert.is(sealed.authTag.length, 16);
  assert.not.ok(sealed.ciphertext.includes(secret.subarray(0, 8)), 'ciphertext does not contain the plaintext');

  const key = pbkdf2Sync(Buffer.from(kek), sealed.salt, 600_000, 32, 'sha256');
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.iv);
  decipher.setAAD(Buffer.from('key_material:abc'));
  decipher.setAuthTag(sealed.authTag);
  assert.equal(Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]), secret);
});

test('the same plaintext encrypted twice gets a different salt, IV and ciphertext', async () => {
  const enc = createKeyEncryption(kek, { iterations: 1000 });
  const a = await enc.encrypt(secret, 'ctx');
  const b = await enc.encrypt(secret, 'ctx');
  assert.not.equal(a.salt, b.salt);
  assert.not.equal(a.iv, b.iv);
  assert.not.equal(a.ciphertext, b.ciphertext);
  assert.equal(await enc.decrypt(a, 'ctx'), secret);
  assert.equal(await enc.decrypt(b, 'ctx'), secret);
});

test('rows keep their own iteration count: a provider with a new default still decrypts old rows', async () => {
  const old = await createKeyEncryption(kek, { iterations: 1000 }).encrypt(secret, 'ctx');
  assert.equal(await createKeyEncryption(kek, { iterations: 5000 }).decrypt(old, 'ctx'), secret);
});

test('altered ciphertext, tag, IV or salt gives a clear KeyDecryptionError, not a crash or garbage', async () => {
  const enc = createKeyEncryption(kek, { iterations: 1000 });
  const sealed = await enc.encrypt(secret, 'key_material:row-1');
  const flip = (b: Buffer, i = 0) => {
    const c = Buffer.from(b);
    c[i] ^= 0x01;
    return c;
  };
  const variants: Array<[string, EncryptedKeyMaterial]> = [
    ['ciphertext', { ...sealed, ciphertext: flip(sealed.ciphertext, 5) }],
    ['authTag', { ...sealed, authTag: flip(sealed.authTag) }],
    ['iv', { ...sealed, iv: flip(sealed.iv) }],
    ['salt', { ...sealed, salt: flip(sealed.salt) }],
    ['truncated tag', { ...sealed, authTag: sealed.authTag.subarray(0, 8) }],
    ['truncated ciphertext', { ...sealed, ciphertext: sealed.ciphertext.subarray(0, 10) }],
  ];
  for (const [what, material] of variants) {
    const err = await rejects(enc.decrypt(material, 'key_material:row-1'), KeyDecryptionError, 'could not be decrypted');
    assert.match(err.message, 'key_material:row-1', what);
    assert.not.match(err.message, secret.toString());
    assert.is((err as KeyDecryptionError).code, 'KEY_DECRYPTION_FAILED');
  }
});

test('a different KEY_ENCRYPTION_KEY cannot decrypt, and says so', async () => {
  const sealed = await createKeyEncryption(kek, { iterations: 1000 }).encrypt(secret, 'ctx');
  const err = await rejects(createKeyEncryption(randomBytes(32).toString('hex')).decrypt(sealed, 'ctx'), KeyDecryptionError);
  assert.match(err.message, 'KEY_ENCRYPTION_KEY is not the key it was encrypted with');
  assert.not.match(err.message, kek);
});

test('a ciphertext moved to another row (other context) does not decrypt', async () => {
  const enc = createKeyEncryption(kek, { iterations: 1000 });
  const sealed = await enc.encrypt(secret, 'key_material:row-1');
  await rejects(enc.decrypt(sealed, 'key_material:row-2'), KeyDecryptionError);
});

test('a KEY_ENCRYPTION_KEY shorter than 16 characters is refused up front', () => {
  for (const bad of ['', 'short', '123456789012345']) {
    assert.throws(() => createKeyEncryption(bad), (err: unknown) => err instanceof KeyEncryptionKeyError && /at least 16 characters/.test((err as Error).message));
  }
  createKeyEncryption('1234567890123456');
});

test.run();
