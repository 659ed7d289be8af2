import type pg from 'pg';

/** Integer ids per resource kind, from one counter row each (gaps after a failed command are harmless). */
export function postgresIdAllocator(pool: pg.Pool): (kind: string) => Promise<number> {
  return async (kind) => {
    const r = await pool.query(
      `INSERT INTO id_counters (kind, last) VALUES ($1, 1)
       ON CONFLICT (kind) DO UPDATE SET last = id_counters.last + 1 RETURNING last`,
      [kind],
    );
    return Number(r.rows[0].last);
  };
}
