// Metrics bench (issue 13): the cost of the service's own GET /metrics with N managed, running
// anvil nodes (one per evm network, block time 600 s so they idle), and the managed Prometheus's
// resident memory while it scrapes all of them (through the service's exporter) and the service
// every 15 s. Prints one JSON object; progress on stderr.
// `npx tsx bench/metricsStack.ts` (METRICS_BENCH_NODES, default 100; METRICS_BENCH_SCRAPES,
// default 200; METRICS_BENCH_SECONDS of scraping, default 90)
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startServer, call, adminAuth, type TestServer } from '../test/helpers/server.ts';
import { freePort } from '../adapters/postgres/embeddedPostgres.ts';
import { benchLog, closeBenchServer, runBench } from './lib/nodeBench.ts';

const log = benchLog('metrics');
const api = (s: TestServer, method: string, p: string, body?: unknown) => call(s.api, method, p, { headers: adminAuth(), body });
const round = (n: number) => Math.round(n * 10) / 10;
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const NODES = Number(process.env.METRICS_BENCH_NODES ?? 100);
const SCRAPES = Number(process.env.METRICS_BENCH_SCRAPES ?? 200);
const SECONDS = Number(process.env.METRICS_BENCH_SECONDS ?? 90);

const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

async function main(): Promise<Record<string, unknown>> {
  const s = await startServer({ embedded: true, env: { LOG_LEVEL: 'warn' } });
  const out: Record<string, unknown> = { bench: 'metrics', managedNodes: NODES, scrapeIntervalSeconds: 15 };
  try {
    let running = 0;
    for (let i = 0; running < NODES; i++) {
      if (i >= NODES * 2) throw new Error(`only ${running} of ${NODES} nodes started`);
      const created = await api(s, 'POST', '/networks', { name: `bench-metrics-${i}`, type: 'evm', genesis: { chain_id: 43000 + i, consensus: 'QBFT', block_time: 600 } });
      if (created.status !== 201) throw new Error(`create: ${created.text}`);
      const started = await api(s, 'POST', `/networks/${created.json.id}/start`);
      if (started.json.nodes?.[0]?.status !== 'running') {
        // On a shared machine another process may take a port between allocation and start.
        log(`skipped a node that did not start: ${started.text.slice(0, 200)}`);
        await api(s, 'DELETE', `/networks/evm/${created.json.id}`);
        continue;
      }
      if (++running % 10 === 0) log(`${running} nodes running`);
    }
    const nodes = (await api(s, 'GET', '/nodes?limit=1')).json.total;
    if (nodes !== NODES) throw new Error(`${nodes} nodes, expected ${NODES}`);
    const auth = adminAuth();
    for (let i = 0; i < 20; i++) await call(s.url, 'GET', '/metrics', { headers: auth });
    const times: number[] = [];
    let bytes = 0;
    for (let i = 0; i < SCRAPES; i++) {
      const t0 = performance.now();
      const r = await call(s.url, 'GET', '/metrics', { headers: auth });
      times.push(performance.now() - t0);
      if (r.status !== 200) throw new Error(`GET /metrics: ${r.status}`);
      bytes = r.text.length;
    }
    out.serviceScrapeMs = { p50: round(pct(times, 50)), p99: round(pct(times, 99)), max: round(Math.max(...times)), bytes };
    log(`GET /metrics: ${JSON.stringify(out.serviceScrapeMs)}`);

    const deployed = await api(s, 'POST', '/metrics/deploy', { port: await freePort(), scrapeIntervalSeconds: 15 });
    if (deployed.status !== 201) throw new Error(`deploy: ${deployed.text}`);
    const pid = JSON.parse(readFileSync(path.join(s.dataDir, 'nodes', 'metrics-prometheus', 'node.pid.json'), 'utf8')).pid as number;
    const samples: number[] = [];
    for (let t = 0; t < SECONDS; t += 5) {
      await sleep(5000);
      samples.push(rssMiB(pid));
    }
    const status = (await api(s, 'GET', '/metrics/status')).json;
    if (status.targets.total < NODES + 1) throw new Error(`Prometheus has ${status.targets.total} targets, expected ${NODES + 1}`);
    out.prometheus = { version: status.version, targets: status.targets, rssMiBAfter: round(samples[samples.length - 1]), rssMiBMax: round(Math.max(...samples)), secondsScraping: SECONDS };
    log(`Prometheus: ${JSON.stringify(out.prometheus)}`);
    await api(s, 'POST', '/metrics/undeploy');
  } finally {
    await closeBenchServer(s);
  }
  return out;
}

runBench(log, main);
