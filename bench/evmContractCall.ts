// EVM contract-call bench on real anvil (block time 1 s, free gas): the counter contract of the
// e2e tests deployed through the service, then a query (POST /sc/evm/contracts/{id}/query,
// eth_call) through the service against ethers' staticCall straight to the same node, and an
// invoke (POST .../invoke, signed through the key provider, answered with the receipt) against
// ethers sending the same transaction with the same key (the network's first validator key, read
// from the service's database provider). Both bare providers send one request per JSON-RPC
// message and poll receipts every 250 ms, as the service does. The ratio is the service's
// overhead. Also the explorer's block read (GET /networks/evm/{id}/blocks/{n}) against
// eth_getBlockByNumber straight to the node. Prints one JSON object to stdout. `npx tsx bench/evmContractCall.ts`
// BENCH_CPU_PROF=<dir> runs the server under --cpu-prof (profileWindowUs: the query loop).
import pg from 'pg';
import { Contract, JsonRpcProvider, Wallet, hexlify } from 'ethers';
import { startServer, call, adminAuth, type TestServer } from '../test/helpers/server.ts';
import { killLeftoverNodes } from '../test/e2e/evm/evmLifecycle.ts';
import { COUNTER_ABI, COUNTER_BYTECODE } from '../test/e2e/evm/counterContract.ts';
import { databaseSecp256k1PrivateKey } from '../adapters/keyProviders/databaseKeyProvider.ts';
import { resolveKeyEncryptionKey } from '../adapters/keyProviders/keyEncryptionKeyFile.ts';
import { runGlobalTeardown } from '../test/helpers/globalTeardown.ts';
import { summarize } from './lib/stats.ts';
import { keepAliveClient, type KeepAliveCall } from './lib/keepAliveClient.ts';

const log = (m: string) => process.stderr.write(`[bench evmcall] ${m}\n`);
const QUERIES = Number(process.env.BENCH_EVM_QUERIES ?? 200);
const INVOKES = Number(process.env.BENCH_EVM_INVOKES ?? 10);
const r2 = (n: number) => Math.round(n * 100) / 100;

let server: TestServer;
const api = async (method: string, p: string, body?: unknown) => {
  const r = await call(server.api, method, p, { headers: adminAuth(), body });
  if (r.status >= 300) throw new Error(`${method} ${p}: ${r.status} ${r.text}`);
  return r.json;
};
// The timed loops call the service over one kept-alive connection (bench/lib/keepAliveClient.ts);
// one query loop through fetch is timed beside them (serviceViaFetch).
let timedClient: (KeepAliveCall & { close(): void }) | undefined;
const timedApi = async (method: string, p: string, body?: unknown) => {
  const r = await timedClient!(method, p, body);
  if (r.status >= 300) throw new Error(`${method} ${p}: ${r.status} ${r.text}`);
  return r.json;
};

async function timed(n: number, one: (i: number) => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await one(i);
    out.push(performance.now() - t);
  }
  return out;
}

const ratios = (svc: number[], bare: number[]) => {
  const s = summarize(svc);
  const b = summarize(bare);
  return { serviceP50Ms: s.p50, serviceP99Ms: s.p99, bareP50Ms: b.p50, bareP99Ms: b.p99, overheadRatioP50: r2(s.p50 / b.p50), overheadRatioP99: r2(s.p99 / b.p99) };
};

