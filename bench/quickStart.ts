// Quick start: how long a user waits from the first POST to an answer, on the real server with
// real Fabric 2.5.12 and anvil. Consortium: two organizations, three raft orderers, two peers
// (one per organization), the sample asset registry; from POST /organizations to the first
// chaincode query answered. EVM: from POST /networks to a contract call answered (a deployed
// storage contract read through the service's query route, eth_call). Each phase is
// timed, as a user would drive the API (one call after another, joins retried while the
// channel forms). Each phase also gives the server process's CPU in it (user+system, /proc), and
// the consortium run the CPU its Fabric nodes and chaincode server used in all (so a slow phase
// says whether the service was working or waiting). BENCH_CPU_PROF=<dir> runs the server under
// --cpu-prof. Prints one JSON object. `npx tsx bench/quickStart.ts`
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { startServer, call, adminAuth, type TestServer } from '../test/helpers/server.ts';
import { fabricMissing } from '../test/helpers/programs.ts';
import { consortiumEnv } from '../test/e2e/consortium/consortiumApi.ts';
import { benchLog, closeBenchServer, runBench } from './lib/nodeBench.ts';
import { killLeftoverNodes, STORE_ABI, STORE_BYTECODE } from '../test/e2e/evm/evmLifecycle.ts';
import { procStat } from './lib/procStat.ts';

