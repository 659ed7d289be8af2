// The ledgerX part of a backup over a migrated service database (real PostgreSQL) holding an
// orderer group, a committer whose database the service made and one given as a connection
// string: what a full and a one-node backup name (paths, the committer.yaml left out), both
// databases exported (the external one through its own login), an external database that does
// not answer failing the backup naming its committer; and the restore side: the made committer's
// role and database made again from the export, as that role; an export whose committer is not
// among the restored nodes is left out; the external database imported when it holds nothing,
// refused when it holds data, replaced or kept when asked, and no key, a wrong key or a database
// that does not answer stopping the restore before anything is written, naming the committer
// and never the password.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freshDatabase, sharedPostgres } from '../../helpers/postgres.ts';
import { migrate } from '../../../adapters/postgres/migrate.ts';
import { CommitterRestoreError, ledgerXBackupPart, restoreLedgerXCommitters, type ExternalCommitterRestore } from '../../../adapters/ledgerx/ledgerxBackup.ts';
import { createSecretBox } from '../../../adapters/outbound/sealedSecrets.ts';
import { freePort } from '../../../adapters/postgres/embeddedPostgres.ts';
import { ledgerXDatabasePasswordContext } from '../../../domain/ledgerx/ledgerxNode.ts';

const t = suite('ledgerX backup part and committer restore (real PostgreSQL)');
const dirs: string[] = [];
t.after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function nodeRow(pool: pg.Pool, id: number, nodeType: string, config: unknown) {
  await pool.query(`INSERT INTO nodes (id, name, platform, node_type, role, client, engine, config, status, created_at, updated_at) VALUES ($1, $2, 'LEDGERX', $3, 'x', 'fabric-x', 'process', $4, 'running', now(), now())`, [id, `n${id}`, nodeType, JSON.stringify(config)]);
}

const KEK = 'ledgerx-backup-int-key-encryption-key-0123456789';

async function sql(url: string, text: string) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await c.query(text);
  } finally {
    await c.end();
  }
}

