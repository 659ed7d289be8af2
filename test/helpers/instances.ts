// Several `lnm serve` instances on one fresh DATABASE_URL behind Debian's nginx (issue 25), and the
// mixed load the several-instance fault tests run through it: workers create users and read each
// back at once through nginx; afterwards every acknowledged write must be there and the audit
// chain, written by all instances at once, must verify.
import * as assert from 'uvu/assert';
import { adminAuth, call, startServer, type TestServer } from './server.ts';
import { freshDatabase } from './postgres.ts';
import { startNginx, workHolders, type Nginx } from './nginx.ts';

export interface Instances {
  databaseUrl: string;
  servers: TestServer[];
  /** null when started without it (opts.nginx false). */
  nginx: Nginx | null;
  /** The API's base URL through nginx ('' without it). */
  lb: string;
  /** Another instance on the same database (on `port`, e.g. a killed one's, which nginx tries again). */
  start(port?: number): Promise<TestServer>;
  /** nginx stopped, every instance killed, and any node process left under their data directories ended. */
  stop(): Promise<void>;
}

/** The work leases' time to live in the several-instance tests (LNM_WORK_LEASE_SECONDS): short, so a failover fits in a test. */
export const LEASE_SECONDS = 3;
/**
 * How soon a lease its holder released (a SIGTERM drain, a stop) is held by another instance: the
 * others try at their next renewal round (every third of the time to live); one second more for
 * the round's own queries and the /health round trips.
 */
export const RELEASED_BOUND_MS = (LEASE_SECONDS * 1000) / 3 + 1000;
/**
 * The failover bound after a kill -9: the dead holder's lease runs out after its time to live and
 * a survivor tries it every third of that; one second more for the probe round trips.
 */
export const FAILOVER_BOUND_MS = (LEASE_SECONDS * 4 * 1000) / 3 + 1000;
/** The mixed load's concurrent workers (mixedLoad) in the fault tests behind nginx. */
export const LOAD_WORKERS = 4;

/** `count` instances with work leases of `leaseSeconds` (LEASE_SECONDS unless given), behind nginx unless `nginx` is false. */
export async function startInstancesBehindNginx(opts: { count: number; leaseSeconds?: number; env?: Record<string, string>; nginx?: boolean }): Promise<Instances> {
  const databaseUrl = (await freshDatabase()).url;
  const start = (port?: number) => startServer({ databaseUrl, port, env: { LNM_WORK_LEASE_SECONDS: String(opts.leaseSeconds ?? LEASE_SECONDS), KEY_ENCRYPTION_KEY: 'several-instances-e2e-key-encryption-key-0123', ...opts.env } });
  // The first alone: it runs the migrations the others then find done.
  const servers = [await start()];
  servers.push(...(await Promise.all(Array.from({ length: opts.count - 1 }, () => start()))));
  const nginx = opts.nginx === false ? null : await startNginx(servers.map((s) => s.port));
  const self: Instances = {
    databaseUrl, servers, nginx, lb: nginx ? `${nginx.url}/api/v1` : '', start,
    async stop() {
      await nginx?.stop();
      await Promise.all(self.servers.map((s) => s.kill()));
      for (const s of self.servers) s.reapNodes();
    },
  };
  return self;
}

/** The ids of the instances nginx sends `n` GET /health to. */
export async function instancesAnswering(lb: string, n: number): Promise<Set<string>> {
  const ids = new Set<string>();
  for (let i = 0; i < n; i++) ids.add((await call(lb, 'GET', '/health')).json.instance.id);
  return ids;
}

/**
 * The index of the one instance holding `work:webhooks`, once exactly one holds it: right after
 * the instances start, the pieces are spread anew as each joins, so a piece can be between
 * holders for a round or two.
 */
