import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createPublicKey, generateKeyPairSync, randomBytes, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { computeAddress, recoverAddress, SigningKey, verifyMessage } from 'ethers';
import type { KeyProvider, KeySpec } from '../../../domain/keys/keyProvider.ts';
import { NotFoundError, ValidationError } from '../../../domain/shared/errors.ts';
import { createDatabaseKeyProvider } from '../../../adapters/keyProviders/databaseKeyProvider.ts';
import { KeyEncryptionKeyMismatchError, verifyKeyEncryptionKey } from '../../../adapters/keyProviders/databaseKeyEncryptionCheck.ts';
import { KeyDecryptionError } from '../../../adapters/keyProviders/keyEncryption.ts';
import { signData } from '../../../adapters/keyProviders/signingData.ts';
import { defaultHashFor } from '../../../adapters/keyProviders/signingAlgorithms.ts';
import { curveOrder } from '../../../adapters/keyProviders/signingEcdsa.ts';
import { freshDatabase, type FreshDatabase } from '../../helpers/postgres.ts';
import { rejects } from '../../helpers/rejects.ts';

const migration = readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../migrations/0100_key_material.sql'), 'utf8');
const kek = randomBytes(32).toString('hex');

const specs: KeySpec[] = [
  { algorithm: 'EC', curve: 'P-256' },
  { algorithm: 'EC', curve: 'P-384' },
  { algorithm: 'EC', curve: 'P-521' },
  { algorithm: 'EC', curve: 'secp256k1' },
  { algorithm: 'RSA', keySize: 2048 },
  { algorithm: 'RSA', keySize: 4096 },
  { algorithm: 'ED25519' },
];
const label = (s: KeySpec) => (s.algorithm === 'EC' ? `EC ${s.curve}` : s.algorithm === 'RSA' ? `RSA ${s.keySize}` : 'Ed25519');

function verifies(spec: KeySpec, publicKeyPem: string, data: Buffer, signature: Buffer, hash = defaultHashFor(spec)): boolean {
  const pub = createPublicKey(publicKeyPem);
  return verify(hash, data, spec.algorithm === 'EC' ? { key: pub, dsaEncoding: 'der' } : pub, signature);
}

interface Ctx {
  db: FreshDatabase;
  provider: KeyProvider;
}
const keys = suite<Ctx>('database key provider');

keys.before(async (ctx) => {
  ctx.db = await freshDatabase();
  await ctx.db.pool.query(migration);
  // Running the migration twice is harmless (the runner may meet it again after a restore).
  await ctx.db.pool.query(migration);
  assert.equal(await verifyKeyEncryptionKey(ctx.db.pool, kek), { outcome: 'created' });
  ctx.provider = createDatabaseKeyProvider({ pool: ctx.db.pool, keyEncryptionKey: kek });
});

keys.after(async (ctx) => {
  await ctx.db.close();
});

for (const spec of specs) {
  keys(`${label(spec)}: a generated key signs, node:crypto verifies with its public key, and only ciphertext is stored`, async ({ db, provider }) => {
    const key = await provider.generateKey(`test ${label(spec)}`, spec);
    const data = Buffer.from(`payload for ${label(spec)}`);
    const sig = await provider.sign(key.handle, spec, { data, hash: defaultHashFor(spec) ?? 'sha256' });
    assert.ok(verifies(spec, key.publicKeyPem, data, sig));
    assert.not.ok(verifies(spec, key.publicKeyPem, Buffer.from('tampered'), sig));

    const row = (await db.pool.query('SELECT * FROM key_material WHERE id = $1', [key.handle])).rows[0];
    assert.is(row.algorithm, spec.algorithm);
    assert.is(row.public_key_pem, key.publicKeyPem);
    assert.is(row.kdf_iterations, 600_000);
    assert.is(row.salt.length, 16);
    // The ciphertext must not contain the public key bytes that a plaintext PKCS#8 would embed.
    const spki = createPublicKey(key.publicKeyPem).export({ type: 'spki', format: 'der' });
    assert.not.ok(row.ciphertext.includes(spki.subarray(-16)));
  });
}

