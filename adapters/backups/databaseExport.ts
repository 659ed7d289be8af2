// The database part of a backup: a consistent cut of the event store at one position, exported
// as it is (positions, hashes, previous hashes), plus the rows that are not events: private key
// material as stored (encrypted under KEY_ENCRYPTION_KEY, which is never exported), the canary
// that proves which KEY_ENCRYPTION_KEY they need, id counters, durable saga timers and the
// deployment id. One
// REPEATABLE READ transaction gives every file the same snapshot. Read models, sessions and saga
// checkpoints are not exported: a restore rebuilds them from the events.
//
//
// Without the audit entries (the audit setting include_in_backups false), events of the types
// named in `withholdTypes` (the audit-only events no read model needs) are exported as stubs:
// position, stream, version, id, previous hash and hash, nothing of their type, data, metadata,
// body or time. The chain still links through them (domain/shared/eventChain.ts verifyRun), so
// the restore proves every kept event and every link, and counts the stubs.
//
//   exportDatabase(pool, dir, opts) -> manifest (eventPosition, lastHash, withheld, row counts)
//   importDatabase(pool, dir)       -> rows per table (into an empty, migrated database)
//   readEventsFile(dir)             -> async batches of events
//   verifyEventsFile(dir, manifest) -> the chain of the exported events checked link by link
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import readline from 'node:readline';
import type pg from 'pg';
import { once } from 'node:events';
import { randomUUID } from 'node:crypto';
import type { EventStore, RecordedEvent } from '../../domain/shared/eventStore.ts';
import { GENESIS_HASH, RESTORES_STREAM, WITHHELD_EVENT_TYPE, WITHHELD_RESTORE_EVENT, verifyRun } from '../../domain/shared/eventChain.ts';

export const DATABASE_DIR = 'database';
export const MANIFEST = 'manifest.json';
/**
 * Tables exported besides `events`, in import order. deployment_identity: the restored database
 * keeps the deployment id, so it goes on managing the cluster objects labelled with it.
 */
export const ROW_TABLES = ['key_material', 'key_encryption_canary', 'id_counters', 'saga_timers', 'deployment_identity'] as const;
/** Tables a backup made before they existed has no file of: imported empty (deployment_identity: the first start makes a new id). */
const ADDED_LATER: ReadonlySet<string> = new Set(['deployment_identity']);

export interface DatabaseManifest {
  format: 'lnm-backup/1';
  eventPosition: number;
  lastHash: string;
  /** Whether the audit-only events are in full (include_in_backups); absent in backups made before it was honoured (they are). */
  auditIncluded?: boolean;
  /** How many events are withheld stubs, and of which types they were (absent: none). */
  withheld?: number;
  withheldTypes?: string[];
  rows: Record<string, number>;
}

export interface ExportOptions {
  /** Event types exported as hash-only stubs (empty: every event in full). */
  withholdTypes?: readonly string[];
  batch?: number;
}

// A stub keeps what the chain links need; a row that is already a stub (a server restored from
// a backup without its audit entries) stays one.
const EVENT_LINE_SQL = `
SELECT CASE WHEN e.withheld OR e.type = ANY ($4::text[])
         THEN json_build_object('position', e.position, 'stream_id', e.stream_id, 'version', e.version, 'id', e.id, 'prev_hash', e.prev_hash, 'hash', e.hash, 'withheld', true)::text
         ELSE row_to_json(e)::text END AS j,
       (e.withheld OR e.type = ANY ($4::text[])) AS stub, position
FROM events e WHERE position > $1 AND position <= $2 ORDER BY position LIMIT $3`;

async function writeLines(file: string, produce: (write: (line: string) => Promise<void>) => Promise<void>): Promise<void> {
  const out = createWriteStream(file, { mode: 0o600 });
  const write = async (line: string) => {
    if (!out.write(line + '\n')) await once(out, 'drain');
  };
  await produce(write);
  out.end();
  await once(out, 'finish');
}

export async function exportDatabase(pool: pg.Pool, dir: string, opts: ExportOptions = {}): Promise<DatabaseManifest> {
  const batch = opts.batch ?? 2000;
  const withholdTypes = [...(opts.withholdTypes ?? [])];
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const client = await pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const head = await client.query('SELECT position, hash FROM events ORDER BY position DESC LIMIT 1');
    const eventPosition = head.rowCount ? Number(head.rows[0].position) : 0;
    const rows: Record<string, number> = { events: 0 };
    let withheld = 0;
    await writeLines(path.join(dir, 'events.jsonl'), async (write) => {
      for (let after = 0; ; ) {
        const r = await client.query(EVENT_LINE_SQL, [after, eventPosition, batch, withholdTypes]);
        for (const row of r.rows) {
          if (row.stub) withheld++;
          await write(row.j);
        }
        rows.events += r.rowCount ?? 0;
        if ((r.rowCount ?? 0) < batch) break;
        after = Number(r.rows[r.rows.length - 1].position);
      }
    });
    for (const table of ROW_TABLES) {
      // A database not migrated as far as a table added later (an older build's, exported by this
      // one) has none: no file, which the import reads as empty.
      if (ADDED_LATER.has(table) && !(await client.query('SELECT to_regclass($1) IS NOT NULL AS present', [table])).rows[0].present) continue;
      const r = await client.query(`SELECT row_to_json(t)::text AS j FROM ${table} t`);
      rows[table] = r.rowCount ?? 0;
      await writeLines(path.join(dir, `${table}.jsonl`), async (write) => {
        for (const row of r.rows) await write(row.j);
      });
    }
    await client.query('COMMIT');
    const manifest: DatabaseManifest = {
      format: 'lnm-backup/1', eventPosition, lastHash: head.rowCount ? head.rows[0].hash : '0'.repeat(64),
      auditIncluded: withholdTypes.length === 0, ...(withheld > 0 ? { withheld, withheldTypes: withholdTypes } : {}), rows,
    };
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
  if (r.withheld === true) {
    return { position: Number(r.position), streamId: String(r.stream_id), version: Number(r.version), id: String(r.id), type: WITHHELD_EVENT_TYPE, data: {}, metadata: {} as RecordedEvent['metadata'], prevHash: String(r.prev_hash), hash: String(r.hash), withheld: true };
  }
  return {
    position: Number(r.position), streamId: String(r.stream_id), version: Number(r.version), id: String(r.id), type: String(r.type),
    data: r.data as RecordedEvent['data'], metadata: r.metadata as RecordedEvent['metadata'], prevHash: String(r.prev_hash), hash: String(r.hash),
  };
}

