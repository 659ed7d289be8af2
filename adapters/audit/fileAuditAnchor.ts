// The audit anchor kept in the data directory: checkpoints appended, one JSON line each, to
// `<dataDir>/audit-checkpoints.jsonl` (mode 0600), signed with HMAC-SHA256 under a key derived
// from KEY_ENCRYPTION_KEY (HKDF, its own label): neither the file nor the key is in the database,
// so a database user who rewrites the events table can neither move nor forge the anchor.
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import path from 'node:path';
import { checkpointText, type AuditAnchor, type AuditCheckpoint } from '../../domain/audit/checkpoints.ts';

export const AUDIT_CHECKPOINT_FILE = 'audit-checkpoints.jsonl';

export function createFileAuditAnchor(opts: { dataDir: string; keyEncryptionKey: string; witnessUrl?: string }): AuditAnchor {
  const key = Buffer.from(hkdfSync('sha256', opts.keyEncryptionKey, 'lnm', 'audit checkpoint signature', 32));
  const file = path.join(opts.dataDir, AUDIT_CHECKPOINT_FILE);
  const mac = (c: Omit<AuditCheckpoint, 'signature'>) => createHmac('sha256', key).update(checkpointText(c)).digest('hex');
  return {
    ...(opts.witnessUrl ? { witnessUrl: opts.witnessUrl } : {}),
    sign: (c) => ({ height: c.height, headHash: c.headHash, at: c.at, signer: c.signer, signature: mac(c) }),
    verify(c) {
      const want = Buffer.from(mac(c), 'hex');
      const got = Buffer.from(typeof c.signature === 'string' && /^[0-9a-f]{64}$/.test(c.signature) ? c.signature : '', 'hex');
      return got.length === want.length && timingSafeEqual(got, want);
    },
    async save(c) {
      await mkdir(opts.dataDir, { recursive: true, mode: 0o700 });
      await appendFile(file, JSON.stringify(c) + '\n', { mode: 0o600 });
    },
    async list(limit) {
      let text = '';
      try {
        text = await readFile(file, 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw err;
      }
      const lines = text.split('\n').filter((l) => l.trim() !== '');
      return lines.slice(-limit).reverse().map((l) => {
        try {
          const c = JSON.parse(l) as AuditCheckpoint;
          return Number.isSafeInteger(c.height) && typeof c.headHash === 'string' && typeof c.at === 'string' && typeof c.signer === 'string' ? c : null;
        } catch {
          return null;
        }
      });
    },
  };
}
