// LedgerX on the real Fabric-X programs (LNM_FABRIC_X_BIN): from POST /networks/ledgerx/quickstart
// (one organization: an orderer party of four arma roles, a committer of five services) to the
// network committing its first transaction sent by Fabric-X's own loadgen; committed
// transactions per second through the managed network (loadgen, coordinator's count); resident
// memory of each role (VmRSS); the CPU time one health check of each role costs the service
// (the probes the health monitor runs: GET /healthz for arma roles, grpc.health.v1 for the
// committer's services), over 200 probes. Then, after the managed network is deleted, the
// reference: the same programs started by hand as run-minimal.sh arranges them
// (bench/ledgerxByHand.ts, armageddon's material) and the same loadgen workload; the managed /
// by-hand throughput ratio and memory per role of both. Prints one JSON object. `npx tsx bench/ledgerx.ts`
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import net from 'node:net';
import path from 'node:path';
import { startServer, call, adminAuth, type TestServer } from '../test/helpers/server.ts';
import { fabricXMissing, fabricXProgram, fabricXServiceEnv } from '../test/helpers/programs.ts';
import { freePort } from '../adapters/postgres/embeddedPostgres.ts';
import { probeRequest } from '../adapters/system/probeHttp.ts';
import { grpcHealthCheck } from '../adapters/ledgerx/grpcHealth.ts';
import { benchLog, closeBenchServer, runBench } from './lib/nodeBench.ts';
import { startByHand } from './ledgerxByHand.ts';

const log = benchLog('ledgerx');
const api = async (s: TestServer, method: string, p: string, body?: unknown) => {
  const r = await call(s.api, method, p, { headers: adminAuth(), body });
  if (r.status >= 400) throw new Error(`${method} ${p}: ${r.status} ${r.text.slice(0, 300)}`);
  return r.json;
};

async function freeBase(): Promise<number> {
  for (;;) {
    const p = 20000 + Math.floor(Math.random() * 12000);
    const all = [0, 10].flatMap((g) => Array.from({ length: 5 }, (_, i) => [p + g + i, p + g + 100 + i]).flat());
    const ok = await Promise.all(all.map((q) => new Promise<boolean>((res) => { const s = net.createServer(); s.once('error', () => res(false)); s.listen(q, '0.0.0.0', () => s.close(() => res(true))); })));
    if (ok.every(Boolean)) return p;
  }
}

interface LoadgenTarget { sidecarPort: number; block: string; msp: string; adminMsp?: string; mspId: string; channel: string }

function loadgenConfig(o: LoadgenTarget & { transactions: number; rate: number; ports: [number, number] }): string {
  const identity = `      msp-id: ${o.mspId}\n      msp-dir: ${o.msp}`;
  return [
    `server:\n  endpoint: 127.0.0.1:${o.ports[0]}`,
    `monitoring:\n  endpoint: 127.0.0.1:${o.ports[1]}`,
    'orderer-client:',
    `  sidecar-client:\n    endpoint: 127.0.0.1:${o.sidecarPort}`,
    `  orderer:\n    fault-tolerance-level: BFT\n    latest-known-config-block-path: ${o.block}\n    identity:\n  ${identity.replace(/\n/g, '\n  ')}`,
    '  broadcast-parallelism: 1',
    'load-profile:\n  key:\n    size: 32\n  block:\n    max-size: 500\n    min-size: 10\n    preferred-rate: 1s\n  transaction:\n    read-write-count:\n      const: 2',
    `  policy:\n    channel-id: ${o.channel}\n    identity:\n  ${identity.replace(/\n/g, '\n  ')}`,
    `    namespace-policies:\n      _meta:\n        scheme: MSP\n        msp-identities:\n          - msp-id: ${o.mspId}\n            msp-dir: ${o.adminMsp ?? o.msp}\n      "0":\n        scheme: ECDSA\n        seed: 10`,
    '  seed: 12345\n  workers: 1',
    `stream:\n  rate-limit: ${o.rate}\n  buffers-size: 10\n  gen-batch: 10`,
    'generate:\n  config: false\n  namespaces: true\n  load: true',
    `limit:\n  transactions: ${o.transactions}`,
    'logging:\n  logSpec: warn',
  ].join('\n') + '\n';
}

