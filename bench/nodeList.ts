// Node-list bench (issue 15): GET /nodes latency with N managed, running anvil nodes, first
// with all answering, then with one hanging (its process SIGSTOPped: its RPC port accepts
// connections and never answers). Lists answer from the health monitor's last readings, so the
// two p99s should match; GET /nodes/{id} of the hanging node still reads live and waits out its
// 1.5 s bound, shown for contrast. Prints one JSON object; progress on stderr.
// `npx tsx bench/nodeList.ts` (NODE_LIST_BENCH_NODES, default 50; NODE_LIST_BENCH_REQUESTS, default 200)
import { startServer, call, adminAuth, type TestServer } from '../test/helpers/server.ts';
import { pidOf } from '../test/e2e/evm/evmLifecycle.ts';
import { benchLog, closeBenchServer, runBench } from './lib/nodeBench.ts';

const log = benchLog('node-list');
const api = (s: TestServer, method: string, p: string, body?: unknown) => call(s.api, method, p, { headers: adminAuth(), body });
const round = (n: number) => Math.round(n * 10) / 10;
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const NODES = Number(process.env.NODE_LIST_BENCH_NODES ?? 50);
const REQUESTS = Number(process.env.NODE_LIST_BENCH_REQUESTS ?? 200);
const PROBE_SECONDS = 2;

async function listTimes(s: TestServer): Promise<{ p50: number; p99: number; max: number }> {
  const times: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const t0 = performance.now();
    const r = await api(s, 'GET', '/nodes?limit=100');
    times.push(performance.now() - t0);
    if (r.status !== 200 || r.json.total < NODES) throw new Error(`GET /nodes: ${r.status} ${r.text.slice(0, 200)}`);
  }
  return { p50: round(pct(times, 50)), p99: round(pct(times, 99)), max: round(Math.max(...times)) };
}

async function until(what: string, probe: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(500);
  }
}

async function main(): Promise<Record<string, unknown>> {
  const s = await startServer({ embedded: true, env: { LOG_LEVEL: 'warn' } });
  const out: Record<string, unknown> = { bench: 'node-list', client: 'anvil', engine: 'process', managedNodes: NODES, requests: REQUESTS, probeIntervalSeconds: PROBE_SECONDS };
  let hanging: number | null = null;
  try {
    await api(s, 'POST', '/settings', { nodeHealthCheckIntervalSeconds: PROBE_SECONDS, nodeDowntimeThreshold: 100 });
    const nodeIds: number[] = [];
    let skipped = 0;
    for (let i = 0; nodeIds.length < NODES; i++) {
      if (i >= NODES * 2) throw new Error(`only ${nodeIds.length} of ${NODES} nodes started`);
      // A long block time keeps the anvil processes idle: the bench measures the service.
      const created = await api(s, 'POST', '/networks', { name: `bench-list-${i}`, type: 'evm', genesis: { chain_id: 42000 + i, consensus: 'QBFT', block_time: 600 } });
      if (created.status !== 201) throw new Error(`create: ${created.text}`);
      const started = await api(s, 'POST', `/networks/${created.json.id}/start`);
      const node = started.json.nodes?.[0];
      if (node?.status !== 'running') {
        // On a shared machine another process may take a port between allocation and start.
        log(`skipped a node that did not start: ${node?.error ?? started.text.slice(0, 200)}`);
        await api(s, 'DELETE', `/networks/evm/${created.json.id}`);
        skipped++;
        continue;
      }
      nodeIds.push(node.id);
      if (nodeIds.length % 10 === 0) log(`${nodeIds.length} nodes running`);
    }
    out.nodesThatFailedToStart = skipped;
    const readings = async () => (await api(s, 'GET', '/nodes?limit=100')).json.items as Array<{ id: number; last_probe: { status: string; at: string } | null }>;
    await until('a healthy reading of every node', async () => (await readings()).filter((n) => n.last_probe?.status === 'healthy').length >= NODES, 120_000);

    // Warm-up, so the first series does not pay for JIT and cold caches.
    for (let i = 0; i < 20; i++) await api(s, 'GET', '/nodes?limit=100');
    log('GET /nodes, every node answering');
    out.allAnswering = await listTimes(s);

    hanging = pidOf(s, nodeIds[0]);
    process.kill(hanging!, 'SIGSTOP');
    const since = new Date().toISOString();
    await until('the hanging node read as unreachable', async () => (await readings()).some((n) => n.id === nodeIds[0] && n.last_probe?.status === 'unreachable' && n.last_probe.at >= since), 60_000);
    log('GET /nodes, one node hanging');
    out.oneHanging = await listTimes(s);
    const t0 = performance.now();
    await api(s, 'GET', `/nodes/${nodeIds[0]}`);
    out.singleReadOfHangingNodeMs = round(performance.now() - t0);
    out.note = 'lists read node_observations (the health monitor\'s last readings), never the nodes; GET /nodes/{id} reads the node live within 1.5 s';
    process.kill(hanging!, 'SIGCONT');
    hanging = null;
  } finally {
    if (hanging) process.kill(hanging, 'SIGCONT');
    await closeBenchServer(s);
  }
  return out;
}

runBench(log, main);