t('full and one-node backups of ledgerX; the made committer database restored as its role, the external one imported into its own database, refused, replaced or kept', async () => {
  const h = await sharedPostgres();
  const db = await freshDatabase();
  await migrate(db.pool);
  const hex = randomBytes(4).toString('hex');
  const made = `lnm_ledgerx_${hex}_committer_10`;
  const password = `derived-${hex}-password`;
  const ext = `t_ext_${hex}`;
  const extPassword = `Ext'pw-${hex}-secret`;
  const admin = new pg.Client({ connectionString: h.url });
  await admin.connect();
  await admin.query(`CREATE ROLE ${made} LOGIN PASSWORD '${password}'`);
  await admin.query(`CREATE DATABASE ${made} OWNER ${made}`);
  await admin.query(`CREATE ROLE ${ext} LOGIN PASSWORD '${extPassword.replace(/'/g, "''")}'`);
  await admin.query(`CREATE DATABASE ${ext} OWNER ${ext}`);
  await admin.end();
  const c = new pg.Client({ host: '127.0.0.1', port: h.port, database: made, user: made, password });
  await c.connect();
  await c.query(`CREATE TABLE tx_status (tx_id BYTEA NOT NULL PRIMARY KEY, status INTEGER, height BYTEA NOT NULL); INSERT INTO tx_status VALUES ('\\x01', 1, '\\x00'), ('\\x02', 1, '\\x00')`);
  await c.end();
  const extUrl = `postgres://${ext}:${encodeURIComponent(extPassword)}@127.0.0.1:${h.port}/${ext}`;
  const extAdminUrl = h.url.replace(/\/lnm$/, `/${ext}`);
  await sql(extUrl, `CREATE TABLE tx_status (tx_id BYTEA NOT NULL PRIMARY KEY, status INTEGER, height BYTEA NOT NULL); CREATE SEQUENCE s1; INSERT INTO tx_status VALUES ('\\x0a', 1, '\\x00'), ('\\x0b', 1, '\\x00'), ('\\x0c', 2, '\\x00')`);
  const secrets = createSecretBox(KEK, { iterations: 1000 });
  const extDatabase = { host: '127.0.0.1', port: h.port, name: ext, user: ext, external: true, sealedPassword: await secrets.seal(extPassword, ledgerXDatabasePasswordContext(20)) };
  const committerRoles = { sidecar: 11, coordinator: 12, vc: 13, verifier: 14, query: 15 };
  await nodeRow(db.pool, 1, 'LEDGERX_ORDERER_GROUP', { roleNodeIds: { router: 2, batcher: 3, consenter: 4, assembler: 5 } });
  await nodeRow(db.pool, 10, 'LEDGERX_COMMITTER', { roleNodeIds: committerRoles, database: { host: '127.0.0.1', port: 1, name: made, user: made } });
  await nodeRow(db.pool, 20, 'LEDGERX_COMMITTER', { roleNodeIds: { sidecar: 21, coordinator: 22, vc: 23, verifier: 24, query: 25 }, database: extDatabase });
  const dataDir = mkdtempSync(path.join(tmpdir(), 'lnm-lx-part-'));
  dirs.push(dataDir);
  for (const g of [1, 10, 20]) mkdirSync(path.join(dataDir, 'ledgerx', `group-${g}`), { recursive: true });
  for (const r of [2, 3, 4, 5, 11, 12, 13, 14, 15]) mkdirSync(path.join(dataDir, 'nodes', `node-${r}`), { recursive: true });
  const asked: number[] = [];
  const part = ledgerXBackupPart({
    pool: db.pool, dataDir,
    // Where the service reaches them now (the made one's recorded port 1 is stale); the external one as recorded, its password opened.
    committerAccess: async (groupId, d) => (asked.push(groupId), d.external
      ? { host: d.host, port: d.port, name: d.name, user: d.user, password: await secrets.open(d.sealedPassword!, ledgerXDatabasePasswordContext(groupId)) }
      : { host: '127.0.0.1', port: h.port, name: d.name, user: d.user, password }),
  });

  const full = await part.export(path.join(dataDir, 'x-full'), null);
  assert.equal(full.dataPaths, ['ledgerx']);
  assert.equal(full.excludes.sort(), ['nodes/node-13/committer.yaml', 'nodes/node-15/committer.yaml', 'nodes/node-23/committer.yaml', 'nodes/node-25/committer.yaml']);
  assert.equal(asked, [10, 20]);
  assert.equal(full.record, { committers: [{ groupId: 10, database: made, exported: true, rows: 2 }, { groupId: 20, database: ext, exported: true, external: true, rows: 3 }] });
  assert.ok(existsSync(path.join(dataDir, 'x-full', 'committer-10', 'schema.json')));
  assert.ok(existsSync(path.join(dataDir, 'x-full', 'committer-20', 'schema.json')));

  // A role's id picks its whole group; the orderer group's join and roles are not taken.
  const one = await part.export(path.join(dataDir, 'x-one'), [14]);
  assert.equal(one.dataPaths.sort(), ['ledgerx/group-10', 'nodes/node-11', 'nodes/node-12', 'nodes/node-13', 'nodes/node-14', 'nodes/node-15']);
  assert.equal((one.record.committers as any[]).map((x) => x.groupId), [10]);
  const group = await part.export(path.join(dataDir, 'x-group'), [1]);
  assert.equal(group.dataPaths.sort(), ['ledgerx/group-1', 'nodes/node-2', 'nodes/node-3', 'nodes/node-4', 'nodes/node-5']);
  assert.equal(group.record, { committers: [] });
  assert.equal((await part.export(path.join(dataDir, 'x-none'), [999])).dataPaths, []);

  // An external database that does not answer fails the backup, naming the committer, not the password.
  const closed = await freePort();
  const down = ledgerXBackupPart({ pool: db.pool, dataDir, committerAccess: async (_g, d) => ({ host: '127.0.0.1', port: d.external ? closed : h.port, name: d.name, user: d.user, password: d.external ? extPassword : password }) });
  const failed = await down.export(path.join(dataDir, 'x-down'), [20]).then(() => null, (err: Error) => err);
  assert.ok(failed, 'the backup part fails');
  assert.match(failed!.message, new RegExp(`^ledgerX committer 20: the committer's database ${ext}@127\\.0\\.0\\.1:${closed}/${ext} could not be exported: .*ECONNREFUSED`));
  assert.not.match(failed!.message, extPassword);

  // The restore: the made committer's database gone (the cluster lost), made again from the export.
  const dropMade = async () => {
    await sql(h.url, `DROP DATABASE IF EXISTS ${made} WITH (FORCE)`);
    await sql(h.url, `DROP ROLE IF EXISTS ${made}`);
  };
  const madeExists = async () => (await sql(h.url, `SELECT 1 FROM pg_database WHERE datname = '${made}'`)).rowCount === 1;
  const extRows = async () => (await sql(extAdminUrl, 'SELECT encode(tx_id, \'hex\') AS id FROM tx_status ORDER BY tx_id')).rows.map((r) => r.id);
  await dropMade();
  // Another export whose committer is not among the restored nodes.
  mkdirSync(path.join(dataDir, 'restore', 'ledgerx'), { recursive: true });
  for (const g of [10, 20]) cpSync(path.join(dataDir, 'x-full', `committer-${g}`), path.join(dataDir, 'restore', 'ledgerx', `committer-${g}`), { recursive: true });
  cpSync(path.join(dataDir, 'x-full', 'committer-10'), path.join(dataDir, 'restore', 'ledgerx', 'committer-30'), { recursive: true });
  const said: string[] = [];
  const restore = (external: ExternalCommitterRestore) => restoreLedgerXCommitters(path.join(dataDir, 'restore'), db.pool, db.url, (l) => said.push(l), external);
  const refused = async (external: ExternalCommitterRestore, why: RegExp) => {
    const err = await restore(external).then(() => null, (e: Error) => e);
    assert.instance(err, CommitterRestoreError);
    assert.match(err!.message, /^ledgerX committer 20: /);
    assert.match(err!.message, why);
    assert.not.match(err!.message, extPassword);
    assert.not.ok(await madeExists(), 'checked before anything is written: the made database is not made');
  };
  const opener = { mode: 'import' as const, openPassword: (sealed: string, context: string) => secrets.open(sealed, context) };

  // No key, a wrong key, data in the external database: refused before anything is written.
  await refused({ mode: 'import', openPassword: null }, /given as a connection string; importing .* needs the KEY_ENCRYPTION_KEY .*--external-databases keep/);
  await refused({ mode: 'import', openPassword: (sealed, context) => createSecretBox(KEK + '-other', { iterations: 1000 }).open(sealed, context) }, /does not open with the given key encryption key/);
  await refused(opener, /already holds data \(table tx_status, sequence s1\).*--external-databases replace/);
  assert.equal(await extRows(), ['0a', '0b', '0c'], 'the refused database as it was');
  // The database emptied (made again, empty): imported as its user.
  await sql(h.url, `DROP DATABASE ${ext} WITH (FORCE)`);
  await sql(h.url, `CREATE DATABASE ${ext} OWNER ${ext}`);
  assert.is(await restore(opener), 2);
  assert.ok(said.some((l) => l.includes(`committer 10: database ${made} restored (2 tx_status)`)), said.join('\n'));
  assert.ok(said.some((l) => l.includes('committer 30: not among the restored nodes')), said.join('\n'));
  assert.ok(said.some((l) => l.includes(`committer 20: its database ${ext}@127.0.0.1:${h.port}/${ext} (given as a connection string) imported (3 tx_status)`)), said.join('\n'));
  assert.equal(await extRows(), ['0a', '0b', '0c']);
  assert.is((await sql(extAdminUrl, `SELECT pg_get_userbyid(relowner) AS o FROM pg_class WHERE relname = 'tx_status'`)).rows[0].o, ext);
  assert.is((await sql(extAdminUrl, `SELECT nextval('s1')::int AS n`)).rows[0].n, 1, 'the sequence as exported');
  // The role has no password yet (the service sets it at start); as the superuser, the rows and their owner.
  const check = new pg.Client({ connectionString: h.url.replace(/\/lnm$/, `/${made}`) });
  await check.connect();
  assert.is((await check.query('SELECT count(*)::int AS n FROM tx_status')).rows[0].n, 2);
  assert.is((await check.query(`SELECT pg_get_userbyid(relowner) AS o FROM pg_class WHERE relname = 'tx_status'`)).rows[0].o, made);
  await check.end();

  // Written after the backup: replace drops it and imports the backup's; keep leaves it.
  await sql(extUrl, `INSERT INTO tx_status VALUES ('\\x0d', 1, '\\x00'); CREATE TABLE ns_later (k BYTEA)`);
  await dropMade();
  await restore({ ...opener, mode: 'keep' });
  assert.ok(said.some((l) => l.includes('committer 20: its database') && l.includes('left as it is (--external-databases keep)')), said.join('\n'));
  assert.equal(await extRows(), ['0a', '0b', '0c', '0d']);
  await dropMade();
  await restore({ ...opener, mode: 'replace' });
  assert.equal(await extRows(), ['0a', '0b', '0c']);
  assert.is((await sql(extAdminUrl, `SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'`)).rows[0].n, 1, 'the table made after the backup is gone');
  assert.ok(said.some((l) => l.includes('(given as a connection string) replaced (3 tx_status)')), said.join('\n'));

  // A recorded address that does not answer: refused, naming the committer.
  await dropMade();
  await db.pool.query(`UPDATE nodes SET config = jsonb_set(config, '{database,port}', to_jsonb($1::int)) WHERE id = 20`, [closed]);
  await refused(opener, new RegExp(`its database ${ext}@127\\.0\\.0\\.1:${closed}/${ext} cannot be reached: .*ECONNREFUSED`));
  assert.not.ok(said.join('\n').includes(password));
  assert.not.ok(said.join('\n').includes(extPassword));

  await dropMade();
  await sql(h.url, `DROP DATABASE ${ext} WITH (FORCE)`);
  await sql(h.url, `DROP ROLE ${ext}`);
});

t.run();
