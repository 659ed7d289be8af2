// The file storage backend of the Vault stand-in in server mode, shaped after Vault's: the seal
// configuration in clear, everything else (mounts, keys, secrets, tokens) in a barrier encrypted
// with a random key that only the unseal key shares open, so a restarted stand-in comes back
// sealed and knows nothing until it is unsealed. Simplification: each share wraps the barrier key
// (AES-256-GCM under SHA-256 of the share) instead of Shamir; the threshold is counted by the
// stand-in, not enforced by the cryptography.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

interface Sealed {
  iv: string;
  tag: string;
  data: string;
}

export interface SealConfig {
  threshold: number;
  shareHashes: string[];
  /** The barrier key wrapped under each share, same order as shareHashes. */
  wrapped: Sealed[];
}

interface StoredVault {
  seal: SealConfig;
  barrier: Sealed;
}

const FILE = 'standin-vault.json';
const hashOf = (shareHex: string) => createHash('sha256').update(Buffer.from(shareHex, 'hex')).digest('hex');

function encrypt(key: Buffer, plain: Buffer): Sealed {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, iv);
  const data = Buffer.concat([c.update(plain), c.final()]);
  return { iv: iv.toString('base64'), tag: c.getAuthTag().toString('base64'), data: data.toString('base64') };
}

function decrypt(key: Buffer, s: Sealed): Buffer {
  const d = createDecipheriv('aes-256-gcm', key, Buffer.from(s.iv, 'base64'));
  d.setAuthTag(Buffer.from(s.tag, 'base64'));
  return Buffer.concat([d.update(Buffer.from(s.data, 'base64')), d.final()]);
}

export interface BarrierStorage {
  /** The seal configuration of an initialized Vault, or null when the directory holds none. */
  sealConfig(): SealConfig | null;
  /** At init: a new barrier key wrapped under each share, holding the first state. */
  initialize(sharesHex: string[], threshold: number, state: unknown): void;
  isShare(shareHex: string): boolean;
  /** Opens the barrier with one valid share; the decrypted state (null before the first write). */
  unseal(shareHex: string): unknown;
  /** Writes the state into the barrier (only while unsealed: the key is known then). */
  write(state: unknown): void;
  /** Forgets the barrier key (sealing). */
  seal(): void;
}

export function createBarrierStorage(dir: string): BarrierStorage {
  const file = path.join(dir, FILE);
  let stored: StoredVault | null = null;
  try {
    stored = JSON.parse(readFileSync(file, 'utf8')) as StoredVault;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  let barrierKey: Buffer | null = null;
  let pending: SealConfig | null = null;

  function persist(state: unknown) {
    const seal = stored?.seal ?? pending;
    if (!seal || !barrierKey) throw new Error('stand-in storage: write before init or while sealed');
    stored = { seal, barrier: encrypt(barrierKey, Buffer.from(JSON.stringify(state ?? null), 'utf8')) };
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(file + '.tmp', JSON.stringify(stored), { mode: 0o600 });
    renameSync(file + '.tmp', file);
  }

  return {
    sealConfig: () => stored?.seal ?? pending,
    initialize(sharesHex, threshold, state) {
      barrierKey = randomBytes(32);
      pending = { threshold, shareHashes: sharesHex.map(hashOf), wrapped: sharesHex.map((s) => encrypt(createHash('sha256').update(Buffer.from(s, 'hex')).digest(), barrierKey!)) };
      persist(state);
      // Vault starts sealed after init: the key is forgotten until the shares come back.
      barrierKey = null;
    },
    isShare: (shareHex) => (stored?.seal.shareHashes ?? []).includes(hashOf(shareHex)),
    unseal(shareHex) {
      const seal = stored!.seal;
      const i = seal.shareHashes.indexOf(hashOf(shareHex));
      barrierKey = decrypt(createHash('sha256').update(Buffer.from(shareHex, 'hex')).digest(), seal.wrapped[i]);
      return JSON.parse(decrypt(barrierKey, stored!.barrier).toString('utf8'));
    },
    write: persist,
    seal() {
      barrierKey = null;
    },
  };
}
