// BFT against raft (issue 37's bench), both on the same Fabric 3.1 release in one run, through the
// real server (embedded PostgreSQL, process engine): for each ordering service, from nothing to
// the sample chaincode answering (2 organizations, a peer each; 3 etcdraft orderers, then 4
// smartbft orderers, 2 per organization), a config update's round trip (PUT
// /networks/{id}/channels/{channel}/config changing the batch timeout, from the submit to every
// peer's ledger holding the new config block, read from each peer's own operations endpoint), and
// commits per second (the same chaincode invoked through the service, the same 8 callers at a
// time). Same release, same peers, same channel settings (batch timeout 500 ms): only the
// orderers differ. Needs a Fabric 3.1 release (LNM_FABRIC_RELEASES or LNM_FABRIC_BIN); without
// one the rows are null with the reason. Prints one JSON object; progress on stderr.
// `LNM_FABRIC_RELEASES=/opt/fabric-3.1.5/bin npm run bench -- --only=bft`, or alone:
// `npx tsx bench/consortiumBft.ts` (BENCH_BFT_INVOKES, default 80; BENCH_BFT_ROUNDS, default 3).
import { readFileSync } from 'node:fs';
import { common } from '@hyperledger/fabric-protos';
import path from 'node:path';
import { startServer, call, adminAuth, type TestServer } from '../test/helpers/server.ts';
import { fabricReleaseOf } from '../test/helpers/programs.ts';
import { apiOf, consortiumEnv, removeConsortiumNodes, runningNode } from '../test/e2e/consortium/consortiumApi.ts';
import { ledgerReadingsOf } from '../adapters/consortium/fabricLedgerMetrics.ts';
import { benchLog, closeBenchServer, runBench } from './lib/nodeBench.ts';
import { keepAliveClient } from './lib/keepAliveClient.ts';
import { procStat } from './lib/procStat.ts';
import { summarize } from './lib/stats.ts';

const log = benchLog('consortium bft');
const INVOKES = Number(process.env.BENCH_BFT_INVOKES ?? 80);
const ROUNDS = Number(process.env.BENCH_BFT_ROUNDS ?? 3);
const CONCURRENT = 8;
const BATCH_TIMEOUT = '500ms';
// SmartBFT cuts a block after requestBatchMaxInterval (200 ms by default), not the channel's
// BatchTimeout: set to the raft channel's batch timeout so both wait as long for a block.
// BENCH_BFT_REQUEST_FORWARD_TIMEOUT (a Go duration) sets requestForwardTimeout (default 5s): how
// long a follower holds a request before forwarding it to the leader.
const SMARTBFT_OPTIONS = { requestBatchMaxInterval: BATCH_TIMEOUT, ...(process.env.BENCH_BFT_REQUEST_FORWARD_TIMEOUT ? { requestForwardTimeout: process.env.BENCH_BFT_REQUEST_FORWARD_TIMEOUT } : {}) };
const ms = (n: number) => Math.round(n);

let server: TestServer;
const api = apiOf(() => server);

/** The answer of a call that must succeed. */
async function ok(method: string, p: string, body?: unknown) {
  const r = await api(method, p, body);
  if (r.status >= 400) throw new Error(`${method} ${p}: ${r.status} ${r.text.slice(0, 300)}`);
  return r.json;
}