const log = benchLog('quick start');
const QUICK_BATCH_TIMEOUT = '500ms';
const round = (n: number) => Math.round(n);
const api = async (s: TestServer, method: string, p: string, body?: unknown) => {
  const r = await call(s.api, method, p, { headers: adminAuth(), body });
  if (r.status >= 400) throw new Error(`${method} ${p}: ${r.status} ${r.text.slice(0, 300)}`);
  return r.json;
};
/** Asks again every 100 ms while the answer is a 4xx/5xx (a channel still forming), up to `ms`. */
async function retried(s: TestServer, method: string, p: string, body: unknown, ms: number) {
  const deadline = Date.now() + ms;
  for (;;) {
    const r = await call(s.api, method, p, { headers: adminAuth(), body });
    if (r.status < 400) return r.json;
    if (Date.now() > deadline) throw new Error(`${method} ${p}: ${r.status} ${r.text.slice(0, 300)}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

const serverArgs = () => (process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []);

// CLOCK_MONOTONIC in microseconds, the clock of V8's profile timestamps: each phase's window within a --cpu-prof profile.
const nowUs = () => Number(process.hrtime.bigint() / 1000n);

/** Wall time per phase, the server process's CPU time in it, and (under BENCH_CPU_PROF) its window in the profile. */
function phases(serverPid: number) {
  const cpu = () => procStat(serverPid).cpuMs;
  const t0 = performance.now();
  const c0 = cpu();
  let last = t0;
  let lastCpu = c0;
  let lastUs = nowUs();
  const out: Record<string, number> = {};
  const serviceCpu: Record<string, number> = {};
  const windowsUs: Record<string, number[]> = {};
  return {
    mark(name: string) {
      const t = performance.now();
      const c = cpu();
      out[name] = round(t - last);
      serviceCpu[name] = round(c - lastCpu);
      if (process.env.BENCH_CPU_PROF) windowsUs[name] = [lastUs, nowUs()];
      last = t;
      lastCpu = c;
      lastUs = nowUs();
    },
    total: () => round(last - t0),
    serviceCpuTotal: () => round(lastCpu - c0),
    profile: () => (process.env.BENCH_CPU_PROF ? { profileWindowsUs: windowsUs } : {}),
    out,
    serviceCpu,
  };
}

/** CPU time (user+system) of the processes running from `dir` (the nodes and chaincode servers of a server's data directory). */
function cpuOfProcessesUnder(dir: string): { processes: number; cpuMs: number } {
  let processes = 0;
  let cpuMs = 0;
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cwd = readlinkSync(`/proc/${pid}/cwd`);
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!cwd.startsWith(dir) && !cmdline.includes(dir)) continue;
      cpuMs += procStat(Number(pid)).cpuMs;
      processes++;
    } catch {
      continue;
    }
  }
  return { processes, cpuMs: round(cpuMs) };
}

async function consortium(): Promise<Record<string, unknown>> {
  if (fabricMissing) return { skipped: fabricMissing };
  const s = await startServer({ env: { ...consortiumEnv(), LOG_LEVEL: 'warn' }, nodeArgs: serverArgs() });
  try {
    const p = phases(s.child.pid!);
    // As a user with a script would: both organizations asked for at once.
    const [org1, org2] = await Promise.all([
      api(s, 'POST', '/organizations', { name: 'Quick1', mspId: 'Quick1MSP' }),
      api(s, 'POST', '/organizations', { name: 'Quick2', mspId: 'Quick2MSP' }),
    ]);
    p.mark('organizationsMs');
    const make = (name: string, nodeType: string, organizationId: number) => api(s, 'POST', '/nodes', { name, platform: 'CONSORTIUM', nodeType, organizationId });
    // As a user with a script would: every node asked for at once.
    const [o0, o1, o2, p1, p2] = await Promise.all([
      make('q-orderer0', 'CONSORTIUM_ORDERER', org1.id), make('q-orderer1', 'CONSORTIUM_ORDERER', org1.id), make('q-orderer2', 'CONSORTIUM_ORDERER', org2.id),
      make('q-peer0-org1', 'CONSORTIUM_PEER', org1.id), make('q-peer0-org2', 'CONSORTIUM_PEER', org2.id),
    ]);
    for (const n of [o0, o1, o2, p1, p2]) if (n.status !== 'running') throw new Error(`${n.name}: ${n.status} ${n.error ?? ''}`);
    p.mark('fiveNodesStartedMs');
    // A quick start's channel cuts a block after 500 ms rather than Fabric's default 2 s: the
    // approvals, the commit, the Init and the first invoke each wait for one.
    const net = await api(s, 'POST', '/networks/consortium', { name: 'quick', channelName: 'quickchannel', ordererIds: [o0.id, o1.id, o2.id], peerIds: [p1.id, p2.id], batchTimeout: QUICK_BATCH_TIMEOUT });
    p.mark('networkCreatedMs');
    await Promise.all([o0, o1, o2].map((o) => api(s, 'POST', `/networks/consortium/${net.id}/orderers/${o.id}/join`)));
    p.mark('orderersJoinedMs');
    // A peer's join needs the channel's first block from an orderer: raft must have a leader.
    await Promise.all([p1, p2].map((x) => retried(s, 'POST', `/networks/consortium/${net.id}/peers/${x.id}/join`, undefined, 60_000)));
    p.mark('peersJoinedMs');
    // Anchor peers: how the organizations' peers find each other (discovery, endorsement by both).
    for (const [msp, peer] of [['Quick1MSP', p1], ['Quick2MSP', p2]] as const) {
      await retried(s, 'POST', `/networks/consortium/${net.id}/anchor-peers`, { organizationId: msp, anchorPeers: [{ host: '127.0.0.1', port: peer.config.port }] }, 60_000);
    }
    p.mark('anchorPeersSetMs');
    const dir = path.join(import.meta.dirname, '..', 'samples', 'chaincode', 'asset-registry');
    const files = ['package.json', 'assetRegistry.ts'].map((f) => ({ path: f, content: readFileSync(path.join(dir, f), 'utf8') }));
    const deployed = await retried(s, 'POST', '/sc/consortium/deploy', { networkId: net.id, name: 'assets', version: '1', source: { files } }, 60_000);
    p.mark('chaincodeDeployedMs');
    await retried(s, 'POST', `/sc/consortium/chaincodes/${deployed.chaincode_id}/invoke`, { function: 'CreateAsset', args: ['q1', 'blue', '1', 'me', '1'] }, 30_000);
    p.mark('firstInvokeCommittedMs');
    const q = await retried(s, 'POST', `/sc/consortium/chaincodes/${deployed.chaincode_id}/query`, { function: 'ReadAsset', args: ['q1'] }, 30_000);
    if (!String(q.result).includes('q1')) throw new Error(`query answered ${JSON.stringify(q).slice(0, 200)}`);
    p.mark('firstQueryAnsweredMs');
    return {
      setup: `2 organizations, 3 raft orderers, 2 peers, asset-registry (chaincode as a service, default endorsement policy), channel batchTimeout ${QUICK_BATCH_TIMEOUT}`,
      totalMs: p.total(), phases: p.out,
      serviceCpuMs: p.serviceCpuTotal(), serviceCpuPhasesMs: p.serviceCpu,
      nodesCpu: { ...cpuOfProcessesUnder(s.dataDir), note: 'the Fabric nodes and the chaincode server still running at the end, their CPU since they started' },
      ...p.profile(),
    };
  } finally {
    const all = (await call(s.api, 'GET', '/nodes?limit=100', { headers: adminAuth() })).json?.items ?? [];
    for (const n of all) await call(s.api, 'DELETE', `/nodes/${n.id}`, { headers: adminAuth() }).catch(() => undefined);
    await closeBenchServer(s);
  }
}

async function evm(): Promise<Record<string, unknown>> {
  const s = await startServer({ env: { LOG_LEVEL: 'warn' }, nodeArgs: serverArgs() });
  try {
    const p = phases(s.child.pid!);
    const created = await api(s, 'POST', '/networks', { name: 'quick-evm', type: 'evm', genesis: { chain_id: 47001, consensus: 'QBFT', block_time: 1 } });
    p.mark('networkCreatedMs');
    const started = await api(s, 'POST', `/networks/${created.id}/start`);
    const node = started.nodes?.[0];
    if (node?.status !== 'running') throw new Error(`start: ${JSON.stringify(started).slice(0, 300)}`);
    p.mark('nodeStartedMs');
    const deployed = await api(s, 'POST', '/sc/evm/deploy', { networkId: created.id, bytecode: STORE_BYTECODE, abi: STORE_ABI, args: ['424242'] });
    p.mark('contractDeployedMs');
    const answer = await api(s, 'POST', `/sc/evm/contracts/${deployed.contract_id}/query`, { function: 'get' });
    if (answer.result?.[0] !== '424242') throw new Error(`get() answered ${JSON.stringify(answer.result)}`);
    p.mark('firstCallAnsweredMs');
    return { setup: 'one anvil node (process engine), block time 1 s; the call is POST /sc/evm/contracts/{id}/query (eth_call through the service)', totalMs: p.total(), phases: p.out, serviceCpuMs: p.serviceCpuTotal(), serviceCpuPhasesMs: p.serviceCpu, ...p.profile() };
  } finally {
    const nets = (await call(s.api, 'GET', '/networks/evm?limit=10', { headers: adminAuth() })).json?.items ?? [];
    for (const n of nets) await call(s.api, 'DELETE', `/networks/evm/${n.id}`, { headers: adminAuth() }).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 1000));
    // Not closeBenchServer: its global teardown would stop the shared PostgreSQL the consortium part needs next.
    await s.stop();
    killLeftoverNodes(s.dataDir);
  }
}

async function main(): Promise<Record<string, unknown>> {
  log('evm: POST /networks to a contract call answered');
  const e = await evm();
  log('consortium: first POST to a chaincode query answered');
  const c = await consortium();
  const rows = [
    { metric: 'Quick start, consortium: first POST to a chaincode query answered (2 orgs, 3 orderers, 2 peers, sample chaincode)', value: typeof c.totalMs === 'number' ? Math.round(c.totalMs / 100) / 10 : null, unit: 's', target: '< 15', met: typeof c.totalMs === 'number' ? c.totalMs < 15_000 : undefined },
    { metric: 'Quick start, evm: POST /networks to a contract call answered (anvil, deploy, the service\'s query route)', value: Math.round((e.totalMs as number) / 100) / 10, unit: 's' },
  ];
  return { rows, consortium: c, evm: e };
}

runBench(log, main);
