// Issue 35 item 10: what a start prints. One plain line says where the console is and how to
// sign in (the generated password only on the first start, above it); the leases a start takes
// are one log line per kind of work, not one per lease (24 for one instance before).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, type TestServer } from '../helpers/server.ts';
import { freshDatabase } from '../helpers/postgres.ts';
import { until } from './evm/evmLifecycle.ts';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../../adapters/postgres/embeddedPostgres.ts';

let s: TestServer | undefined;

test.after(async () => {
  await s?.stop();
});

const signInLine = async (server: TestServer) => until('the sign-in line', async () => server.output().split('\n').find((l) => l.startsWith('Console: ')), 30_000);
const leaseLines = (server: TestServer) => server.output().split('\n').filter((l) => /lease[s]? acquired/.test(l));

test('a first start with a generated password: the password once, then the console line; at most two lease lines', async () => {
  const db = await freshDatabase();
  s = await startServer({ databaseUrl: db.url, env: { ADMIN_PASSWORD: '' } });
  const line = await signInLine(s);
  assert.is(line, `Console: ${s.url}/ - sign in as "admin" with the password printed above (shown only this once). API: ${s.url}/api/v1, described at ${s.url}/api/swagger/`);
  const out = s.output();
  const password = /with password:\s+(\S+)/.exec(out)?.[1];
  assert.ok(password, 'the generated password is printed');
  assert.ok(out.indexOf(password!) < out.indexOf('Console: '), 'above the console line');
  assert.is(out.split(password!).length, 2, 'printed once, in no log line');
  const r = await fetch(`${s.api}/auth/me`, { headers: { authorization: 'Basic ' + Buffer.from(`admin:${password}`).toString('base64') } });
  assert.is(r.status, 200, 'the printed password signs in');
  // 16 node shards and 8 work pieces, all taken by this one instance.
  const leases = leaseLines(s);
  assert.ok(leases.length >= 1 && leases.length <= 2, `lease lines: ${leases.length}\n${leases.join('\n')}`);
  assert.match(leases.join('\n'), /16 shard leases acquired/);
  assert.match(leases.join('\n'), /8 shard leases acquired/);
  await s.stop();

  // The second start on the same database and data directory prints no password and says how to sign in.
  s = await startServer({ databaseUrl: db.url, dataDir: s.dataDir, env: { ADMIN_PASSWORD: '' } });
  assert.is(await signInLine(s), `Console: ${s.url}/ - sign in with your user name and password (the first ADMIN is "admin"). API: ${s.url}/api/v1, described at ${s.url}/api/swagger/`);
  assert.not.match(s.output(), /with password:/);
});

test('npm start runs the server compiled at install (no tsx in its process) and prints the console line', async () => {
  const db = await freshDatabase();
  const port = await freePort();
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', PORT: String(port), HOST: '127.0.0.1', DATA_DIR: mkdtempSync(path.join(tmpdir(), 'lnm-npm-start-')), DATABASE_URL: db.url, ADMIN_PASSWORD: 'admin-password-for-tests', LNM_RESOURCE_MONITOR: 'false' };
  // Its own process group: the stop reaches npm's child, the server.
  const child = spawn('npm', ['start', '--silent'], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise((r) => child.once('exit', r));
  try {
    const line = await until('the console line of npm start', async () => out.split('\n').find((l) => l.startsWith('Console: ')), 120_000);
    assert.is(line, `Console: http://127.0.0.1:${port}/ - sign in as "admin" with the ADMIN_PASSWORD it was started with. API: http://127.0.0.1:${port}/api/v1, described at http://127.0.0.1:${port}/api/swagger/`);
    assert.is((await fetch(`http://127.0.0.1:${port}/api/v1/health`)).status, 200);
    const serverPid = (await import('node:child_process')).execFileSync('pgrep', ['-g', String(child.pid), '-f', 'dist/lnm.mjs|start.mjs']).toString().trim();
    assert.ok(serverPid, 'the server runs bin/start.mjs, which imports dist/lnm.mjs');
    assert.not.match((await import('node:fs')).readFileSync(`/proc/${serverPid.split('\n')[0]}/cmdline`, 'utf8'), /tsx/, 'not through tsx');
  } finally {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      /* gone */
    }
    await exited;
  }
});

test.run();
