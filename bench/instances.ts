// Several `lnm serve` instances on one DATABASE_URL behind Debian's nginx (issue 25), as the e2e
// tests test/e2e/instances*.e2e.test.ts start them: three instances on one fresh database of the
// shared embedded PostgreSQL, nginx as a child with its own nginx.conf in a temp directory.
//  (a) read requests per second (GET /api/v1/nodes with a session cookie, autocannon closed loop,
//      10 connections, 10 s per phase) through nginx with an upstream of 1, 2 and 3 of the same
//      instances, in this one run; the 1-instance figure is the reference (ratio);
//  (b) failover after kill -9 of the instance holding 'work:webhooks' (one piece of the background work): ms from the kill until
//      another instance names the lease in GET /health instance.work (polled every 100 ms), at the
//      default lease (9 s; bound ttl + ttl/3 = 12 s); the killed one is started again on its port
//      each round; median of 5.
//  (c) nodes watched by one instance at a 10 s probe interval before its probe lag exceeds one
//      interval: one more instance alone on its own database (so it holds every node shard),
//      managed nodes added in steps (BENCH_INSTANCES_WATCH_STEPS, default 250,500,1000),
//      each node a real process: bench/lib/tinyRpcNode.c started as `besu` by the process engine
//      (bench/lib/tinyRpc.ts; ~1.5 MiB each); after each step one interval to settle, then the
//      gaps between each node's successive probes (node_observations) over two intervals; the
//      step stops at the first count whose p99 lag (gap - interval) exceeds the interval.
// BENCH_INSTANCES_PARTS=reads,failover,watch picks parts. `npx tsx bench/instances.ts`; prints one
// JSON object to stdout.
import { call, startServer, ADMIN, type TestServer } from '../test/helpers/server.ts';
import { freshDatabase } from '../test/helpers/postgres.ts';
import { runGlobalTeardown } from '../test/helpers/globalTeardown.ts';
import { nginxBin, startNginx, workHolders as holders } from '../test/helpers/nginx.ts';
import { runLoad } from './lib/load.ts';
import { benchLog, runBench } from './lib/nodeBench.ts';
import { round } from './lib/stats.ts';
import pg from 'pg';
import { probeGaps, tinyBesu } from './lib/tinyRpc.ts';

const log = benchLog('instances');
const LOAD_SECONDS = Number(process.env.BENCH_INSTANCES_LOAD_SECONDS ?? 10);
const CONNECTIONS = 10;
const FAILOVERS = Number(process.env.BENCH_INSTANCES_FAILOVERS ?? 5);
const LEASE_SECONDS = 9;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};


let servers: TestServer[] = [];
const PARTS = new Set((process.env.BENCH_INSTANCES_PARTS ?? 'reads,failover,watch').split(','));
const WATCH_STEPS = (process.env.BENCH_INSTANCES_WATCH_STEPS ?? '250,500,1000').split(',').map(Number);
const WATCH_INTERVAL = 10;
const PER_NETWORK = 16;
const pct = (xs: number[], p: number) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] : NaN);