async function main() {
  const prof = process.env.BENCH_CPU_PROF;
  server = await startServer({ nodeArgs: prof ? ['--cpu-prof', `--cpu-prof-dir=${prof}`] : [] });
  let rpc: JsonRpcProvider | undefined;
  let profileWindowUs: number[] | undefined;
  try {
    const chainId = 4545;
    const net = await api('POST', '/networks', { name: 'bench-calls', type: 'evm', genesis: { chain_id: chainId, consensus: 'IBFT_2', block_time: 1, gas_limit: '0x1C9C380', validators: [], accounts: {} } });
    const node = await api('POST', `/networks/${net.id}/nodes`, { name: 'bench-calls-validator', type: 'validator' });
    const started = await api('POST', `/nodes/${node.id}/start`);
    const rpcUrl = started.endpoints.rpc_http as string;
    const deployed = await api('POST', '/sc/evm/deploy', { networkId: net.id, name: 'counter', bytecode: COUNTER_BYTECODE, abi: COUNTER_ABI });
    const cid = deployed.contract_id as number;

    // The key the service signs invokes with: the network's first validator key, from its database provider.
    const pool = new pg.Pool({ connectionString: server.databaseUrl!, max: 1 });
    const handle = (await pool.query('SELECT validators FROM evm_networks WHERE id = $1', [net.id])).rows[0].validators[0].keyHandle as string;
    const kek = resolveKeyEncryptionKey({ env: { KEY_ENCRYPTION_KEY: server.env.KEY_ENCRYPTION_KEY }, dataDir: server.dataDir }).key;
    const wallet = new Wallet(hexlify(await databaseSecp256k1PrivateKey({ pool, keyEncryptionKey: kek }, handle)));
    await pool.end();
    rpc = new JsonRpcProvider(rpcUrl, chainId, { staticNetwork: true, batchMaxCount: 1, pollingInterval: 250 });
    const bare = new Contract(deployed.address, COUNTER_ABI, wallet.connect(rpc));
    if (wallet.address.toLowerCase() !== String(deployed.from).toLowerCase()) throw new Error(`bare key ${wallet.address} is not the service's ${deployed.from}`);

    timedClient = keepAliveClient(server.api, adminAuth());
    log('warm-up');
    await api('POST', `/sc/evm/contracts/${cid}/invoke`, { function: 'set', args: [7] });
    for (let i = 0; i < 20; i++) {
      await api('POST', `/sc/evm/contracts/${cid}/query`, { function: 'get' });
      await bare.get.staticCall();
    }
    log(`queries: ${QUERIES} sequential each way`);
    const windowStart = Number(process.hrtime.bigint() / 1000n);
    const svcQuery = await timed(QUERIES, async () => {
      const r = await timedApi('POST', `/sc/evm/contracts/${cid}/query`, { function: 'get' });
      if (r.result[0] !== '7') throw new Error(`query answered ${JSON.stringify(r.result)}`);
    });
    if (prof) profileWindowUs = [windowStart, Number(process.hrtime.bigint() / 1000n)];
    const bareQuery = await timed(QUERIES, async () => {
      if ((await bare.get.staticCall()) !== 7n) throw new Error('bare query answered otherwise');
    });
    log(`invokes: ${INVOKES} sequential each way`);
    const svcQueryFetch = await timed(QUERIES, async () => {
      const r = await api('POST', `/sc/evm/contracts/${cid}/query`, { function: 'get' });
      if (r.result[0] !== '7') throw new Error(`query answered ${JSON.stringify(r.result)}`);
    });
    // The explorer's block read against the same block straight from the node (eth_getBlockByNumber
    // with its transactions): block 1, deep below the head after the warm-up, so from the explorer's cache.
    log(`explorer block reads: ${QUERIES} sequential each way`);
    const deep = 1;
    for (let i = 0; i < 10; i++) await timedApi('GET', `/networks/evm/${net.id}/blocks/${deep}`);
    const svcBlock = await timed(QUERIES, async () => {
      const b = await timedApi('GET', `/networks/evm/${net.id}/blocks/${deep}`);
      if (b.number !== deep) throw new Error(`explorer answered block ${b.number}`);
    });
    const bareBlock = await timed(QUERIES, async () => {
      const b = await rpc!.send('eth_getBlockByNumber', ['0x' + deep.toString(16), true]);
      if (Number(b.number) !== deep) throw new Error('bare block read answered otherwise');
    });
    const svcInvoke = await timed(INVOKES, (i) => timedApi('POST', `/sc/evm/contracts/${cid}/invoke`, { function: 'set', args: [100 + i] }));
    const bareInvoke = await timed(INVOKES, async (i) => {
      const tx = await bare.set(200 + i, { type: 0, gasPrice: 0n });
      const receipt = await tx.wait(1, 120_000);
      if (receipt?.status !== 1) throw new Error('bare invoke failed');
    });
    console.log(JSON.stringify({
      setup: { client: 'anvil', blockTimeSeconds: 1, gas: 'free (legacy, price 0)', queries: QUERIES, invokes: INVOKES },
      query: { ...ratios(svcQuery, bareQuery), client: 'node:http, one kept-alive connection (bench/lib/keepAliveClient.ts)', serviceViaFetch: (({ p50, p99 }) => ({ p50Ms: p50, p99Ms: p99 }))(summarize(svcQueryFetch)) },
      invoke: ratios(svcInvoke, bareInvoke),
      explorerBlock: { ...ratios(svcBlock, bareBlock), what: 'GET /networks/evm/{id}/blocks/1 (cached, deep) against eth_getBlockByNumber(1, true) to the node' },
      ...(profileWindowUs ? { profileWindowUs } : {}),
    }, null, 2));
  } finally {
    rpc?.destroy();
    timedClient?.close();
    await server.stop();
    killLeftoverNodes(server.dataDir);
    await runGlobalTeardown();
  }
}

main().catch((err) => {
  log(`FAILED: ${(err as Error).stack}`);
  process.exit(1);
});
