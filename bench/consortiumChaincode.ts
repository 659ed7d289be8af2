// Chaincode bench on real Fabric 2.5.12 (found as the tests find them: test/helpers/programs.ts): two organizations with two peers
// each and one raft orderer (batchTimeout 500ms), the sample asset registry deployed with an
// endorsement policy that needs both organizations. Measures the full deploy (install on 4
// peers, 2 approvals, commit, server start) and invoke/query latency and throughput through the
// service versus straight through @hyperledger/fabric-gateway from here with the same admin
// identity (the ratio is the service's overhead). Prints one JSON object to stdout.
// `npx tsx bench/consortiumChaincode.ts`
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createPrivateKey } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { startServer, type TestServer } from '../test/helpers/server.ts';
import { fabricMissing } from '../test/helpers/programs.ts';
import { runGlobalTeardown } from '../test/helpers/globalTeardown.ts';
import { apiOf, auth, consortiumEnv, node, organization, until } from '../test/e2e/consortium/consortiumApi.ts';
import { databasePrivateKeyPem } from '../adapters/keyProviders/databaseKeyProvider.ts';
import { resolveKeyEncryptionKey } from '../adapters/keyProviders/keyEncryptionKeyFile.ts';
import { privateKeyFabricSigner } from '../adapters/consortium/fabricSigning.ts';
import { evaluateTransaction, submitTransaction } from '../adapters/consortium/chaincodeGateway.ts';
import type { InvokeRequest } from '../domain/consortium/consortiumChaincodePorts.ts';
import { summarize } from './lib/stats.ts';
import { keepAliveClient, type KeepAliveCall } from './lib/keepAliveClient.ts';
import { block as qsccBlock, transaction as qsccTransaction } from '../adapters/consortium/ledgerQuery.ts';

const log = (m: string) => process.stderr.write(`[bench chaincode] ${m}\n`);
const INVOKES = Number(process.env.BENCH_CC_INVOKES ?? 20);
// 300: the p99 of a loop is its third-slowest call, not its second (steadier from run to run).
const QUERIES = Number(process.env.BENCH_CC_QUERIES ?? 300);
const CONCURRENT = 8;

let server: TestServer;
const api = apiOf(() => server);
// The timed loops call the service over one kept-alive connection (bench/lib/keepAliveClient.ts);
// one query loop through fetch is timed beside them (serviceViaFetch).
let timedApi: KeepAliveCall & { close(): void };

const ratios = (svc: { p50: number; p99: number }, bare: { p50: number; p99: number }) => ({
  serviceP50Ms: svc.p50, serviceP99Ms: svc.p99, qsccP50Ms: bare.p50, qsccP99Ms: bare.p99,
  overheadRatioP50: Math.round((svc.p50 / bare.p50) * 100) / 100, overheadRatioP99: Math.round((svc.p99 / bare.p99) * 100) / 100,
});

const decodedRatios = (svc: { p50: number; p99: number }, bare: { p50: number; p99: number }) => ({
  serviceP50Ms: svc.p50, serviceP99Ms: svc.p99, decodedP50Ms: bare.p50, decodedP99Ms: bare.p99,
  overheadRatioP50: Math.round((svc.p50 / bare.p50) * 100) / 100, overheadRatioP99: Math.round((svc.p99 / bare.p99) * 100) / 100,
});

/** p50/p99 of the `ms` of the service's request log lines for one path (bin/server.ts logs one per request). */
function inServiceMs(output: string, path: string) {
  const ms: number[] = [];
  for (const line of output.split('\n')) {
    if (!line.includes(path)) continue;
    try {
      const entry = JSON.parse(line) as { msg?: string; path?: string; ms?: number };
      if (entry.msg === 'request' && entry.path === path && typeof entry.ms === 'number') ms.push(entry.ms);
    } catch {
      /* not a log line */
    }
  }
  return summarize(ms);
}

async function timed<T>(n: number, one: (i: number) => Promise<T>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await one(i);
    out.push(performance.now() - t);
  }
  return out;
}

async function throughput(n: number, one: (i: number) => Promise<unknown>): Promise<number> {
  const t = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: CONCURRENT }, async () => {
    while (next < n) await one(next++);
  }));
  return (n * 1000) / (performance.now() - t);
}

