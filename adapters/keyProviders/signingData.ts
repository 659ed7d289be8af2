// POST /keys/{id}/sign-data semantics, the same for every key provider.
//
// Input: `data` is base64 (standard alphabet). Output by key algorithm:
//   ECDSA    hash = request.hash or the curve's own (P-256, secp256k1: sha256; P-384: sha384;
//            P-521: sha512). signature = DER ECDSA-Sig-Value, base64; also r and s as hex,
//            zero-padded to the curve size. Always low-S (s <= n/2, normalized to n - s where a
//            provider made it high): Fabric and Ethereum refuse high-S signatures, and a low-S one
//            verifies under any ECDSA verifier as well.
//   RSA      RSASSA-PKCS1-v1_5 with request.hash or sha256; signature base64.
//   Ed25519  pure Ed25519 over the data itself (no pre-hash; a requested hash is ignored and
//            reported as null); signature = the 64 raw bytes, base64.
//   secp256k1 keys also return `ethereumAddress`. With `ethereum: 'keccak256'` the provider signs
//            keccak256(data); with `ethereum: 'personal'` the EIP-191 personal_sign digest. The
//            result then also has `ethereum`: { mode, digest, r, s (low-s), v (27/28), yParity,
//            signature (0x r||s||v) }, recoverable with ethers.recoverAddress(digest, signature).
//
//   signData(provider, { handle, spec, publicKeyPem }, request) -> SignDataResult
//   decodeBase64(text, field)  -> Buffer or ValidationError
import type { HashName, KeyProvider, KeySpec } from '../../domain/keys/keyProvider.ts';
import { ValidationError } from '../../domain/shared/errors.ts';
import { defaultHashFor } from './signingAlgorithms.ts';
import { derToRs, toLowS } from './signingEcdsa.ts';
import { ethereumAddressOf, ethereumDigest, toRecoverableSignature, type EthereumMessageMode, type RecoverableSignature } from './signingEthereum.ts';

export interface SignDataRequest {
  /** base64 */
  data: string;
  hash?: HashName;
  ethereum?: EthereumMessageMode;
}

export interface SigningKeyRef {
  handle: string;
  spec: KeySpec;
  publicKeyPem: string;
}

export interface SignDataResult {
  algorithm: 'ECDSA' | 'RSA' | 'Ed25519';
  curve?: string;
  hash: HashName | 'keccak256' | null;
  signatureFormat: 'DER' | 'PKCS1_V1_5' | 'ED25519';
  /** base64 */
  signature: string;
  r?: string;
  s?: string;
  ethereumAddress?: string;
  ethereum?: RecoverableSignature & { mode: EthereumMessageMode; digest: string };
}

const hashes = new Set(['sha256', 'sha384', 'sha512']);

export function decodeBase64(text: unknown, field = 'data'): Buffer {
  const clean = typeof text === 'string' ? text.replace(/\s+/g, '') : null;
  if (clean === null || clean.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(clean)) {
    throw new ValidationError(`The ${field} must be base64 (standard alphabet, padded).`, [{ field, message: 'must be base64' }]);
  }
  return Buffer.from(clean, 'base64');
}

export async function signData(provider: KeyProvider, key: SigningKeyRef, request: SignDataRequest): Promise<SignDataResult> {
  const data = decodeBase64(request.data, 'data');
  if (request.hash !== undefined && !hashes.has(request.hash)) {
    throw new ValidationError(`Unsupported hash ${JSON.stringify(request.hash)}; use sha256, sha384 or sha512.`, [{ field: 'hash', message: 'must be sha256, sha384 or sha512' }]);
  }
  const { spec } = key;

  if (spec.algorithm === 'ED25519') {
    if (request.ethereum) throw notSecp256k1();
    const signature = await provider.sign(key.handle, spec, { data, hash: 'sha512' });
    return { algorithm: 'Ed25519', hash: null, signatureFormat: 'ED25519', signature: signature.toString('base64') };
  }

  if (spec.algorithm === 'RSA') {
    if (request.ethereum) throw notSecp256k1();
    const hash = request.hash ?? 'sha256';
    const signature = await provider.sign(key.handle, spec, { data, hash });
    return { algorithm: 'RSA', hash, signatureFormat: 'PKCS1_V1_5', signature: signature.toString('base64') };
  }

  const curve = spec.curve!;
  const isK1 = curve === 'secp256k1';
  if (request.ethereum !== undefined) {
    if (!isK1) throw notSecp256k1();
    if (request.ethereum !== 'keccak256' && request.ethereum !== 'personal') {
      throw new ValidationError('ethereum must be "keccak256" or "personal".', [{ field: 'ethereum', message: 'must be keccak256 or personal' }]);
    }
    if (request.hash !== undefined) {
      throw new ValidationError('Ethereum signatures always hash with keccak-256; omit hash.', [{ field: 'hash', message: 'not allowed with ethereum' }]);
    }
    const digest = ethereumDigest(data, request.ethereum);
    const der = toLowS(await provider.sign(key.handle, spec, { digest, hash: 'keccak256' }), curve);
    return {
      algorithm: 'ECDSA',
      curve,
      hash: 'keccak256',
      signatureFormat: 'DER',
      signature: der.toString('base64'),
      ...derToRs(der, curve),
      ethereumAddress: ethereumAddressOf(key.publicKeyPem),
      ethereum: { mode: request.ethereum, digest: '0x' + digest.toString('hex'), ...toRecoverableSignature(der, digest, key.publicKeyPem) },
    };
  }

  const hash = request.hash ?? defaultHashFor(spec)!;
  const der = toLowS(await provider.sign(key.handle, spec, { data, hash }), curve);
  return {
    algorithm: 'ECDSA',
    curve,
    hash,
    signatureFormat: 'DER',
    signature: der.toString('base64'),
    ...derToRs(der, curve),
    ...(isK1 ? { ethereumAddress: ethereumAddressOf(key.publicKeyPem) } : {}),
  };
}

function notSecp256k1(): ValidationError {
  return new ValidationError('Ethereum-style signatures need an EC secp256k1 key.', [{ field: 'ethereum', message: 'only for secp256k1 keys' }]);
}