export async function* readEventsFile(dir: string, batch = 2000): AsyncGenerator<RecordedEvent[]> {
  for await (const rows of jsonLines(path.join(dir, 'events.jsonl'), batch)) yield rows.map(toRecordedEvent);
}

export class ExportedChainError extends Error {}

/**
 * The exported events checked link by link against the manifest: every kept event's hash
 * recomputed, every link (through the withheld stubs too) followed, gapless positions up to
 * the manifest's head, its last hash, and as many stubs as the manifest says were withheld
 * (a kept event turned into a stub behind the service's back makes the count differ).
 */
export async function verifyEventsFile(dir: string, manifest: DatabaseManifest, onProgress?: (position: number) => void): Promise<{ lastHash: string; withheld: number }> {
  let prev = GENESIS_HASH;
  let next = 1;
  let withheld = 0;
  for await (const batch of readEventsFile(dir)) {
    const r = verifyRun(prev, batch, next);
    if (!r.ok) throw new ExportedChainError(`the backup's event chain does not verify at position ${r.position} (${r.reason}: expected ${r.expected}, found ${r.actual})`);
    prev = r.lastHash;
    withheld += r.withheld;
    next += batch.length;
    onProgress?.(next - 1);
  }
  if (next - 1 !== manifest.eventPosition) throw new ExportedChainError(`the backup's event file ends at position ${next - 1}, its manifest says ${manifest.eventPosition}`);
  if (prev !== manifest.lastHash) throw new ExportedChainError(`the last event's hash ${prev} is not the one the manifest names (${manifest.lastHash})`);
  if (withheld !== (manifest.withheld ?? 0)) throw new ExportedChainError(`the backup's event file holds ${withheld} withheld entries, its manifest says ${manifest.withheld ?? 0}`);
  return { lastHash: prev, withheld };
}

// Stubs get the stub columns (migration 1110) and the time of the event before them in the
// batch (their own was not exported); rows of backups made before a column existed get its default.
const IMPORT_EVENTS_SQL = `
INSERT INTO events (position, stream_id, version, id, type, data, metadata, prev_hash, hash, recorded_at, body, withheld)
SELECT r.position, r.stream_id, r.version, r.id,
       CASE WHEN coalesce(r.withheld, false) THEN '${WITHHELD_EVENT_TYPE}' ELSE r.type END,
       coalesce(r.data, '{}'::jsonb), coalesce(r.metadata, '{}'::jsonb), r.prev_hash, r.hash,
       coalesce(r.recorded_at, max(r.recorded_at) OVER (ORDER BY r.position ROWS UNBOUNDED PRECEDING), now()),
       r.body, coalesce(r.withheld, false)
FROM json_populate_recordset(null::events, $1::json) r`;

/**
 * After an import: the restore, on the chain (WITHHELD_RESTORE_EVENT), with the cut and the
 * number of withheld stubs that the event store's verify holds the stubs against.
 */
export async function recordRestore(store: EventStore, r: { backupId: number | null; snapshotId: string; manifest: DatabaseManifest; withheld: number; at: string }): Promise<void> {
  await store.append(RESTORES_STREAM, 'any', [{
    id: randomUUID(), type: WITHHELD_RESTORE_EVENT,
    data: { backupId: r.backupId, snapshotId: r.snapshotId, eventPosition: r.manifest.eventPosition, withheld: r.withheld, auditIncluded: r.manifest.auditIncluded ?? true },
  }], { timestamp: r.at, actor: { kind: 'restore', username: 'lnm restore' } });
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
      if (ADDED_LATER.has(table) && !(await stat(path.join(dir, `${table}.jsonl`)).then(() => true, () => false))) continue;
      for await (const rows of jsonLines(path.join(dir, `${table}.jsonl`), 1000)) {
        if (table === 'events') {
          await client.query(IMPORT_EVENTS_SQL, [JSON.stringify(rows)]);
          counts[table] += rows.length;
          onProgress?.(table, counts[table]);
          continue;
        }
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
