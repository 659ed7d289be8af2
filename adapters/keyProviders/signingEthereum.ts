// Ethereum views of secp256k1 keys, for any provider: the address of the public key and
// recoverable (r, s, v) signatures made from the provider's plain DER signature. Vault and KMS
// return DER without a recovery id and sometimes with a high s, so s is normalised to the low
// half and the recovery id is read off the point R = (z/s)G + (r/s)Q that ECDSA verification
// computes anyway: one pass both checks the signature against the key and yields y(R)'s parity.
// Per-key data (address, point with a precomputed window table) is cached, bounded.
//
//   ethereumAddressOf(publicKeyPem)            -> checksummed 0x address (ethers.computeAddress)
//   ethereumDigest(data, 'keccak256' | 'personal') -> keccak256(data), or the EIP-191
//       personal_sign digest keccak256("\x19Ethereum Signed Message:\n" + len(data) + data)
//   toRecoverableSignature(der, digest, publicKeyPem) -> { r, s, v, yParity, signature }
//       v is 27 or 28; signature is 0x r||s||v (65 bytes), what ethers.recoverAddress accepts
import { createPublicKey } from 'node:crypto';
import { computeAddress, hashMessage, keccak256, Signature } from 'ethers';
import { secp256k1 } from '@noble/curves/secp256k1';
import type { WeierstrassPoint } from '@noble/curves/abstract/weierstrass';
import { ValidationError } from '../../domain/shared/errors.ts';
import { toLowS } from './signingEcdsa.ts';

export type EthereumMessageMode = 'keccak256' | 'personal';

export interface RecoverableSignature {
  r: string;
  s: string;
  v: 27 | 28;
  yParity: 0 | 1;
  /** 0x-prefixed r || s || v, 65 bytes. */
  signature: string;
}

interface Secp256k1Key {
  uncompressed: Buffer;
  address: string;
  point: WeierstrassPoint<bigint>;
}

const MAX_CACHED_KEYS = 256;
const cachedKeys = new Map<string, Secp256k1Key>();

function secp256k1Key(publicKeyPem: string): Secp256k1Key {
  let entry = cachedKeys.get(publicKeyPem);
  if (entry) return entry;
  const key = createPublicKey(publicKeyPem);
  const jwk = key.export({ format: 'jwk' });
  if (key.asymmetricKeyType !== 'ec' || jwk.crv !== 'secp256k1') {
    throw new ValidationError('Ethereum addresses and signatures need an EC secp256k1 key.', [{ field: 'curve', message: 'must be secp256k1' }]);
  }
  const uncompressed = Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')]);
  // A 4-bit window table (~100 kB) makes the per-signature multiplication by Q about 2.5x faster.
  const point = secp256k1.Point.fromHex(uncompressed.toString('hex')).precompute(4, true);
  entry = { uncompressed, address: computeAddress('0x' + uncompressed.toString('hex')), point };
  if (cachedKeys.size >= MAX_CACHED_KEYS) cachedKeys.delete(cachedKeys.keys().next().value!);
  cachedKeys.set(publicKeyPem, entry);
  return entry;
}

/** 0x04 || x || y for a secp256k1 SPKI PEM. */
export function uncompressedPublicKey(publicKeyPem: string): Buffer {
  return Buffer.from(secp256k1Key(publicKeyPem).uncompressed);
}

export function ethereumAddressOf(publicKeyPem: string): string {
  return secp256k1Key(publicKeyPem).address;
}

export function ethereumDigest(data: Buffer, mode: EthereumMessageMode): Buffer {
  const hex = mode === 'personal' ? hashMessage(data) : keccak256(data);
  return Buffer.from(hex.slice(2), 'hex');
}

export function toRecoverableSignature(der: Buffer, digest: Buffer, publicKeyPem: string): RecoverableSignature {
  const { point } = secp256k1Key(publicKeyPem);
  const { Point } = secp256k1;
  const Fn = Point.Fn;
  const sig = secp256k1.Signature.fromBytes(toLowS(der, 'secp256k1'), 'der');
  if (digest.length !== 32) throw new ValidationError('An Ethereum digest is 32 bytes.', [{ field: 'digest', message: 'must be 32 bytes' }]);
  const z = Fn.create(BigInt('0x' + digest.toString('hex')));
  const sInv = Fn.inv(sig.s);
  const R = Point.BASE.multiplyAndAddUnsafe(point, Fn.mul(z, sInv), Fn.mul(sig.r, sInv))?.toAffine();
  if (!R || Fn.create(R.x) !== sig.r) {
    throw new Error('The signature does not belong to this key over this digest; the key provider returned an unexpected signature.');
  }
  const yParity = Number(R.y & 1n) as 0 | 1;
  const hex = (n: bigint) => '0x' + n.toString(16).padStart(64, '0');
  const out = Signature.from({ r: hex(sig.r), s: hex(sig.s), yParity });
  return { r: out.r, s: out.s, v: out.v, yParity, signature: out.serialized };
}