keys('a second provider instance (a restart) signs with stored keys after decrypting them', async ({ db, provider }) => {
  const made = await Promise.all(specs.filter((s) => s.keySize !== 4096).map(async (spec) => ({ spec, key: await provider.generateKey('restart', spec) })));
  const restarted = createDatabaseKeyProvider({ pool: db.pool, keyEncryptionKey: kek });
  for (const { spec, key } of made) {
    const data = Buffer.from('after restart');
    assert.ok(verifies(spec, key.publicKeyPem, data, await restarted.sign(key.handle, spec, { data, hash: defaultHashFor(spec) ?? 'sha256' })), label(spec));
  }
});

keys('sign-data results verify independently for every algorithm', async ({ provider }) => {
  const data = Buffer.from('sign-data body');
  for (const spec of specs.filter((s) => s.keySize !== 4096)) {
    const key = await provider.generateKey('sign-data', spec);
    const result = await signData(provider, { ...key, spec }, { data: data.toString('base64') });
    const sig = Buffer.from(result.signature, 'base64');
    assert.ok(verifies(spec, key.publicKeyPem, data, sig, result.hash as never), label(spec));
    if (spec.algorithm === 'EC') {
      assert.is(result.signatureFormat, 'DER');
      assert.is(result.hash, defaultHashFor(spec));
      // r and s are the DER's integers, as IEEE P1363 r||s which node can verify too.
      const p1363 = Buffer.from(result.r! + result.s!, 'hex');
      assert.ok(verify(result.hash, data, { key: createPublicKey(key.publicKeyPem), dsaEncoding: 'ieee-p1363' }, p1363));
    }
    if (spec.algorithm === 'RSA') assert.equal([result.signatureFormat, result.hash], ['PKCS1_V1_5', 'sha256']);
    if (spec.algorithm === 'ED25519') assert.equal([result.signatureFormat, result.hash, sig.length], ['ED25519', null, 64]);
  }
  const p256 = await provider.generateKey('sha512 request', { algorithm: 'EC', curve: 'P-256' });
  const r = await signData(provider, { ...p256, spec: { algorithm: 'EC', curve: 'P-256' } }, { data: data.toString('base64'), hash: 'sha512' });
  assert.ok(verify('sha512', data, { key: createPublicKey(p256.publicKeyPem), dsaEncoding: 'der' }, Buffer.from(r.signature, 'base64')));
});

keys('sign-data ECDSA signatures are low-S on every curve (Fabric refuses high-S ones, e.g. a signing proposal\'s upload)', async ({ provider }) => {
  for (const curve of ['P-256', 'P-384', 'secp256k1'] as const) {
    const spec: KeySpec = { algorithm: 'EC', curve };
    const key = await provider.generateKey(`low-S ${curve}`, spec);
    const n = curveOrder(curve);
    // A signature is high-S half the time when not normalized: 24 in a row all low-S by chance is 1 in 16 million.
    for (let i = 0; i < 24; i++) {
      const data = randomBytes(32);
      const r = await signData(provider, { ...key, spec }, { data: data.toString('base64') });
      assert.ok(BigInt('0x' + r.s!) <= n >> 1n, `${curve}: s above n/2 on signature ${i}`);
      assert.ok(verify(r.hash as string, data, { key: createPublicKey(key.publicKeyPem), dsaEncoding: 'der' }, Buffer.from(r.signature, 'base64')), curve);
    }
  }
});

