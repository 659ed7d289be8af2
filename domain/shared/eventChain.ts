import { createHash } from 'node:crypto';
import type { JsonValue, RecordedEvent } from './eventStore.ts';

// The hash chain: hash_n = SHA-256(prevHash_n || canonicalEventText_n), hex encoded,
// with prevHash_1 = 64 zeros. The canonical text is stable across adapters and across
// a jsonb round trip: keys sorted by code unit, no insignificant white space.

export const GENESIS_HASH = '0'.repeat(64);

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError('non-finite number in event');
    if (value === undefined) return 'null';
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return '[' + value.map((v) => canonicalJson(v === undefined ? null : v)).join(',') + ']';
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).filter((k) => obj[k] !== undefined).sort();
  return '{' + keys.map((k) => JSON.stringify(k) + ':' + canonicalJson(obj[k])).join(',') + '}';
}

export interface ChainInput {
  position: number;
  streamId: string;
  version: number;
  id: string;
  type: string;
  data: JsonValue;
  metadata: unknown;
}

/** The body that is hashed, without the previous hash. */
export function canonicalEventText(e: Omit<ChainInput, 'position' | 'streamId' | 'version'>): string {
  return canonicalJson({ data: e.data, id: e.id, metadata: e.metadata, type: e.type });
}

export function chainPreimage(prevHash: string, e: ChainInput): string {
  return `${prevHash}|${e.position}|${e.streamId}|${e.version}|${canonicalEventText(e)}`;
}

export function chainHash(prevHash: string, e: ChainInput): string {
  return createHash('sha256').update(chainPreimage(prevHash, e), 'utf8').digest('hex');
}

/**
 * The type of a withheld stub (RecordedEvent.withheld): an event whose content a backup left out
 * because the audit setting include_in_backups was false. No event is ever appended with it.
 */
export const WITHHELD_EVENT_TYPE = '$withheld';

/**
 * What `lnm restore` appends to the restored store, on the chain like any event: the backup, its
 * cut (eventPosition) and how many stubs it held (withheld). A later backup of a restored server
 * keeps the stubs as stubs and counts them again, so the last restore accounts for every stub;
 * the event store's verify holds the stubs against it, so that a row turned into a stub behind
 * the service's back is not taken for a withheld entry.
 */
export const WITHHELD_RESTORE_EVENT = 'EventStoreRestored';
export const RESTORES_STREAM = 'event-store-restores';

/**
 * Check a contiguous run of recorded events against the chain; `prevHash` is the hash before the
 * first one. A withheld stub has no content to hash: its position and both of its links are
 * checked (its previous hash against the event before it, its own hash against the next event's
 * previous hash), and it is counted in `withheld`. Changing a stub's hash therefore breaks the
 * link of the event after it, and a kept event next to a stub is checked in full as always.
 */
export function verifyRun(
  prevHash: string,
  events: RecordedEvent[],
  expectedFirstPosition: number,
): { ok: true; lastHash: string; withheld: number } | { ok: false; position: number; reason: 'hash_mismatch' | 'broken_link' | 'gap'; expected: string; actual: string } {
  let prev = prevHash;
  let expectedPos = expectedFirstPosition;
  let withheld = 0;
  for (const e of events) {
    if (e.position !== expectedPos) return { ok: false, position: expectedPos, reason: 'gap', expected: String(expectedPos), actual: String(e.position) };
    if (e.prevHash !== prev) return { ok: false, position: e.position, reason: 'broken_link', expected: prev, actual: e.prevHash };
    if (e.withheld) withheld++;
    else {
      const h = chainHash(prev, e);
      if (h !== e.hash) return { ok: false, position: e.position, reason: 'hash_mismatch', expected: h, actual: e.hash };
    }
    prev = e.hash;
    expectedPos++;
  }
  return { ok: true, lastHash: prev, withheld };
}
