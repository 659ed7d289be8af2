// Reading a private key an operator hands us as PEM (POST /keys/import, CA import).
//   parsePrivateKeyPem(pem, field = 'privateKey') -> { privateKey: KeyObject, spec: KeySpec }
//   Accepts PKCS#8 ("PRIVATE KEY"), SEC1 ("EC PRIVATE KEY") and PKCS#1 ("RSA PRIVATE KEY").
//   ValidationError (naming `field`, never echoing the text) for anything else: not PEM, a
//   certificate or public key given instead, an encrypted key, an unsupported algorithm.
import { createPrivateKey, type KeyObject } from 'node:crypto';
import type { KeySpec } from '../../domain/keys/keyProvider.ts';
import { ValidationError } from '../../domain/shared/errors.ts';
import { keySpecOfKey } from './signingAlgorithms.ts';

const labels = /-----BEGIN ([A-Z0-9 ]+)-----/g;
const privateKeyLabels = ['PRIVATE KEY', 'EC PRIVATE KEY', 'RSA PRIVATE KEY'];

export function parsePrivateKeyPem(pem: unknown, field = 'privateKey'): { privateKey: KeyObject; spec: KeySpec } {
  const fail = (message: string) => new ValidationError(`The ${field} ${message}.`, [{ field, message }]);
  if (typeof pem !== 'string' || pem.trim() === '') throw fail('is required (a PEM private key)');
  const found = [...pem.matchAll(labels)].map((m) => m[1]);
  if (found.includes('ENCRYPTED PRIVATE KEY') || /Proc-Type:\s*4,ENCRYPTED/.test(pem)) {
    throw fail('is encrypted; import the unencrypted PEM (it is encrypted at rest by the key provider)');
  }
  if (!found.some((l) => privateKeyLabels.includes(l))) {
    throw fail(`is not a PEM private key (${found.length ? `found a ${found[0]} block instead` : 'no "-----BEGIN PRIVATE KEY-----" block found'})`);
  }
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey({ key: pem, format: 'pem' });
  } catch {
    throw fail('could not be parsed as a PKCS#8, SEC1 or PKCS#1 private key');
  }
  return { privateKey, spec: keySpecOfKey(privateKey, field) };
}
