// A committer-shaped database (bytea keys, a PL/pgSQL function, a sequence, an index, a foreign
// key) exported in one snapshot and imported into an empty database as its owner: the same rows,
// the function works and belongs to the owner. Writes after the export's snapshot began are not in
// it. A database holding what the export cannot rebuild (a view) fails naming it; a wrong password
// fails without the password in the message; an import that fails part way leaves nothing.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { sharedPostgres } from '../../helpers/postgres.ts';
import { CommitterExportError, exportCommitterDatabase, importCommitterDatabase } from '../../../adapters/ledgerx/committerDatabaseBackup.ts';

const t = suite('ledgerX committer database export and import (real PostgreSQL)');
const dirs: string[] = [];
let n = 0;

async function admin() {
  const c = new pg.Client({ connectionString: (await sharedPostgres()).url });
  await c.connect();
  return c;
}

/** A role and its database, like the ones the service makes. */
async function committerDb(): Promise<{ name: string; password: string; host: string; port: number; user: string; client: (db?: string) => Promise<pg.Client> }> {
  const h = await sharedPostgres();
  const name = `t_lx_${process.pid}_${++n}`;
  const password = `pw'${name}-secret`;
  const a = await admin();
  await a.query(`CREATE ROLE ${name} LOGIN PASSWORD '${password.replace(/'/g, "''")}'`);
  await a.query(`CREATE DATABASE ${name} OWNER ${name}`);
  await a.end();
  return {
    name, user: name, password, host: '127.0.0.1', port: h.port,
    client: async (db = name) => {
      const c = new pg.Client({ host: '127.0.0.1', port: h.port, database: db, user: name, password });
      await c.connect();
      return c;
    },
  };
}

const SCHEMA = `
CREATE TABLE metadata (key BYTEA NOT NULL PRIMARY KEY, value BYTEA);
CREATE TABLE tx_status (tx_id BYTEA NOT NULL PRIMARY KEY, status INTEGER, height BYTEA NOT NULL);
CREATE SEQUENCE seq_x START 5;
CREATE TABLE ns_0 (key BYTEA NOT NULL PRIMARY KEY, value BYTEA DEFAULT NULL, version BIGINT NOT NULL DEFAULT nextval('seq_x'), note TEXT, meta_key BYTEA REFERENCES metadata(key));
CREATE INDEX ns_0_version ON ns_0 (version);
CREATE OR REPLACE FUNCTION insert_tx_status(IN _ids BYTEA[], IN _st INTEGER[]) RETURNS INTEGER AS $$
BEGIN
  INSERT INTO tx_status (tx_id, status, height) SELECT i, s, '\\x00'::bytea FROM unnest(_ids, _st) AS t(i, s);
  RETURN cardinality(_ids);
END $$ LANGUAGE plpgsql;
INSERT INTO metadata VALUES ('last committed block number', '\\x0102');
`;

t.after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

