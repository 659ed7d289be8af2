// The node runtime's read of a database-provider secp256k1 key (besu's node key file): the
// scalar matches the key's public key, and nothing else can be read this way.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { SigningKey, computeAddress } from 'ethers';
import { createDatabaseKeyProvider, databaseSecp256k1PrivateKey } from '../../../adapters/keyProviders/databaseKeyProvider.ts';
import { ethereumAddressOf } from '../../../adapters/keyProviders/signingEthereum.ts';
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

test('a secp256k1 key reads back as the 32-byte scalar of its public key', async () => {
  const provider = createDatabaseKeyProvider({ pool: db.pool, keyEncryptionKey: kek, kdfIterations: 1000 });
  const key = await provider.generateKey('validator-1', { algorithm: 'EC', curve: 'secp256k1' });
  const scalar = await databaseSecp256k1PrivateKey({ pool: db.pool, keyEncryptionKey: kek }, key.handle.toUpperCase());
  assert.is(scalar.length, 32);
  assert.is(computeAddress(SigningKey.computePublicKey(scalar, false)), ethereumAddressOf(key.publicKeyPem));
});

test('other curves, unknown handles and a wrong KEY_ENCRYPTION_KEY are refused', async () => {
  const provider = createDatabaseKeyProvider({ pool: db.pool, keyEncryptionKey: kek, kdfIterations: 1000 });
  const p256 = await provider.generateKey('tls', { algorithm: 'EC', curve: 'P-256' });
  const k1 = await provider.generateKey('validator-2', { algorithm: 'EC', curve: 'secp256k1' });
  const opts = { pool: db.pool, keyEncryptionKey: kek };
  const err = await databaseSecp256k1PrivateKey(opts, p256.handle).catch((e) => e);
  assert.instance(err, ValidationError);
  assert.instance(await databaseSecp256k1PrivateKey(opts, '00000000-0000-0000-0000-000000000000').catch((e) => e), NotFoundError);
  assert.instance(await databaseSecp256k1PrivateKey(opts, 'not-a-uuid').catch((e) => e), NotFoundError);
  assert.instance(await databaseSecp256k1PrivateKey({ ...opts, keyEncryptionKey: randomBytes(32).toString('hex') }, k1.handle).catch((e) => e), KeyDecryptionError);
});

test.run();
