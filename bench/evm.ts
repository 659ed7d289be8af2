// EVM bench: time from POST /networks to the first block; ten single-node chains created and
// started at once; service memory per managed node; health-check cost per node. Runs the real
// server (embedded PostgreSQL, process engine, anvil) and prints one JSON object to stdout;
// progress goes to stderr. `npx tsx bench/evm.ts`
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { JsonRpcProvider } from 'ethers';
import { startServer, call, adminAuth, type TestServer } from '../test/helpers/server.ts';
import { alive, pidOf } from '../test/e2e/evm/evmLifecycle.ts';
import { procStat } from './lib/procStat.ts';
import { benchLog, closeBenchServer, runBench } from './lib/nodeBench.ts';

const log = benchLog('evm');
function nodeRss(dataDir: string): number {
  let total = 0;
  for (const d of readdirSync(path.join(dataDir, 'nodes'))) {
    try {
      total += procStat(JSON.parse(readFileSync(path.join(dataDir, 'nodes', d, 'node.pid.json'), 'utf8')).pid).rssBytes;
    } catch {
      /* not running */
    }
  }
  return total;
}

const api = (s: TestServer, method: string, p: string, body?: unknown) => call(s.api, method, p, { headers: adminAuth(), body });

async function firstBlock(rpcUrl: string, chainId: number, deadline: number): Promise<void> {
  const rpc = new JsonRpcProvider(rpcUrl, chainId, { staticNetwork: true });
  try {
    for (;;) {
      if ((await rpc.getBlockNumber().catch(() => 0)) >= 1) return;
      if (Date.now() > deadline) throw new Error('no first block in time');
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    rpc.destroy();
  }
}

/** Create and start one single-node network; ms to running and to its first block. */
async function chain(s: TestServer, name: string, chainId: number) {
  const t0 = performance.now();
  const created = await api(s, 'POST', '/networks', { name, type: 'evm', genesis: { chain_id: chainId, consensus: 'QBFT', block_time: 1 } });
  if (created.status !== 201) throw new Error(`create ${name}: ${created.text}`);
  const tCreated = performance.now();
  const started = await api(s, 'POST', `/networks/${created.json.id}/start`);
  const node = started.json.nodes?.[0];
  if (node?.status !== 'running') throw new Error(`start ${name}: ${started.text}`);
  const tRunning = performance.now();
  await firstBlock(node.endpoints.rpc_http, chainId, Date.now() + 60_000);
  const tBlock = performance.now();
  return { networkId: created.json.id as number, nodeId: node.id as number, createMs: tCreated - t0, toRunningMs: tRunning - t0, toFirstBlockMs: tBlock - t0 };
}

const round = (n: number) => Math.round(n * 10) / 10;
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

async function main(): Promise<Record<string, unknown>> {
  const s = await startServer({ embedded: true, env: { LOG_LEVEL: 'warn' } });
  const pid = s.child.pid!;
  const out: Record<string, unknown> = { bench: 'evm', client: 'anvil', engine: 'process', blockTimeSeconds: 1 };
  try {
    await api(s, 'POST', '/settings', { nodeHealthCheckIntervalSeconds: 1, nodeDowntimeThreshold: 3 });
    // Warm-up so the first measurement does not pay for module loading and key derivation.
    const warm = await chain(s, 'bench-warm', 41000);
    await api(s, 'DELETE', `/networks/evm/${warm.networkId}`);
    const idle = procStat(pid);

    log('one chain: POST /networks to first block');
    const one = await chain(s, 'bench-one', 41001);
    out.firstBlock = { createMs: round(one.createMs), toRunningMs: round(one.toRunningMs), toFirstBlockMs: round(one.toFirstBlockMs) };

    log('ten chains at once');
    const t0 = performance.now();
    const ten = await Promise.all(Array.from({ length: 10 }, (_, i) => chain(s, `bench-ten-${i}`, 41010 + i)));
    out.tenAtOnce = {
      wallMs: round(performance.now() - t0),
      toRunningMs: { p50: round(pct(ten.map((c) => c.toRunningMs), 50)), max: round(Math.max(...ten.map((c) => c.toRunningMs))) },
      toFirstBlockMs: { p50: round(pct(ten.map((c) => c.toFirstBlockMs), 50)), max: round(Math.max(...ten.map((c) => c.toFirstBlockMs))) },
      note: 'the lifecycle saga starts nodes one after another (one anvil bootstrap + start each), so the spread grows with the count',
    };

    log('memory and health-check cost with 11 running nodes, probes every second');
    await new Promise((r) => setTimeout(r, 3000));
    const managed = 11;
    const before = procStat(pid);
    const windowMs = 10_000;
    await new Promise((r) => setTimeout(r, windowMs));
    const after = procStat(pid);
    const probes = managed * (windowMs / 1000);
    out.memory = {
      serviceRssIdleMiB: round(idle.rssBytes / 2 ** 20),
      serviceRssWithNodesMiB: round(after.rssBytes / 2 ** 20),
      serviceRssPerManagedNodeKiB: round((after.rssBytes - idle.rssBytes) / managed / 1024),
      managedNodes: managed,
      anvilRssPerNodeMiB: round(nodeRss(s.dataDir) / managed / 2 ** 20),
      note: 'service RSS is sampled without forcing a GC, so a small or negative per-node figure means no growth measurable above GC noise; anvilRssPerNodeMiB is each node process itself',
    };
    out.healthCheck = {
      serviceCpuMsPerProbe: round((after.cpuMs - before.cpuMs) / probes),
      serviceCpuPercentFor11NodesAt1s: round(((after.cpuMs - before.cpuMs) / windowMs) * 100),
      note: 'service CPU (user+system, /proc) over a 10 s window divided by the probes due in it (engine status + eth_blockNumber per node per second); includes the durable-timer bookkeeping',
    };
    const pids = [one, ...ten].map((c) => pidOf(s, c.nodeId));
    for (const c of [one, ...ten]) await api(s, 'DELETE', `/networks/evm/${c.networkId}`);
    // Deletion stops the nodes through the lifecycle saga: wait for it before stopping the service.
    const deadline = Date.now() + 30_000;
    while (pids.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    for (const p of pids) if (alive(p)) process.kill(p!, 'SIGKILL');
  } finally {
    await closeBenchServer(s);
  }
  return out;
}

runBench(log, main);
