// The service's CPU per health probe of a Fabric peer and orderer, at scale
// (issue 37's bench; the EVM counterpart is bench/healthProbes.ts). Real Fabric processes only: the
// real server (process engine; the Fabric release it picks by default, the newest it finds) starts BENCH_FABRIC_HEALTH_PEERS peers (default 24) and
// BENCH_FABRIC_HEALTH_ORDERERS orderers (default 96: 120 nodes) of one organization, joined to one raft
// channel (3 of the orderers its consenters, every peer joined: their /metrics carry the channel's
// ledger lines, as on a network in use; the other orderers are on no channel, their /metrics as
// large, 28 KB, read and parsed the same), and probes each every second (its health monitor: engine
// status, GET /healthz on the node's operations endpoint, and GET /metrics for the ledger figures
// when the last reading is nodeReadingIntervalSeconds old, the reading recorded). Probe windows
// in the same run: a warm-up window (not counted), the default reading interval (5 s: /metrics at
// every fifth probe), readings at every probe (1 s, what every probe did before that setting), the
// default again (its figure over both of its windows); a peer's own count of the /metrics
// requests it served (promhttp_metric_handler_requests_total) shows which.
// CPU per probe: the service's CPU (user+system, /proc) over a window with the probes, less its CPU
// over a window as long with the same nodes running and no probe due (the interval set to an
// hour), divided by the probes the first window held (each node's successive observed_at in
// node_observations). Then, in the same run and server, the EVM counterpart at the same scale and
// interval: the Fabric nodes removed, as many managed evm nodes (bench/lib/tinyRpcNode.c as besu,
// as bench/healthProbes.ts runs them; one JSON-RPC batch per probe) measured the same way, and the
// ratio Fabric / EVM (the machine is shared: the load moves both, the ratio less). Needs Fabric
// (LNM_FABRIC_BIN, LNM_FABRIC_RELEASES or PATH); without it the rows are null with the reason.
// The probe's own part, for comparison: in this bench process (not the service), against a peer and
// an orderer of the same run with every node up (the same background), the CPU per call of the two
// pipelined GETs the probe sends (adapters/system/probeHttp.ts) with the parse of /metrics, and of
// /healthz alone; what the service spends per probe above that is its probe round (timers, engine
// status, the observation written, events).
// BENCH_CPU_PROF=dir writes a CPU profile of the server (its Fabric probe window in
// profileWindowUs; BENCH_CPU_PROF_INTERVAL_US its sampling interval, V8's default 1000). Prints one JSON object; progress on stderr.
// `npx tsx bench/consortiumHealthProbes.ts`, or `npm run bench -- --only=bft`.
import { loadavg } from 'node:os';
import pg from 'pg';
import { startServer, type TestServer } from '../test/helpers/server.ts';
import { fabricMissing } from '../test/helpers/programs.ts';
import { apiOf, consortiumEnv, organization, removeConsortiumNodes, runningNode, until } from '../test/e2e/consortium/consortiumApi.ts';
import { benchLog, closeBenchServer, runBench } from './lib/nodeBench.ts';
import { probeGaps, tinyBesu } from './lib/tinyRpc.ts';
import { procStat } from './lib/procStat.ts';
import { pipelinedGets } from '../adapters/system/probeHttp.ts';
import { ledgerReadingsOf } from '../adapters/consortium/fabricLedgerMetrics.ts';
import { generalSettingSpecs } from '../domain/settings/settings.ts';

const log = benchLog('consortium health');
const PEERS = Number(process.env.BENCH_FABRIC_HEALTH_PEERS ?? 24);
const ORDERERS = Number(process.env.BENCH_FABRIC_HEALTH_ORDERERS ?? 96);
const WINDOW_MS = Number(process.env.BENCH_FABRIC_HEALTH_WINDOW ?? 20) * 1000;
const TARGET_MS = 0.5;
const DEFAULT_READING_SECONDS = generalSettingSpecs.nodeReadingIntervalSeconds.default;
const round = (n: number, d = 2) => Math.round(n * 10 ** d) / 10 ** d;

let server: TestServer;
const api = apiOf(() => server);

async function ok(method: string, p: string, body?: unknown) {
  const r = await api(method, p, body);
  if (r.status >= 400) throw new Error(`${method} ${p}: ${r.status} ${r.text.slice(0, 300)}`);
  return r.json;
}

