// A ledgerX committer on a database given as a connection string (real Fabric-X programs): a
// string that is malformed or cannot be reached (closed port, wrong password) is a 400 with the
// reason at creation and nothing recorded; a reachable one is used by the committer's services
// (a quick start with it ends COMPLETED and the committer's tables are in that database, owned
// by its user); its password never appears in a response, the audit log, the service's log or an
// error; deleting the committer leaves that database alone.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { fabricXMissing, fabricXServiceEnv } from '../../helpers/programs.ts';
import { requires } from '../../helpers/requirements.ts';
import { freePort } from '../../../adapters/postgres/embeddedPostgres.ts';
import { apiOf, organization, until } from '../consortium/consortiumApi.ts';

const t = requires(suite('ledgerX committer database from a connection string (real Fabric-X)'), 'fabric-x', fabricXMissing);
let server: TestServer;
const api = apiOf(() => server);
const PASSWORD = 'Ext-Secret-pw-4821';
const seen: string[] = [];
let dbUrl = '';
let admin: pg.Client;

t.before(async () => {
  server = await startServer({ env: { ...fabricXServiceEnv(), KEY_ENCRYPTION_KEY: 'ledgerx-committer-db-e2e-key', LNM_LEDGERX_JOIN_TIMEOUT_SECONDS: '25' } });
  if (!server.databaseUrl) return;
  admin = new pg.Client({ connectionString: server.databaseUrl });
  await admin.connect();
  await admin.query(`CREATE ROLE ext_committer LOGIN PASSWORD '${PASSWORD}'`);
  await admin.query('CREATE DATABASE ext_committer_db OWNER ext_committer');
  const u = new URL(server.databaseUrl);
  dbUrl = `postgres://ext_committer:${PASSWORD}@${u.hostname}:${u.port}/ext_committer_db`;
});
t.after(async () => {
  if (!server) return;
  const nodes = (await api('GET', '/nodes/platform/LEDGERX?limit=100')).json?.items ?? [];
  for (const n of nodes.filter((x: any) => x.nodeType === 'LEDGERX_COMMITTER' || x.nodeType === 'LEDGERX_ORDERER_GROUP')) await api('DELETE', `/nodes/${n.id}`).catch(() => undefined);
  await until('every ledgerX node removed', async () => ((await api('GET', '/nodes/platform/LEDGERX')).json?.total === 0 ? true : null), 60_000).catch(() => undefined);
  await admin?.end().catch(() => undefined);
  await server.stop();
});

async function call(method: string, path: string, body?: unknown) {
  const r = await api(method, path, body);
  seen.push(`${method} ${path}: ${r.text}`);
  return r;
}

t('a connection string that is malformed or cannot be reached is a 400 with the reason, nothing recorded, the password nowhere', async () => {
  if (!server.databaseUrl) return;
  const org = await organization(api, 'DbOrg', 'DbOrgMSP');
  const committer = (databaseUrl: string) => call('POST', '/nodes', { name: 'dbc', platform: 'LEDGERX', nodeType: 'LEDGERX_COMMITTER', organizationId: org.id, config: { databaseUrl } });
  const closed = await committer(`postgres://ext_committer:${PASSWORD}@127.0.0.1:${await freePort()}/ext_committer_db`);
  assert.is(closed.status, 400, closed.text);
  assert.match(closed.json.message, /cannot be reached: .*(ECONNREFUSED|connect)/);
  const wrong = await committer(`postgres://ext_committer:${PASSWORD}-wrong@${new URL(dbUrl).host}/ext_committer_db`);
  assert.is(wrong.status, 400, wrong.text);
  assert.match(wrong.json.message, 'password authentication failed');
  for (const bad of ['not a url', `mysql://u:${PASSWORD}@127.0.0.1/x`, `postgres://ext_committer@127.0.0.1/ext_committer_db`, `postgres://u:${PASSWORD}@127.0.0.1/`, `${dbUrl}?sslmode=require`, 'x'.repeat(2001)]) {
    const r = await committer(bad);
    assert.is(r.status, 400, r.text);
  }
  const onGroup = await call('POST', '/nodes', { name: 'dbg', platform: 'LEDGERX', nodeType: 'LEDGERX_ORDERER_GROUP', organizationId: org.id, config: { databaseUrl: dbUrl } });
  assert.is(onGroup.status, 400, onGroup.text);
  const qs = await call('POST', '/networks/ledgerx/quickstart', { name: 'dbqsbad', organizations: [{ name: 'DbOrgQ', mspId: 'DbOrgQMSP' }], committerDatabaseUrl: dbUrl.replace(PASSWORD, 'nope') });
  assert.is(qs.status, 400, qs.text);
  assert.match(qs.json.message, 'committerDatabaseUrl');
  assert.is((await api('GET', '/nodes/platform/LEDGERX')).json.total, 0);
  assert.is((await api('GET', '/organizations?limit=100')).json.items.filter((o: any) => o.mspId === 'DbOrgQMSP').length, 0);
  for (const text of seen) assert.not.match(text, PASSWORD);
});

