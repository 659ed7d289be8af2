// Runs migrations/*.sql in name order, each once, each in its own transaction. An advisory
// lock serializes servers that start together. A landed migration is never edited: its
// checksum is recorded and a changed file stops the start-up with a clear message.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';

// From the sources (adapters/postgres/) or from the bundle npm start runs (dist/lnm.mjs, bin/compile.ts).
const here = path.dirname(fileURLToPath(import.meta.url));
export const migrationsDir = path.basename(here) === 'dist' ? path.resolve(here, '..', 'migrations') : path.resolve(here, '..', '..', 'migrations');

export interface MigrationResult {
  applied: string[];
  alreadyApplied: number;
}

export async function migrate(pool: pg.Pool, dir = migrationsDir): Promise<MigrationResult> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock(7243000)');
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      name text PRIMARY KEY, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const done = new Map<string, string>(
      (await client.query('SELECT name, checksum FROM schema_migrations')).rows.map((r) => [r.name as string, r.checksum as string]),
    );
    const files = readdirSync(dir).filter((f) => f.endsWith('.sql')).sort();
    const applied: string[] = [];
    for (const file of files) {
      const sql = readFileSync(path.join(dir, file), 'utf8');
      const checksum = createHash('sha256').update(sql).digest('hex');
      const prior = done.get(file);
      if (prior !== undefined) {
        if (prior !== checksum) throw new Error(`migration ${file} was changed after it was applied; add a new migration instead`);
        continue;
      }
      await client.query('BEGIN');
      try {
        await client.query(sql);
        await client.query('INSERT INTO schema_migrations (name, checksum) VALUES ($1, $2)', [file, checksum]);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${file} failed: ${(err as Error).message}`);
      }
      applied.push(file);
    }
    return { applied, alreadyApplied: done.size };
  } finally {
    await client.query('SELECT pg_advisory_unlock(7243000)').catch(() => {});
    client.release();
  }
}
