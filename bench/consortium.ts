// Consortium bench: real Fabric 2.5.12 peers and orderers (found as the tests find them: test/helpers/programs.ts; process engine)
// run by the real server. Measures the time from POST /networks/consortium to every node
// joined and the first block readable, the memory of a peer and an orderer as the service runs
// them, and the service's health-check cost per consortium node (/healthz every second). Prints
// one JSON object to stdout; progress goes to stderr. `npx tsx bench/consortium.ts`
import { startServer, call, adminAuth, type TestServer } from '../test/helpers/server.ts';
import { fabricMissing, fabricServiceEnv } from '../test/helpers/programs.ts';
import { alive, pidOf } from '../test/e2e/evm/evmLifecycle.ts';
import { round } from './lib/stats.ts';
import { procStat } from './lib/procStat.ts';
import { benchLog, closeBenchServer, runBench } from './lib/nodeBench.ts';

const log = benchLog('consortium');
const api = async (s: TestServer, method: string, p: string, body?: unknown) => {
  const r = await call(s.api, method, p, { headers: adminAuth(), body });
  if (r.status >= 400) throw new Error(`${method} ${p}: ${r.status} ${r.text.slice(0, 300)}`);
  return r.json;
};

async function node(s: TestServer, name: string, nodeType: string, organizationId: number) {
  const n = await api(s, 'POST', '/nodes', { name, platform: 'CONSORTIUM', nodeType, organizationId });
  if (n.status !== 'running') throw new Error(`${name} did not start: ${n.error}`);
  return n;
}

async function main(): Promise<Record<string, unknown>> {
  if (fabricMissing) throw new Error(fabricMissing);
  const s = await startServer({ embedded: true, env: { LOG_LEVEL: 'warn', ...fabricServiceEnv(), KEY_ENCRYPTION_KEY: 'bench-consortium-key-encryption-key' } });
  const servicePid = s.child.pid!;
  const out: Record<string, unknown> = { bench: 'consortium', fabric: '2.5.12', engine: 'process' };
  const made: any[] = [];
  try {
    await api(s, 'POST', '/settings', { nodeHealthCheckIntervalSeconds: 1, nodeDowntimeThreshold: 3 });
    const org1 = await api(s, 'POST', '/organizations', { name: 'Bench1', mspId: 'Bench1MSP' });
    const org2 = await api(s, 'POST', '/organizations', { name: 'Bench2', mspId: 'Bench2MSP' });
    log('nodes: 3 orderers, 2 peers per organization');
    const t0 = performance.now();
    const orderers = await Promise.all([node(s, 'b-orderer0', 'CONSORTIUM_ORDERER', org1.id), node(s, 'b-orderer1', 'CONSORTIUM_ORDERER', org1.id), node(s, 'b-orderer2', 'CONSORTIUM_ORDERER', org2.id)]);
    const peers = await Promise.all([org1, org1, org2, org2].map((o, i) => node(s, `b-peer${i}`, 'CONSORTIUM_PEER', o.id)));
    made.push(...orderers, ...peers);
    const nodesMs = performance.now() - t0;
    log('network: genesis, joins, first block readable');
    const t1 = performance.now();
    const net = await api(s, 'POST', '/networks/consortium', { name: 'bench-net', channelName: 'benchchannel', ordererIds: orderers.map((o) => o.id), peerIds: peers.map((p) => p.id) });
    const createMs = performance.now() - t1;
    for (const o of orderers) await api(s, 'POST', `/networks/consortium/${net.id}/orderers/${o.id}/join`);
    for (const p of peers) await api(s, 'POST', `/networks/consortium/${net.id}/peers/${p.id}/join`);
    const joinedMs = performance.now() - t1;
    for (;;) {
      const r = await call(s.api, 'GET', `/networks/consortium/${net.id}/blocks?limit=1`, { headers: adminAuth() });
      if (r.status === 200 && r.json.items.length) break;
      if (performance.now() - t1 > 60_000) throw new Error('no block readable in time');
      await new Promise((r2) => setTimeout(r2, 50));
    }
    const readableMs = performance.now() - t1;
    out.network = {
      sevenNodesCreatedAndRunningMs: round(nodesMs),
      createNetworkMs: round(createMs),
      toEveryNodeJoinedMs: round(joinedMs),
      toFirstBlockReadableMs: round(readableMs),
      note: '2 organizations, 3 raft orderers, 4 peers, all on this host; joins one after another through the API as a user would',
    };
    const rss = (n: any) => procStat(pidOf(s, n.id)!).rssBytes / 2 ** 20;
    out.memory = {
      peerRssMiB: round(peers.map(rss).reduce((a, b) => a + b, 0) / peers.length),
      ordererRssMiB: round(orderers.map(rss).reduce((a, b) => a + b, 0) / orderers.length),
      note: 'RSS of each Fabric process (average), channel joined, idle',
    };
    log('health-check cost: 7 nodes probed every second for 10 s');
    await new Promise((r) => setTimeout(r, 3000));
    const before = procStat(servicePid);
    const windowMs = 10_000;
    await new Promise((r) => setTimeout(r, windowMs));
    const after = procStat(servicePid);
    const probes = made.length * (windowMs / 1000);
    out.healthCheck = {
      serviceCpuMsPerProbe: round((after.cpuMs - before.cpuMs) / probes),
      note: 'service CPU (user+system, /proc) over 10 s divided by the probes due (engine status + /healthz per node per second), durable-timer bookkeeping included',
    };
  } finally {
    const pids = made.map((n) => pidOf(s, n.id));
    for (const n of made) await call(s.api, 'DELETE', `/nodes/${n.id}`, { headers: adminAuth() }).catch(() => undefined);
    const deadline = Date.now() + 30_000;
    while (pids.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    for (const p of pids) if (alive(p)) process.kill(p!, 'SIGKILL');
    await closeBenchServer(s);
  }
  return out;
}

runBench(log, main);
