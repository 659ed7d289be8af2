// A ledgerX committer's PostgreSQL database in a backup, and back. The committer's services (vc,
// query) own a small schema in the database's `public` schema: tables (metadata, tx_status, one
// per namespace), their keys and indexes, and PL/pgSQL functions. pg_dump would be the tool, but
// the embedded PostgreSQL is newer than any pg_dump the host has (and pg_dump refuses a newer
// server), so this is the same approach as the service's own export (adapters/backups/
// databaseExport.ts): one REPEATABLE READ READ ONLY transaction, so every file is of the same
// snapshot; rows as row_to_json lines, bytea as \x hex; read back with json_populate_recordset.
// The schema is read from the catalog (column types by format_type, constraints by
// pg_get_constraintdef, indexes by pg_get_indexdef, functions by pg_get_functiondef). Anything
// this does not rebuild (views, triggers, identity or generated columns, types, other schemas,
// extensions) stops the export with its name rather than give a backup that restores short.
//
//   exportCommitterDatabase(connection, dir) -> manifest (tables, rows per table)
//   importCommitterDatabase(client, dir, owner, { replace }) -> rows per table, into an empty
//                                            database (or, replace, one whose tables, sequences
//                                            and functions it drops first), as its owner
//   committerDatabaseHoldings(client)        -> the tables and sequences a database already holds
// The connection's password is only ever handed to pg; no message here carries it.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { once } from 'node:events';
import path from 'node:path';
import readline from 'node:readline';
import pg from 'pg';

export const COMMITTER_EXPORT_FORMAT = 'lnm-ledgerx-committer/1';
const MANIFEST = 'schema.json';

export interface CommitterDatabaseConnection {
  host: string;
  port: number;
  name: string;
  user: string;
  password: string;
}

interface Column { name: string; type: string; notNull: boolean; default: string | null }
export interface CommitterExportManifest {
  format: typeof COMMITTER_EXPORT_FORMAT;
  database: string;
  owner: string;
  sequences: { name: string; type: string; start: string; increment: string; min: string; max: string; cycle: boolean; lastValue: string; isCalled: boolean }[];
  tables: { name: string; columns: Column[] }[];
  constraints: { table: string; name: string; kind: string; definition: string }[];
  indexes: string[];
  functions: string[];
  rows: Record<string, number>;
}

export class CommitterExportError extends Error {}

const q = (id: string) => `"${id.replace(/"/g, '""')}"`;

/** What the export cannot rebuild, named; empty when the database holds only what it handles. */
async function unsupported(c: pg.Client): Promise<string[]> {
  const r = await c.query<{ what: string }>(`
    SELECT 'schema ' || nspname AS what FROM pg_namespace WHERE nspname NOT IN ('public', 'information_schema') AND nspname NOT LIKE 'pg\\_%'
    UNION ALL SELECT 'extension ' || extname FROM pg_extension WHERE extname <> 'plpgsql'
    UNION ALL SELECT CASE c.relkind WHEN 'v' THEN 'view ' WHEN 'm' THEN 'materialized view ' WHEN 'f' THEN 'foreign table ' ELSE 'partitioned table ' END || c.relname
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind IN ('v', 'm', 'f', 'p')
    UNION ALL SELECT 'trigger ' || t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND NOT t.tgisinternal
    UNION ALL SELECT 'identity or generated column ' || c.relname || '.' || a.attname FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped AND (a.attidentity <> '' OR a.attgenerated <> '')
    UNION ALL SELECT 'type ' || t.typname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace WHERE n.nspname = 'public' AND t.typtype IN ('e', 'd', 'r', 'm') 
    UNION ALL SELECT 'type ' || t.typname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace JOIN pg_class c ON c.oid = t.typrelid WHERE n.nspname = 'public' AND t.typtype = 'c' AND c.relkind = 'c'
    UNION ALL SELECT 'routine ' || p.proname || ' (kind ' || p.prokind::text || ')' FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public' AND p.prokind NOT IN ('f', 'p')`);
  return r.rows.map((x) => x.what);
}

async function writeLines(file: string, produce: (write: (line: string) => Promise<void>) => Promise<void>): Promise<void> {
  const out = createWriteStream(file, { mode: 0o600 });
  const write = async (line: string) => {
    if (!out.write(line + '\n')) await once(out, 'drain');
  };
  try {
    await produce(write);
  } finally {
    out.end();
    await once(out, 'finish');
  }
}