keys('secp256k1: the address is ethers.computeAddress of the key and Ethereum signatures recover to it', async ({ provider }) => {
  const spec: KeySpec = { algorithm: 'EC', curve: 'secp256k1' };
  const key = await provider.generateKey('validator', spec);
  const spki = createPublicKey(key.publicKeyPem).export({ format: 'jwk' });
  const uncompressed = '0x04' + Buffer.from(spki.x!, 'base64url').toString('hex') + Buffer.from(spki.y!, 'base64url').toString('hex');
  const address = computeAddress(uncompressed);
  const data = Buffer.from('vote for validator 0x1234');

  const plain = await signData(provider, { ...key, spec }, { data: data.toString('base64') });
  assert.is(plain.ethereumAddress, address);
  assert.is(plain.ethereum, undefined);

  const k = await signData(provider, { ...key, spec }, { data: data.toString('base64'), ethereum: 'keccak256' });
  assert.is(k.hash, 'keccak256');
  assert.is(recoverAddress(k.ethereum!.digest, k.ethereum!.signature), address);
  assert.is(SigningKey.recoverPublicKey(k.ethereum!.digest, k.ethereum!.signature), uncompressed);

  const p = await signData(provider, { ...key, spec }, { data: data.toString('base64'), ethereum: 'personal' });
  assert.is(verifyMessage(data, p.ethereum!.signature), address);
});

keys('sign-data input errors are validation errors naming the field', async ({ provider }) => {
  const p256: KeySpec = { algorithm: 'EC', curve: 'P-256' };
  const key = await provider.generateKey('bad input', p256);
  await rejects(signData(provider, { ...key, spec: p256 }, { data: 'not base64!' }), ValidationError, 'base64');
  await rejects(signData(provider, { ...key, spec: p256 }, { data: 'aGk=', ethereum: 'keccak256' }), ValidationError, 'secp256k1');
  await rejects(signData(provider, { ...key, spec: p256 }, { data: 'aGk=', hash: 'md5' as never }), ValidationError, 'md5');
});

keys('imported PEM keys (PKCS#8, SEC1, PKCS#1) sign like generated ones; garbage is a ValidationError', async ({ provider }) => {
  const ec = generateKeyPairSync('ec', { namedCurve: 'secp384r1' });
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const ed = generateKeyPairSync('ed25519');
  const cases: Array<[string, string, KeySpec, string]> = [
    ['SEC1', ec.privateKey.export({ type: 'sec1', format: 'pem' }).toString(), { algorithm: 'EC', curve: 'P-384' }, ec.publicKey.export({ type: 'spki', format: 'pem' }).toString()],
    ['PKCS#1', rsa.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(), { algorithm: 'RSA', keySize: 2048 }, rsa.publicKey.export({ type: 'spki', format: 'pem' }).toString()],
    ['PKCS#8', ed.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), { algorithm: 'ED25519' }, ed.publicKey.export({ type: 'spki', format: 'pem' }).toString()],
  ];
  for (const [what, pem, spec, publicPem] of cases) {
    const key = await provider.importKey(`imported ${what}`, pem);
    assert.is(key.publicKeyPem, publicPem, what);
    const data = Buffer.from(what);
    assert.ok(verifies(spec, publicPem, data, await provider.sign(key.handle, spec, { data, hash: defaultHashFor(spec) ?? 'sha256' })), what);
  }
  const err = await rejects(provider.importKey('garbage', '-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----\n'), ValidationError);
  assert.is((err as ValidationError).details?.[0].field, 'privateKey');
  await rejects(provider.importKey('public', ec.publicKey.export({ type: 'spki', format: 'pem' }).toString()), ValidationError, 'found a PUBLIC KEY block');
});

