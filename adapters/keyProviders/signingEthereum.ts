// Ethereum views of secp256k1 keys, for any provider: the address of the public key and
// recoverable (r, s, v) signatures made from the provider's plain DER signature. Vault and KMS
// return DER without a recovery id and sometimes with a high s, so the id is found by trying both
// candidates against the known public key, after normalising s to the low half.
//
//   ethereumAddressOf(publicKeyPem)            -> checksummed 0x address (ethers.computeAddress)
//   ethereumDigest(data, 'keccak256' | 'personal') -> keccak256(data), or the EIP-191
//       personal_sign digest keccak256("\x19Ethereum Signed Message:\n" + len(data) + data)
//   toRecoverableSignature(der, digest, publicKeyPem) -> { r, s, v, yParity, signature }
//       v is 27 or 28; signature is 0x r||s||v (65 bytes), what ethers.recoverAddress accepts
import { createPublicKey } from 'node:crypto';
import { computeAddress, hashMessage, keccak256, Signature, SigningKey } from 'ethers';
import { ValidationError } from '../../domain/shared/errors.ts';
import { derToRs, toLowS } from './signingEcdsa.ts';

export type EthereumMessageMode = 'keccak256' | 'personal';

export interface RecoverableSignature {
  r: string;
  s: string;
  v: 27 | 28;
  yParity: 0 | 1;
  /** 0x-prefixed r || s || v, 65 bytes. */
  signature: string;
}

/** 0x04 || x || y for a secp256k1 SPKI PEM. */
export function uncompressedPublicKey(publicKeyPem: string): Buffer {
  const key = createPublicKey(publicKeyPem);
  const jwk = key.export({ format: 'jwk' });
  if (key.asymmetricKeyType !== 'ec' || jwk.crv !== 'secp256k1') {
    throw new ValidationError('Ethereum addresses and signatures need an EC secp256k1 key.', [{ field: 'curve', message: 'must be secp256k1' }]);
  }
  return Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')]);
}

export function ethereumAddressOf(publicKeyPem: string): string {
  return computeAddress('0x' + uncompressedPublicKey(publicKeyPem).toString('hex'));
}

export function ethereumDigest(data: Buffer, mode: EthereumMessageMode): Buffer {
  const hex = mode === 'personal' ? hashMessage(data) : keccak256(data);
  return Buffer.from(hex.slice(2), 'hex');
}

export function toRecoverableSignature(der: Buffer, digest: Buffer, publicKeyPem: string): RecoverableSignature {
  const expected = '0x' + uncompressedPublicKey(publicKeyPem).toString('hex');
  const { r, s } = derToRs(toLowS(der, 'secp256k1'), 'secp256k1');
  for (const yParity of [0, 1] as const) {
    const sig = Signature.from({ r: '0x' + r, s: '0x' + s, yParity });
    if (SigningKey.recoverPublicKey(digest, sig).toLowerCase() === expected) {
      return { r: sig.r, s: sig.s, v: sig.v, yParity, signature: sig.serialized };
    }
  }
  throw new Error('The signature does not belong to this key over this digest; the key provider returned an unexpected signature.');
}
