// The service's CPU per health probe of a Fabric peer and orderer, at the scale this machine holds
// (issue 37's bench; the EVM counterpart is bench/healthProbes.ts). Real Fabric processes only: the
// real server (process engine; the Fabric release it picks by default, the newest it finds) starts BENCH_FABRIC_HEALTH_PEERS peers (default 24) and
// BENCH_FABRIC_HEALTH_ORDERERS orderers (default 8) of one organization, joined to one raft
// channel (3 of the orderers its consenters, every peer joined: their /metrics carry the channel's
// ledger lines, as on a network in use), and probes each every second (its health monitor: engine
// status, GET /healthz and GET /metrics on the node's operations endpoint, the reading recorded).
// CPU per probe: the service's CPU (user+system, /proc) over a window with the probes, less its CPU
// over a window as long with the same nodes running and no probe due (the interval set to an
// hour), divided by the probes the first window held (each node's successive observed_at in
// node_observations). Needs Fabric (LNM_FABRIC_BIN, LNM_FABRIC_RELEASES or PATH); without it the
// rows are null with the reason. BENCH_CPU_PROF=dir writes a CPU profile of the server (its
// probe window in profileWindowUs). Prints one JSON object; progress on stderr.
// `npx tsx bench/consortiumHealthProbes.ts`, or `npm run bench -- --only=bft`.
import pg from 'pg';
import { startServer, type TestServer } from '../test/helpers/server.ts';
import { fabricMissing } from '../test/helpers/programs.ts';
import { apiOf, consortiumEnv, organization, removeConsortiumNodes, runningNode, until } from '../test/e2e/consortium/consortiumApi.ts';
import { benchLog, closeBenchServer, runBench } from './lib/nodeBench.ts';
import { probeGaps } from './lib/tinyRpc.ts';
import { procStat } from './lib/procStat.ts';

const log = benchLog('consortium health');
const PEERS = Number(process.env.BENCH_FABRIC_HEALTH_PEERS ?? 24);
const ORDERERS = Number(process.env.BENCH_FABRIC_HEALTH_ORDERERS ?? 8);
const WINDOW_MS = Number(process.env.BENCH_FABRIC_HEALTH_WINDOW ?? 20) * 1000;
const TARGET_MS = 0.5;
const round = (n: number, d = 2) => Math.round(n * 10 ** d) / 10 ** d;

let server: TestServer;
const api = apiOf(() => server);

async function ok(method: string, p: string, body?: unknown) {
  const r = await api(method, p, body);
  if (r.status >= 400) throw new Error(`${method} ${p}: ${r.status} ${r.text.slice(0, 300)}`);
  return r.json;
}

/** `count` calls of `make`, `width` at a time. */
async function batched<T>(count: number, width: number, make: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < count; i += width) out.push(...(await Promise.all(Array.from({ length: Math.min(width, count - i) }, (_, j) => make(i + j)))));
  return out;
}

