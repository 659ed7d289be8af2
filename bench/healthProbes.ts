// Health-probe bench: many managed evm nodes, each a real OS process, probed by the service's
// health monitor. Reports the service's CPU per probe (user+system from /proc over a window,
// divided by the probes the window held), how late probes run against the interval, and the
// service's memory per managed node (the floor of its V8 heap in use and the median of its RSS,
// each sampled over 8 s, with the nodes against without them). `npx tsx bench/healthProbes.ts` (BENCH_HEALTH_NODES, default
// 500; BENCH_HEALTH_INTERVAL seconds, default 10; BENCH_CPU_PROF=dir writes a CPU profile of the
// server). Prints one JSON object to stdout.
//
// Which process per node: `besu` on the server's PATH is bench/lib/tinyRpcNode.c, compiled here
// with cc: it reads rpc-http-port from the besu.toml the service writes and answers JSON-RPC
// (eth_blockNumber, net_peerCount) with keep-alive, at about 1.5 MiB RSS. 500 anvils (30+ MiB
// and a Rust runtime each) or 500 node processes (40+ MiB each) would not fit beside the other
// work on this 2-core machine, and one helper process holding 500 listeners would not be a
// managed node: the process engine must start, watch (pid file, /proc) and stop each one, as
// it does a real besu. The service's side is the same as for any besu node: launch spec, TOML,
// keys, engine status from /proc and a JSON-RPC probe per interval.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { startServer, call, adminAuth, type TestServer } from '../test/helpers/server.ts';
import { procStat } from './lib/procStat.ts';
import { benchLog, closeBenchServer, runBench } from './lib/nodeBench.ts';
import { probeGaps, tinyBesu } from './lib/tinyRpc.ts';

const log = benchLog('health');
const NODES = Number(process.env.BENCH_HEALTH_NODES ?? 500);
const INTERVAL = Number(process.env.BENCH_HEALTH_INTERVAL ?? 10);
// 16 per network: the figures of the first runs (17 or more generated validators were refused until the placeholder fix in application/evm/evmNetworkCreate.ts).
const PER_NETWORK = 16;
const round = (n: number, d = 2) => Math.round(n * 10 ** d) / 10 ** d;
const pct = (xs: number[], p: number) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] : NaN);
const api = (s: TestServer, method: string, p: string, body?: unknown) => call(s.api, method, p, { headers: adminAuth(), body });

/**
 * The service's memory over `ms`, sampled every 250 ms: the lowest V8 heap in use (from its own
 * /metrics, `lnm_nodejs_heap_size_used_bytes`: the floor between garbage collections, so what the
 * heap holds, not the garbage of the moment) and the median RSS (/proc). One RSS reading alone
 * moves by more than the nodes' share as the heap grows and shrinks: the first runs of this bench
 * read it once each side and reported a negative figure per node.
 */
async function memoryFloor(s: TestServer, pid: number, ms: number): Promise<{ heapFloorBytes: number; rssMedianBytes: number; samples: number }> {
  const heaps: number[] = [];
  const rss: number[] = [];
  for (const end = Date.now() + ms; Date.now() < end; ) {
    const r = await call(s.url, 'GET', '/metrics', { headers: adminAuth() });
    const m = /^lnm_nodejs_heap_size_used_bytes\s+([0-9.e+]+)/m.exec(r.text);
    if (r.status !== 200 || !m) throw new Error(`GET /metrics: ${r.status}, no lnm_nodejs_heap_size_used_bytes`);
    heaps.push(Number(m[1]));
    rss.push(procStat(pid).rssBytes);
    await new Promise((res) => setTimeout(res, 250));
  }
  return { heapFloorBytes: Math.min(...heaps), rssMedianBytes: pct(rss, 50), samples: heaps.length };
}

/** The directory of node `id` under DATA_DIR/nodes (named by the engine's node key, which ends with the id). */
function nodeKeyDir(dataDir: string, id: number): string {
  const dir = readdirSync(path.join(dataDir, 'nodes')).find((d) => d.endsWith(`-${id}`) || d === String(id));
  if (!dir) throw new Error(`no directory of node ${id}`);
  return dir;
}