export async function oneWorkHolder(servers: TestServer[], withinMs: number): Promise<number> {
  for (let hs = await workHolders(servers), end = Date.now() + withinMs; ; hs = await workHolders(servers)) {
    if (hs.length === 1) return hs[0];
    if (Date.now() > end) throw new Error(`holders of work:webhooks after ${withinMs} ms: ${JSON.stringify(hs)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The leases each instance says it holds (GET /health instance.work) whose names start with
 * `prefix`, the prefix taken off (`work:` pieces, `node-shard-` shards); null for one that does not answer.
 */
export async function leasesHeld(list: TestServer[], prefix: string): Promise<(string[] | null)[]> {
  return Promise.all(list.map(async (s) => (await workOf(s))?.filter((w) => w.startsWith(prefix)).map((w) => w.slice(prefix.length)) ?? null));
}

/** The leases an instance says it holds (GET /health instance.work); null when it does not answer. */
export async function workOf(s: TestServer): Promise<string[] | null> {
  try {
    const r = await call(s.api, 'GET', '/health');
    return r.status === 200 ? (r.json.instance.work as string[]) : null;
  } catch {
    return null;
  }
}

export interface LoadResult {
  requests: number;
  /** Each write answered 201, with when the answer came (ms since the epoch). */
  acknowledged: Array<{ id: number; username: string; at?: number }>;
  failures: Array<{ at: number; what: string }>;
  readBackMisses: number;
  began: number;
}

/**
 * `workers` loops of: create a user through nginx, read it back at once through nginx, until
 * `durationMs` has passed. A 5xx or a failed connection is a failure (with its time); any other
 * answer to the POST than 201 fails the test.
 */
export async function mixedLoad(lb: string, opts: { workers: number; durationMs: number; prefix: string }): Promise<LoadResult> {
  const result: LoadResult = { requests: 0, acknowledged: [], failures: [], readBackMisses: 0, began: Date.now() };
  const stopAt = result.began + opts.durationMs;
  async function worker(w: number) {
    for (let i = 0; Date.now() < stopAt; i++) {
      const username = `${opts.prefix}-w${w}-${i}`;
      result.requests++;
      let r;
      try {
        r = await call(lb, 'POST', '/users', { headers: adminAuth(), body: { username, password: 'correct-horse-battery', role: 'VIEWER' } });
      } catch (e) {
        result.failures.push({ at: Date.now(), what: `POST ${username}: ${(e as Error).message}` });
        continue;
      }
      if (r.status >= 500) {
        result.failures.push({ at: Date.now(), what: `POST ${username}: ${r.status} ${r.text.slice(0, 200)}` });
        continue;
      }
      assert.is(r.status, 201, r.text);
      result.acknowledged.push({ id: r.json.id, username, at: Date.now() });
      result.requests++;
      const back = await call(lb, 'GET', `/users/${r.json.id}`, { headers: adminAuth() }).catch((e: Error) => ({ status: 599, text: e.message, json: null as any }));
      if (back.status >= 500) result.failures.push({ at: Date.now(), what: `GET ${username}: ${back.status} ${back.text.slice(0, 200)}` });
      else if (back.status !== 200 || back.json.username !== username) result.readBackMisses++;
    }
  }
  await Promise.all(Array.from({ length: opts.workers }, (_, w) => worker(w)));
  return result;
}

/** Every acknowledged write is there, read through nginx; the audit chain verifies from the first entry to the last. */
export async function assertWritesKept(lb: string, acknowledged: Array<{ id: number; username: string }>): Promise<void> {
  for (const { id, username } of acknowledged) {
    const r = await call(lb, 'GET', `/users/${id}`, { headers: adminAuth() });
    assert.is(r.status, 200, `user ${username} (${id}) acknowledged, now ${r.status}`);
    assert.is(r.json.username, username);
  }
  const head = (await call(lb, 'GET', '/audit-logs?limit=1', { headers: adminAuth() })).json.items[0].id as number;
  const v = await call(lb, 'POST', '/audit-logs/verify', { headers: adminAuth(), body: { start_id: 1, end_id: head } });
  assert.is(v.status, 200, v.text);
  assert.ok(v.json.valid, v.text);
  assert.ok(head >= acknowledged.length, `audit head ${head} below ${acknowledged.length} writes`);
}