/** Asks again every 100 ms while the answer is a 4xx/5xx (a channel still forming), up to `timeoutMs`, as quickStart.ts does. */
async function retried(method: string, p: string, body: unknown, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await api(method, p, body);
    if (r.status < 400) return r.json;
    if (Date.now() > deadline) throw new Error(`${method} ${p}: ${r.status} ${r.text.slice(0, 300)}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

/** A peer's ledger height on `channel`, from its own operations endpoint (Prometheus text, ledger_blockchain_height). */
async function peerHeight(peer: { config: { operationsPort: number } }, channel: string): Promise<number> {
  const r = await fetch(`http://127.0.0.1:${peer.config.operationsPort}/metrics`);
  const text = await r.text();
  return ledgerReadingsOf(text, 'peer').channels.find((c) => c.channel === channel)?.blockHeight ?? 0;
}

/**
 * SmartBFT's view on a channel, as orderer `o` reports it (its /metrics: the view_leader_id and
 * view_number gauges), with the leader's name from the channel's ConsenterMapping (GET
 * channel-config: id to port). The service sends its own envelopes to one active consenter:
 * whether that is the leader decides whether they wait out requestForwardTimeout.
 */
async function bftView(networkId: number, channel: string, o: { config: { operationsPort: number } }, orderers: Array<{ name: string; config: { port: number } }>) {
  try {
    const text = await (await fetch(`http://127.0.0.1:${o.config.operationsPort}/metrics`)).text();
    const gauge = (name: string) => {
      const line = text.split('\n').find((l) => l.includes(`${name}{`) && l.includes(`channel="${channel}"`));
      return line ? Number(line.trim().split(/\s+/).pop()) : null;
    };
    const leaderId = gauge('view_leader_id');
    const cfg = await ok('GET', `/networks/consortium/${networkId}/channel-config`);
    // configtxlator's JSON leaves the Orderers value (common.Orderers) as base64 protobuf.
    const encoded = cfg.config?.channel_group?.groups?.Orderer?.values?.Orderers?.value;
    const mapping = typeof encoded === 'string' ? common.Orderers.deserializeBinary(Buffer.from(encoded, 'base64')).getConsenterMappingList() : [];
    const port = mapping.find((m) => m.getId() === leaderId)?.getPort();
    return { leaderId, viewNumber: gauge('view_number'), leader: orderers.find((x) => x.config.port === port)?.name ?? null };
  } catch (err) {
    return { leaderId: null, viewNumber: null, leader: null, error: (err as Error).message.slice(0, 200) };
  }
}

type Consensus = 'etcdraft' | 'smartbft';

async function network(consensus: Consensus, fabricVersion: string) {
  const tag = consensus === 'smartbft' ? 'bft' : 'raft';
  const Tag = tag[0].toUpperCase() + tag.slice(1);
  const channel = `${tag}channel`;
  const sample = path.join(import.meta.dirname, '..', 'samples', 'chaincode', 'asset-registry');
  const files = ['package.json', 'assetRegistry.ts'].map((f) => ({ path: f, content: readFileSync(path.join(sample, f), 'utf8') }));
  const pid = server.child.pid!;
  const t0 = performance.now();
  const cpu0 = procStat(pid).cpuMs;
  const phases: Record<string, number> = {};
  let last = t0;
  const mark = (name: string) => {
    const t = performance.now();
    phases[name] = ms(t - last);
    last = t;
  };

  // 1. From nothing to the chaincode answering, as a user's script would drive it (quickStart.ts).
  const [org1, org2] = await Promise.all([ok('POST', '/organizations', { name: `${Tag}1`, mspId: `${Tag}1MSP` }), ok('POST', '/organizations', { name: `${Tag}2`, mspId: `${Tag}2MSP` })]);
  mark('organizationsMs');
  const ordererOrgs = consensus === 'smartbft' ? [org1, org1, org2, org2] : [org1, org1, org2];
  const config = { fabricVersion };
  const nodes = await Promise.all([
    ...ordererOrgs.map((o, i) => runningNode(api, `${tag}-orderer${i}`, 'CONSORTIUM_ORDERER', o.id, config)),
    runningNode(api, `${tag}-peer-org1`, 'CONSORTIUM_PEER', org1.id, config),
    runningNode(api, `${tag}-peer-org2`, 'CONSORTIUM_PEER', org2.id, config),
  ]);
  const orderers = nodes.slice(0, ordererOrgs.length);
  const peers = nodes.slice(ordererOrgs.length);
  mark('nodesStartedMs');
  const net = await ok('POST', '/networks/consortium', { name: tag, channelName: channel, consensus, ordererIds: orderers.map((o) => o.id), peerIds: peers.map((p) => p.id), batchTimeout: BATCH_TIMEOUT, ...(consensus === 'smartbft' ? { smartBftOptions: SMARTBFT_OPTIONS } : {}) });
  mark('networkCreatedMs');
  await Promise.all(orderers.map((o) => ok('POST', `/networks/consortium/${net.id}/orderers/${o.id}/join`)));
  mark('orderersJoinedMs');
  await Promise.all(peers.map((p) => retried('POST', `/networks/consortium/${net.id}/peers/${p.id}/join`, undefined, 120_000)));
  mark('peersJoinedMs');
  for (const [msp, p] of [[`${Tag}1MSP`, peers[0]], [`${Tag}2MSP`, peers[1]]] as const) {
    await retried('POST', `/networks/consortium/${net.id}/anchor-peers`, { organizationId: msp, anchorPeers: [{ host: '127.0.0.1', port: p.config.port }] }, 120_000);
  }
  mark('anchorPeersSetMs');
  const deployed = await retried('POST', '/sc/consortium/deploy', { networkId: net.id, name: 'assets', version: '1', source: { files } }, 120_000);
  mark('chaincodeDeployedMs');
  const cc = deployed.chaincode_id as number;
  await retried('POST', `/sc/consortium/chaincodes/${cc}/invoke`, { function: 'CreateAsset', args: ['first', 'blue', '1', 'me', '1'] }, 60_000);
  mark('firstInvokeCommittedMs');
  const q = await retried('POST', `/sc/consortium/chaincodes/${cc}/query`, { function: 'ReadAsset', args: ['first'] }, 30_000);
  if (!String(q.result).includes('first')) throw new Error(`query answered ${JSON.stringify(q).slice(0, 200)}`);
  mark('firstQueryAnsweredMs');
  const quickStart = { totalMs: ms(last - t0), phases, serviceCpuMs: ms(procStat(pid).cpuMs - cpu0) };
  log(`${consensus}: chaincode answering after ${quickStart.totalMs} ms ${JSON.stringify(phases)}`);

  // The first consenter the service sends to (the running joined active consenter of lowest id, orderingOrderer); on a
  // smartbft channel it sends to every running consenter, so a follower here no longer makes it wait out requestForwardTimeout.
  const submittedTo = [...orderers].sort((a, b) => a.id - b.id)[0];
  const view = consensus === 'smartbft' ? await bftView(net.id, channel, submittedTo, orderers) : undefined;
  if (view) log(`smartbft view before the config updates: ${JSON.stringify(view)} (the service's first consenter: ${submittedTo.name})`);

  // 2. Config updates: the batch timeout changed (and back at the end), from the submit to every peer at the new config block.
  const rounds: Array<{ answeredMs: number; everyPeerMs: number; blockNumber: number | null; sequence: number }> = [];
  const timeouts = Array.from({ length: ROUNDS }, (_, i) => (i === ROUNDS - 1 ? BATCH_TIMEOUT : `${600 + 100 * i}ms`));
  for (const batchTimeout of timeouts) {
    const before = await Promise.all(peers.map((p) => peerHeight(p, channel)));
    const t = performance.now();
    const r = await ok('PUT', `/networks/${net.id}/channels/${channel}/config`, { batch: { batchTimeout } });
    const answeredMs = performance.now() - t;
    if (r.status !== 'updated') throw new Error(`config update to ${batchTimeout}: ${JSON.stringify(r).slice(0, 300)}`);
    // The config block is the one the answer names; without a number, the next block after the heights before.
    const target = (i: number) => (typeof r.block_number === 'number' ? r.block_number + 1 : before[i] + 1);
    for (;;) {
      const heights = await Promise.all(peers.map((p) => peerHeight(p, channel)));
      if (heights.every((h, i) => h >= target(i))) break;
      if (performance.now() - t > 60_000) throw new Error(`${consensus}: peers at ${heights.join(', ')} 60 s after the config update, block ${r.block_number}`);
      await new Promise((res) => setTimeout(res, 20));
    }
    rounds.push({ answeredMs: ms(answeredMs), everyPeerMs: ms(performance.now() - t), blockNumber: r.block_number ?? null, sequence: r.sequence });
  }
  log(`${consensus}: config updates ${JSON.stringify(rounds)}`);

  // 3. Commits per second: the same invoke through the service, CONCURRENT callers (then 4 times as
  // many), each waiting for its commit.
  const throughput = [];
  for (const callers of [CONCURRENT, 4 * CONCURRENT]) throughput.push(await commitsPerSecond(cc, callers, (INVOKES * callers) / CONCURRENT, `${tag}${callers}-`));
  log(`${consensus}: ${JSON.stringify(throughput)}`);

  await removeConsortiumNodes(api, server.dataDir);
  const answered = summarize(rounds.map((r) => r.answeredMs));
  const everyPeer = summarize(rounds.map((r) => r.everyPeerMs));
  return {
    consensus, orderers: orderers.length, peers: peers.length, fabricVersion, ...(consensus === 'smartbft' ? { smartBftOptions: SMARTBFT_OPTIONS } : { batchTimeout: BATCH_TIMEOUT }),
    quickStart,
    configUpdate: { rounds, answeredMedianMs: answered.p50, everyPeerMedianMs: everyPeer.p50, ...(view ? { bftViewBefore: view, submittedTo: submittedTo.name as string } : {}) },
    throughput: throughput[0], throughputMoreCallers: throughput[1],
  };
}

/** `invokes` CreateAsset invokes through the service's kept-alive client, `callers` at a time, each waiting for its commit. */
async function commitsPerSecond(cc: number, callers: number, invokes: number, prefix: string) {
  const client = keepAliveClient(server.api, adminAuth());
  let next = 0;
  let notValid = 0;
  const t = performance.now();
  try {
    await Promise.all(Array.from({ length: callers }, async () => {
      while (next < invokes) {
        const i = next++;
        const r = await client('POST', `/sc/consortium/chaincodes/${cc}/invoke`, { function: 'CreateAsset', args: [`${prefix}${i}`, 'blue', '1', 'a', '1'] });
        if (r.status !== 200) throw new Error(`invoke ${i}: ${r.status} ${r.text.slice(0, 200)}`);
        if (r.json.validation_code !== 'VALID') notValid++;
      }
    }));
  } finally {
    client.close();
  }
  return { invokes, callers, commitsPerSec: Math.round(((invokes * 1000) / (performance.now() - t)) * 100) / 100, notValid };
}

type Result = Awaited<ReturnType<typeof network>>;

function rowsOf(raft: Result | null, bft: Result | null, skipped?: string) {
  const ratio = (a: number | undefined, b: number | undefined) => (a !== undefined && b !== undefined && b > 0 ? Math.round((a / b) * 100) / 100 : null);
  const s = (x: number | undefined) => (x === undefined ? null : Math.round(x / 100) / 10);
  const note = (r: Result | null, text: (r: Result) => string) => (r ? text(r) : `skipped: ${skipped}`);
  const phases = (r: Result) => Object.entries(r.quickStart.phases).map(([k, v]) => `${k.replace(/Ms$/, '')} ${v}`).join(', ') + ' ms';
  const leader = (r: Result) => (r.configUpdate.bftViewBefore ? `; SmartBFT leader ${r.configUpdate.bftViewBefore.leader ?? `id ${r.configUpdate.bftViewBefore.leaderId}`} (view ${r.configUpdate.bftViewBefore.viewNumber}), the service's first consenter ${r.configUpdate.submittedTo}` : '');
  const rounds = (r: Result) => `rounds ${r.configUpdate.rounds.map((x) => x.everyPeerMs).join(', ')} ms; the service answered after ${r.configUpdate.rounds.map((x) => x.answeredMs).join(', ')} ms${leader(r)}`;
  const v = raft?.fabricVersion ?? bft?.fabricVersion ?? '3.1';
  return [
    { metric: `Quick start, raft (Fabric ${v}, 3 etcdraft orderers, 2 orgs with a peer each): first POST to a chaincode query answered`, value: s(raft?.quickStart.totalMs), unit: 's', note: note(raft, phases) },
    { metric: `Quick start, BFT (Fabric ${v}, 4 smartbft orderers, 2 orgs with a peer each): first POST to a chaincode query answered`, value: s(bft?.quickStart.totalMs), unit: 's', note: note(bft, phases) },
    { metric: 'Quick start, BFT / raft, same release, same run', value: ratio(bft?.quickStart.totalMs, raft?.quickStart.totalMs), unit: 'x', ...(skipped ? { note: `skipped: ${skipped}` } : {}) },
    { metric: `Config update round trip, raft: PUT channel config (batch timeout) to every peer at the new config block, median of ${ROUNDS}`, value: raft?.configUpdate.everyPeerMedianMs ?? null, unit: 'ms', note: note(raft, rounds) },
    { metric: `Config update round trip, BFT: the same, median of ${ROUNDS}`, value: bft?.configUpdate.everyPeerMedianMs ?? null, unit: 'ms', note: note(bft, rounds) },
    { metric: 'Config update round trip, BFT / raft, same run', value: ratio(bft?.configUpdate.everyPeerMedianMs, raft?.configUpdate.everyPeerMedianMs), unit: 'x', ...(skipped ? { note: `skipped: ${skipped}` } : {}) },
    { metric: `Commits per second through 3 raft orderers (invokes through the service, ${CONCURRENT} at a time, each waiting for its commit)`, value: raft?.throughput.commitsPerSec ?? null, unit: 'tx/s', note: note(raft, (r) => `${r.throughput.invokes} invokes, ${r.throughput.notValid} not VALID, batch timeout ${BATCH_TIMEOUT}`) },
    { metric: `Commits per second through 4 BFT orderers (the same)`, value: bft?.throughput.commitsPerSec ?? null, unit: 'tx/s', note: note(bft, (r) => `${r.throughput.invokes} invokes, ${r.throughput.notValid} not VALID, requestBatchMaxInterval ${SMARTBFT_OPTIONS.requestBatchMaxInterval}`) },
    { metric: `Commits per second, BFT / raft, ${CONCURRENT} callers, same run`, value: ratio(bft?.throughput.commitsPerSec, raft?.throughput.commitsPerSec), unit: 'x', ...(skipped ? { note: `skipped: ${skipped}` } : {}) },
    { metric: `Commits per second through 3 raft orderers, ${4 * CONCURRENT} callers`, value: raft?.throughputMoreCallers.commitsPerSec ?? null, unit: 'tx/s', note: note(raft, (r) => `${r.throughputMoreCallers.invokes} invokes, ${r.throughputMoreCallers.notValid} not VALID`) },
    { metric: `Commits per second through 4 BFT orderers, ${4 * CONCURRENT} callers`, value: bft?.throughputMoreCallers.commitsPerSec ?? null, unit: 'tx/s', note: note(bft, (r) => `${r.throughputMoreCallers.invokes} invokes, ${r.throughputMoreCallers.notValid} not VALID`) },
    { metric: `Commits per second, BFT / raft, ${4 * CONCURRENT} callers, same run`, value: ratio(bft?.throughputMoreCallers.commitsPerSec, raft?.throughputMoreCallers.commitsPerSec), unit: 'x', ...(skipped ? { note: `skipped: ${skipped}` } : {}) },
  ];
}

async function main(): Promise<Record<string, unknown>> {
  const r31 = fabricReleaseOf('3.1');
  if (!r31.ok) {
    log(`skipped: ${r31.reason}`);
    return { rows: rowsOf(null, null, r31.reason), skipped: r31.reason };
  }
  const version = r31.release.version;
  server = await startServer({ embedded: true, env: consortiumEnv({ LOG_LEVEL: 'warn', LNM_FABRIC_RELEASES: r31.release.binDir, LNM_NODE_ENGINE: 'process' }), timeoutMs: 120_000 });
  try {
    log(`raft on Fabric ${version}: 3 etcdraft orderers, 2 peers`);
    const raft = await network('etcdraft', version);
    log(`BFT on Fabric ${version}: 4 smartbft orderers, 2 peers`);
    const bft = await network('smartbft', version);
    return { rows: rowsOf(raft, bft), bench: 'consortium bft', fabric: version, engine: 'process', raft, bft };
  } finally {
    await removeConsortiumNodes(api, server.dataDir).catch(() => undefined);
    await closeBenchServer(server);
  }
}

runBench(log, main);
