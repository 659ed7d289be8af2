import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { hashMessage, keccak256, recoverAddress, SigningKey, verifyMessage, Wallet } from 'ethers';
import { curveOrder, derToRs, rsToDer } from '../../../adapters/keyProviders/signingEcdsa.ts';
import { ethereumAddressOf, ethereumDigest, toRecoverableSignature } from '../../../adapters/keyProviders/signingEthereum.ts';
import { signWithKeyObject } from '../../../adapters/keyProviders/signingWithKeyObject.ts';
import { ValidationError } from '../../../domain/shared/errors.ts';

const spec = { algorithm: 'EC', curve: 'secp256k1' } as const;

function k1(): { key: KeyObject; pem: string; wallet: Wallet } {
  const key = generateKeyPairSync('ec', { namedCurve: 'secp256k1' }).privateKey;
  const d = Buffer.from(key.export({ format: 'jwk' }).d!, 'base64url');
  return { key, pem: createPublicKey(key).export({ type: 'spki', format: 'pem' }).toString(), wallet: new Wallet('0x' + d.toString('hex')) };
}

test('the address of a secp256k1 public key is the one ethers derives from the same private key', () => {
  const { pem, wallet } = k1();
  assert.is(ethereumAddressOf(pem), wallet.address);
});

test('a keccak256 signature is recoverable with ethers to the key address', () => {
  const { key, pem, wallet } = k1();
  const data = Buffer.from('transfer 10 to 0xabc');
  const digest = ethereumDigest(data, 'keccak256');
  assert.is('0x' + digest.toString('hex'), keccak256(data));
  const der = signWithKeyObject(key, spec, { digest, hash: 'keccak256' });
  const rec = toRecoverableSignature(der, digest, pem);
  assert.ok(rec.v === 27 || rec.v === 28);
  assert.is(rec.signature.length, 2 + 65 * 2);
  assert.is(recoverAddress(digest, rec.signature), wallet.address);
  assert.is(recoverAddress(digest, { r: rec.r, s: rec.s, v: rec.v }), wallet.address);
});

test('the recovery id is right for both parities (v = 27 and v = 28 over many messages)', () => {
  const { key, pem, wallet } = k1();
  const seen = new Set<number>();
  for (let i = 0; i < 24; i++) {
    const digest = ethereumDigest(Buffer.from(`message ${i}`), 'keccak256');
    const rec = toRecoverableSignature(signWithKeyObject(key, spec, { digest, hash: 'keccak256' }), digest, pem);
    assert.is(recoverAddress(digest, rec.signature), wallet.address, `message ${i}`);
    seen.add(rec.v);
  }
  assert.equal([...seen].sort(), [27, 28]);
});

test('a personal_sign (EIP-191) signature verifies with ethers.verifyMessage', () => {
  const { key, pem, wallet } = k1();
  const data = Buffer.from('hello from the network manager');
  const digest = ethereumDigest(data, 'personal');
  assert.is('0x' + digest.toString('hex'), hashMessage(data));
  const rec = toRecoverableSignature(signWithKeyObject(key, spec, { digest, hash: 'keccak256' }), digest, pem);
  assert.is(verifyMessage(data, rec.signature), wallet.address);
});

test('a high-s DER signature (as Vault or KMS may return) is normalised to low s and still recovers', () => {
  const { key, pem, wallet } = k1();
  const digest = ethereumDigest(Buffer.from('x'), 'keccak256');
  const der = signWithKeyObject(key, spec, { digest, hash: 'keccak256' });
  const { r, s } = derToRs(der, 'secp256k1');
  const n = curveOrder('secp256k1');
  const highS = rsToDer(r, n - BigInt('0x' + s), 'secp256k1');
  assert.ok(BigInt('0x' + derToRs(highS, 'secp256k1').s) > n / 2n, 'test input really is high-s');
  const rec = toRecoverableSignature(highS, digest, pem);
  assert.ok(BigInt(rec.s) <= n / 2n);
  assert.is(rec.s, '0x' + s);
  assert.is(recoverAddress(digest, rec.signature), wallet.address);
  // ethers' own signer agrees on the canonical signature (RFC 6979 deterministic k on both sides).
  assert.is(new SigningKey(wallet.privateKey).sign(digest).serialized, rec.signature);
});

test('a signature from another key is refused instead of producing a wrong v', () => {
  const a = k1();
  const b = k1();
  const digest = ethereumDigest(Buffer.from('x'), 'keccak256');
  const der = signWithKeyObject(b.key, spec, { digest, hash: 'keccak256' });
  assert.throws(() => toRecoverableSignature(der, digest, a.pem), /does not belong to this key/);
});

test('non-secp256k1 keys have no Ethereum address', () => {
  const pem = createPublicKey(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey).export({ type: 'spki', format: 'pem' }).toString();
  assert.throws(() => ethereumAddressOf(pem), (e: unknown) => e instanceof ValidationError);
});

test.run();
