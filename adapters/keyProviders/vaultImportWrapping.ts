// Vault transit's "bring your own key" format: a fresh AES-256 key wrapped with Vault's RSA-4096
// wrapping key (RSA-OAEP, SHA-256), followed by the PKCS#8 private key wrapped with that AES key
// (AES key wrap with padding, RFC 5649). Only Vault can undo the first step, so the private key
// never travels in the clear.
import { constants, createCipheriv, publicEncrypt, randomBytes, type KeyObject } from 'node:crypto';

const KWP_IV = Buffer.from('A65959A6', 'hex'); // RFC 5649 alternative initial value

export function wrapForVaultImport(wrappingPublicKeyPem: string, privateKey: KeyObject): string {
  const ephemeral = randomBytes(32);
  try {
    const wrappedEphemeral = publicEncrypt({ key: wrappingPublicKeyPem, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, ephemeral);
    const kwp = createCipheriv('id-aes256-wrap-pad', ephemeral, KWP_IV);
    const pkcs8 = privateKey.export({ format: 'der', type: 'pkcs8' });
    const wrappedKey = Buffer.concat([kwp.update(pkcs8), kwp.final()]);
    pkcs8.fill(0);
    return Buffer.concat([wrappedEphemeral, wrappedKey]).toString('base64');
  } finally {
    ephemeral.fill(0);
  }
}