async function main(): Promise<Record<string, unknown>> {
  const besu = tinyBesu();
  const prof = process.env.BENCH_CPU_PROF;
  const s = await startServer({ env: { PATH: `${besu.binDir}:${process.env.PATH ?? ''}`, LOG_LEVEL: 'warn' }, nodeArgs: prof ? ['--cpu-prof', `--cpu-prof-dir=${prof}`] : [], timeoutMs: 120_000 });
  const pid = s.child.pid!;
  const pool = new pg.Pool({ connectionString: s.databaseUrl!, max: 2 });
  const out: Record<string, unknown> = { bench: 'health probes', node: 'bench/lib/tinyRpcNode.c as besu (one real process per node, ~1.5 MiB RSS)', engine: 'process', intervalSeconds: INTERVAL };
  try {
    // Probes every INTERVAL seconds, down after 3 failures.
    const set = await api(s, 'POST', '/settings', { nodeHealthCheckIntervalSeconds: INTERVAL, nodeDowntimeThreshold: 3 });
    if (set.status !== 200) throw new Error(`settings: ${set.text}`);
    await new Promise((r) => setTimeout(r, 3000));
    // What the service spends with no node at all (projector, saga and timer polls): subtracted below.
    const idleBefore = procStat(pid);
    await new Promise((r) => setTimeout(r, 10_000));
    const idle = procStat(pid);
    const idleCpuMsPerSec = (idle.cpuMs - idleBefore.cpuMs) / 10;
    const idleMemory = await memoryFloor(s, pid, 8000);
    const networks = Math.ceil(NODES / PER_NETWORK);
    log(`${NODES} nodes: ${networks} QBFT networks of up to ${PER_NETWORK} validators each`);
    const t0 = Date.now();
    let made = 0;
    for (let i = 0; i < networks; i++) {
      const count = Math.min(PER_NETWORK, NODES - made);
      const created = await api(s, 'POST', '/networks', { name: `health-${i}`, type: 'evm', client: 'besu', validatorCount: count, genesis: { chain_id: 52000 + i, consensus: 'QBFT', block_time: 5 } });
      if (created.status !== 201) throw new Error(`create network ${i}: ${created.text}`);
      const started = await api(s, 'POST', `/networks/${created.json.id}/start`);
      if (started.status !== 200) throw new Error(`start network ${i}: ${started.text.slice(0, 800)}`);
      made += count;
      if ((i + 1) % 4 === 0) log(`  ${made} nodes running (${Math.round((Date.now() - t0) / 1000)} s)`);
    }
    // The lifecycle saga starts nodes in the background: wait until each has settled. On this
    // shared machine a port the service picked can be taken by someone else's process meanwhile
    // (a start that fails with port-in-use): the figures are then per node actually running.
    let running = 0;
    for (;;) {
      const by = (await pool.query(`SELECT status, count(*) AS n, max(error) AS error FROM nodes GROUP BY status`)).rows as { status: string; n: string; error: string | null }[];
      const count = (st: string) => Number(by.find((r) => r.status === st)?.n ?? 0);
      running = count('running');
      if (running + count('error') >= NODES) break;
      if (Date.now() - t0 > Number(process.env.BENCH_HEALTH_START_TIMEOUT ?? 1200) * 1000) throw new Error(`only ${running} of ${NODES} nodes running after ${process.env.BENCH_HEALTH_START_TIMEOUT ?? 1200} s: ${JSON.stringify(by)}`);
      await new Promise((r) => setTimeout(r, 500));
    }
    if (running < NODES * 0.95) throw new Error(`only ${running} of ${NODES} nodes started`);
    const startAllMs = Date.now() - t0;
    // Let the timers spread over a couple of intervals, then measure.
    log('settling for two intervals');
    await new Promise((r) => setTimeout(r, 2 * INTERVAL * 1000));
    const windowMs = 3 * INTERVAL * 1000;
    log(`measuring over ${windowMs / 1000} s`);
    const before = procStat(pid);
    const windowStartUs = process.hrtime.bigint() / 1000n;
    const gaps = await probeGaps(pool, windowMs);
    const after = procStat(pid);
    // CLOCK_MONOTONIC in microseconds, the clock of V8's profile timestamps: the window within a --cpu-prof profile.
    if (prof) out.profileWindowUs = [Number(windowStartUs), Number(process.hrtime.bigint() / 1000n)];
    const cpuMs = after.cpuMs - before.cpuMs;
    const lateMs = gaps.gapsMs.map((g) => g - INTERVAL * 1000);
    const down = Number((await pool.query(`SELECT count(*) AS n FROM node_observations WHERE status <> 'healthy'`)).rows[0].n);
    out.setup = { managedNodes: running, asked: NODES, networks, startAllSeconds: round(startAllMs / 1000, 1), notHealthyAtEnd: down };
    out.probes = {
      observedInWindow: gaps.probes,
      expectedInWindow: Math.round((running * windowMs) / (INTERVAL * 1000)),
      serviceCpuMsPerProbe: round((cpuMs - (idleCpuMsPerSec * windowMs) / 1000) / Math.max(1, gaps.probes)),
      serviceCpuMsPerProbeWithIdle: round(cpuMs / Math.max(1, gaps.probes)),
      serviceIdleCpuPercent: round(idleCpuMsPerSec / 10, 1),
      serviceCpuPercentOfOneCore: round((cpuMs / windowMs) * 100, 1),
      lagBehindIntervalMs: { p50: round(pct(lateMs, 50), 0), p99: round(pct(lateMs, 99), 0), max: round(Math.max(...lateMs), 0) },
      note: 'service CPU (user+system, /proc, all threads) over the window less what it spent idle with no node (same rate, measured for 10 s before the nodes), divided by the probes the window held (each node\'s successive observed_at in node_observations); lag: time between a node\'s successive probes minus the interval',
    };
    const withNodes = await memoryFloor(s, pid, 8000);
    out.memory = {
      serviceHeapFloorIdleMiB: round(idleMemory.heapFloorBytes / 2 ** 20, 1),
      serviceHeapFloorWithNodesMiB: round(withNodes.heapFloorBytes / 2 ** 20, 1),
      serviceHeapPerManagedNodeKiB: round((withNodes.heapFloorBytes - idleMemory.heapFloorBytes) / running / 1024, 1),
      serviceRssIdleMiB: round(idleMemory.rssMedianBytes / 2 ** 20, 1),
      serviceRssWithNodesMiB: round(withNodes.rssMedianBytes / 2 ** 20, 1),
      note: 'heap: the lowest lnm_nodejs_heap_size_used_bytes of the service\'s /metrics sampled every 250 ms for 8 s, with the nodes running minus before any node; RSS: the median of the same samples\' /proc RSS (not divided per node: it falls after start-up as V8 gives pages back, so with-less-without can be negative)',
    };
    // Probes that fail still raise node.downtime: 5 nodes killed (the engine sees the process
    // gone: down at the next probe) and 5 frozen with SIGSTOP (the port takes connections and
    // answers nothing: down after `threshold` probes, each waiting out its 2 s timeout).
    log(`probes: ${JSON.stringify(out.probes)} memory: ${JSON.stringify(out.memory)}`);
    const victims = (await pool.query(`SELECT id FROM nodes WHERE status = 'running' ORDER BY id LIMIT 10`)).rows as { id: number }[];
    const nodePid = (id: number) => Number(JSON.parse(readFileSync(path.join(s.dataDir, 'nodes', nodeKeyDir(s.dataDir, id), 'node.pid.json'), 'utf8')).pid);
    const killed = victims.slice(0, 5).map((v) => v.id);
    const frozen = victims.slice(5).map((v) => v.id);
    const frozenPids = frozen.map(nodePid);
    const tKill = Date.now();
    for (const id of killed) process.kill(nodePid(id), 'SIGKILL');
    for (const p of frozenPids) process.kill(p, 'SIGSTOP');
    const downAt = new Map<number, number>();
    while (downAt.size < victims.length && Date.now() - tKill < 60_000 + 3 * INTERVAL * 1000) {
      const rows = (await pool.query(`SELECT id FROM nodes WHERE status = 'down' AND id = ANY($1::int[])`, [victims.map((v) => v.id)])).rows as { id: number }[];
      for (const r of rows) if (!downAt.has(r.id)) downAt.set(r.id, Date.now() - tKill);
      await new Promise((r) => setTimeout(r, 100));
    }
    for (const p of frozenPids) process.kill(p, 'SIGCONT');
    const secs = (ids: number[]) => ids.map((id) => downAt.get(id)).filter((x): x is number => x !== undefined).map((ms) => round(ms / 1000, 1));
    out.downtime = {
      killedDownSeconds: secs(killed),
      killedBoundSeconds: INTERVAL + 1,
      frozenDownSeconds: secs(frozen),
      frozenBoundSeconds: 3 * INTERVAL + 2 + 1,
      notDown: victims.length - downAt.size,
      note: 'seconds from the kill (or SIGSTOP) to status down (node.downtime appended): a killed process is down at its next probe (interval + the 250 ms timer poll); a frozen one after nodeDowntimeThreshold (3) probes that each time out after 2 s',
    };
    log('stopping the nodes');
    const nets = (await api(s, 'GET', '/networks/evm?limit=100')).json?.items ?? [];
    for (const n of nets) await api(s, 'DELETE', `/networks/evm/${n.id}`);
    const p = out.probes as { serviceCpuMsPerProbe: number; serviceCpuMsPerProbeWithIdle: number; lagBehindIntervalMs: { p50: number; p99: number }; observedInWindow: number; expectedInWindow: number };
    const m = out.memory as { serviceHeapPerManagedNodeKiB: number; serviceHeapFloorWithNodesMiB: number; serviceRssWithNodesMiB: number };
    const d = out.downtime as { killedDownSeconds: number[]; frozenDownSeconds: number[]; killedBoundSeconds: number; frozenBoundSeconds: number; notDown: number };
    const worst = (xs: number[]) => (xs.length ? Math.max(...xs) : NaN);
    out.rows = [
      { metric: `Health probe: service CPU per probe, ${running} managed nodes every ${INTERVAL} s (idle CPU subtracted)`, value: p.serviceCpuMsPerProbe, unit: 'ms', target: '<= 1', met: p.serviceCpuMsPerProbe <= 1 },
      { metric: 'Health probe: service CPU per probe, idle CPU included', value: p.serviceCpuMsPerProbeWithIdle, unit: 'ms' },
      { metric: 'Health probe: lag behind the interval, p50', value: p.lagBehindIntervalMs.p50, unit: 'ms' },
      { metric: 'Health probe: lag behind the interval, p99', value: p.lagBehindIntervalMs.p99, unit: 'ms' },
      { metric: 'Health probe: probes seen / due in the window', value: Math.round((p.observedInWindow / p.expectedInWindow) * 100) / 100, unit: 'x' },
      { metric: 'Service memory per managed node: V8 heap in use (floor over 8 s, with the nodes less without)', value: m.serviceHeapPerManagedNodeKiB, unit: 'KiB', note: `heap floor ${m.serviceHeapFloorWithNodesMiB} MiB with the nodes` },
      { metric: `Service RSS with ${running} managed nodes (median over 8 s)`, value: m.serviceRssWithNodesMiB, unit: 'MiB', note: 'no per-node figure from RSS: the RSS after start-up (with no node) is often above the RSS later with the nodes, as V8 gives pages back; the heap floor above is the per-node figure' },
      { metric: `Killed node to node.downtime, worst of 5 (bound: interval + 1 s = ${d.killedBoundSeconds} s)`, value: worst(d.killedDownSeconds), unit: 's', target: `<= ${d.killedBoundSeconds}`, met: d.notDown === 0 && worst(d.killedDownSeconds) <= d.killedBoundSeconds },
      { metric: `Frozen node (SIGSTOP) to node.downtime, worst of 5 (bound: 3 x interval + 2 s timeout + 1 s = ${d.frozenBoundSeconds} s)`, value: worst(d.frozenDownSeconds), unit: 's', target: `<= ${d.frozenBoundSeconds}`, met: d.notDown === 0 && worst(d.frozenDownSeconds) <= d.frozenBoundSeconds },
    ];
  } finally {
    await pool.end();
    await closeBenchServer(s);
    besu.remove();
  }
  return out;
}

runBench(log, main);
