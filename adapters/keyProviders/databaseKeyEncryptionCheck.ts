// Start-up check that KEY_ENCRYPTION_KEY is the key the stored private keys were encrypted with.
//
//   verifyKeyEncryptionKey(pool, keyEncryptionKey) -> { outcome: 'created' | 'verified' }
//     First start: stores an encrypted canary (after checking any keys already stored).
//     Later starts: decrypts the canary; a different key throws KeyEncryptionKeyMismatchError
//     and writes nothing, so a wrong key can never mix new rows into the old ones.
import { AppError } from '../../domain/shared/errors.ts';
import type { SqlQueryable } from './databaseKeyProvider.ts';
import { keyMaterialContext } from './databaseKeyProvider.ts';
import { createKeyEncryption, KeyDecryptionError, type EncryptedKeyMaterial } from './keyEncryption.ts';

const CANARY_CONTEXT = 'key_encryption_canary';
const CANARY_TEXT = Buffer.from('ledger-network-manager key encryption canary v1', 'utf8');

export class KeyEncryptionKeyMismatchError extends AppError {
  constructor(detail: string) {
    super(
      500,
      'KEY_ENCRYPTION_KEY_MISMATCH',
      `KEY_ENCRYPTION_KEY does not match the key the stored private keys were encrypted with (${detail}). ` +
        'Start with the original KEY_ENCRYPTION_KEY, or restore the original key-encryption-key file in the data directory. Nothing was changed.',
      { expose: false },
    );
  }
}

function material(row: Record<string, any>): EncryptedKeyMaterial {
  return { salt: row.salt, iv: row.iv, ciphertext: row.ciphertext, authTag: row.auth_tag, iterations: row.kdf_iterations };
}

export async function verifyKeyEncryptionKey(
  pool: SqlQueryable,
  keyEncryptionKey: string,
  options: { kdfIterations?: number } = {},
): Promise<{ outcome: 'created' | 'verified' }> {
  const encryption = createKeyEncryption(keyEncryptionKey, { iterations: options.kdfIterations });

  const checkCanary = async (row: Record<string, any>) => {
    let plain: Buffer;
    try {
      plain = await encryption.decrypt(material(row), CANARY_CONTEXT);
    } catch (err) {
      if (err instanceof KeyDecryptionError) throw new KeyEncryptionKeyMismatchError(`the check value stored on ${new Date(row.created_at).toISOString()} does not decrypt`);
      throw err;
    }
    if (!plain.equals(CANARY_TEXT)) throw new KeyEncryptionKeyMismatchError('the check value decrypts to something unexpected');
  };

  const select = 'SELECT kdf_iterations, salt, iv, ciphertext, auth_tag, created_at FROM key_encryption_canary WHERE id = 1';
  const existing = (await pool.query(select)).rows[0];
  if (existing) {
    await checkCanary(existing);
    return { outcome: 'verified' };
  }

  // Keys stored before the canary existed (or the canary row was lost): check against one.
  const oldest = (await pool.query(
    'SELECT id, kdf_iterations, salt, iv, ciphertext, auth_tag FROM key_material ORDER BY created_at, id LIMIT 1',
  )).rows[0];
  if (oldest) {
    try {
      await encryption.decrypt(material(oldest), keyMaterialContext(oldest.id));
    } catch (err) {
      if (err instanceof KeyDecryptionError) throw new KeyEncryptionKeyMismatchError(`stored key ${oldest.id} does not decrypt`);
      throw err;
    }
  }

  const sealed = await encryption.encrypt(CANARY_TEXT, CANARY_CONTEXT);
  const inserted = await pool.query(
    `INSERT INTO key_encryption_canary (id, kdf_iterations, salt, iv, ciphertext, auth_tag)
     VALUES (1, $1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING`,
    [sealed.iterations, sealed.salt, sealed.iv, sealed.ciphertext, sealed.authTag],
  );
  if (inserted.rowCount === 1) return { outcome: 'created' };
  // Another server wrote its canary first: ours must agree with it.
  await checkCanary((await pool.query(select)).rows[0]);
  return { outcome: 'verified' };
}