async function main() {
  if (fabricMissing) throw new Error(fabricMissing);
  const prof = process.env.BENCH_CPU_PROF;
  server = await startServer({ env: consortiumEnv(), nodeArgs: prof ? ['--cpu-prof', `--cpu-prof-dir=${prof}`] : [] });
  let profileWindowUs: number[] | undefined;
  const profileWindowsUs: Record<string, number[]> = {};
  // CLOCK_MONOTONIC in microseconds, the clock of V8's profile timestamps: a loop's window within a --cpu-prof profile.
  const nowUs = () => Number(process.hrtime.bigint() / 1000n);
  const windowed = async <T>(name: string, run: () => Promise<T>): Promise<T> => {
    const start = nowUs();
    const out = await run();
    if (prof) profileWindowsUs[name] = [start, nowUs()];
    return out;
  };
  try {
    const org1 = await organization(api, 'Org1', 'Org1MSP');
    const org2 = await organization(api, 'Org2', 'Org2MSP');
    const made = await Promise.all([
      node(api, 'orderer0', 'CONSORTIUM_ORDERER', org1.id),
      node(api, 'peer0-org1', 'CONSORTIUM_PEER', org1.id), node(api, 'peer1-org1', 'CONSORTIUM_PEER', org1.id),
      node(api, 'peer0-org2', 'CONSORTIUM_PEER', org2.id), node(api, 'peer1-org2', 'CONSORTIUM_PEER', org2.id),
    ]);
    const [orderer, ...peers] = made;
    const net = (await api('POST', '/networks/consortium', { name: 'bench', channelName: 'benchchannel', ordererIds: [orderer.id], peerIds: peers.map((p) => p.id), batchTimeout: '500ms' })).json;
    await api('POST', `/networks/consortium/${net.id}/orderers/${orderer.id}/join`);
    for (const p of peers) await until(`join ${p.name}`, async () => ((await api('POST', `/networks/consortium/${net.id}/peers/${p.id}/join`)).status === 200 ? true : null), 60_000, 1000);
    for (const [msp, p] of [['Org1MSP', peers[0]], ['Org2MSP', peers[2]]] as const) {
      await until(`anchor ${msp}`, async () => ((await api('POST', `/networks/consortium/${net.id}/anchor-peers`, { organizationId: msp, anchorPeers: [{ host: '127.0.0.1', port: p.config.port }] })).status === 200 ? true : null), 60_000, 1000);
    }
    const dir = path.join(import.meta.dirname, '..', 'samples', 'chaincode', 'asset-registry');
    const files = ['package.json', 'assetRegistry.ts'].map((p) => ({ path: p, content: readFileSync(path.join(dir, p), 'utf8') }));
    log('deploying');
    const t0 = performance.now();
    const deployed = await api('POST', '/sc/consortium/deploy', { networkId: net.id, name: 'assets', version: '1', endorsementPolicy: "AND('Org1MSP.peer','Org2MSP.peer')", source: { files } });
    const deployMs = performance.now() - t0;
    if (deployed.status !== 200) throw new Error(`deploy: ${deployed.text}`);
    const cc = deployed.json.chaincode_id;

    // The same admin identity the service signs with, read from its database provider.
    const pool = new pg.Pool({ connectionString: server.databaseUrl!, max: 2 });
    const row = (await pool.query('SELECT k.handle, k.certificate_pem FROM organizations o JOIN keys k ON k.id = o.admin_key_id WHERE o.id = $1', [org1.id])).rows[0];
    const kek = resolveKeyEncryptionKey({ env: { KEY_ENCRYPTION_KEY: server.env.KEY_ENCRYPTION_KEY }, dataDir: server.dataDir }).key;
    const keyPem = await databasePrivateKeyPem({ pool, keyEncryptionKey: kek }, row.handle);
    await pool.end();
    const signer = privateKeyFabricSigner(createPrivateKey(keyPem), 'Org1MSP', row.certificate_pem);
    const caPem = (await api('GET', `/organizations/${org1.id}/msp`)).json?.tls_ca_cert_pem;
    const tlsCa = caPem ?? (await api('GET', `/keys/${(await api('GET', `/organizations/${org1.id}`)).json.tlsKeyId}`)).json.certificate.pem;
    const direct = (fn: string, args: string[]): InvokeRequest => ({
      gateway: { peer: { host: '127.0.0.1', port: peers[0].config.port, tlsCaCertPem: tlsCa, serverName: peers[0].config.hostname }, signer },
      channelName: 'benchchannel', chaincodeName: 'assets', fn, args,
    });

    timedApi = keepAliveClient(server.api, auth);
    log('warm-up');
    await api('POST', `/sc/consortium/chaincodes/${cc}/invoke`, { function: 'CreateAsset', args: ['warm', 'x', '1', 'o', '1'] });
    await submitTransaction(direct('CreateAsset', ['warm2', 'x', '1', 'o', '1']));

    log(`invokes: ${INVOKES} sequential each way`);
    const invokedTxIds: string[] = [];
    const svcInvoke = await timed(INVOKES, async (i) => {
      const r = await timedApi('POST', `/sc/consortium/chaincodes/${cc}/invoke`, { function: 'CreateAsset', args: [`s${i}`, 'blue', '1', 'a', '1'] });
      if (r.status !== 200) throw new Error(r.text);
      invokedTxIds.push(r.json.tx_id);
    });
    const gwInvoke = await timed(INVOKES, (i) => submitTransaction(direct('CreateAsset', [`g${i}`, 'blue', '1', 'a', '1'])));
    log(`queries: ${QUERIES} sequential each way`);
    const logFrom = server.output().length;
    const svcQuery = await windowed('query', () => timed(QUERIES, async () => {
      const r = await timedApi('POST', `/sc/consortium/chaincodes/${cc}/query`, { function: 'ReadAsset', args: ['s0'] });
      if (r.status !== 200) throw new Error(r.text);
    }));
    if (prof) profileWindowUs = profileWindowsUs.query;
    // Where a query's time goes: the service's request log line (written after each answer) says
    // how long the request took inside the process, from its first middleware to the answer; the
    // rest of the client's figure is the HTTP hop (connection, parsing, the client itself).
    await new Promise((r) => setTimeout(r, 300));
    const inService = inServiceMs(server.output().slice(logFrom), `/api/v1/sc/consortium/chaincodes/${cc}/query`);
    const gwQuery = await timed(QUERIES, () => evaluateTransaction(direct('ReadAsset', ['s0'])));
    // The same query loop through Node's fetch, what a caller using fetch sees (not the ratio's figure).
    const svcQueryFetch = await timed(QUERIES, async () => {
      const r = await api('POST', `/sc/consortium/chaincodes/${cc}/query`, { function: 'ReadAsset', args: ['s0'] });
      if (r.status !== 200) throw new Error(r.text);
    });
    // Explorer reads: one block and one transaction through the service (which decodes them to
    // JSON, and keeps them once read) against the same reads straight from the peer's system
    // chaincode qscc through the gateway.
    const txId = (await api('POST', `/sc/consortium/chaincodes/${cc}/invoke`, { function: 'CreateAsset', args: ['explorer', 'x', '1', 'o', '1'] })).json.tx_id as string;
    const blockNum = (await api('GET', `/networks/consortium/${net.id}/transactions/${txId}`)).json?.block_number ?? 1;
    log(`explorer: block ${blockNum} and transaction ${txId.slice(0, 8)}..., ${QUERIES} each way`);
    const qscc = (fn: string, args: string[]) => ({ ...direct(fn, args), chaincodeName: 'qscc' });
    const svcBlock = await windowed('explorerBlock', () => timed(QUERIES, async () => {
      const r = await timedApi('GET', `/networks/consortium/${net.id}/blocks/${blockNum}`);
      if (r.status !== 200) throw new Error(r.text);
    }));
    const gwBlock = await timed(QUERIES, () => evaluateTransaction(qscc('GetBlockByNumber', ['benchchannel', String(blockNum)])));
    const svcTx = await windowed('explorerTransaction', () => timed(QUERIES, async () => {
      const r = await timedApi('GET', `/networks/consortium/${net.id}/transactions/${txId}`);
      if (r.status !== 200) throw new Error(r.text);
    }));
    const gwTx = await timed(QUERIES, () => evaluateTransaction(qscc('GetTransactionByID', ['benchchannel', txId])));
    // First reads: the service keeps a committed block or transaction once read
    // (application/consortium/consortiumLedgerReads.ts), so the loops above time it answering
    // from memory after one read. Here each block and each transaction is read once, so every
    // read through the service asks the peer and decodes, as a first visit does.
    const firstBlocks = Array.from({ length: Math.min(40, blockNum - 2) }, (_, i) => i + 1).filter((n) => n !== blockNum);
    log(`explorer first reads: ${firstBlocks.length} blocks and ${invokedTxIds.length} transactions, once each way`);
    const svcBlockFirst = await windowed('explorerBlockFirstRead', () => timed(firstBlocks.length, async (i) => {
      const r = await timedApi('GET', `/networks/consortium/${net.id}/blocks/${firstBlocks[i]}`);
      if (r.status !== 200) throw new Error(r.text);
    }));
    // Two references for a first read: the qscc call alone (bytes a client cannot show yet), and
    // the qscc call with the decoding that gives the same fields the service answers with (the
    // service's own adapter, adapters/consortium/ledgerQuery.ts, called here directly): the latter
    // is what reading a block without the service costs, and the ratio's reference.
    const gwBlockFirst = await timed(firstBlocks.length, (i) => evaluateTransaction(qscc('GetBlockByNumber', ['benchchannel', String(firstBlocks[i])])));
    const reader = { peer: direct('', []).gateway.peer, signer };
    const decodedBlockFirst = await timed(firstBlocks.length, (i) => qsccBlock(reader, 'benchchannel', firstBlocks[i]));
    const svcTxFirst = await windowed('explorerTransactionFirstRead', () => timed(invokedTxIds.length, async (i) => {
      const r = await timedApi('GET', `/networks/consortium/${net.id}/transactions/${invokedTxIds[i]}`);
      if (r.status !== 200) throw new Error(r.text);
    }));
    const gwTxFirst = await timed(invokedTxIds.length, (i) => evaluateTransaction(qscc('GetTransactionByID', ['benchchannel', invokedTxIds[i]])));
    const decodedTxFirst = await timed(invokedTxIds.length, (i) => qsccTransaction(reader, 'benchchannel', invokedTxIds[i]));
    log(`throughput: ${CONCURRENT} at a time`);
    const svcInvokeTps = await throughput(INVOKES * 2, async (i) => {
      const r = await timedApi('POST', `/sc/consortium/chaincodes/${cc}/invoke`, { function: 'CreateAsset', args: [`ts${i}`, 'blue', '1', 'a', '1'] });
      if (r.status !== 200) throw new Error(r.text);
    });
    const gwInvokeTps = await throughput(INVOKES * 2, (i) => submitTransaction(direct('CreateAsset', [`tg${i}`, 'blue', '1', 'a', '1'])));
    const svcQueryTps = await throughput(QUERIES, () => timedApi('POST', `/sc/consortium/chaincodes/${cc}/query`, { function: 'ReadAsset', args: ['s0'] }));
    const gwQueryTps = await throughput(QUERIES, () => evaluateTransaction(direct('ReadAsset', ['s0'])));

    const si = summarize(svcInvoke);
    const gi = summarize(gwInvoke);
    const sq = summarize(svcQuery);
    const gq = summarize(gwQuery);
    const r2 = (n: number) => Math.round(n * 100) / 100;
    console.log(JSON.stringify({
      setup: { organizations: 2, peersPerOrganization: 2, orderers: 1, batchTimeout: '500ms', endorsementPolicy: 'both organizations' },
      deployMs: Math.round(deployMs),
      invoke: { serviceP50Ms: si.p50, serviceP99Ms: si.p99, gatewayP50Ms: gi.p50, gatewayP99Ms: gi.p99, overheadRatioP50: r2(si.p50 / gi.p50), servicePerSec: r2(svcInvokeTps), gatewayPerSec: r2(gwInvokeTps) },
      query: {
        serviceP50Ms: sq.p50, serviceP99Ms: sq.p99, gatewayP50Ms: gq.p50, gatewayP99Ms: gq.p99, overheadRatioP50: r2(sq.p50 / gq.p50), overheadRatioP99: r2(sq.p99 / gq.p99), servicePerSec: r2(svcQueryTps), gatewayPerSec: r2(gwQueryTps),
        client: 'node:http, one kept-alive connection (bench/lib/keepAliveClient.ts)',
        inServiceP50Ms: inService.p50, inServiceP99Ms: inService.p99, inServiceSamples: inService.samples, serviceViaFetch: (({ p50, p99 }) => ({ p50Ms: p50, p99Ms: p99 }))(summarize(svcQueryFetch)),
      },
      explorerBlock: ratios(summarize(svcBlock), summarize(gwBlock)),
      explorerTransaction: ratios(summarize(svcTx), summarize(gwTx)),
      explorerBlockFirstRead: { reads: firstBlocks.length, reference: 'qscc GetBlockByNumber decoded to the same fields', ...decodedRatios(summarize(svcBlockFirst), summarize(decodedBlockFirst)), qsccBytesOnly: ratios(summarize(svcBlockFirst), summarize(gwBlockFirst)) },
      explorerTransactionFirstRead: { reads: invokedTxIds.length, reference: 'qscc GetBlockByTxID decoded to the same fields', ...decodedRatios(summarize(svcTxFirst), summarize(decodedTxFirst)), qsccBytesOnly: ratios(summarize(svcTxFirst), summarize(gwTxFirst)) },
      ...(profileWindowUs ? { profileWindowUs, profileWindowsUs } : {}),
    }, null, 2));
  } finally {
    const all = (await api('GET', '/nodes?limit=100')).json?.items ?? [];
    for (const n of all) await api('DELETE', `/nodes/${n.id}`).catch(() => undefined);
    const nodesDir = path.join(server.dataDir, 'nodes');
    await until('node directories removed', async () => (!existsSync(nodesDir) || readdirSync(nodesDir).length === 0 ? true : null), 30_000).catch(() => undefined);
    await server.stop();
    timedApi?.close();
    await runGlobalTeardown();
  }
}

main().catch((err) => {
  log(`FAILED: ${(err as Error).stack}`);
  process.exit(1);
});
