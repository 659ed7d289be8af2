// The ledgerX part of a backup over a migrated service database (real PostgreSQL) holding an
// orderer group, a committer whose database the service made and one given as a connection
// string: what a full and a one-node backup name (paths, the committer.yaml left out), which
// databases are exported (not the external one, said in the record), and the restore side: the
// made committer's role and database made again from the export, as that role; an export whose
// committer is not among the restored nodes is left out.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freshDatabase, sharedPostgres } from '../../helpers/postgres.ts';
import { migrate } from '../../../adapters/postgres/migrate.ts';
import { ledgerXBackupPart, restoreLedgerXCommitters } from '../../../adapters/ledgerx/ledgerxBackup.ts';

const t = suite('ledgerX backup part and committer restore (real PostgreSQL)');
const dirs: string[] = [];
t.after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function nodeRow(pool: pg.Pool, id: number, nodeType: string, config: unknown) {
  await pool.query(`INSERT INTO nodes (id, name, platform, node_type, role, client, engine, config, status, created_at, updated_at) VALUES ($1, $2, 'LEDGERX', $3, 'x', 'fabric-x', 'process', $4, 'running', now(), now())`, [id, `n${id}`, nodeType, JSON.stringify(config)]);
}

t('full and one-node backups of ledgerX; the made committer database restored as its role, the external one left alone', async () => {
  const h = await sharedPostgres();
  const db = await freshDatabase();
  await migrate(db.pool);
  const hex = randomBytes(4).toString('hex');
  const made = `lnm_ledgerx_${hex}_committer_10`;
  const password = `derived-${hex}-password`;
  const admin = new pg.Client({ connectionString: h.url });
  await admin.connect();
  await admin.query(`CREATE ROLE ${made} LOGIN PASSWORD '${password}'`);
  await admin.query(`CREATE DATABASE ${made} OWNER ${made}`);
  await admin.end();
  const c = new pg.Client({ host: '127.0.0.1', port: h.port, database: made, user: made, password });
  await c.connect();
  await c.query(`CREATE TABLE tx_status (tx_id BYTEA NOT NULL PRIMARY KEY, status INTEGER, height BYTEA NOT NULL); INSERT INTO tx_status VALUES ('\\x01', 1, '\\x00'), ('\\x02', 1, '\\x00')`);
  await c.end();
  const committerRoles = { sidecar: 11, coordinator: 12, vc: 13, verifier: 14, query: 15 };
  await nodeRow(db.pool, 1, 'LEDGERX_ORDERER_GROUP', { roleNodeIds: { router: 2, batcher: 3, consenter: 4, assembler: 5 } });
  await nodeRow(db.pool, 10, 'LEDGERX_COMMITTER', { roleNodeIds: committerRoles, database: { host: '127.0.0.1', port: 1, name: made, user: made } });
  await nodeRow(db.pool, 20, 'LEDGERX_COMMITTER', { roleNodeIds: { sidecar: 21, coordinator: 22, vc: 23, verifier: 24, query: 25 }, database: { host: 'db.example', port: 5432, name: 'theirs', user: 'them', external: true, sealedPassword: 'sealed' } });
  const dataDir = mkdtempSync(path.join(tmpdir(), 'lnm-lx-part-'));
  dirs.push(dataDir);
  for (const g of [1, 10, 20]) mkdirSync(path.join(dataDir, 'ledgerx', `group-${g}`), { recursive: true });
  for (const r of [2, 3, 4, 5, 11, 12, 13, 14, 15]) mkdirSync(path.join(dataDir, 'nodes', `node-${r}`), { recursive: true });
  const asked: number[] = [];
  const part = ledgerXBackupPart({
    pool: db.pool, dataDir,
    // Where the service reaches it now (the recorded port 1 is stale).
    committerAccess: async (groupId, d) => (asked.push(groupId), { host: '127.0.0.1', port: h.port, name: d.name, user: d.user, password }),
  });

  const full = await part.export(path.join(dataDir, 'x-full'), null);
  assert.equal(full.dataPaths, ['ledgerx']);
  assert.equal(full.excludes.sort(), ['nodes/node-13/committer.yaml', 'nodes/node-15/committer.yaml', 'nodes/node-23/committer.yaml', 'nodes/node-25/committer.yaml']);
  assert.equal(asked, [10], 'the external database is not opened');
  assert.equal(full.record, { committers: [{ groupId: 10, database: made, exported: true, rows: 2 }, { groupId: 20, database: 'theirs', exported: false, reason: 'given as a connection string (config.databaseUrl): back it up with its own tools' }] });
  assert.ok(existsSync(path.join(dataDir, 'x-full', 'committer-10', 'schema.json')));
  assert.not.ok(existsSync(path.join(dataDir, 'x-full', 'committer-20')));

  // A role's id picks its whole group; the orderer group's join and roles are not taken.
  const one = await part.export(path.join(dataDir, 'x-one'), [14]);
  assert.equal(one.dataPaths.sort(), ['ledgerx/group-10', 'nodes/node-11', 'nodes/node-12', 'nodes/node-13', 'nodes/node-14', 'nodes/node-15']);
  assert.equal((one.record.committers as any[]).map((x) => x.groupId), [10]);
  const group = await part.export(path.join(dataDir, 'x-group'), [1]);
  assert.equal(group.dataPaths.sort(), ['ledgerx/group-1', 'nodes/node-2', 'nodes/node-3', 'nodes/node-4', 'nodes/node-5']);
  assert.equal(group.record, { committers: [] });
  assert.equal((await part.export(path.join(dataDir, 'x-none'), [999])).dataPaths, []);

  // The restore: the committer's database gone (the cluster lost), made again from the export.
  const a2 = new pg.Client({ connectionString: h.url });
  await a2.connect();
  await a2.query(`DROP DATABASE ${made} WITH (FORCE)`);
  await a2.query(`DROP ROLE ${made}`);
  await a2.end();
  // Another export whose committer is not among the restored nodes.
  mkdirSync(path.join(dataDir, 'restore', 'ledgerx'), { recursive: true });
  cpSync(path.join(dataDir, 'x-full', 'committer-10'), path.join(dataDir, 'restore', 'ledgerx', 'committer-10'), { recursive: true });
  cpSync(path.join(dataDir, 'x-full', 'committer-10'), path.join(dataDir, 'restore', 'ledgerx', 'committer-30'), { recursive: true });
  const said: string[] = [];
  const restored = await restoreLedgerXCommitters(path.join(dataDir, 'restore'), db.pool, db.url, (l) => said.push(l));
  assert.is(restored, 1);
  assert.ok(said.some((l) => l.includes(`committer 10: database ${made} restored (2 tx_status)`)), said.join('\n'));
  assert.ok(said.some((l) => l.includes('committer 30: not among the restored nodes')), said.join('\n'));
  assert.ok(said.some((l) => l.includes('committer 20: its database them@db.example:5432/theirs was given as a connection string')), said.join('\n'));
  assert.not.ok(said.join('\n').includes(password));
  // The role has no password yet (the service sets it at start); as the superuser, the rows and their owner.
  const check = new pg.Client({ connectionString: h.url.replace(/\/lnm$/, `/${made}`) });
  await check.connect();
  assert.is((await check.query('SELECT count(*)::int AS n FROM tx_status')).rows[0].n, 2);
  assert.is((await check.query(`SELECT pg_get_userbyid(relowner) AS o FROM pg_class WHERE relname = 'tx_status'`)).rows[0].o, made);
  await check.end();
  const cleanup = new pg.Client({ connectionString: h.url });
  await cleanup.connect();
  await cleanup.query(`DROP DATABASE ${made} WITH (FORCE)`);
  await cleanup.query(`DROP ROLE ${made}`);
  await cleanup.end();
});

t.run();