/** (c) Steps of managed nodes on one instance until its probe lag p99 exceeds the interval. */
async function watched(): Promise<{ steps: { nodes: number; lagP50Ms: number; lagP99Ms: number; probesSeenPerDue: number }[]; within: number; exceededAt: number | null }> {
  const besu = tinyBesu();
  const s = await startServer({ env: { PATH: `${besu.binDir}:${process.env.PATH ?? ''}`, LOG_LEVEL: 'warn', KEY_ENCRYPTION_KEY: 'several-instances-bench-key-encryption-key-01' }, timeoutMs: 120_000 });
  servers.push(s);
  const pool = new pg.Pool({ connectionString: s.databaseUrl!, max: 2 });
  const api = (method: string, p: string, body?: unknown) => call(s.api, method, p, { headers: { authorization: `Basic ${Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64')}` }, body });
  const steps: { nodes: number; lagP50Ms: number; lagP99Ms: number; probesSeenPerDue: number }[] = [];
  let exceededAt: number | null = null;
  try {
    const set = await api('POST', '/settings', { nodeHealthCheckIntervalSeconds: WATCH_INTERVAL, nodeDowntimeThreshold: 3 });
    if (set.status !== 200) throw new Error(`settings: ${set.text}`);
    let made = 0;
    let net = 0;
    for (const target of WATCH_STEPS) {
      while (made < target) {
        const count = Math.min(PER_NETWORK, target - made);
        const created = await api('POST', '/networks', { name: `watch-${net}`, type: 'evm', client: 'besu', validatorCount: count, genesis: { chain_id: 53000 + net, consensus: 'QBFT', block_time: 5 } });
        if (created.status !== 201) throw new Error(`create network ${net}: ${created.text}`);
        const started = await api('POST', `/networks/${created.json.id}/start`);
        if (started.status !== 200) throw new Error(`start network ${net}: ${started.text.slice(0, 400)}`);
        made += count;
        net++;
      }
      const running = Number((await pool.query(`SELECT count(*) AS n FROM nodes WHERE status = 'running'`)).rows[0].n);
      log(`watch: ${running} nodes running; settling one interval, measuring two`);
      await sleep(WATCH_INTERVAL * 1000);
      const gaps = await probeGaps(pool, 2 * WATCH_INTERVAL * 1000);
      const late = gaps.gapsMs.map((g) => g - WATCH_INTERVAL * 1000);
      const step = { nodes: running, lagP50Ms: round(pct(late, 50), 0), lagP99Ms: round(pct(late, 99), 0), probesSeenPerDue: round(gaps.probes / Math.max(1, (running * 2 * WATCH_INTERVAL) / WATCH_INTERVAL), 2) };
      steps.push(step);
      log(`watch: ${JSON.stringify(step)}`);
      // Probes that fell behind by more than an interval, or are not seen at all: the instance no longer keeps up.
      if (!(step.lagP99Ms <= WATCH_INTERVAL * 1000) || step.probesSeenPerDue < 0.9) {
        exceededAt = running;
        break;
      }
    }
  } finally {
    const nets = (await api('GET', '/networks/evm?limit=1000')).json?.items ?? [];
    for (const n of nets) await api('DELETE', `/networks/evm/${n.id}`).catch(() => undefined);
    await pool.end();
    besu.remove();
  }
  const ok = steps.filter((x) => exceededAt === null || x.nodes < exceededAt);
  return { steps, within: ok.length ? ok[ok.length - 1].nodes : 0, exceededAt };
}