const rssMiB = (pid: number) => Math.round(Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024);
const committedAt = (url: string) => async () => Number(/coordinator_grpc_committed_transaction_total\{status="COMMITTED"\} (\d+)/.exec(await (await fetch(url)).text())?.[1] ?? 0);
// Enough transactions that one block (up to 500) is a few per cent of the window, and a rate
// limit above what either network commits here, so that the limit is not what is measured.
const TPS_TRANSACTIONS = 15000;
const TPS_RATE = 10000;

/** loadgen's throughput workload (namespace "0" must exist): committed per second from the
 *  coordinator's count (polled every 50 ms) between its first and its last increase. */
async function throughput(loadgen: string, work: string, name: string, target: LoadgenTarget, committed: () => Promise<number>): Promise<{ tps: number | null; committed: number }> {
  writeFileSync(path.join(work, `${name}.yaml`), loadgenConfig({ ...target, transactions: TPS_TRANSACTIONS, rate: TPS_RATE, ports: [await freePort(), await freePort()] }).replace('namespaces: true', 'namespaces: false'));
  const base = await committed();
  let done = 0;
  const run = promisify(execFile)(loadgen, ['start', `--config=${path.join(work, `${name}.yaml`)}`], { timeout: 240_000 }).catch((e) => e).finally(() => (done = performance.now()));
  let tFirst = 0;
  let tLast = 0;
  let nFirst = base;
  let last = base;
  // Until all are counted, or loadgen has ended and the count has stood still for 5 s (loadgen
  // also counts transactions the coordinator rejects, e.g. as duplicates of an earlier run's).
  for (const deadline = Date.now() + 240_000; Date.now() < deadline && last < base + TPS_TRANSACTIONS && !(done && performance.now() - Math.max(done, tLast) > 5000); ) {
    const n = await committed();
    if (n > base && !tFirst) { tFirst = performance.now(); nFirst = n; }
    if (n > last) { last = n; tLast = performance.now(); }
    await new Promise((r) => setTimeout(r, 50));
  }
  await run;
  // The transactions already counted at the first observation committed before tFirst: they are
  // left out of the rate (counting them gave figures above loadgen's own rate limit).
  return { tps: tLast > tFirst ? (last - nFirst) / ((tLast - tFirst) / 1000) : null, committed: last - base };
}

/** The same programs started by hand (bench/ledgerxByHand.ts), the same loadgen workload: a
 *  namespace transaction and 20 transactions first, as for the managed network, then the
 *  throughput run; memory of each role after it. */
async function byHandRun(loadgen: string, work: string): Promise<{ tps: number | null; committed: number; rss: Record<string, number> }> {
  const bin = path.dirname(loadgen);
  const net0 = await startByHand(bin, path.join(work, 'by-hand'));
  try {
    const target: LoadgenTarget = { sidecarPort: net0.sidecarPort, block: net0.block, msp: net0.clientMsp, adminMsp: net0.adminMsp, mspId: net0.mspId, channel: net0.channel };
    const committed = committedAt(net0.coordinatorMetricsUrl);
    writeFileSync(path.join(work, 'hand-first.yaml'), loadgenConfig({ ...target, transactions: 20, rate: 100, ports: [await freePort(), await freePort()] }));
    const before = await committed();
    const first = promisify(execFile)(loadgen, ['start', `--config=${path.join(work, 'hand-first.yaml')}`], { timeout: 180_000 }).catch((e) => e);
    for (const deadline = Date.now() + 180_000; Date.now() < deadline && (await committed()) < before + 21; ) await new Promise((r) => setTimeout(r, 200));
    await first;
    if ((await committed()) < before + 1) throw new Error(`the by-hand network committed nothing; logs in ${net0.work}/logs`);
    const t = await throughput(loadgen, work, 'hand-tps', target, committed);
    const rss = Object.fromEntries(Object.entries(net0.pids).map(([role, pid]) => [role, rssMiB(pid)]));
    return { ...t, rss };
  } finally {
    await net0.stop();
  }
}