/** This process's CPU (user+system) per call of `call`, `n` calls one after another, after 50 to warm up. */
async function cpuPerCall(n: number, call: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 50; i++) await call();
  const before = process.cpuUsage();
  for (let i = 0; i < n; i++) await call();
  const used = process.cpuUsage(before);
  return round((used.user + used.system) / 1000 / n, 3);
}

/** The probe's own HTTP and parse against one node's operations endpoint, in this process: [both GETs + parse, /healthz alone]. */
async function probeOwnPart(port: number, role: 'peer' | 'orderer'): Promise<{ both: number; healthzOnly: number }> {
  const origin = `http://127.0.0.1:${port}`;
  const both = await cpuPerCall(1000, async () => {
    const [, metrics] = await pipelinedGets(origin, ['/healthz', '/metrics'], { timeoutMs: 2000 });
    return ledgerReadingsOf(metrics.text, role);
  });
  const healthzOnly = await cpuPerCall(1000, () => pipelinedGets(origin, ['/healthz'], { timeoutMs: 2000 }));
  return { both, healthzOnly };
}

/** `count` calls of `make`, `width` at a time. */
async function batched<T>(count: number, width: number, make: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < count; i += width) out.push(...(await Promise.all(Array.from({ length: Math.min(width, count - i) }, (_, j) => make(i + j)))));
  return out;
}

/** The service's CPU over a WINDOW_MS window of probes (the interval as set), and the probes it held (each node's successive observed_at in node_observations). */
const transactions = async (pool: pg.Pool) => Number((await pool.query('SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()')).rows[0].xact_commit);

async function probeWindow(pid: number, pool: pg.Pool) {
  const tx0 = await transactions(pool);
  const before = procStat(pid);
  const start = performance.now();
  // CLOCK_MONOTONIC in microseconds, the clock of V8's profile timestamps: the window within a --cpu-prof profile.
  const startUs = Number(process.hrtime.bigint() / 1000n);
  const gaps = await probeGaps(pool, WINDOW_MS);
  const after = procStat(pid);
  // PostgreSQL's committed transactions in the window (each statement outside a transaction is
  // one), this bench's own reads of node_observations included (about 4 a second).
  const commits = (await transactions(pool)) - tx0;
  return { windowUs: [startUs, Number(process.hrtime.bigint() / 1000n)], cpuMs: after.cpuMs - before.cpuMs, ms: performance.now() - start, gaps, commits, loadAverage1m: round(loadavg()[0], 2) };
}

/**
 * The service's CPU per millisecond with the same nodes running and no probe due: the interval set
 * to an hour (each node's timer fires once more, then is an hour away), then a window as long.
 */
async function idleRate(pid: number, pool: pg.Pool, nodes: number) {
  log(`no probes: interval an hour; idle window (${nodes} nodes)`);
  await ok('POST', '/settings', { nodeHealthCheckIntervalSeconds: 3600, nodeDowntimeThreshold: 3 });
  await new Promise((r) => setTimeout(r, 3000));
  const tx0 = await transactions(pool);
  const before = procStat(pid);
  const start = performance.now();
  const gaps = await probeGaps(pool, WINDOW_MS);
  const cpuMs = procStat(pid).cpuMs - before.cpuMs;
  const ms = performance.now() - start;
  return { perMs: cpuMs / ms, probes: gaps.probes, commitsPerMs: ((await transactions(pool)) - tx0) / ms };
}

/** CPU per probe of a probe window: its CPU less the idle rate over its length, over its probes. */
function perProbeOf(w: Awaited<ReturnType<typeof probeWindow>>, idle: { perMs: number; probes: number }, unhealthy: number) {
  const idleCpuMs = round(idle.perMs * w.ms, 0);
  const probes = Math.max(1, w.gaps.probes);
  return { ...w, idleCpuMs, idleGaps: { probes: idle.probes }, unhealthy, perProbe: round((w.cpuMs - idleCpuMs) / probes, 3), withIdle: round(w.cpuMs / probes, 3) };
}

const notHealthy = async (pool: pg.Pool) => Number((await pool.query(`SELECT count(*) AS n FROM node_observations WHERE status <> 'healthy'`)).rows[0].n);

