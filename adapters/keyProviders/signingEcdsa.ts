// ECDSA signature plumbing shared by every provider (database, Vault, KMS all return DER).
//   ecdsaCurve(curve)             -> the @noble/curves implementation of a port curve
//   derToRs(der, curve)           -> { r, s } as big-endian hex, padded to the curve size
//   rsToDer(r, s)                 -> DER ECDSA-Sig-Value
//   toLowS(der, curve)            -> DER with s replaced by n - s when s > n/2 (Ethereum and
//                                    Bitcoin accept only low s; both forms verify in ECDSA)
//   signDigestWithScalar(curve, d, digest) -> DER; ECDSA over a precomputed digest, which
//       node:crypto cannot do (crypto.sign(null, digest, ecKey) hashes the digest again with SHA-256)
import { p256, p384, p521 } from '@noble/curves/nist';
import { secp256k1 } from '@noble/curves/secp256k1';
import type { CurveFn } from '@noble/curves/abstract/weierstrass';
import type { EcCurve } from '../../domain/keys/keyProvider.ts';
import { ValidationError } from '../../domain/shared/errors.ts';

const curves: Record<EcCurve, CurveFn> = { 'P-256': p256, 'P-384': p384, 'P-521': p521, secp256k1 };
const byteLength: Record<EcCurve, number> = { 'P-256': 32, 'P-384': 48, 'P-521': 66, secp256k1: 32 };

export function ecdsaCurve(curve: EcCurve): CurveFn {
  return curves[curve];
}

export function curveByteLength(curve: EcCurve): number {
  return byteLength[curve];
}

function hexOf(n: bigint, bytes: number): string {
  return n.toString(16).padStart(bytes * 2, '0');
}

export function derToRs(der: Buffer, curve: EcCurve): { r: string; s: string } {
  const sig = curves[curve].Signature.fromBytes(der, 'der');
  return { r: hexOf(sig.r, byteLength[curve]), s: hexOf(sig.s, byteLength[curve]) };
}

export function rsToDer(r: string | bigint, s: string | bigint, curve: EcCurve): Buffer {
  const big = (v: string | bigint) => (typeof v === 'bigint' ? v : BigInt('0x' + v.replace(/^0x/, '')));
  return Buffer.from(new (curves[curve].Signature)(big(r), big(s)).toBytes('der'));
}

export function curveOrder(curve: EcCurve): bigint {
  return curves[curve].Point.Fn.ORDER;
}

export function toLowS(der: Buffer, curve: EcCurve): Buffer {
  const sig = curves[curve].Signature.fromBytes(der, 'der');
  const n = curveOrder(curve);
  return sig.s > n >> 1n ? rsToDer(sig.r, n - sig.s, curve) : der;
}

export function signDigestWithScalar(curve: EcCurve, privateScalar: Uint8Array, digest: Buffer): Buffer {
  if (digest.length === 0 || digest.length > 64) {
    throw new ValidationError('A digest must be 1 to 64 bytes.', [{ field: 'digest', message: 'must be 1 to 64 bytes' }]);
  }
  const sig = curves[curve].sign(digest, privateScalar, { prehash: false, lowS: curve === 'secp256k1' });
  return Buffer.from(sig.toBytes('der'));
}
