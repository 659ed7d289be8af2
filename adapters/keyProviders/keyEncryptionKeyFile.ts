// Where KEY_ENCRYPTION_KEY comes from when the operator did not set it: a file
// `<dataDir>/key-encryption-key` holding 64 hex characters (32 random bytes), created on the
// first start with mode 0600 and reused afterwards. Losing it makes stored keys undecryptable,
// so it is never overwritten.
//
//   resolveKeyEncryptionKey({ env, dataDir }) -> { key, source: 'env' | 'file' | 'generated', path? }
//   loadOrCreateKeyEncryptionKey(dataDir)     -> { key, created, path }
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { checkKeyEncryptionKey, KeyEncryptionKeyError } from './keyEncryption.ts';

export const KEY_ENCRYPTION_KEY_FILE = 'key-encryption-key';

export interface LoadedKeyEncryptionKey {
  key: string;
  created: boolean;
  path: string;
}

export function loadOrCreateKeyEncryptionKey(dataDir: string): LoadedKeyEncryptionKey {
  const file = path.join(dataDir, KEY_ENCRYPTION_KEY_FILE);
  const existing = readKeyFile(file);
  if (existing !== null) return { key: existing, created: false, path: file };

  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const key = randomBytes(32).toString('hex');
  try {
    // 'wx': never replace a file that appeared meanwhile (two servers starting together).
    writeFileSync(file, key + '\n', { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const raced = readKeyFile(file);
    if (raced === null) throw new KeyEncryptionKeyError(`${file} exists but could not be read.`);
    return { key: raced, created: false, path: file };
  }
  return { key, created: true, path: file };
}

export function resolveKeyEncryptionKey(opts: { env: Record<string, string | undefined>; dataDir: string }): {
  key: string;
  source: 'env' | 'file' | 'generated';
  path?: string;
} {
  const fromEnv = opts.env.KEY_ENCRYPTION_KEY;
  if (fromEnv !== undefined && fromEnv !== '') {
    checkKeyEncryptionKey(fromEnv);
    return { key: fromEnv, source: 'env' };
  }
  const loaded = loadOrCreateKeyEncryptionKey(opts.dataDir);
  return { key: loaded.key, source: loaded.created ? 'generated' : 'file', path: loaded.path };
}

function readKeyFile(file: string): string | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const key = text.trim();
  if (key === '') throw new KeyEncryptionKeyError(`${file} is empty; restore it from a backup, or remove it only if no keys were ever stored.`);
  checkKeyEncryptionKey(key);
  // Someone loosened the permissions: tighten them back rather than refuse to start.
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  return key;
}
