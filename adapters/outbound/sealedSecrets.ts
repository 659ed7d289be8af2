// Secrets of webhooks and notification providers (signing secrets, SMTP passwords), sealed
// under KEY_ENCRYPTION_KEY like key-provider configurations (AES-256-GCM, PBKDF2 per blob,
// the context as additional data). Opening costs a key derivation, so opened secrets are
// cached in memory by their sealed text.
import type { SecretBox } from '../../domain/webhooks/ports.ts';
import { createKeyEncryption } from '../keyProviders/keyEncryption.ts';
import { openConfig, sealConfig } from '../keyProviders/registrySealedConfig.ts';

export function createSecretBox(keyEncryptionKey: string, opts: { iterations?: number } = {}): SecretBox {
  const encryption = createKeyEncryption(keyEncryptionKey, opts);
  const opened = new Map<string, Promise<string>>();
  return {
    seal: (plain, context) => sealConfig(encryption, { v: plain }, context),
    open(sealed, context) {
      const key = `${context}|${sealed}`;
      let p = opened.get(key);
      if (!p) {
        p = openConfig<{ v: string }>(encryption, sealed, context).then((o) => o.v);
        p.catch(() => opened.delete(key));
        opened.set(key, p);
      }
      return p;
    },
  };
}