/** `count` managed evm nodes (QBFT networks of up to 16 validators, tinyRpcNode as besu), started; how many run. */
async function evmNodesRunning(pool: pg.Pool, count: number): Promise<number> {
  for (let i = 0, made = 0; made < count; i++) {
    const n = Math.min(16, count - made);
    const net = await ok('POST', '/networks', { name: `health-evm-${i}`, type: 'evm', client: 'besu', validatorCount: n, genesis: { chain_id: 53000 + i, consensus: 'QBFT', block_time: 5 } });
    await ok('POST', `/networks/${net.id}/start`);
    made += n;
  }
  const started = Date.now();
  for (;;) {
    const by = (await pool.query(`SELECT status, count(*) AS n FROM nodes WHERE platform = 'EVM' GROUP BY status`)).rows as { status: string; n: string }[];
    const running = Number(by.find((r) => r.status === 'running')?.n ?? 0);
    if (running + Number(by.find((r) => r.status === 'error')?.n ?? 0) >= count) return running;
    if (Date.now() - started > 300_000) throw new Error(`only ${running} of ${count} evm nodes running after 300 s: ${JSON.stringify(by)}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function main(): Promise<Record<string, unknown>> {
  const metric = (what: string) => `Health probe, Fabric: service CPU per probe, ${what}`;
  if (fabricMissing) {
    log(`skipped: ${fabricMissing}`);
    return { skipped: fabricMissing, rows: [{ metric: metric('idle CPU subtracted'), value: null, unit: 'ms', note: `skipped: ${fabricMissing}` }] };
  }
  const prof = process.env.BENCH_CPU_PROF;
  const besu = tinyBesu();
  server = await startServer({ env: consortiumEnv({ LOG_LEVEL: 'warn', LNM_NODE_ENGINE: 'process', PATH: `${besu.binDir}:${process.env.PATH ?? ''}` }), nodeArgs: prof ? ['--cpu-prof', `--cpu-prof-dir=${prof}`, ...(process.env.BENCH_CPU_PROF_INTERVAL_US ? [`--cpu-prof-interval=${process.env.BENCH_CPU_PROF_INTERVAL_US}`] : [])] : [], timeoutMs: 120_000 });
  const pid = server.child.pid!;
  const pool = new pg.Pool({ connectionString: server.databaseUrl!, max: 2 });
  try {
    await ok('POST', '/settings', { nodeHealthCheckIntervalSeconds: 1, nodeDowntimeThreshold: 3 });
    // What the service spends with no node at all (bench/healthProbes.ts's idle figure): a second
    // subtraction, for comparison with the EVM row.
    await new Promise((r) => setTimeout(r, 3000));
    const noNodes0 = procStat(pid);
    const noNodesStart = performance.now();
    await new Promise((r) => setTimeout(r, 10_000));
    const noNodesCpuMsPerSec = ((procStat(pid).cpuMs - noNodes0.cpuMs) * 1000) / (performance.now() - noNodesStart);
    const org = await organization(api, 'Health1', 'Health1MSP');
    log(`${ORDERERS} orderers and ${PEERS} peers, 4 at a time`);
    const t0 = Date.now();
    const orderers = await batched(ORDERERS, 4, (i) => runningNode(api, `h-orderer${i}`, 'CONSORTIUM_ORDERER', org.id));
    const peers = await batched(PEERS, 4, (i) => runningNode(api, `h-peer${i}`, 'CONSORTIUM_PEER', org.id));
    const startSeconds = round((Date.now() - t0) / 1000, 1);
    log(`running after ${startSeconds} s; one channel: 3 consenters, every peer joined`);
    const t1 = Date.now();
    const consenters = orderers.slice(0, Math.min(3, orderers.length));
    const net = await ok('POST', '/networks/consortium', { name: 'health', channelName: 'healthchannel', ordererIds: consenters.map((o) => o.id), peerIds: peers.map((p) => p.id) });
    for (const o of consenters) await ok('POST', `/networks/consortium/${net.id}/orderers/${o.id}/join`);
    await batched(peers.length, 4, (i) => until(`peer ${peers[i].name} joined`, async () => (await api('POST', `/networks/consortium/${net.id}/peers/${peers[i].id}/join`)).status === 200, 120_000, 1000));
    const joinSeconds = round((Date.now() - t1) / 1000, 1);
    const nodes = orderers.length + peers.length;
    const metricsBytes = async (n: { config: { operationsPort: number } }) => (await (await fetch(`http://127.0.0.1:${n.config.operationsPort}/metrics`)).text()).length;
    const sizes = { peerMetricsBytes: await metricsBytes(peers[0]), ordererMetricsBytes: await metricsBytes(consenters[0]) };

    // A peer's own count of /metrics requests it served (promhttp_metric_handler_requests_total).
    const scrapes = async () => Number(/^promhttp_metric_handler_requests_total\{code="200"\} (\d+)/m.exec(await (await fetch(`http://127.0.0.1:${peers[0].config.operationsPort}/metrics`)).text())?.[1] ?? NaN);
    /** A probe window at the given reading interval (probes every second): /metrics requests per probe of peers[0] (its own count, less this bench's reads) besides. */
    const window = async (readingSeconds: number) => {
      await ok('POST', '/settings', { nodeHealthCheckIntervalSeconds: 1, nodeDowntimeThreshold: 3, nodeReadingIntervalSeconds: readingSeconds });
      log(`settling 5 s, then probes every second, ledger readings every ${readingSeconds} s`);
      await new Promise((r) => setTimeout(r, 5000));
      const before = await scrapes();
      const w = await probeWindow(pid, pool);
      return { ...w, metricsReadsPerProbe: round(((await scrapes()) - before - 1) / Math.max(1, WINDOW_MS / 1000)), readingSeconds };
    };
    // A warm-up window at the default, not counted: the first window after the nodes' start and
    // joins carried their residue (2026-12-01 quiet run: 2330 of 2400 probes seen, and more CPU
    // than the window reading /metrics at every probe after it). Then the default
    // (nodeReadingIntervalSeconds 5: /metrics at every fifth probe at this interval), every probe
    // reading /metrics (1 s, as every probe did before that setting), and the default again, same
    // nodes and run: the default's figure is over both of its windows (CPU and probes summed),
    // each window's own figure in `defaultWindows`; then one idle window (no probe due) for all.
    log('warm-up window (not counted)');
    const warmUp = await window(DEFAULT_READING_SECONDS);
    const atDefault1 = await window(DEFAULT_READING_SECONDS);
    const atEvery = await window(1);
    const atDefault2 = await window(DEFAULT_READING_SECONDS);
    const atDefault = {
      ...atDefault1,
      windowUs: atDefault1.windowUs, cpuMs: atDefault1.cpuMs + atDefault2.cpuMs, ms: atDefault1.ms + atDefault2.ms,
      gaps: { ...atDefault1.gaps, probes: atDefault1.gaps.probes + atDefault2.gaps.probes }, commits: atDefault1.commits + atDefault2.commits,
      loadAverage1m: round((atDefault1.loadAverage1m + atDefault2.loadAverage1m) / 2, 2),
      metricsReadsPerProbe: round((atDefault1.metricsReadsPerProbe + atDefault2.metricsReadsPerProbe) / 2),
    };
    const unhealthyNow = await notHealthy(pool);
    const fabricIdle = await idleRate(pid, pool, nodes);
    const defaultWindows = [warmUp, atDefault1, atDefault2].map((w, i) => ({ window: ['warm-up (not counted)', 'first', 'second (after the every-probe window)'][i], probes: w.gaps.probes, serviceCpuMs: w.cpuMs, perProbe: perProbeOf(w, fabricIdle, unhealthyNow).perProbe, databaseCommitsPerProbe: round((w.commits - fabricIdle.commitsPerMs * w.ms) / Math.max(1, w.gaps.probes), 3), loadAverage1m: w.loadAverage1m }));
    const fabric = { ...perProbeOf(atDefault, fabricIdle, unhealthyNow), metricsReadsPerProbe: atDefault.metricsReadsPerProbe };
    const everyProbe = { ...perProbeOf(atEvery, fabricIdle, unhealthyNow), metricsReadsPerProbe: atEvery.metricsReadsPerProbe };
    // Still every node up, probes an hour apart: the probe's own part, in this process.
    const own = { peer: await probeOwnPart(peers[0].config.operationsPort, 'peer'), orderer: await probeOwnPart(consenters[0].config.operationsPort, 'orderer') };
    const ownMean = round((own.peer.both * peers.length + own.orderer.both * orderers.length) / nodes, 3);
    const { cpuMs, idleCpuMs, ms: onMs, perProbe, withIdle, gaps, idleGaps, unhealthy, loadAverage1m: fabricLoad } = fabric;
    const perProbeNoNodesIdle = round((cpuMs - (noNodesCpuMsPerSec * onMs) / 1000) / Math.max(1, gaps.probes), 3);

    // The EVM probe at the same scale and interval, same server and run.
    log('removing the Fabric nodes; as many evm nodes (tinyRpcNode as besu)');
    await removeConsortiumNodes(api, server.dataDir);
    await ok('POST', '/settings', { nodeHealthCheckIntervalSeconds: 1, nodeDowntimeThreshold: 3, nodeReadingIntervalSeconds: DEFAULT_READING_SECONDS });
    const evmNodes = await evmNodesRunning(pool, nodes);
    log(`${evmNodes} evm nodes running; settling 5 s, then probes every second`);
    await new Promise((r) => setTimeout(r, 5000));
    const evmWindow = await probeWindow(pid, pool);
    const evmUnhealthy = await notHealthy(pool);
    const evm = perProbeOf(evmWindow, await idleRate(pid, pool, evmNodes), evmUnhealthy);
    const ratio = evm.perProbe > 0 ? round(perProbe / evm.perProbe, 2) : null;
    const load = round(loadavg()[0], 2);
    const out = {
      bench: 'consortium health probes', engine: 'process',
      setup: { fabricVersion: peers[0].fabric_version ?? null, orderers: orderers.length, peers: peers.length, nodes, consenters: consenters.length, startSeconds, joinSeconds, ...sizes },
      probes: {
        intervalSeconds: 1, windowSeconds: (2 * WINDOW_MS) / 1000, observedInWindow: gaps.probes, expectedInWindow: 2 * nodes * (WINDOW_MS / 1000), defaultWindows, databaseCommitsPerSecondIdle: round(fabricIdle.commitsPerMs * 1000, 1),
        probesInIdleWindow: idleGaps.probes, notHealthyAtEnd: unhealthy,
        serviceCpuMsInWindow: cpuMs, serviceCpuMsIdleWindow: idleCpuMs,
        serviceCpuMsPerProbe: perProbe, serviceCpuMsPerProbeWithIdle: withIdle,
        serviceIdleNoNodesCpuMsPerSec: round(noNodesCpuMsPerSec, 1), serviceCpuMsPerProbeLessIdleWithoutNodes: perProbeNoNodesIdle,
        loadAverage1m: fabricLoad,
      },
      evm: {
        node: 'bench/lib/tinyRpcNode.c as besu (one real process per node)', nodes: evmNodes, intervalSeconds: 1, windowSeconds: WINDOW_MS / 1000,
        observedInWindow: evm.gaps.probes, expectedInWindow: evmNodes * (WINDOW_MS / 1000), probesInIdleWindow: evm.idleGaps.probes, notHealthyAtEnd: evm.unhealthy,
        serviceCpuMsInWindow: evm.cpuMs, serviceCpuMsIdleWindow: evm.idleCpuMs, serviceCpuMsPerProbe: evm.perProbe, serviceCpuMsPerProbeWithIdle: evm.withIdle,
        loadAverage1m: evm.loadAverage1m,
      },
      readingsEveryProbe: { serviceCpuMsInWindow: everyProbe.cpuMs, serviceCpuMsIdleWindow: everyProbe.idleCpuMs, serviceCpuMsPerProbe: everyProbe.perProbe, observedInWindow: everyProbe.gaps.probes, metricsReadsPerProbe: everyProbe.metricsReadsPerProbe, loadAverage1m: everyProbe.loadAverage1m },
      metricsReadsPerProbe: fabric.metricsReadsPerProbe,
      fabricToEvmPerProbe: ratio,
      probeOwnPartMs: { ...own, meanOverNodes: ownMean },
      loadAverageAtEnd: load,
      ...(prof ? { profileWindowUs: fabric.windowUs, evmProfileWindowUs: evm.windowUs } : {}),
    };
    log(JSON.stringify(out));
    const scale = `${nodes} real Fabric ${peers[0].fabric_version ?? ''} nodes (${peers.length} peers, ${orderers.length} orderers, one channel) each probed every second: ${gaps.probes} probes in two ${WINDOW_MS / 1000} s windows (${2 * nodes * (WINDOW_MS / 1000)} due; the windows alone ${defaultWindows[1].perProbe} and ${defaultWindows[2].perProbe} ms, after a warm-up window of ${defaultWindows[0].perProbe} ms not counted)`;
    return {
      ...out,
      rows: [
        { metric: metric(`${nodes} real Fabric nodes every second (idle CPU subtracted: same nodes, no probe due)`), value: perProbe, unit: 'ms', target: `<= ${TARGET_MS}`, met: perProbe <= TARGET_MS, note: `${scale}; service CPU ${cpuMs} ms with probes, ${idleCpuMs} ms without over as long; load average ${fabricLoad}` },
        { metric: metric(`ledger figures (/metrics) read at every probe (nodeReadingIntervalSeconds 1) instead of every ${DEFAULT_READING_SECONDS} s, same nodes and run`), value: everyProbe.perProbe, unit: 'ms', note: `${everyProbe.gaps.probes} probes; a peer's /metrics requests per probe ${everyProbe.metricsReadsPerProbe} (its own count), against ${fabric.metricsReadsPerProbe} at the default; service CPU ${everyProbe.cpuMs} ms with probes, ${everyProbe.idleCpuMs} ms without; load average ${everyProbe.loadAverage1m}` },
        { metric: `Health probe, Fabric: service CPU per probe, ledger readings every ${DEFAULT_READING_SECONDS} s (the default) / at every probe, same run`, value: everyProbe.perProbe > 0 ? round(perProbe / everyProbe.perProbe) : null, unit: 'x' },
        { metric: metric('idle CPU of the service with no node subtracted instead (as bench/healthProbes.ts does)'), value: perProbeNoNodesIdle, unit: 'ms', note: `idle with no node ${round(noNodesCpuMsPerSec, 1)} ms/s, with the nodes and no probe ${round((idleCpuMs * 1000) / onMs, 1)} ms/s` },
        { metric: metric('idle CPU included'), value: withIdle, unit: 'ms' },
        { metric: 'Health probe, Fabric: probes seen / due in the windows', value: round(gaps.probes / (2 * nodes * (WINDOW_MS / 1000))), unit: 'x', note: `${unhealthy} not healthy at the end; ${idleGaps.probes} probes in the window without probes` },
        { metric: `Health probe, EVM in the same run: service CPU per probe, ${evmNodes} evm nodes every second (idle CPU subtracted the same way)`, value: evm.perProbe, unit: 'ms', note: `tinyRpcNode as besu; ${evm.gaps.probes} probes in ${WINDOW_MS / 1000} s (${evmNodes * (WINDOW_MS / 1000)} due); service CPU ${evm.cpuMs} ms with probes, ${evm.idleCpuMs} ms without; load average ${evm.loadAverage1m}` },
        { metric: 'Health probe, Fabric: the probe\'s own HTTP and parse per call (two pipelined GETs and the /metrics parse, in the bench process, every node up)', value: ownMean, unit: 'ms', note: `mean over ${peers.length} peers and ${orderers.length} orderers: peer ${own.peer.both} ms (/healthz alone ${own.peer.healthzOnly}), orderer ${own.orderer.both} ms (/healthz alone ${own.orderer.healthzOnly}), 1,000 calls one after another each` },
        { metric: 'Health probe, Fabric: the probe\'s own part / the service\'s CPU per probe, same run', value: perProbe > 0 ? round(ownMean / perProbe, 2) : null, unit: 'x', note: 'the rest of the service\'s CPU per probe is its probe round (timers, engine status, the observation written)' },
        { metric: 'Health probe: Fabric / EVM service CPU per probe, same run', value: ratio, unit: 'x', note: `${perProbe} ms / ${evm.perProbe} ms; load average ${fabricLoad} (Fabric window) and ${evm.loadAverage1m} (EVM window) on a shared 2-core machine` },
      ],
    };
  } finally {
    await pool.end();
    await removeConsortiumNodes(api, server.dataDir).catch(() => undefined);
    const nets = (await api('GET', '/networks/evm?limit=100').catch(() => null))?.json?.items ?? [];
    for (const n of nets) await api('DELETE', `/networks/evm/${n.id}`).catch(() => undefined);
    await closeBenchServer(server);
    besu.remove();
  }
}

runBench(log, main);
