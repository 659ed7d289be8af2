// Several `lnm serve` instances on one DATABASE_URL (issue 25): each answers the whole API and says
// in GET /health which instance it is; the background work (sagas, timers, deliveries) runs on the
// one instance holding its lease; a session made on one works on the others; a write on one is
// read on another; a kill -9 of the holder hands the work to another within the lease's time to
// live and a third, a SIGTERM at once (the lease is released).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN, adminAuth, call, type TestServer } from '../helpers/server.ts';
import { FAILOVER_BOUND_MS, LEASE_SECONDS, RELEASED_BOUND_MS, startInstancesBehindNginx, type Instances } from '../helpers/instances.ts';

const t = suite('several instances on one database');
let servers: TestServer[] = [];
let cluster: Instances | undefined;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
// Every instance needs the same KEY_ENCRYPTION_KEY (the stored keys are sealed under it): the helper gives them one.
const start = () => cluster!.start();

async function health(s: TestServer): Promise<{ id: string; work: string[] } | null> {
  try {
    const r = await call(s.api, 'GET', '/health');
    return r.status === 200 ? r.json.instance : null;
  } catch {
    return null;
  }
}

/** The servers holding one piece of the background work now (the webhooks, sagas/workPieces.ts), by index. */
async function holders(list: TestServer[]): Promise<number[]> {
  const hs = await Promise.all(list.map(health));
  return hs.flatMap((h, i) => (h?.work.includes('work:webhooks') ? [i] : []));
}

t.before(async () => {
  // The first one migrates the database; the others start beside it.
  cluster = await startInstancesBehindNginx({ count: 3, nginx: false });
  servers = cluster.servers;
});
t.after(async () => {
  await cluster?.stop();
});

t('each instance says who it is; exactly one holds the background work', async () => {
  const hs = await Promise.all(servers.map(health));
  assert.is(new Set(hs.map((h) => h!.id)).size, 3);
  // Never two; none only for the moment a piece is handed over while the instances join.
  const seen: number[] = [];
  for (let i = 0; i < 30; i++) {
    seen.push((await holders(servers)).length);
    if (seen.length > 5 && seen.at(-1) === 1) break;
    await sleep(100);
  }
  assert.ok(seen.every((n) => n <= 1), JSON.stringify(seen));
  assert.is(seen.at(-1), 1, JSON.stringify(seen));
});

t('a session made on one instance works on the others; a write on one is read on another at once', async () => {
  const login = await call(servers[0].api, 'POST', '/auth/login', { body: ADMIN });
  assert.is(login.status, 200);
  const cookie = login.headers.get('set-cookie')!.split(';')[0];
  for (const s of servers) assert.is((await call(s.api, 'GET', '/auth/me', { headers: { cookie } })).json.authMethod, 'session');
  for (let i = 0; i < 5; i++) {
    const username = `instance-user-${i}`;
    const made = await call(servers[i % 3].api, 'POST', '/users', { headers: adminAuth(), body: { username, password: 'correct-horse-battery', role: 'VIEWER' } });
    assert.is(made.status, 201, made.text);
    const other = servers[(i + 1) % 3];
    const list = await call(other.api, 'GET', '/users?limit=100', { headers: adminAuth() });
    assert.ok(JSON.stringify(list.json).includes(username), `user ${username} made on instance ${i % 3} not yet listed on ${(i + 1) % 3}`);
  }
  // Logged out on one: refused on every other.
  assert.is((await call(servers[2].api, 'POST', '/auth/logout', { headers: { cookie, 'x-requested-with': 'test' } })).status, 204);
  for (const s of servers) assert.is((await call(s.api, 'GET', '/auth/me', { headers: { cookie } })).status, 401);
});

t('kill -9 of the holder: another instance holds the work within the lease time and a third', async () => {
  const [holder] = await holders(servers);
  await servers[holder].kill();
  const rest = servers.filter((_, i) => i !== holder);
  const killedAt = Date.now();
  let taken: number[] = [];
  while (Date.now() - killedAt < LEASE_SECONDS * 1000 * 3) {
    taken = await holders(rest);
    if (taken.length) break;
    await sleep(100);
  }
  const took = Date.now() - killedAt;
  assert.is(taken.length, 1, 'one survivor holds the work');
  assert.ok(took <= FAILOVER_BOUND_MS, `taken over after ${took} ms`);
  // A restarted instance does not take the work from the live holder.
  servers[holder] = await start();
  await sleep(LEASE_SECONDS * 1000);
  assert.is((await holders(servers)).length, 1);
});

t('SIGTERM of the holder releases its lease: another takes the work at once', async () => {
  const [holder] = await holders(servers);
  const stopping = servers[holder].stop();
  const rest = servers.filter((_, i) => i !== holder);
  await stopping;
  const stoppedAt = Date.now();
  let taken: number[] = [];
  while (Date.now() - stoppedAt < LEASE_SECONDS * 1000 * 3) {
    taken = await holders(rest);
    if (taken.length) break;
    await sleep(50);
  }
  const took = Date.now() - stoppedAt;
  assert.is(taken.length, 1);
  // A renewal period at most (the survivors try every third of the time to live), never a whole expiry.
  assert.ok(took <= RELEASED_BOUND_MS, `taken over ${took} ms after the holder stopped`);
});

t.run();
