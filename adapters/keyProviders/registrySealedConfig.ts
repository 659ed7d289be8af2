// Provider configurations hold secrets (Vault token, AWS secret key). They are stored as one
// sealed blob: AES-256-GCM under KEY_ENCRYPTION_KEY (keyEncryption.ts), bound to the context
// "key_provider_config" so a blob cannot be swapped with a key_material row.
//   sealConfig(encryption, obj) -> "v1:<base64 JSON of salt, iv, tag, ciphertext, iterations>"
//   openConfig(encryption, text) -> obj
import type { KeyEncryption } from './keyEncryption.ts';

const CONTEXT = 'key_provider_config';

/** `context` defaults to key-provider configurations; other owners (webhook secrets) pass their own. */
export async function sealConfig(encryption: KeyEncryption, config: unknown, context = CONTEXT): Promise<string> {
  const m = await encryption.encrypt(Buffer.from(JSON.stringify(config), 'utf8'), context);
  const b = (x: Buffer) => x.toString('base64');
  return 'v1:' + Buffer.from(JSON.stringify({ s: b(m.salt), i: b(m.iv), t: b(m.authTag), c: b(m.ciphertext), n: m.iterations })).toString('base64');
}

export async function openConfig<T>(encryption: KeyEncryption, sealed: string, context = CONTEXT): Promise<T> {
  if (!sealed.startsWith('v1:')) throw new Error('unknown sealed provider configuration format');
  const o = JSON.parse(Buffer.from(sealed.slice(3), 'base64').toString('utf8')) as { s: string; i: string; t: string; c: string; n: number };
  const f = (x: string) => Buffer.from(x, 'base64');
  const plain = await encryption.decrypt({ salt: f(o.s), iv: f(o.i), authTag: f(o.t), ciphertext: f(o.c), iterations: o.n }, context);
  try {
    return JSON.parse(plain.toString('utf8')) as T;
  } finally {
    plain.fill(0);
  }
}