export async function exportCommitterDatabase(conn: CommitterDatabaseConnection, dir: string, opts: { batch?: number; timeoutMs?: number } = {}): Promise<CommitterExportManifest> {
  const batch = opts.batch ?? 2000;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const c = new pg.Client({ host: conn.host, port: conn.port, database: conn.name, user: conn.user, password: conn.password, connectionTimeoutMillis: opts.timeoutMs ?? 10_000 });
  c.on('error', () => {});
  try {
    await c.connect();
    await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const missing = await unsupported(c);
    if (missing.length) throw new CommitterExportError(`the committer's database ${conn.name} holds what a backup does not rebuild: ${missing.slice(0, 10).join(', ')}`);
    const owner = (await c.query<{ owner: string }>('SELECT pg_get_userbyid(datdba) AS owner FROM pg_database WHERE datname = current_database()')).rows[0].owner;
    const sequences: CommitterExportManifest['sequences'] = [];
    for (const s of (await c.query(`SELECT c.relname AS name, format_type(s.seqtypid, NULL) AS type, s.seqstart::text AS start, s.seqincrement::text AS increment, s.seqmin::text AS min, s.seqmax::text AS max, s.seqcycle AS cycle
        FROM pg_sequence s JOIN pg_class c ON c.oid = s.seqrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' ORDER BY c.relname`)).rows) {
      const v = (await c.query(`SELECT last_value::text AS "lastValue", is_called AS "isCalled" FROM public.${q(s.name)}`)).rows[0];
      sequences.push({ ...s, ...v });
    }
    const tables: CommitterExportManifest['tables'] = [];
    for (const t of (await c.query<{ name: string; oid: number }>(`SELECT c.relname AS name, c.oid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'r' ORDER BY c.relname`)).rows) {
      const columns = (await c.query<Column>(`SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS "notNull", pg_get_expr(d.adbin, d.adrelid) AS default
          FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum WHERE a.attrelid = $1 AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`, [t.oid])).rows;
      tables.push({ name: t.name, columns });
    }
    // Keys and checks before foreign keys (which need the keys they point at).
    const constraints = (await c.query(`SELECT r.relname AS table, k.conname AS name, k.contype AS kind, pg_get_constraintdef(k.oid) AS definition
        FROM pg_constraint k JOIN pg_class r ON r.oid = k.conrelid JOIN pg_namespace n ON n.oid = r.relnamespace
        WHERE n.nspname = 'public' AND k.contype IN ('p', 'u', 'c', 'f', 'x') ORDER BY (k.contype = 'f'), r.relname, k.conname`)).rows;
    const indexes = (await c.query<{ def: string }>(`SELECT pg_get_indexdef(i.indexrelid) AS def FROM pg_index i JOIN pg_class x ON x.oid = i.indexrelid JOIN pg_namespace n ON n.oid = x.relnamespace
        WHERE n.nspname = 'public' AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid) ORDER BY x.relname`)).rows.map((r) => r.def);
    const functions = (await c.query<{ def: string }>(`SELECT pg_get_functiondef(p.oid) AS def FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
        WHERE n.nspname = 'public' AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e') ORDER BY p.proname, p.oid`)).rows.map((r) => r.def);
    const rows: Record<string, number> = {};
    for (const t of tables) {
      rows[t.name] = 0;
      await c.query(`DECLARE lnm_rows NO SCROLL CURSOR FOR SELECT row_to_json(t)::text AS j FROM public.${q(t.name)} t`);
      await writeLines(path.join(dir, `table-${tables.indexOf(t)}.jsonl`), async (write) => {
        for (;;) {
          const r = await c.query<{ j: string }>(`FETCH ${batch} FROM lnm_rows`);
          for (const x of r.rows) await write(x.j);
          rows[t.name] += r.rows.length;
          if (r.rows.length < batch) break;
        }
      });
      await c.query('CLOSE lnm_rows');
    }
    await c.query('COMMIT');
    const manifest: CommitterExportManifest = { format: COMMITTER_EXPORT_FORMAT, database: conn.name, owner, sequences, tables, constraints, indexes, functions, rows };
    await writeFile(path.join(dir, MANIFEST), JSON.stringify(manifest, null, 2), { mode: 0o600 });
    return manifest;
  } catch (err) {
    if (err instanceof CommitterExportError) throw err;
    // pg's messages name no password; cut it out all the same should one ever be echoed.
    const message = (err as Error).message || String((err as { code?: string }).code ?? err);
    throw new CommitterExportError(`the committer's database ${conn.user}@${conn.host}:${conn.port}/${conn.name} could not be exported: ${conn.password ? message.split(conn.password).join('<redacted>') : message}`);
  } finally {
    await c.end().catch(() => {});
  }
}

