// The database part of a backup: a consistent cut of the event store at one position, exported
// as it is (positions, hashes, previous hashes), plus the rows that are not events: private key
// material as stored (encrypted under KEY_ENCRYPTION_KEY, which is never exported), the canary
// that proves which KEY_ENCRYPTION_KEY they need, id counters and durable saga timers. One
// REPEATABLE READ transaction gives every file the same snapshot. Read models, sessions and saga
// checkpoints are not exported: a restore rebuilds them from the events.
//
//   exportDatabase(pool, dir)   -> manifest (eventPosition, lastHash, row counts)
//   importDatabase(pool, dir)   -> rows per table (into an empty, migrated database)
//   readEventsFile(dir)         -> async batches of events, for verification before import
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import readline from 'node:readline';
import type pg from 'pg';
import { once } from 'node:events';
import type { RecordedEvent } from '../../domain/shared/eventStore.ts';

export const DATABASE_DIR = 'database';
export const MANIFEST = 'manifest.json';
/** Tables exported besides `events`, in import order. */
export const ROW_TABLES = ['key_material', 'key_encryption_canary', 'id_counters', 'saga_timers'] as const;

export interface DatabaseManifest {
  format: 'lnm-backup/1';
  eventPosition: number;
  lastHash: string;
  rows: Record<string, number>;
}

async function writeLines(file: string, produce: (write: (line: string) => Promise<void>) => Promise<void>): Promise<void> {
  const out = createWriteStream(file, { mode: 0o600 });
  const write = async (line: string) => {
    if (!out.write(line + '\n')) await once(out, 'drain');
  };
  await produce(write);
  out.end();
  await once(out, 'finish');
}

export async function exportDatabase(pool: pg.Pool, dir: string, batch = 2000): Promise<DatabaseManifest> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const client = await pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const head = await client.query('SELECT position, hash FROM events ORDER BY position DESC LIMIT 1');
    const eventPosition = head.rowCount ? Number(head.rows[0].position) : 0;
    const rows: Record<string, number> = { events: 0 };
    await writeLines(path.join(dir, 'events.jsonl'), async (write) => {
      for (let after = 0; ; ) {
        const r = await client.query('SELECT row_to_json(e)::text AS j, position FROM events e WHERE position > $1 AND position <= $2 ORDER BY position LIMIT $3', [after, eventPosition, batch]);
        for (const row of r.rows) await write(row.j);
        rows.events += r.rowCount ?? 0;
        if ((r.rowCount ?? 0) < batch) break;
        after = Number(r.rows[r.rows.length - 1].position);
      }
    });
    for (const table of ROW_TABLES) {
      const r = await client.query(`SELECT row_to_json(t)::text AS j FROM ${table} t`);
      rows[table] = r.rowCount ?? 0;
      await writeLines(path.join(dir, `${table}.jsonl`), async (write) => {
        for (const row of r.rows) await write(row.j);
      });
    }
    await client.query('COMMIT');
    const manifest: DatabaseManifest = { format: 'lnm-backup/1', eventPosition, lastHash: head.rowCount ? head.rows[0].hash : '0'.repeat(64), rows };
    await writeFile(path.join(dir, MANIFEST), JSON.stringify(manifest, null, 2), { mode: 0o600 });
    return manifest;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

export async function readManifest(dir: string): Promise<DatabaseManifest> {
  const m = JSON.parse(await readFile(path.join(dir, MANIFEST), 'utf8')) as DatabaseManifest;
  if (m.format !== 'lnm-backup/1') throw new Error(`unknown backup format ${String(m.format)}`);
  return m;
}

async function* jsonLines(file: string, batch: number): AsyncGenerator<Array<Record<string, unknown>>> {
  const rl = readline.createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  let rows: Array<Record<string, unknown>> = [];
  for await (const line of rl) {
    if (!line.trim()) continue;
    rows.push(JSON.parse(line) as Record<string, unknown>);
    if (rows.length >= batch) {
      yield rows;
      rows = [];
    }
  }
  if (rows.length) yield rows;
}

export function toRecordedEvent(r: Record<string, unknown>): RecordedEvent {
  return {
    position: Number(r.position), streamId: String(r.stream_id), version: Number(r.version), id: String(r.id), type: String(r.type),
    data: r.data as RecordedEvent['data'], metadata: r.metadata as RecordedEvent['metadata'], prevHash: String(r.prev_hash), hash: String(r.hash),
  };
}

export async function* readEventsFile(dir: string, batch = 2000): AsyncGenerator<RecordedEvent[]> {
  for await (const rows of jsonLines(path.join(dir, 'events.jsonl'), batch)) yield rows.map(toRecordedEvent);
}

/** Into an empty, migrated database. json_populate_recordset reads each column back from its JSON text (bytea as \x hex). */
export async function importDatabase(pool: pg.Pool, dir: string, onProgress?: (table: string, rows: number) => void): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    for (const table of ['events', ...ROW_TABLES]) {
      counts[table] = 0;
      if (table !== 'events') await client.query(`DELETE FROM ${table}`);
      for await (const rows of jsonLines(path.join(dir, `${table}.jsonl`), 1000)) {
        // Only the exported columns: a column added later keeps its default.
        const cols = Object.keys(rows[0]).map((c) => `"${c.replace(/"/g, '""')}"`).join(', ');
        await client.query(`INSERT INTO ${table} (${cols}) SELECT ${cols} FROM json_populate_recordset(null::${table}, $1::json)`, [JSON.stringify(rows)]);
        counts[table] += rows.length;
        onProgress?.(table, counts[table]);
      }
    }
    await client.query('COMMIT');
    return counts;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}