const cpuMicros = () => { const u = process.cpuUsage(); return u.user + u.system; };

async function main(): Promise<Record<string, unknown>> {
  if (fabricXMissing) throw new Error(`the Fabric-X programs are missing: ${fabricXMissing}`);
  const loadgen = await fabricXProgram('loadgen');
  if (!loadgen) throw new Error('loadgen (fabric-x-committer) is missing');
  const s = await startServer({ env: { ...fabricXServiceEnv(), LOG_LEVEL: 'warn', KEY_ENCRYPTION_KEY: 'ledgerx-bench-key' } });
  const rows: Array<{ metric: string; value: number | null; unit: string; note?: string }> = [];
  const work = mkdtempSync(path.join(tmpdir(), 'lnm-ledgerx-bench-'));
  const managedRss: Record<string, number> = {};
  let tps: number | null = null;
  try {
    const t0 = performance.now();
    const started = await api(s, 'POST', '/networks/ledgerx/quickstart', { name: 'benchx', organizations: [{ name: 'BenchX', mspId: 'BenchXMSP' }], grpcPort: await freeBase() });
    let q: any;
    for (;;) {
      q = await api(s, 'GET', `/networks/ledgerx/quickstart/${started.id}`);
      if (q.status !== 'IN_PROGRESS') break;
      await new Promise((r) => setTimeout(r, 200));
    }
    if (q.status !== 'COMPLETED') throw new Error(`quick start ${q.status}: ${q.error}`);
    const readyMs = performance.now() - t0;
    const group = await api(s, 'GET', `/nodes/${q.steps[1].resource_id}`);
    const committer = await api(s, 'GET', `/nodes/${q.steps[2].resource_id}`);
    const network = await api(s, 'GET', `/networks/ledgerx/${q.network_id}`);
    const c = committer.ledgerXCommitter;
    const committed = committedAt(c.coordinatorMetricsUrl);
    const block = path.join(work, 'genesis.block');
    writeFileSync(block, Buffer.from((await api(s, 'GET', `/networks/ledgerx/${network.id}/genesis`)).block, 'base64'));
    const sidecarId = c.roles.find((x: any) => x.role === 'sidecar').nodeId;
    const common = { sidecarPort: c.sidecarPort, block, msp: path.join(s.dataDir, 'nodes', `node-${sidecarId}`, 'msp'), mspId: 'BenchXMSP', channel: network.channel_name };
    // First transaction: loadgen sends a few; the time is taken when the coordinator counts the
    // first one beyond the config block and the namespace transaction.
    writeFileSync(path.join(work, 'first.yaml'), loadgenConfig({ ...common, transactions: 20, rate: 100, ports: [await freePort(), await freePort()] }));
    const before = await committed();
    const first = promisify(execFile)(loadgen, ['start', `--config=${path.join(work, 'first.yaml')}`], { timeout: 180_000 }).catch((e) => e);
    let firstMs: number | null = null;
    for (const deadline = Date.now() + 180_000; Date.now() < deadline; ) {
      if ((await committed()) >= Math.max(before, 2) + 1) { firstMs = performance.now() - t0; break; }
      await new Promise((r) => setTimeout(r, 100));
    }
    await first;
    rows.push({ metric: 'POST quickstart to the network ready (one organization: 4 arma roles, 5 committer services, all joined)', value: Math.round(readyMs), unit: 'ms' });
    rows.push({ metric: 'POST quickstart to the first transaction committed (loadgen through the router)', value: firstMs === null ? null : Math.round(firstMs), unit: 'ms' });
    // Throughput: TPS_TRANSACTIONS at a rate limit of TPS_RATE.
    const managed = await throughput(loadgen, work, 'tps', common, committed);
    tps = managed.tps;
    rows.push({ metric: `Committed transactions per second through the managed network (loadgen, ${TPS_TRANSACTIONS} transactions, rate limit ${TPS_RATE}/s)`, value: tps === null ? null : Math.round(tps), unit: 'tx/s', note: `${managed.committed} committed` });
    // Memory and probe cost per role.
    const roles = [...group.ledgerXOrdererGroup.roles, ...c.roles];
    for (const { role, nodeId } of roles) {
      const node = await api(s, 'GET', `/nodes/${nodeId}`);
      const pid = Number(JSON.parse(readFileSync(path.join(s.dataDir, 'nodes', `node-${nodeId}`, 'node.pid.json'), 'utf8')).pid);
      managedRss[role] = rssMiB(pid);
      rows.push({ metric: `Resident memory of the ${role} (after the throughput run)`, value: managedRss[role], unit: 'MiB' });
      const committerRole = node.nodeType.startsWith('LEDGERX_COMMITTER_');
      const probe = committerRole ? () => grpcHealthCheck(`127.0.0.1:${node.ledgerXChild.grpcPort}`, 5000) : () => probeRequest(`http://127.0.0.1:${node.ledgerXChild.monitoringPort}/healthz`, { timeoutMs: 5000 });
      await probe();
      const cpu0 = cpuMicros();
      const w0 = performance.now();
      for (let i = 0; i < 200; i++) await probe();
      rows.push({ metric: `Health check of the ${role}: CPU time in the service per probe (${committerRole ? 'gRPC health' : 'GET /healthz'}, 200 sequential)`, value: Math.round((cpuMicros() - cpu0) / 200), unit: 'µs', note: `${((performance.now() - w0) / 200).toFixed(2)} ms wall each` });
    }
    log(`ready ${Math.round(readyMs)} ms, first commit ${firstMs === null ? '-' : Math.round(firstMs)} ms, ${tps === null ? '-' : Math.round(tps)} tx/s`);
  } finally {
    const all = (await call(s.api, 'GET', '/nodes/platform/LEDGERX?limit=100', { headers: adminAuth() })).json?.items ?? [];
    for (const n of all.filter((x: any) => x.nodeType === 'LEDGERX_COMMITTER' || x.nodeType === 'LEDGERX_ORDERER_GROUP')) await call(s.api, 'DELETE', `/nodes/${n.id}`, { headers: adminAuth() }).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 3000));
    await closeBenchServer(s);
  }
  // The reference, after the managed network is gone (the two never share the CPU).
  const hand = await byHandRun(loadgen, work);
  log(`by hand: ${hand.tps === null ? '-' : Math.round(hand.tps)} tx/s`);
  rows.push({ metric: `Committed transactions per second, the same programs started by hand as in run-minimal.sh (loadgen, ${TPS_TRANSACTIONS} transactions, rate limit ${TPS_RATE}/s)`, value: hand.tps === null ? null : Math.round(hand.tps), unit: 'tx/s', note: `${hand.committed} committed` });
  rows.push({ metric: 'Committed transactions per second: managed network / by hand (same run, same workload)', value: tps === null || hand.tps === null ? null : Math.round((tps / hand.tps) * 100) / 100, unit: 'ratio' });
  for (const [role, mib] of Object.entries(hand.rss)) rows.push({ metric: `Resident memory of the ${role}, started by hand (after the throughput run)`, value: mib, unit: 'MiB', note: managedRss[role] === undefined ? undefined : `managed: ${managedRss[role]} MiB` });
  return { rows };
}

runBench(log, main);
