// The audit trail's anchor: a signed checkpoint of the chain's height and head hash, kept
// outside the database (a database user who can rewrite the events table cannot rewrite or
// forge it). Verify compares the chain with the newest checkpoints: a head below a
// checkpoint's height is a truncated tail, another hash at its height a rewritten one.

export interface AuditCheckpoint {
  /** The chain's height (the newest event position) when signed. */
  height: number;
  /** The hash of the event at that height. */
  headHash: string;
  /** ISO 8601 UTC. */
  at: string;
  /** Who signed: this service (its instance id). */
  signer: string;
  /** The signature over checkpointText (HMAC-SHA256, hex). */
  signature: string;
}

/** The exact text a checkpoint's signature covers. */
export const checkpointText = (c: Pick<AuditCheckpoint, 'height' | 'headHash' | 'at' | 'signer'>): string => `lnm-audit-checkpoint|${c.height}|${c.headHash}|${c.at}|${c.signer}`;

/** Where checkpoints are signed, kept and (optionally) sent to a witness: outside the database. */
export interface AuditAnchor {
  sign(c: Omit<AuditCheckpoint, 'signature'>): AuditCheckpoint;
  /** Whether the signature is this service's over exactly these fields. */
  verify(c: AuditCheckpoint): boolean;
  save(c: AuditCheckpoint): Promise<void>;
  /** The newest first, at most `limit`; entries that do not parse are returned as null (a tampered file). */
  list(limit: number): Promise<Array<AuditCheckpoint | null>>;
  /** An external witness each checkpoint is also POSTed to (JSON), if configured. */
  witnessUrl?: string;
}

export type CheckpointFinding =
  | { ok: true; checkpoint: AuditCheckpoint }
  | { ok: false; reason: 'truncated' | 'head_rewritten' | 'checkpoint_forged'; checkpoint: AuditCheckpoint | null; message: string };

/** Judges one checkpoint against the chain now: its head, and the hash at the checkpoint's height (null when that position is gone). */
export function judgeCheckpoint(c: AuditCheckpoint | null, signed: boolean, head: number, hashAtHeight: string | null): CheckpointFinding {
  if (!c || !signed) return { ok: false, reason: 'checkpoint_forged', checkpoint: c, message: `A checkpoint${c ? ` (height ${c.height})` : ''} does not carry this service's signature: the checkpoint file was changed outside the service.` };
  if (head < c.height || hashAtHeight === null) {
    return { ok: false, reason: 'truncated', checkpoint: c, message: `The chain's head at checkpoint ${c.height} (${c.at}) was ${c.headHash}; now the chain ends at entry ${head}: entries ${head + 1}-${c.height} were removed outside the service.` };
  }
  if (hashAtHeight !== c.headHash) {
    return { ok: false, reason: 'head_rewritten', checkpoint: c, message: `The chain's head at checkpoint ${c.height} (${c.at}) was ${c.headHash}; now entry ${c.height} hashes to ${hashAtHeight}: the chain up to it was rewritten outside the service.` };
  }
  return { ok: true, checkpoint: c };
}