export async function readCommitterManifest(dir: string): Promise<CommitterExportManifest> {
  const m = JSON.parse(await readFile(path.join(dir, MANIFEST), 'utf8')) as CommitterExportManifest;
  if (m.format !== COMMITTER_EXPORT_FORMAT) throw new CommitterExportError(`${path.join(dir, MANIFEST)} is not a committer database export (format ${String(m.format)})`);
  return m;
}

async function* jsonBatches(file: string, size: number): AsyncGenerator<unknown[]> {
  const rl = readline.createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  let rows: unknown[] = [];
  for await (const line of rl) {
    if (!line.trim()) continue;
    rows.push(JSON.parse(line));
    if (rows.length >= size) {
      yield rows;
      rows = [];
    }
  }
  if (rows.length) yield rows;
}

/** What the database's public schema holds that an import would clash with: its tables and sequences, named. */
export async function committerDatabaseHoldings(client: pg.Client): Promise<string[]> {
  const r = await client.query<{ what: string }>(`SELECT CASE c.relkind WHEN 'S' THEN 'sequence ' ELSE 'table ' END || c.relname AS what
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'S') ORDER BY c.relkind DESC, c.relname`);
  return r.rows.map((x) => x.what);
}

/** Drops the public schema's tables, sequences and functions (inside the caller's transaction). */
async function dropCommitterObjects(client: pg.Client): Promise<void> {
  for (const r of (await client.query<{ name: string }>(`SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')`)).rows) {
    await client.query(`DROP TABLE IF EXISTS public.${q(r.name)} CASCADE`);
  }
  for (const r of (await client.query<{ name: string }>(`SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'S'`)).rows) {
    await client.query(`DROP SEQUENCE IF EXISTS public.${q(r.name)} CASCADE`);
  }
  for (const r of (await client.query<{ name: string; args: string; kind: string }>(`SELECT p.proname AS name, pg_get_function_identity_arguments(p.oid) AS args, p.prokind::text AS kind FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname = 'public' AND p.prokind IN ('f', 'p') AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')`)).rows) {
    await client.query(`DROP ${r.kind === 'p' ? 'PROCEDURE' : 'FUNCTION'} IF EXISTS public.${q(r.name)}(${r.args}) CASCADE`);
  }
}

/**
 * Into the empty database `client` is connected to (as a superuser or its owner): one
 * transaction, run as the database's owner (`owner`), so the committer's services own their
 * tables and functions again (vc replaces its functions on start). Rows per table. With
 * `replace`, the database's tables, sequences and functions are dropped first in the same
 * transaction: a failure leaves the database as it was.
 */
export async function importCommitterDatabase(client: pg.Client, dir: string, owner: string, opts: { replace?: boolean } = {}): Promise<Record<string, number>> {
  const m = await readCommitterManifest(dir);
  const counts: Record<string, number> = {};
  await client.query('BEGIN');
  try {
    await client.query(`SET LOCAL ROLE ${q(owner)}`);
    if (opts.replace) await dropCommitterObjects(client);
    for (const s of m.sequences) {
      await client.query(`CREATE SEQUENCE public.${q(s.name)} AS ${s.type} INCREMENT ${s.increment} MINVALUE ${s.min} MAXVALUE ${s.max} START ${s.start}${s.cycle ? ' CYCLE' : ''}`);
      await client.query('SELECT setval($1::regclass, $2::bigint, $3)', [`public.${q(s.name)}`, s.lastValue, s.isCalled]);
    }
    for (const t of m.tables) {
      const cols = t.columns.map((col) => `${q(col.name)} ${col.type}${col.notNull ? ' NOT NULL' : ''}${col.default !== null ? ` DEFAULT ${col.default}` : ''}`);
      await client.query(`CREATE TABLE public.${q(t.name)} (${cols.join(', ')})`);
    }
    for (const [i, t] of m.tables.entries()) {
      counts[t.name] = 0;
      for await (const rows of jsonBatches(path.join(dir, `table-${i}.jsonl`), 1000)) {
        await client.query(`INSERT INTO public.${q(t.name)} SELECT * FROM json_populate_recordset(null::public.${q(t.name)}, $1::json)`, [JSON.stringify(rows)]);
        counts[t.name] += rows.length;
      }
      if (counts[t.name] !== m.rows[t.name]) throw new CommitterExportError(`table ${t.name}: the export holds ${counts[t.name]} rows, its manifest says ${m.rows[t.name]}`);
    }
    for (const k of m.constraints) await client.query(`ALTER TABLE public.${q(k.table)} ADD CONSTRAINT ${q(k.name)} ${k.definition}`);
    for (const def of m.indexes) await client.query(def);
    for (const def of m.functions) await client.query(def);
    await client.query('COMMIT');
    return counts;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  }
}
