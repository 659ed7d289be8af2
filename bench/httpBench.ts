// HTTP figures against the real server in a child process, with load from autocannon in a
// second process: write-to-visibility over HTTP, GET /users at a fixed and at the maximum rate,
// logins per second, authenticated GET latency per method, and the filtered audit listing.
import { runLoad, runPaced, type LoadResult } from './lib/load.ts';
import { BENCH_ADMIN, basicAuth, call, type ServerProcess } from './lib/serverProcess.ts';
import { msSince, now, summarize, type LatencySummary } from './lib/stats.ts';

export interface Credentials {
  cookie: string;
  apiKey: string;
  basic: string;
}

export async function credentials(server: ServerProcess): Promise<Credentials> {
  const login = await call(server.api, 'POST', '/auth/login', { body: BENCH_ADMIN });
  if (login.status !== 200) throw new Error(`login answered ${login.status}: ${login.text}`);
  const cookie = login.headers.getSetCookie().map((c) => c.split(';')[0]).find((c) => c.startsWith('lnm_session='));
  if (!cookie) throw new Error('login set no lnm_session cookie');
  const key = await call(server.api, 'POST', '/api-keys', { body: { name: 'bench' }, headers: { cookie, 'x-requested-with': 'bench' } });
  if (key.status !== 201) throw new Error(`creating an API key answered ${key.status}: ${key.text}`);
  return { cookie, apiKey: key.json.key, basic: basicAuth(BENCH_ADMIN.username, BENCH_ADMIN.password) };
}

/** A directory of a realistic size for the list endpoint (each create hashes a password). */
export async function seedUsers(server: ServerProcess, c: Credentials, count: number): Promise<void> {
  for (let i = 0; i < count; i += 2) {
    await Promise.all([i, i + 1].filter((n) => n < count).map(async (n) => {
      const r = await call(server.api, 'POST', '/users', { body: { username: `operator${n}`, password: `operator-password-${n}`, role: n % 3 === 0 ? 'OPERATOR' : 'VIEWER', email: `operator${n}@example.org` }, headers: { cookie: c.cookie, 'x-requested-with': 'bench' } });
      if (r.status !== 201) throw new Error(`creating a user answered ${r.status}: ${r.text}`);
    }));
  }
}

/**
 * POST /api-keys (the handler waits for its projection: read-your-writes), then GET the new key
 * by id. Measures POST alone and POST + GET until the GET shows the key.
 */
export async function httpVisibility(server: ServerProcess, c: Credentials, samples: number): Promise<{ write: LatencySummary; writeThenRead: LatencySummary }> {
  const write: number[] = [];
  const both: number[] = [];
  for (let i = 0; i < samples + 10; i++) {
    const t0 = now();
    const p = await call(server.api, 'POST', '/api-keys', { body: { name: `probe-${i}` }, headers: { cookie: c.cookie, 'x-requested-with': 'bench' } });
    const tw = msSince(t0);
    if (p.status !== 201) throw new Error(`POST /api-keys answered ${p.status}: ${p.text}`);
    const g = await call(server.api, 'GET', `/api-keys/${p.json.id}`, { headers: { cookie: c.cookie } });
    const tb = msSince(t0);
    if (g.status !== 200 || g.json.name !== `probe-${i}`) throw new Error(`the new key was not visible: ${g.status} ${g.text}`);
    if (i >= 10) {
      write.push(tw);
      both.push(tb);
    }
  }
  return { write: summarize(write), writeThenRead: summarize(both) };
}

/**
 * The fixed rate runs three times (8 s each) and the median round is reported: on this shared
 * 2-core machine a single stall of ~100 ms, which also delays the load client, sets a round's p99.
 */
export async function usersLoad(server: ServerProcess, c: Credentials): Promise<{ fixed: LoadResult; fixedRounds: LoadResult[]; autocannonFixed: LoadResult; max: LoadResult }> {
  const url = `${server.api}/users`;
  const headers = { cookie: c.cookie };
  await runLoad({ url, headers, connections: 4, durationSec: 2 }); // warm-up
  const fixedRounds: LoadResult[] = [];
  for (let i = 0; i < 3; i++) fixedRounds.push(await runPaced({ url, headers, mode: 'paced', rate: 200, connections: 10, durationSec: 8 }));
  const fixed = [...fixedRounds].sort((a, b) => a.latencyMs.p99 - b.latencyMs.p99)[1];
  // autocannon's own fixed-rate mode, for comparison (bursts each second's budget).
  const autocannonFixed = await runLoad({ url, headers, connections: 10, durationSec: 5, rate: 200 });
  const max = await runLoad({ url, headers, connections: 10, durationSec: 8 });
  return { fixed, fixedRounds, autocannonFixed, max };
}

export async function loginRate(server: ServerProcess, durationSec: number): Promise<LoadResult> {
  return runLoad({
    url: `${server.api}/auth/login`, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(BENCH_ADMIN),
    connections: 4, durationSec,
  });
}

/**
 * Logins that really run scrypt: each seeded user logs in once (the server caches a verified
 * password for 5 minutes, so repeated logins of one user skip the derivation). Two at a time.
 */
export async function uncachedLogins(server: ServerProcess, count: number): Promise<{ perSec: number; latency: LatencySummary }> {
  const times: number[] = [];
  const t0 = now();
  for (let i = 0; i < count; i += 2) {
    await Promise.all([i, i + 1].filter((n) => n < count).map(async (n) => {
      const t = now();
      const r = await call(server.api, 'POST', '/auth/login', { body: { username: `operator${n}`, password: `operator-password-${n}` } });
      if (r.status !== 200) throw new Error(`login of operator${n} answered ${r.status}: ${r.text}`);
      times.push(msSince(t));
    }));
  }
  return { perSec: count / (msSince(t0) / 1000), latency: summarize(times) };
}

/** One connection, back to back: the latency each authentication method adds to a small GET. */
export async function authLatency(server: ServerProcess, c: Credentials, durationSec: number): Promise<Record<'basic' | 'cookie' | 'apiKey', LoadResult>> {
  const url = `${server.api}/users`;
  return {
    basic: await runPaced({ url, mode: 'closed', headers: { authorization: c.basic }, connections: 1, durationSec }),
    cookie: await runPaced({ url, mode: 'closed', headers: { cookie: c.cookie }, connections: 1, durationSec }),
    apiKey: await runPaced({ url, mode: 'closed', headers: { authorization: `Bearer ${c.apiKey}` }, connections: 1, durationSec }),
  };
}

export function auditQueryPath(): string {
  const day = 86_400_000;
  const d = (n: number) => new Date(Date.now() - n * day).toISOString().slice(0, 10);
  return `/audit-logs?action=LOGIN&start_date=${d(40)}&end_date=${d(10)}`;
}

export async function auditLoad(server: ServerProcess, c: Credentials, durationSec: number): Promise<{ result: LoadResult; total: number }> {
  const check = await call(server.api, 'GET', auditQueryPath(), { headers: { cookie: c.cookie } });
  if (check.status !== 200) throw new Error(`audit listing answered ${check.status}: ${check.text}`);
  const result = await runPaced({ url: server.api + auditQueryPath(), headers: { cookie: c.cookie }, mode: 'paced', connections: 4, durationSec, rate: 50 });
  return { result, total: check.json.total ?? check.json.pagination?.total ?? -1 };
}