t('round trip: same rows, types, sequence, index, foreign key and function, owned by the role; later writes are not in the snapshot', async () => {
  const src = await committerDb();
  const c = await src.client();
  await c.query(SCHEMA);
  await c.query(`SELECT insert_tx_status(ARRAY['\\x01'::bytea, '\\x02'::bytea, convert_to('tx-ü''1', 'UTF8')], ARRAY[1, 1, 3])`);
  await c.query(`INSERT INTO ns_0 (key, value, note, meta_key) SELECT convert_to('k' || g, 'UTF8'), '\\xdeadbeef'::bytea, E'line\\nwith "quotes"', 'last committed block number' FROM generate_series(1, 2500) g`);
  const dir = mkdtempSync(path.join(tmpdir(), 'lnm-lx-export-'));
  dirs.push(dir);
  // A write racing the export: the export's snapshot either has it or not, never half.
  const m = await exportCommitterDatabase(src, dir, { batch: 1000 });
  await c.query(`INSERT INTO tx_status VALUES ('\\x09', 1, '\\x00')`);
  assert.equal(m.rows, { metadata: 1, ns_0: 2500, tx_status: 3 });
  assert.is(m.owner, src.user);
  assert.not.ok(readFileSync(path.join(dir, 'schema.json'), 'utf8').includes(src.password));

  const dst = await committerDb();
  // The restore's way: connected as the superuser, the import runs as the database's owner.
  const a = await admin();
  await a.end();
  const h = await sharedPostgres();
  const su = new pg.Client({ connectionString: h.url.replace(/\/lnm$/, `/${dst.name}`) });
  await su.connect();
  const counts = await importCommitterDatabase(su, dir, dst.user);
  await su.end();
  assert.equal(counts, { metadata: 1, ns_0: 2500, tx_status: 3 });
  const d = await dst.client();
  const rows = (await d.query(`SELECT encode(tx_id, 'hex') AS id, status FROM tx_status ORDER BY tx_id`)).rows;
  assert.equal(rows, (await c.query(`SELECT encode(tx_id, 'hex') AS id, status FROM tx_status WHERE tx_id <> '\\x09' ORDER BY tx_id`)).rows);
  assert.equal((await d.query(`SELECT md5(string_agg(key::text || value::text || version || note || meta_key::text, ',' ORDER BY key)) AS h FROM ns_0`)).rows, (await c.query(`SELECT md5(string_agg(key::text || value::text || version || note || meta_key::text, ',' ORDER BY key)) AS h FROM ns_0`)).rows);
  // The sequence goes on where it was; the function runs and is the owner's (vc replaces it on start).
  assert.is((await d.query(`INSERT INTO ns_0 (key) VALUES ('\\xff') RETURNING version`)).rows[0].version, '2505');
  assert.is((await d.query(`SELECT insert_tx_status(ARRAY['\\x0a'::bytea], ARRAY[1]) AS n`)).rows[0].n, 1);
  await d.query(`CREATE OR REPLACE FUNCTION insert_tx_status(IN _ids BYTEA[], IN _st INTEGER[]) RETURNS INTEGER AS $$ BEGIN RETURN 0; END $$ LANGUAGE plpgsql`);
  const owners = (await d.query(`SELECT DISTINCT pg_get_userbyid(relowner) AS o FROM pg_class WHERE relnamespace = 'public'::regnamespace`)).rows.map((r) => r.o);
  assert.equal(owners, [dst.user]);
  // The keys came back: a duplicate is refused, a dangling reference too.
  await d.query(`INSERT INTO tx_status VALUES ('\\x01', 1, '\\x00')`).then(() => assert.unreachable('duplicate key accepted'), (e) => assert.is(e.code, '23505'));
  await d.query(`INSERT INTO ns_0 (key, meta_key) VALUES ('\\xfe', '\\x99')`).then(() => assert.unreachable('dangling reference accepted'), (e) => assert.is(e.code, '23503'));
  assert.ok((await d.query(`SELECT 1 FROM pg_indexes WHERE indexname = 'ns_0_version'`)).rowCount === 1);
  await c.end();
  await d.end();
});

t('what the export cannot rebuild fails naming it; a wrong password fails without it; an import that breaks part way leaves nothing', async () => {
  const src = await committerDb();
  const c = await src.client();
  await c.query(SCHEMA);
  await c.query('CREATE VIEW v_status AS SELECT * FROM tx_status');
  const dir = mkdtempSync(path.join(tmpdir(), 'lnm-lx-export-'));
  dirs.push(dir);
  await exportCommitterDatabase(src, dir).then(() => assert.unreachable('exported a view it cannot rebuild'), (e) => {
    assert.instance(e, CommitterExportError);
    assert.match(e.message, 'view v_status');
  });
  await c.query('DROP VIEW v_status');
  await exportCommitterDatabase({ ...src, password: 'not-the-password-123' }, dir).then(() => assert.unreachable('wrong password'), (e) => {
    assert.match(e.message, `${src.user}@127.0.0.1`);
    assert.not.match(e.message, 'not-the-password-123');
  });
  await exportCommitterDatabase(src, dir);
  // A damaged row: the import stops and the target database is as empty as before.
  const file = path.join(dir, 'table-0.jsonl');
  writeFileSync(file, readFileSync(file, 'utf8') + '{"key":"not hex"}\n');
  const dst = await committerDb();
  const su = new pg.Client({ connectionString: (await sharedPostgres()).url.replace(/\/lnm$/, `/${dst.name}`) });
  await su.connect();
  await importCommitterDatabase(su, dir, dst.user).then(() => assert.unreachable('imported a damaged export'), () => undefined);
  assert.is((await su.query(`SELECT count(*)::int AS n FROM pg_class WHERE relnamespace = 'public'::regnamespace`)).rows[0].n, 0);
  await su.end();
  await c.end();
});

t.run();
