// verify() for the PostgreSQL store. The fast path recomputes the chain inside PostgreSQL, a
// range of positions per statement: sha256() over each row's stored body (the canonical text its
// hash was computed over), the link to the previous row and gapless positions. That the body still
// says what the row's id, type, data and metadata columns say is proven once per verify from the
// catalog: the CHECK constraint events_body_matches_columns (migration 1140), validated and
// enforced, makes PostgreSQL refuse any row whose columns disagree with its body. When that proof
// is missing (the constraint dropped, left NOT VALID or NOT ENFORCED, or changed), each body is
// parsed and compared with its columns instead, as before. Only the first suspect position of a
// range comes back. From there the range is checked again the way it always was (re-serialise
// in JavaScript, domain/shared/eventChain.ts), which names the entry and the reason exactly as
// before and also covers rows that have no body (written before migration 0600, not backfilled).
import type pg from 'pg';
import { GENESIS_HASH, WITHHELD_RESTORE_EVENT, verifyRun } from '../../domain/shared/eventChain.ts';
import type { ChainVerification, EventMetadata, RecordedEvent } from '../../domain/shared/eventStore.ts';

const COLUMNS = 'position, stream_id, version, id, type, data, metadata, prev_hash, hash, withheld';
const FAST_RANGE = 25_000;
/** Ranges checked at once, each on its own connection: the hashing is CPU-bound in each backend. */
const PARALLEL_RANGES = 4;
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
    ...(r.withheld === true ? { withheld: true as const } : {}),
  };
}

/** pg_get_constraintdef() of the constraint as migration 1140 creates it (PostgreSQL 18). */
export const BODY_CONSTRAINT_DEF =
  "CHECK (((body IS NULL) OR ((body)::jsonb = jsonb_build_object('data', data, 'id', (id)::text, 'metadata', metadata, 'type', type))))";

/**
 * True when PostgreSQL itself holds every row's columns to its body: the constraint is there with
 * exactly its definition, validated (so rows older than it were checked too) and enforced.
 */
export async function bodyConstraintHolds(pool: pg.Pool): Promise<boolean> {
  const r = await pool.query(
    `SELECT c.convalidated, pg_get_constraintdef(c.oid) AS def, to_jsonb(c)->>'conenforced' AS enforced
     FROM pg_constraint c WHERE c.conrelid = 'events'::regclass AND c.conname = 'events_body_matches_columns'`,
  );
  if (r.rowCount !== 1) return false;
  const c = r.rows[0];
  return c.convalidated === true && c.enforced !== 'false' && c.def === BODY_CONSTRAINT_DEF;
}

// $1..$2 is the range, $3 the hash before it when $1 is the first position (otherwise the
// stored hash of the row before the range, which the range before checks, is the seam: so
// ranges check independently and several run at once). `suspect` is the first position where
// anything is off: a missing position, a broken link, a recomputed hash that differs, or no body.
// A withheld stub (migration 1110) has no body to hash: only its links are checked.
// One scan of the range in position order; the window carries only narrow values.
const HASH_MATCHES = `e.hash = encode(sha256(convert_to(e.prev_hash || '|' || e.position || '|' || e.stream_id || '|' || e.version || '|' || e.body, 'UTF8')), 'hex')`;
const FAST_SQL = `
SELECT count(*) FILTER (WHERE l.position >= $1)::int AS n,
  min(CASE WHEN l.position <> coalesce(l.before_pos + 1, $1) THEN coalesce(l.before_pos + 1, $1)
           WHEN l.prev_hash IS DISTINCT FROM coalesce(l.before_hash, $3) OR NOT l.hash_ok THEN l.position END) FILTER (WHERE l.position >= $1) AS suspect
FROM (
  SELECT e.position, e.prev_hash, lag(e.position) OVER w AS before_pos, lag(e.hash) OVER w AS before_hash, coalesce(e.withheld OR ${HASH_MATCHES}, false) AS hash_ok
  FROM events e WHERE e.position BETWEEN $1 - 1 AND $2
  WINDOW w AS (ORDER BY e.position)
) l`;

// Without the constraint's proof: the same, and each body parsed and compared with the columns
// (a body that says something else than the columns is suspect). Two scans of the range: the
// links over narrow rows (a window over whole rows would spill to disk), and each row's own hash
// and body without a window.
const FAST_SQL_COMPARING_COLUMNS = `
WITH links AS (
  SELECT count(*) FILTER (WHERE l.position >= $1)::int AS n,
    min(CASE WHEN l.position <> coalesce(l.before_pos + 1, $1) THEN coalesce(l.before_pos + 1, $1)
             WHEN l.prev_hash IS DISTINCT FROM coalesce(l.before_hash, $3) THEN l.position END) FILTER (WHERE l.position >= $1) AS suspect
  FROM (
    SELECT e.position, e.prev_hash, lag(e.position) OVER w AS before_pos, lag(e.hash) OVER w AS before_hash
    FROM events e WHERE e.position BETWEEN $1 - 1 AND $2
    WINDOW w AS (ORDER BY e.position)
  ) l
), rows AS (
  -- OFFSET 0 keeps the subquery whole, so each body is parsed once, not once per use.
  SELECT min(e.position) AS suspect
  FROM (SELECT e.*, e.body::jsonb AS b FROM events e WHERE e.position BETWEEN $1 AND $2 OFFSET 0) e
  WHERE NOT coalesce(e.withheld OR (
    ${HASH_MATCHES}
    AND e.b->>'id' = e.id::text AND e.b->>'type' = e.type AND e.b->'data' = e.data AND e.b->'metadata' = e.metadata),
    false)
)
SELECT links.n, least(links.suspect, rows.suspect) AS suspect FROM links, rows`;

