// The consortium runtime's read of a database-provider key as PKCS#8 PEM (a Fabric node's key
// files): it is the key of the stored public key, and only P-256 / P-384 keys can be read; a key
// the provider holds decrypted is read from that copy rather than through PBKDF2 again.
import { test } from 'uvu';
import pg from 'pg';
import * as assert from 'uvu/assert';
import { createPrivateKey, createPublicKey, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createDatabaseKeyProvider, databasePrivateKeyPem, databaseSecp256k1PrivateKey } from '../../../adapters/keyProviders/databaseKeyProvider.ts';
import { KeyDecryptionError } from '../../../adapters/keyProviders/keyEncryption.ts';
import { NotFoundError, ValidationError } from '../../../domain/shared/errors.ts';
import { freshDatabase, type FreshDatabase } from '../../helpers/postgres.ts';

const migration = readFileSync(new URL('../../../migrations/0100_key_material.sql', import.meta.url), 'utf8');
const kek = randomBytes(32).toString('hex');
let db: FreshDatabase;

test.before(async () => {
  db = await freshDatabase();
  await db.pool.query(migration);
});

test.after(async () => {
  await db?.close();
});

test('P-256 and P-384 keys read back as PKCS#8 PEM of their public key', async () => {
  const provider = createDatabaseKeyProvider({ pool: db.pool, keyEncryptionKey: kek, kdfIterations: 1000 });
  for (const curve of ['P-256', 'P-384'] as const) {
    const key = await provider.generateKey(`peer0-${curve}`, { algorithm: 'EC', curve });
    const pem = await databasePrivateKeyPem({ pool: db.pool, keyEncryptionKey: kek }, key.handle.toUpperCase());
    assert.match(pem, /^-----BEGIN PRIVATE KEY-----\n[\s\S]+\n-----END PRIVATE KEY-----\n$/);
    const derived = createPublicKey(createPrivateKey(pem)).export({ type: 'spki', format: 'pem' }).toString();
    assert.is(derived, key.publicKeyPem);
  }
});

test('an imported SEC1 key comes back as PKCS#8', async () => {
  const provider = createDatabaseKeyProvider({ pool: db.pool, keyEncryptionKey: kek, kdfIterations: 1000 });
  const sec1 = createPrivateKey({ key: (await import('node:crypto')).generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ type: 'sec1', format: 'pem' }), format: 'pem' });
  const key = await provider.importKey('imported', sec1.export({ type: 'sec1', format: 'pem' }).toString());
  const pem = await databasePrivateKeyPem({ pool: db.pool, keyEncryptionKey: kek }, key.handle);
  assert.ok(pem.startsWith('-----BEGIN PRIVATE KEY-----'));
  assert.ok(createPrivateKey(pem).equals(sec1));
});

test('other algorithms and curves, unknown handles and a wrong KEY_ENCRYPTION_KEY are refused', async () => {
  const provider = createDatabaseKeyProvider({ pool: db.pool, keyEncryptionKey: kek, kdfIterations: 1000 });
  const opts = { pool: db.pool, keyEncryptionKey: kek };
  const k1 = await provider.generateKey('validator', { algorithm: 'EC', curve: 'secp256k1' });
  const ed = await provider.generateKey('ed', { algorithm: 'ED25519' });
  const p256 = await provider.generateKey('tls', { algorithm: 'EC', curve: 'P-256' });
  for (const handle of [k1.handle, ed.handle]) {
    const err = await databasePrivateKeyPem(opts, handle).catch((e) => e);
    assert.instance(err, ValidationError);
    assert.match(err.message, 'P-256 or P-384');
  }
  assert.instance(await databasePrivateKeyPem(opts, '00000000-0000-0000-0000-000000000000').catch((e) => e), NotFoundError);
  assert.instance(await databasePrivateKeyPem(opts, 'not-a-uuid').catch((e) => e), NotFoundError);
  assert.instance(await databasePrivateKeyPem({ ...opts, keyEncryptionKey: randomBytes(32).toString('hex') }, p256.handle).catch((e) => e), KeyDecryptionError);
});

test('a key the provider holds is read from its decrypted copy; another process (pool) or another KEY_ENCRYPTION_KEY decrypts the row', async () => {
  const provider = createDatabaseKeyProvider({ pool: db.pool, keyEncryptionKey: kek, kdfIterations: 1000 });
  const key = await provider.generateKey('peer0-identity', { algorithm: 'EC', curve: 'P-256' });
  const k1 = await provider.generateKey('validator', { algorithm: 'EC', curve: 'secp256k1' });
  const { rows } = await db.pool.query('SELECT id, ciphertext FROM key_material WHERE id = ANY($1)', [[key.handle, k1.handle]]);
  // The stored ciphertext altered after the keys were made: only a read that decrypts notices.
  for (const row of rows) {
    const bad = Buffer.from(row.ciphertext as Buffer);
    bad[bad.length - 1] ^= 0xff;
    await db.pool.query('UPDATE key_material SET ciphertext = $2 WHERE id = $1', [row.id, bad]);
  }
  const opts = { pool: db.pool, keyEncryptionKey: kek };
  const pem = await databasePrivateKeyPem(opts, key.handle);
  assert.is(createPublicKey(createPrivateKey(pem)).export({ type: 'spki', format: 'pem' }).toString(), key.publicKeyPem, 'the held copy, no PBKDF2');
  assert.is((await databaseSecp256k1PrivateKey(opts, k1.handle)).length, 32);
  const other = new pg.Pool({ connectionString: db.url, max: 1 });
  try {
    assert.instance(await databasePrivateKeyPem({ pool: other, keyEncryptionKey: kek }, key.handle).catch((e) => e), KeyDecryptionError, 'a pool the provider does not use holds nothing');
    assert.instance(await databaseSecp256k1PrivateKey({ pool: other, keyEncryptionKey: kek }, k1.handle).catch((e) => e), KeyDecryptionError);
  } finally {
    await other.end();
  }
  assert.instance(await databasePrivateKeyPem({ ...opts, keyEncryptionKey: randomBytes(32).toString('hex') }, key.handle).catch((e) => e), KeyDecryptionError, 'another KEK holds nothing');
  // Deleted through the provider: no longer held, and no longer there.
  await provider.deleteKey(key.handle);
  assert.instance(await databasePrivateKeyPem(opts, key.handle).catch((e) => e), NotFoundError);
});

test.run();
