// Transit "bring your own key" import for the Vault stand-in, with the checks and texts of Vault's
// path_import.go: the first 512 bytes are an AES-256 key under the RSA-4096 wrapping key
// (RSA-OAEP), the rest the PKCS#8 key under that AES key (AES key wrap with padding, RFC 5649).
import { constants, createDecipheriv, createPrivateKey, privateDecrypt, type KeyObject } from 'node:crypto';
import type { EngineResponse } from './vaultStandinTransit.ts';

const internal = (msg: string): EngineResponse => ({ status: 500, errors: [`1 error occurred:\n\t* ${msg}\n\n`] });
const oaepHashes: Record<string, string> = { SHA1: 'sha1', SHA224: 'sha224', SHA256: 'sha256', SHA384: 'sha384', SHA512: 'sha512' };
const expectedKey: Record<string, (k: KeyObject) => boolean> = {
  'ecdsa-p256': (k) => k.asymmetricKeyDetails?.namedCurve === 'prime256v1',
  'ecdsa-p384': (k) => k.asymmetricKeyDetails?.namedCurve === 'secp384r1',
  'ecdsa-p521': (k) => k.asymmetricKeyDetails?.namedCurve === 'secp521r1',
  'rsa-2048': (k) => k.asymmetricKeyDetails?.modulusLength === 2048,
  'rsa-3072': (k) => k.asymmetricKeyDetails?.modulusLength === 3072,
  'rsa-4096': (k) => k.asymmetricKeyDetails?.modulusLength === 4096,
  ed25519: (k) => k.asymmetricKeyType === 'ed25519',
};

export function unwrapImportedKey(
  type: string,
  body: Record<string, unknown>,
  nameTaken: boolean,
  wrappingPrivateKey: () => KeyObject,
): { privateKey: KeyObject } | EngineResponse {
  if (typeof body.ciphertext !== 'string') {
    return body.public_key === undefined
      ? internal('one of the following fields, ciphertext xor public_key, has to be set')
      : { status: 400, errors: ['stand-in: public_key-only import is not implemented'] };
  }
  if (nameTaken) return internal('the import path cannot be used with an existing key; use import-version to rotate an existing imported key');
  const hashFn = oaepHashes[String(body.hash_function ?? 'SHA256').toUpperCase()];
  if (!hashFn) return { status: 400, errors: [`unknown hash function: ${body.hash_function}`] };
  const ciphertext = Buffer.from(body.ciphertext, 'base64');
  if (ciphertext.length <= 512) return internal('provided ciphertext is too short');
  let ephemeral: Buffer;
  try {
    ephemeral = privateDecrypt({ key: wrappingPrivateKey(), padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: hashFn }, ciphertext.subarray(0, 512));
  } catch {
    return internal('crypto/rsa: decryption error');
  }
  if (ephemeral.length !== 32) return internal('expected ephemeral AES key to be 256-bit');
  let privateKey: KeyObject;
  try {
    const kwp = createDecipheriv('id-aes256-wrap-pad', ephemeral, Buffer.from('A65959A6', 'hex'));
    const der = Buffer.concat([kwp.update(ciphertext.subarray(512)), kwp.final()]);
    privateKey = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  } catch {
    return internal('error importing key: the wrapped key could not be unwrapped or is not PKCS#8');
  }
  if (!expectedKey[type]?.(privateKey)) return internal(`error importing key: the key is not a ${type} key`);
  return { privateKey };
}