async function main(): Promise<Record<string, unknown>> {
  const metric = (what: string) => `Health probe, Fabric: service CPU per probe, ${what}`;
  if (fabricMissing) {
    log(`skipped: ${fabricMissing}`);
    return { skipped: fabricMissing, rows: [{ metric: metric('idle CPU subtracted'), value: null, unit: 'ms', note: `skipped: ${fabricMissing}` }] };
  }
  const prof = process.env.BENCH_CPU_PROF;
  server = await startServer({ env: consortiumEnv({ LOG_LEVEL: 'warn', LNM_NODE_ENGINE: 'process' }), nodeArgs: prof ? ['--cpu-prof', `--cpu-prof-dir=${prof}`] : [], timeoutMs: 120_000 });
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

    log('settling 5 s, then probes every second');
    await new Promise((r) => setTimeout(r, 5000));
    const before = procStat(pid);
    const onStart = performance.now();
    const windowStartUs = Number(process.hrtime.bigint() / 1000n);
    const gaps = await probeGaps(pool, WINDOW_MS);
    const after = procStat(pid);
    const onMs = performance.now() - onStart;
    const windowEndUs = Number(process.hrtime.bigint() / 1000n);
    const unhealthy = Number((await pool.query(`SELECT count(*) AS n FROM node_observations WHERE status <> 'healthy'`)).rows[0].n);

    // The same nodes, no probe due: each timer fires once more, then an hour later.
    log('no probes: interval an hour; idle window');
    await ok('POST', '/settings', { nodeHealthCheckIntervalSeconds: 3600, nodeDowntimeThreshold: 3 });
    await new Promise((r) => setTimeout(r, 3000));
    const idleBefore = procStat(pid);
    const offStart = performance.now();
    const idleGaps = await probeGaps(pool, WINDOW_MS);
    const idleAfter = procStat(pid);
    const offMs = performance.now() - offStart;

    const cpuMs = after.cpuMs - before.cpuMs;
    // The idle rate over the probe window's own length (the two windows differ by a poll or so).
    const idleCpuMs = round(((idleAfter.cpuMs - idleBefore.cpuMs) * onMs) / offMs, 0);
    const probes = Math.max(1, gaps.probes);
    const perProbe = round((cpuMs - idleCpuMs) / probes, 3);
    const withIdle = round(cpuMs / probes, 3);
    const perProbeNoNodesIdle = round((cpuMs - (noNodesCpuMsPerSec * onMs) / 1000) / probes, 3);
    const load = round((await import('node:os')).loadavg()[0], 2);
    const out = {
      bench: 'consortium health probes', engine: 'process',
      setup: { fabricVersion: peers[0].fabric_version ?? null, orderers: orderers.length, peers: peers.length, nodes, consenters: consenters.length, startSeconds, joinSeconds, ...sizes },
      probes: {
        intervalSeconds: 1, windowSeconds: WINDOW_MS / 1000, observedInWindow: gaps.probes, expectedInWindow: nodes * (WINDOW_MS / 1000),
        probesInIdleWindow: idleGaps.probes, notHealthyAtEnd: unhealthy,
        serviceCpuMsInWindow: cpuMs, serviceCpuMsIdleWindow: idleCpuMs,
        serviceCpuMsPerProbe: perProbe, serviceCpuMsPerProbeWithIdle: withIdle,
        serviceIdleNoNodesCpuMsPerSec: round(noNodesCpuMsPerSec, 1), serviceCpuMsPerProbeLessIdleWithoutNodes: perProbeNoNodesIdle,
        loadAverage1m: load,
      },
      ...(prof ? { profileWindowUs: [windowStartUs, windowEndUs] } : {}),
    };
    log(JSON.stringify(out));
    const scale = `${nodes} real Fabric ${peers[0].fabric_version ?? ''} nodes (${peers.length} peers, ${orderers.length} orderers, one channel) each probed every second: ${gaps.probes} probes in ${WINDOW_MS / 1000} s (${nodes * (WINDOW_MS / 1000)} due)`;
    return {
      ...out,
      rows: [
        { metric: metric(`${nodes} real Fabric nodes every second (idle CPU subtracted: same nodes, no probe due)`), value: perProbe, unit: 'ms', target: `<= ${TARGET_MS}`, met: perProbe <= TARGET_MS, note: `${scale}; service CPU ${cpuMs} ms with probes, ${idleCpuMs} ms without over as long; load average ${load}` },
        { metric: metric('idle CPU of the service with no node subtracted instead (as bench/healthProbes.ts does)'), value: perProbeNoNodesIdle, unit: 'ms', note: `idle with no node ${round(noNodesCpuMsPerSec, 1)} ms/s, with the nodes and no probe ${round((idleCpuMs * 1000) / onMs, 1)} ms/s` },
        { metric: metric('idle CPU included'), value: withIdle, unit: 'ms' },
        { metric: 'Health probe, Fabric: probes seen / due in the window', value: round(gaps.probes / (nodes * (WINDOW_MS / 1000))), unit: 'x', note: `${unhealthy} not healthy at the end; ${idleGaps.probes} probes in the window without probes` },
      ],
    };
  } finally {
    await pool.end();
    await removeConsortiumNodes(api, server.dataDir).catch(() => undefined);
    await closeBenchServer(server);
  }
}

runBench(log, main);