keys('tampered ciphertext in the database gives a clear error on use, and other keys keep working', async ({ db, provider }) => {
  const spec: KeySpec = { algorithm: 'EC', curve: 'P-256' };
  const victim = await provider.generateKey('victim', spec);
  const bystander = await provider.generateKey('bystander', spec);
  await db.pool.query(`UPDATE key_material SET ciphertext = set_byte(ciphertext, 10, get_byte(ciphertext, 10) # 1) WHERE id = $1`, [victim.handle]);

  const restarted = createDatabaseKeyProvider({ pool: db.pool, keyEncryptionKey: kek });
  const data = Buffer.from('x');
  const err = await rejects(restarted.sign(victim.handle, spec, { data, hash: 'sha256' }), KeyDecryptionError, 'could not be decrypted');
  assert.match(err.message, victim.handle);
  // Still failing on retry (a failure is not cached as success), and no crash for others.
  await rejects(restarted.sign(victim.handle, spec, { data, hash: 'sha256' }), KeyDecryptionError);
  assert.ok(verifies(spec, bystander.publicKeyPem, data, await restarted.sign(bystander.handle, spec, { data, hash: 'sha256' })));
  await provider.deleteKey(victim.handle);
});

keys('the wrong KEY_ENCRYPTION_KEY is refused at start-up and changes nothing', async ({ db }) => {
  const before = (await db.pool.query('SELECT (SELECT count(*) FROM key_material)::int AS keys, (SELECT ciphertext FROM key_encryption_canary) AS canary')).rows[0];
  const err = await rejects(verifyKeyEncryptionKey(db.pool, randomBytes(32).toString('hex')), KeyEncryptionKeyMismatchError);
  assert.match(err.message, 'KEY_ENCRYPTION_KEY does not match the key the stored private keys were encrypted with');
  assert.match(err.message, 'Nothing was changed');
  const after = (await db.pool.query('SELECT (SELECT count(*) FROM key_material)::int AS keys, (SELECT ciphertext FROM key_encryption_canary) AS canary')).rows[0];
  assert.equal(after, before);
  assert.equal(await verifyKeyEncryptionKey(db.pool, kek), { outcome: 'verified' });
});

keys('without a canary row, the check tests an existing key before writing one', async ({ db }) => {
  await db.pool.query('DELETE FROM key_encryption_canary');
  await rejects(verifyKeyEncryptionKey(db.pool, randomBytes(32).toString('hex')), KeyEncryptionKeyMismatchError, /stored key [0-9a-f-]+ does not decrypt/);
  assert.is((await db.pool.query('SELECT count(*)::int AS n FROM key_encryption_canary')).rows[0].n, 0);
  assert.equal(await verifyKeyEncryptionKey(db.pool, kek), { outcome: 'created' });
  assert.equal(await verifyKeyEncryptionKey(db.pool, kek), { outcome: 'verified' });
});

keys('unknown handles are NotFound, a mismatched spec is a ValidationError, delete is idempotent', async ({ provider }) => {
  const spec: KeySpec = { algorithm: 'EC', curve: 'P-256' };
  const data = { data: Buffer.from('x'), hash: 'sha256' } as const;
  await rejects(provider.sign('00000000-0000-4000-8000-000000000000', spec, data), NotFoundError);
  await rejects(provider.sign('not-a-uuid', spec, data), NotFoundError);
  const key = await provider.generateKey('to delete', spec);
  await rejects(provider.sign(key.handle, { algorithm: 'RSA', keySize: 2048 }, data), ValidationError, 'is EC P-256, not RSA 2048');
  await provider.deleteKey(key.handle);
  await provider.deleteKey(key.handle);
  await rejects(provider.sign(key.handle, spec, data), NotFoundError);
});

keys('unsupported key specs are refused with what is supported', async ({ provider }) => {
  assert.not.ok(provider.supports({ algorithm: 'RSA', keySize: 3072 as never }));
  assert.not.ok(provider.supports({ algorithm: 'EC' }));
  await rejects(provider.generateKey('x', { algorithm: 'EC', curve: 'P-224' as never }), ValidationError, 'secp256k1');
  assert.match(provider.describeSupport(), 'Ed25519');
});

keys('status reports the database reachable with its key count', async ({ db, provider }) => {
  const n = (await db.pool.query('SELECT count(*)::int AS n FROM key_material')).rows[0].n;
  const status = await provider.status();
  assert.is(status.reachable, true);
  assert.is(status.keyCount, n);
});

keys.run();