t('a quick start whose committer uses the given database completes; the committer\'s tables are there; the password is nowhere', async () => {
  if (!server.databaseUrl) return;
  const r = await call('POST', '/networks/ledgerx/quickstart', { name: 'dbqs', organizations: [{ name: 'DbOrg2', mspId: 'DbOrg2MSP' }], committerDatabaseUrl: dbUrl });
  assert.is(r.status, 202, r.text);
  const q = await until('the quick start ends', async () => {
    const x = (await call('GET', `/networks/ledgerx/quickstart/${r.json.id}`)).json;
    return x.status === 'IN_PROGRESS' ? null : x;
  }, 300_000, 500);
  assert.is(q.status, 'COMPLETED', JSON.stringify(q));
  const committerId = q.steps.find((s: any) => s.kind === 'committer').resource_id;
  const committer = (await call('GET', `/nodes/${committerId}`)).json;
  assert.equal(committer.ledgerXCommitter.database, { host: new URL(dbUrl).hostname, port: Number(new URL(dbUrl).port), name: 'ext_committer_db', user: 'ext_committer', external: true });
  assert.is(committer.status, 'running');
  // The vc made its tables in that database, as its user.
  const tables = await admin.query("SELECT tablename, tableowner FROM pg_tables WHERE schemaname = 'public'");
  const ext = new pg.Client({ connectionString: dbUrl });
  await ext.connect();
  const own = await ext.query("SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public' AND tableowner = 'ext_committer'");
  await ext.end();
  assert.ok(own.rows[0].n > 0, `the committer made tables in ext_committer_db (the admin's own database holds ${tables.rowCount})`);
  for (const { nodeId } of committer.ledgerXCommitter.roles) await call('GET', `/nodes/${nodeId}`);
  await call('GET', '/nodes/platform/LEDGERX?limit=100');
  await call('GET', '/audit/logs?limit=500');
  const events = await call('GET', `/nodes/${committerId}/events`);
  for (const text of seen) {
    assert.not.match(text, PASSWORD);
    assert.not.match(text, 'sealedPassword', text.slice(0, 200));
  }
  assert.not.match(server.output(), PASSWORD, 'the service\'s log');
  assert.ok(events.status === 200 || events.status === 404);
  // Deleting the committer leaves the given database (and its user) alone.
  assert.is((await api('DELETE', `/nodes/${committerId}`)).status, 204);
  await until('the committer\'s services removed', async () => ((await api('GET', `/nodes/${committer.ledgerXCommitter.roles[0].nodeId}`)).status === 404 ? true : null), 60_000);
  await new Promise((res) => setTimeout(res, 2000));
  assert.is((await admin.query("SELECT 1 FROM pg_database WHERE datname = 'ext_committer_db'")).rowCount, 1);
  assert.is((await admin.query("SELECT 1 FROM pg_roles WHERE rolname = 'ext_committer'")).rowCount, 1);
});

t('a committer whose database refuses its login once made: the quick start fails at the committer\'s join, naming the vc and its last log lines', async () => {
  if (!server.databaseUrl) return;
  await admin.query("CREATE ROLE ext_committer2 LOGIN PASSWORD 'Second-pw-7730'");
  await admin.query('CREATE DATABASE ext_committer_db2 OWNER ext_committer2');
  const u = new URL(server.databaseUrl);
  const r = await call('POST', '/networks/ledgerx/quickstart', { name: 'dbqs2', organizations: [{ name: 'DbOrg3', mspId: 'DbOrg3MSP' }], committerDatabaseUrl: `postgres://ext_committer2:Second-pw-7730@${u.hostname}:${u.port}/ext_committer_db2` });
  assert.is(r.status, 202, r.text);
  await until('the committer made', async () => ((await api('GET', `/networks/ledgerx/quickstart/${r.json.id}`)).json.steps[2].status === 'DONE' ? true : null), 120_000, 100);
  await admin.query('ALTER ROLE ext_committer2 NOLOGIN');
  const q = await until('the quick start ends', async () => {
    const x = (await call('GET', `/networks/ledgerx/quickstart/${r.json.id}`)).json;
    return x.status === 'IN_PROGRESS' ? null : x;
  }, 300_000, 500);
  assert.is(q.status, 'FAILED', JSON.stringify(q));
  const failed = q.steps.find((s: any) => s.status === 'FAILED');
  assert.is(failed.kind, 'join-committer', JSON.stringify(failed));
  assert.is(failed.role, 'vc', JSON.stringify(failed));
  assert.ok(failed.log_tail.length > 0, JSON.stringify(failed));
  assert.match(q.error, 'vc');
  for (const text of seen) assert.not.match(text, 'Second-pw-7730');
});

t.run();
