// verify() for the PostgreSQL store. The fast path recomputes the chain inside PostgreSQL, a
// range of positions per statement: sha256() over each row's stored body (the canonical text its
// hash was computed over), the link to the previous row, gapless positions, and that the body
// still says what the row's columns say (body::jsonb against id, type, data, metadata, so a row
// changed behind the service's back is caught even when its body was left alone). Only the
// first suspect position of a range comes back. From there the range is checked again the way
// it always was (re-serialise in JavaScript, domain/shared/eventChain.ts), which names the entry
// and the reason exactly as before and also covers rows written before bodies were stored.
import type pg from 'pg';
import { GENESIS_HASH, verifyRun } from '../../domain/shared/eventChain.ts';
import type { ChainVerification, EventMetadata, RecordedEvent } from '../../domain/shared/eventStore.ts';

const COLUMNS = 'position, stream_id, version, id, type, data, metadata, prev_hash, hash';
const FAST_RANGE = 25_000;
const JS_BATCH = 5_000;

export function toRecorded(r: Record<string, unknown>): RecordedEvent {
  return {
    position: Number(r.position),
    streamId: r.stream_id as string,
    version: r.version as number,
    id: r.id as string,
    type: r.type as string,
    data: r.data as RecordedEvent['data'],
    metadata: r.metadata as EventMetadata,
    prevHash: r.prev_hash as string,
    hash: r.hash as string,
  };
}

// $1..$2 is the range, $3 the hash before it. `suspect` is the first position where anything is
// off: a missing position (the one after the last row present), a broken link, a recomputed
// hash that differs, a body that differs from the columns, or no body at all.
const FAST_SQL = `
WITH r AS (
  SELECT position, prev_hash, hash,
    lag(position) OVER w AS before_pos,
    lag(hash) OVER w AS before_hash,
    body IS NOT NULL
      AND hash = encode(sha256(convert_to(prev_hash || '|' || position || '|' || stream_id || '|' || version || '|' || body, 'UTF8')), 'hex')
      AND body::jsonb = jsonb_build_object('data', data, 'id', id, 'metadata', metadata, 'type', type) AS sound
  FROM events WHERE position BETWEEN $1 AND $2
  WINDOW w AS (ORDER BY position)
)
SELECT count(*)::int AS n,
  min(CASE WHEN position <> coalesce(before_pos + 1, $1) THEN coalesce(before_pos + 1, $1)
           WHEN prev_hash <> coalesce(before_hash, $3) OR sound IS NOT TRUE THEN position END) AS suspect,
  max(CASE WHEN position = $2 THEN hash END) AS last_hash
FROM r`;

interface FastRange {
  /** null: every position of the range is present and sound; lastHash is the range's last hash. */
  suspect: number | null;
  lastHash: string | null;
}

async function checkRangeInDatabase(pool: pg.Pool, from: number, to: number, prevHash: string): Promise<FastRange> {
  try {
    const res = await pool.query(FAST_SQL, [from, to, prevHash]);
    const r = res.rows[0];
    if (r.suspect !== null) return { suspect: Number(r.suspect), lastHash: null };
    // Rows missing at the end of the range leave no row to flag.
    if (r.n !== to - from + 1) return { suspect: from + r.n, lastHash: null };
    return { suspect: null, lastHash: r.last_hash as string };
  } catch {
    // A body that no longer parses as JSON: let the JavaScript path judge the range.
    return { suspect: from, lastHash: null };
  }
}

type JsRange = { ok: true; lastHash: string } | { ok: false; checked: number; mismatch: NonNullable<ChainVerification['firstMismatch']> };

/** The chain checked in JavaScript over [from, to], from the stored rows' columns. */
async function checkRangeInJs(pool: pg.Pool, from: number, to: number, prevHash: string): Promise<JsRange> {
  let prev = prevHash;
  let next = from;
  while (next <= to) {
    // A bounded range (not an open one with LIMIT) keeps the plan an index range scan even
    // when the table's statistics are stale.
    const res = await pool.query(`SELECT ${COLUMNS} FROM events WHERE position BETWEEN $1 AND $2 ORDER BY position`, [next, Math.min(to, next + JS_BATCH - 1)]);
    if (res.rows.length === 0) return { ok: false, checked: next - from, mismatch: { position: next, reason: 'gap', expected: String(next), actual: 'missing' } };
    const events = res.rows.map(toRecorded);
    const r = verifyRun(prev, events, next);
    if (!r.ok) return { ok: false, checked: r.position - from, mismatch: { position: r.position, reason: r.reason, expected: r.expected, actual: r.actual } };
    prev = r.lastHash;
    next = events[events.length - 1].position + 1;
  }
  return { ok: true, lastHash: prev };
}

async function hashAt(pool: pg.Pool, position: number): Promise<string | null> {
  const r = await pool.query('SELECT hash FROM events WHERE position = $1', [position]);
  return r.rowCount === 0 ? null : (r.rows[0].hash as string);
}

export async function verifyChain(pool: pg.Pool, from: number, to: number): Promise<ChainVerification> {
  let prev = GENESIS_HASH;
  if (from > 1) {
    const h = await hashAt(pool, from - 1);
    if (h === null) return { ok: false, checked: 0, fromPosition: from, toPosition: to, firstMismatch: { position: from - 1, reason: 'gap', expected: 'an event', actual: 'none' } };
    prev = h;
  }
  let next = from;
  while (next <= to) {
    const end = Math.min(to, next + FAST_RANGE - 1);
    const fast = await checkRangeInDatabase(pool, next, end, prev);
    if (fast.suspect === null) {
      prev = fast.lastHash!;
      next = end + 1;
      continue;
    }
    // Everything before the suspect is sound, its hash included.
    const before = fast.suspect === next ? prev : await hashAt(pool, fast.suspect - 1);
    const js = await checkRangeInJs(pool, fast.suspect, end, before ?? prev);
    if (!js.ok) return { ok: false, checked: fast.suspect - from + js.checked, fromPosition: from, toPosition: to, firstMismatch: js.mismatch };
    prev = js.lastHash;
    next = end + 1;
  }
  return { ok: true, checked: to - from + 1, fromPosition: from, toPosition: to };
}
