// Encryption at rest for private keys held by the database key provider.
//
//   createKeyEncryption(keyEncryptionKey, { iterations }) -> { encrypt, decrypt }
//     encrypt(plaintext, context) -> EncryptedKeyMaterial  (fresh 16-byte salt and 12-byte IV)
//     decrypt(material, context)  -> plaintext, or KeyDecryptionError (never a crash, never a
//                                    partial plaintext)
//   AES-256-GCM under a key derived by PBKDF2-HMAC-SHA256(KEY_ENCRYPTION_KEY, salt). `context`
//   (e.g. the key's row id) is GCM additional data, so a ciphertext copied onto another row
//   does not decrypt there.
//
// Iterations: 600,000, OWASP's 2023 figure for PBKDF2-HMAC-SHA256. An auto-generated KEK has 256
// random bits and needs no stretching, but an operator may set KEY_ENCRYPTION_KEY to a passphrase,
// and then the count is what slows an offline guess against a stolen database. It costs about
// 0.1-0.3 s per key once (at creation, and at first use after a start); the provider caches the
// decrypted key, so signing throughput does not pay it. The count is stored per row so it can be
// raised later without breaking old rows.
import { createCipheriv, createDecipheriv, pbkdf2, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { AppError } from '../../domain/shared/errors.ts';

const pbkdf2Async = promisify(pbkdf2);

export const DEFAULT_KDF_ITERATIONS = 600_000;
/** A KEY_ENCRYPTION_KEY shorter than this is refused at start-up. */
export const MIN_KEY_ENCRYPTION_KEY_LENGTH = 16;

export interface EncryptedKeyMaterial {
  salt: Buffer;
  iv: Buffer;
  ciphertext: Buffer;
  authTag: Buffer;
  iterations: number;
}

export interface KeyEncryption {
  encrypt(plaintext: Buffer, context: string): Promise<EncryptedKeyMaterial>;
  decrypt(material: EncryptedKeyMaterial, context: string): Promise<Buffer>;
}

/** Stored key material that does not authenticate: wrong KEY_ENCRYPTION_KEY or altered bytes. */
export class KeyDecryptionError extends AppError {
  constructor(context: string) {
    super(
      500,
      'KEY_DECRYPTION_FAILED',
      `Stored private key ${context} could not be decrypted: its ciphertext, salt, IV or tag was altered, or KEY_ENCRYPTION_KEY is not the key it was encrypted with.`,
      { expose: true },
    );
  }
}

export class KeyEncryptionKeyError extends AppError {
  constructor(message: string) {
    super(500, 'KEY_ENCRYPTION_KEY_INVALID', message, { expose: false });
  }
}

export function checkKeyEncryptionKey(keyEncryptionKey: string): void {
  if (typeof keyEncryptionKey !== 'string' || keyEncryptionKey.length < MIN_KEY_ENCRYPTION_KEY_LENGTH) {
    throw new KeyEncryptionKeyError(
      `KEY_ENCRYPTION_KEY must be at least ${MIN_KEY_ENCRYPTION_KEY_LENGTH} characters (for example 64 hex characters from \`openssl rand -hex 32\`); unset it to have one generated in the data directory.`,
    );
  }
}

export function createKeyEncryption(keyEncryptionKey: string, options: { iterations?: number } = {}): KeyEncryption {
  checkKeyEncryptionKey(keyEncryptionKey);
  const iterations = options.iterations ?? DEFAULT_KDF_ITERATIONS;
  const password = Buffer.from(keyEncryptionKey, 'utf8');
  const derive = (salt: Buffer, rounds: number) => pbkdf2Async(password, salt, rounds, 32, 'sha256');

  return {
    async encrypt(plaintext, context) {
      const salt = randomBytes(16);
      const iv = randomBytes(12);
      const key = await derive(salt, iterations);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
      key.fill(0);
      return { salt, iv, ciphertext, authTag: cipher.getAuthTag(), iterations };
    },

    async decrypt(material, context) {
      if (material.iv.length !== 12 || material.authTag.length !== 16 || material.salt.length < 16 || !(material.iterations > 0)) {
        throw new KeyDecryptionError(context);
      }
      const key = await derive(material.salt, material.iterations);
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, material.iv);
        decipher.setAAD(Buffer.from(context, 'utf8'));
        decipher.setAuthTag(material.authTag);
        return Buffer.concat([decipher.update(material.ciphertext), decipher.final()]);
      } catch {
        throw new KeyDecryptionError(context);
      } finally {
        key.fill(0);
      }
    },
  };
}
