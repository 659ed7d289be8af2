import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash, createPublicKey, generateKeyPairSync, verify, type KeyObject } from 'node:crypto';
import type { KeySpec } from '../../../domain/keys/keyProvider.ts';
import { ValidationError } from '../../../domain/shared/errors.ts';
import { signWithKeyObject } from '../../../adapters/keyProviders/signingWithKeyObject.ts';
import { defaultHashFor, keySpecOfKey } from '../../../adapters/keyProviders/signingAlgorithms.ts';

const keys: Array<[KeySpec, KeyObject]> = [
  [{ algorithm: 'EC', curve: 'P-256' }, generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey],
  [{ algorithm: 'EC', curve: 'P-384' }, generateKeyPairSync('ec', { namedCurve: 'secp384r1' }).privateKey],
  [{ algorithm: 'EC', curve: 'P-521' }, generateKeyPairSync('ec', { namedCurve: 'secp521r1' }).privateKey],
  [{ algorithm: 'EC', curve: 'secp256k1' }, generateKeyPairSync('ec', { namedCurve: 'secp256k1' }).privateKey],
  [{ algorithm: 'RSA', keySize: 2048 }, generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey],
  [{ algorithm: 'ED25519' }, generateKeyPairSync('ed25519').privateKey],
];
const data = Buffer.from('block 42 header bytes');

function label(spec: KeySpec): string {
  return spec.curve ?? (spec.keySize ? `RSA ${spec.keySize}` : spec.algorithm);
}

for (const [spec, key] of keys) {
  const pub = createPublicKey(key);
  const hash = defaultHashFor(spec);

  test(`${label(spec)}: the key's spec is recognised and a data signature verifies with node:crypto`, () => {
    assert.equal(keySpecOfKey(key), spec);
    const sig = signWithKeyObject(key, spec, { data, hash: hash ?? 'sha256' });
    if (spec.algorithm === 'ED25519') {
      assert.is(sig.length, 64);
      assert.ok(verify(null, data, pub, sig));
    } else {
      assert.ok(verify(hash, data, spec.algorithm === 'EC' ? { key: pub, dsaEncoding: 'der' } : pub, sig));
      assert.not.ok(verify(hash, Buffer.from('other data'), spec.algorithm === 'EC' ? { key: pub, dsaEncoding: 'der' } : pub, sig));
    }
    if (spec.algorithm === 'EC') assert.is(sig[0], 0x30, 'DER SEQUENCE');
  });

  if (spec.algorithm !== 'ED25519') {
    test(`${label(spec)}: signing a precomputed digest equals signing the data (verifies over the data)`, () => {
      for (const h of ['sha256', 'sha384', 'sha512'] as const) {
        const digest = createHash(h).update(data).digest();
        const sig = signWithKeyObject(key, spec, { digest, hash: h });
        assert.ok(verify(h, data, spec.algorithm === 'EC' ? { key: pub, dsaEncoding: 'der' } : pub, sig), `${label(spec)} ${h}`);
      }
    });
  }
}

test('a digest of the wrong length is a validation error naming the digest', () => {
  const [spec, key] = keys[0];
  try {
    signWithKeyObject(key, spec, { digest: Buffer.alloc(20), hash: 'sha256' });
    assert.unreachable();
  } catch (err) {
    assert.instance(err, ValidationError);
    assert.is((err as ValidationError).details?.[0].field, 'digest');
  }
});

test('Ed25519 refuses a precomputed digest and RSA refuses keccak256', () => {
  const ed = keys[5];
  const rsa = keys[4];
  assert.throws(() => signWithKeyObject(ed[1], ed[0], { digest: Buffer.alloc(32), hash: 'sha256' }), (e: unknown) => e instanceof ValidationError && /Ed25519/.test((e as Error).message));
  assert.throws(() => signWithKeyObject(rsa[1], rsa[0], { digest: Buffer.alloc(32), hash: 'keccak256' }), (e: unknown) => e instanceof ValidationError && /keccak256/.test((e as Error).message));
});

test('keys outside the supported set are named in the error', () => {
  const rsa3072 = generateKeyPairSync('rsa', { modulusLength: 3072 }).privateKey;
  assert.throws(() => keySpecOfKey(rsa3072), (e: unknown) => e instanceof ValidationError && /RSA 3072-bit/.test((e as Error).message));
  const p224 = generateKeyPairSync('ec', { namedCurve: 'secp224r1' }).privateKey;
  assert.throws(() => keySpecOfKey(p224), (e: unknown) => e instanceof ValidationError && /secp224r1/.test((e as Error).message));
});

test.run();
