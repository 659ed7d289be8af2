// Issue 35 item 10: what a start prints. One plain line says where the console is and how to
// sign in (the generated password only on the first start, above it); the leases a start takes
// are one log line per kind of work, not one per lease (24 for one instance before).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, type TestServer } from '../helpers/server.ts';
import { freshDatabase } from '../helpers/postgres.ts';
import { until } from './evm/evmLifecycle.ts';

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

test.run();