async function main(): Promise<Record<string, unknown>> {
  if (!nginxBin) throw new Error('no nginx on PATH or in /usr/sbin (apt-get install nginx-light)');
  const databaseUrl = (await freshDatabase()).url;
  const start = (port?: number) => startServer({ databaseUrl, port, env: { LNM_WORK_LEASE_SECONDS: String(LEASE_SECONDS), KEY_ENCRYPTION_KEY: 'several-instances-bench-key-encryption-key-01' } });
  log('starting three instances on one database');
  servers = [await start()];
  servers.push(...(await Promise.all([start(), start()])));

  const login = await call(servers[0].api, 'POST', '/auth/login', { body: ADMIN });
  if (login.status !== 200) throw new Error(`login answered ${login.status}: ${login.text}`);
  const cookie = login.headers.getSetCookie().map((c) => c.split(';')[0]).find((c) => c.startsWith('lnm_session='));
  if (!cookie) throw new Error('login set no lnm_session cookie');

  // (a) The same three instances; nginx with an upstream of the first 1, 2 and 3.
  const reads: Record<string, { requestsPerSec: number; p50Ms: number; p99Ms: number; non2xx: number; errors: number }> = {};
  for (const n of PARTS.has('reads') ? [1, 2, 3] : []) {
    const lb = await startNginx(servers.slice(0, n).map((s) => s.port));
    try {
      const ids = new Set<string>();
      for (let i = 0; i < 3 * n; i++) ids.add((await call(`${lb.url}/api/v1`, 'GET', '/health')).json.instance.id);
      if (ids.size !== n) throw new Error(`nginx with ${n} upstreams answered from ${ids.size} instances`);
      const url = `${lb.url}/api/v1/nodes`;
      const check = await call(`${lb.url}/api/v1`, 'GET', '/nodes', { headers: { cookie } });
      if (check.status !== 200) throw new Error(`GET /nodes through nginx answered ${check.status}: ${check.text}`);
      await runLoad({ url, headers: { cookie }, connections: CONNECTIONS, durationSec: 2 }); // warm-up
      log(`${n} instance(s): ${LOAD_SECONDS} s of GET /api/v1/nodes, ${CONNECTIONS} connections`);
      const r = await runLoad({ url, headers: { cookie }, connections: CONNECTIONS, durationSec: LOAD_SECONDS });
      reads[n] = { requestsPerSec: round(r.requestsPerSec, 0), p50Ms: r.latencyMs.p50, p99Ms: r.latencyMs.p99, non2xx: r.non2xx, errors: r.errors };
      log(`  ${reads[n].requestsPerSec} req/s, p50 ${r.latencyMs.p50} ms, p99 ${r.latencyMs.p99} ms, ${r.non2xx} non-2xx, ${r.errors} errors`);
    } finally {
      await lb.stop();
    }
  }

  // (b) kill -9 of the holder, time until another holds the work.
  const failoversMs: number[] = [];
  for (let round_ = 0; round_ < (PARTS.has('failover') ? FAILOVERS : 0); round_++) {
    let hs = await holders(servers);
    for (const deadline = Date.now() + 30_000; hs.length !== 1 && Date.now() < deadline; hs = await holders(servers)) await sleep(200);
    if (hs.length !== 1) throw new Error(`expected one holder of work:webhooks, found ${hs.length}`);
    const holder = hs[0];
    // Kill at a random point of the renewal period, as a crash would come.
    await sleep(Math.random() * (LEASE_SECONDS * 1000) / 3);
    const killedAt = Date.now();
    await servers[holder].kill();
    const rest = servers.filter((_, i) => i !== holder);
    let took = -1;
    while (Date.now() - killedAt < LEASE_SECONDS * 3 * 1000) {
      if ((await holders(rest)).length === 1) {
        took = Date.now() - killedAt;
        break;
      }
      await sleep(100);
    }
    if (took < 0) throw new Error(`no survivor held the work ${LEASE_SECONDS * 3} s after the kill -9`);
    failoversMs.push(took);
    log(`failover ${round_ + 1}/${FAILOVERS}: ${took} ms`);
    servers[holder] = await start(servers[holder].port);
  }

  // (c) Without the three: one instance alone.
  await Promise.all(servers.splice(0).map((x) => x.kill()));
  const watch = PARTS.has('watch') ? await watched() : null;

  const bound = (LEASE_SECONDS * 4 * 1000) / 3;
  const ratio = (n: number) => round(reads[n].requestsPerSec / reads[1].requestsPerSec, 2);
  const rows = [
    ...(!PARTS.has('reads') ? [] : [1, 2, 3].map((n) => ({
      metric: `GET /api/v1/nodes through nginx, ${n} instance${n > 1 ? 's' : ''} on one database (session cookie, ${CONNECTIONS} connections, ${LOAD_SECONDS} s)`,
      value: reads[n].requestsPerSec,
      unit: 'req/s',
    }))),
    ...(!PARTS.has('reads') ? [] : [1, 2, 3].map((n) => ({ metric: `GET /api/v1/nodes through nginx, ${n} instance${n > 1 ? 's' : ''}, p99 (p50 ${reads[n].p50Ms} ms; ${reads[n].non2xx} non-2xx, ${reads[n].errors} errors)`, value: reads[n].p99Ms, unit: 'ms' }))),
    ...(!PARTS.has('reads') ? [] : [
      { metric: 'GET /api/v1/nodes through nginx, 2 instances / 1 instance, same run (2 cores shared)', value: ratio(2), unit: 'x' },
      { metric: 'GET /api/v1/nodes through nginx, 3 instances / 1 instance, same run (2 cores shared)', value: ratio(3), unit: 'x' },
    ]),
    ...(!PARTS.has('failover') ? [] : [{
      metric: `Failover after kill -9 of the work holder: until another instance holds work:webhooks (lease ${LEASE_SECONDS} s, median of ${FAILOVERS})`,
      value: median(failoversMs),
      unit: 'ms',
      target: `< ${bound} ms`,
      met: median(failoversMs) < bound,
    },
    { metric: `Failover after kill -9, slowest of ${FAILOVERS}`, value: Math.max(...failoversMs), unit: 'ms', target: `< ${bound} ms`, met: Math.max(...failoversMs) < bound }]),
    ...(!watch ? [] : [{
      metric: `Nodes watched by one instance at a ${WATCH_INTERVAL} s probe interval with probe lag p99 within one interval (tinyRpcNode.c processes; steps ${WATCH_STEPS.join(',')}; ${watch.exceededAt === null ? 'never exceeded up to the last step' : `exceeded at ${watch.exceededAt}`})`,
      value: watch.within,
      unit: 'nodes',
    }]),
  ];
  return { rows, reads, failoversMs, leaseSeconds: LEASE_SECONDS, boundMs: bound, watch };
}

runBench(log, async () => {
  try {
    return await main();
  } finally {
    await Promise.all(servers.map((s) => s.kill()));
    await runGlobalTeardown();
  }
});
