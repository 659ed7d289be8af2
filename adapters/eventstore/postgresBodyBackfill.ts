// Gives events written before migration 0600 the body the fast verify hashes
// (adapters/eventstore/postgresChainVerify.ts): the canonical text of each row's columns,
// computed by the same function the hash was computed with (domain/shared/eventChain.ts), so a
// body is exactly what the old verify recomputed. A row gets a body only when that text hashes,
// with the row's previous hash, position, stream and version, to the row's stored hash; the
// append-only trigger (migration 1140) checks the same and refuses anything else. A row whose
// columns were changed behind the service's back therefore keeps no body, and verify names it.
// The server runs it in the background after the migrations (about 9 s per 100,000 rows here;
// meanwhile verify checks a row without a body the old way); restore runs it before its verify.
// With nothing left to fill it costs one index probe.
import type pg from 'pg';
import { canonicalEventText, chainHash } from '../../domain/shared/eventChain.ts';
import { toRecorded } from './postgresChainVerify.ts';

const BATCH = 2_000;

export interface BodyBackfill {
  /** Rows given a body. */
  filled: number;
  /** Rows left without one: their columns do not hash to their stored hash. */
  unmatched: number;
  /** The first of those, the position verify will name. */
  firstUnmatched: number | null;
}

export interface BackfillOptions {
  /** Rows read and written per statement. */
  batch?: number;
  /** Asked before each batch: true ends the backfill there (the server is closing); what is filled stays. */
  stop?: () => boolean;
}

export async function backfillEventBodies(pool: pg.Pool, { batch = BATCH, stop = () => false }: BackfillOptions = {}): Promise<BodyBackfill> {
  const result: BodyBackfill = { filled: 0, unmatched: 0, firstUnmatched: null };
  for (let after = 0; !stop();) {
    // Through events_body_missing_idx: only rows without a body are read. A withheld stub
    // (migration 1110, written by a restore) has no body by design and is no row to fill.
    const res = await pool.query(
      'SELECT position, stream_id, version, id, type, data, metadata, prev_hash, hash FROM events WHERE body IS NULL AND NOT withheld AND position > $1 ORDER BY position LIMIT $2',
      [after, batch],
    );
    if (res.rows.length === 0) return result;
    const positions: number[] = [];
    const bodies: string[] = [];
    for (const e of res.rows.map(toRecorded)) {
      if (chainHash(e.prevHash, e) === e.hash) {
        positions.push(e.position);
        bodies.push(canonicalEventText(e));
      } else {
        result.unmatched++;
        result.firstUnmatched ??= e.position;
      }
    }
    if (positions.length) {
      const u = await pool.query(
        'UPDATE events e SET body = v.body FROM unnest($1::bigint[], $2::text[]) AS v(position, body) WHERE e.position = v.position AND e.body IS NULL',
        [positions, bodies],
      );
      result.filled += u.rowCount ?? 0;
    }
    after = Number(res.rows[res.rows.length - 1].position);
  }
  return result;
}