/** The first suspect position of [from, to], or null when every position is there and sound. */
async function checkRangeInDatabase(pool: pg.Pool, from: number, to: number, columnsProven: boolean): Promise<number | null> {
  try {
    const res = await pool.query(columnsProven ? FAST_SQL : FAST_SQL_COMPARING_COLUMNS, [from, to, from === 1 ? GENESIS_HASH : null]);
    const r = res.rows[0];
    if (r.suspect !== null) return Number(r.suspect);
    // Rows missing at the end of the range leave no row to flag.
    return r.n === to - from + 1 ? null : from + r.n;
  } catch {
    // A body that no longer parses as JSON: let the JavaScript path judge the range.
    return from;
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

/**
 * What the JavaScript path reported as `actual` for a gap when it read the whole verify range in
 * batches of JS_BATCH: the next position present within a batch's reach, or 'missing'. A range
 * of the fast path may end sooner, so the answer is looked up rather than taken from it.
 */
async function positionAfterGap(pool: pg.Pool, gap: number, to: number): Promise<string> {
  const r = await pool.query('SELECT min(position) AS p FROM events WHERE position > $1 AND position <= $2', [gap, Math.min(to, gap + JS_BATCH - 1)]);
  return r.rows[0].p === null ? 'missing' : String(r.rows[0].p);
}

export async function verifyChain(pool: pg.Pool, from: number, to: number, rangeSize = FAST_RANGE): Promise<ChainVerification> {
  if (from > 1 && (await hashAt(pool, from - 1)) === null) {
    return { ok: false, checked: 0, fromPosition: from, toPosition: to, firstMismatch: { position: from - 1, reason: 'gap', expected: 'an event', actual: 'none' } };
  }
  const columnsProven = await bodyConstraintHolds(pool);
  const ranges: Array<[number, number]> = [];
  for (let start = from; start <= to; start += rangeSize) ranges.push([start, Math.min(to, start + rangeSize - 1)]);
  for (let w = 0; w < ranges.length; w += PARALLEL_RANGES) {
    const wave = ranges.slice(w, w + PARALLEL_RANGES);
    const suspects = await Promise.all(wave.map(([start, end]) => checkRangeInDatabase(pool, start, end, columnsProven)));
    for (let k = 0; k < wave.length; k++) {
      const suspect = suspects[k];
      if (suspect === null) continue;
      // Everything before the suspect is sound (the ranges before it and this one up to it).
      const before = suspect === 1 ? GENESIS_HASH : await hashAt(pool, suspect - 1);
      const js = await checkRangeInJs(pool, suspect, wave[k][1], before ?? GENESIS_HASH);
      if (!js.ok) {
        if (js.mismatch.reason === 'gap') js.mismatch.actual = await positionAfterGap(pool, js.mismatch.position, to);
        return { ok: false, checked: suspect - from + js.checked, fromPosition: from, toPosition: to, firstMismatch: js.mismatch };
      }
    }
  }
  // Withheld stubs are rare (only on a server restored from a backup without its audit
  // entries): a partial index answers this at once.
  const withheld = Number((await pool.query('SELECT count(*) AS n FROM events WHERE withheld AND position BETWEEN $1 AND $2', [from, to])).rows[0].n);
  if (withheld === 0) return { ok: true, checked: Math.max(0, to - from + 1), fromPosition: from, toPosition: to };
  const unaccounted = await unaccountedStub(pool);
  if (unaccounted) return { ok: false, checked: Math.max(0, unaccounted.position - from), fromPosition: from, toPosition: to, firstMismatch: { ...unaccounted, reason: 'unexpected_withheld' } };
  return { ok: true, checked: Math.max(0, to - from + 1), fromPosition: from, toPosition: to, withheld };
}

/**
 * The stubs held against the last restore (WITHHELD_RESTORE_EVENT, itself on the verified
 * chain): none after its cut, and as many up to it as it recorded. The first stub that breaks
 * this, or null. A row turned into a stub behind the service's back shows here.
 */
async function unaccountedStub(pool: pg.Pool): Promise<{ position: number; expected: string; actual: string } | null> {
  const r = await pool.query(`SELECT position, data FROM events WHERE type = $1 ORDER BY position DESC LIMIT 1`, [WITHHELD_RESTORE_EVENT]);
  const first = async (cond: string, args: unknown[]) => Number((await pool.query(`SELECT min(position) AS p FROM events WHERE withheld AND ${cond}`, args)).rows[0].p);
  if (r.rowCount === 0) return { position: await first('true', []), expected: 'no withheld entry (this store was not restored from a backup)', actual: 'a withheld entry' };
  const cut = Number(r.rows[0].data.eventPosition);
  const recorded = Number(r.rows[0].data.withheld ?? 0);
  const after = await first('position > $1', [cut]);
  if (after) return { position: after, expected: `no withheld entry after position ${cut} (the cut of the last restore)`, actual: 'a withheld entry' };
  const count = Number((await pool.query('SELECT count(*) AS n FROM events WHERE withheld AND position <= $1', [cut])).rows[0].n);
  if (count !== recorded) return { position: await first('true', []), expected: `${recorded} withheld entries (recorded by the last restore)`, actual: `${count}` };
  return null;
}
