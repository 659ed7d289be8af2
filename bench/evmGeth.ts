// geth Clique bench (issue 38): from nothing to a contract call answered, through the real
// server (embedded PostgreSQL, process engine), for a 3-sealer Clique network on geth 1.13 and,
// in the same run, a one-validator anvil chain: POST /networks, POST /networks/{id}/start, the
// first block on every node, a contract deployed (POST /sc/evm/deploy) and a query answered
// (POST /sc/evm/contracts/{id}/query). Prints one JSON object; progress on stderr. Needs geth
// (LNM_GETH_BIN, else PATH); without it the geth figures are null with the reason.
// `LNM_GETH_BIN=/path/to/dir npm run bench -- --only=geth` (also part of `npm run bench`), or
// `LNM_GETH_BIN=/path/to/dir npx tsx bench/evmGeth.ts` alone
import { startServer, call, adminAuth, type TestServer } from '../test/helpers/server.ts';
import { gethMissing, gethServiceEnv } from '../test/helpers/programs.ts';
import { COUNTER_ABI, COUNTER_BYTECODE } from '../test/e2e/evm/counterContract.ts';
import { benchLog, closeBenchServer, runBench } from './lib/nodeBench.ts';

const log = benchLog('evm-geth');
const api = (s: TestServer, method: string, p: string, body?: unknown) => call(s.api, method, p, { headers: adminAuth(), body });
const round = (n: number) => Math.round(n);

async function rpc(url: string, method: string, params: unknown[] = []): Promise<any> {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return ((await r.json()) as { result: unknown }).result;
}

async function blockNumber(url: string): Promise<number> {
  try {
    return Number(await rpc(url, 'eth_blockNumber'));
  } catch {
    return 0;
  }
}

/** Each node's head, peer count and block 1's hash (sealers that sealed before peering fork there): where the deployment's time goes on a chain still joining. */
const nodeStates = (urls: string[]) => Promise.all(urls.map(async (u) => ({ head: await blockNumber(u), peers: Number(await rpc(u, 'net_peerCount').catch(() => -1)), block1: String((await rpc(u, 'eth_getBlockByNumber', ['0x1', false]).catch(() => null))?.hash ?? '').slice(0, 10) })));

/** One network from nothing to a contract query answered; ms at each step, from the create's start. */
async function fromNothing(s: TestServer, name: string, body: Record<string, unknown>) {
  const t0 = performance.now();
  const at = () => round(performance.now() - t0);
  const created = await api(s, 'POST', '/networks', { name, type: 'evm', ...body });
  if (created.status !== 201) throw new Error(`create ${name}: ${created.text}`);
  const createdMs = at();
  const started = await api(s, 'POST', `/networks/${created.json.id}/start`);
  if (started.status !== 200) throw new Error(`start ${name}: ${started.text}`);
  const runningMs = at();
  const urls = (started.json.nodes as Array<{ endpoints: { rpc_http: string } }>).map((n) => n.endpoints.rpc_http);
  const deadline = Date.now() + 120_000;
  while ((await Promise.all(urls.map(blockNumber))).some((h) => h < 1)) {
    if (Date.now() > deadline) throw new Error(`${name}: no first block on every node in 120 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const firstBlockMs = at();
  const atDeploy = await nodeStates(urls);
  const deployed = await api(s, 'POST', '/sc/evm/deploy', { networkId: created.json.id, name: `${name}-counter`, bytecode: COUNTER_BYTECODE, abi: COUNTER_ABI });
  if (deployed.status !== 200) throw new Error(`deploy ${name}: ${deployed.text}`);
  const deployedMs = at();
  const afterDeploy = await nodeStates(urls);
  const q = await api(s, 'POST', `/sc/evm/contracts/${deployed.json.contract_id}/query`, { function: 'get' });
  if (q.status !== 200) throw new Error(`query ${name}: ${q.text}`);
  return { client: created.json.client as string, nodes: urls.length, createdMs, runningMs, firstBlockMs, deployedMs, contractCallAnsweredMs: at(), atDeploy, afterDeploy };
}

async function main(): Promise<Record<string, unknown>> {
  const s = await startServer({ embedded: true, env: { LOG_LEVEL: 'warn', ...gethServiceEnv() } });
  const out: Record<string, unknown> = { bench: 'evm-geth', engine: 'process', blockTimeSeconds: 1 };
  try {
    log('anvil: one validator, from nothing to a contract call');
    out.anvil = await fromNothing(s, 'bench-anvil', { client: 'anvil', genesis: { chain_id: 41901, consensus: 'QBFT', block_time: 1 } });
    if (gethMissing) {
      out.geth = null;
      out.gethMissing = gethMissing;
    } else {
      log('geth: three Clique sealers, from nothing to a contract call');
      out.geth = await fromNothing(s, 'bench-geth', { client: 'geth', validatorCount: 3, genesis: { chain_id: 41902, consensus: 'CLIQUE', block_time: 1 } });
    }
  } finally {
    await closeBenchServer(s);
  }
  return { rows: rowsOf(out), ...out };
}

type Steps = Awaited<ReturnType<typeof fromNothing>>;

/** The table's rows (bench/run.ts): each client's time to a call answered, and their ratio in this run. */
function rowsOf(out: Record<string, unknown>) {
  const anvil = out.anvil as Steps;
  const geth = out.geth as Steps | null;
  const steps = (x: Steps) => `created ${x.createdMs}, running ${x.runningMs}, first block on every node ${x.firstBlockMs}, deployed ${x.deployedMs} ms`;
  return [
    { metric: 'anvil (one validator): POST /networks to a contract call answered', value: anvil.contractCallAnsweredMs, unit: 'ms', note: steps(anvil) },
    geth
      ? { metric: 'geth 1.13 Clique (three sealers): POST /networks to a contract call answered', value: geth.contractCallAnsweredMs, unit: 'ms', note: steps(geth) }
      : { metric: 'geth 1.13 Clique (three sealers): POST /networks to a contract call answered', value: null, unit: 'ms', note: `skipped: ${out.gethMissing}` },
    { metric: 'geth Clique / anvil, from nothing to a contract call answered, same run', value: geth ? Math.round((geth.contractCallAnsweredMs / anvil.contractCallAnsweredMs) * 100) / 100 : null, unit: 'x', ...(geth ? {} : { note: `skipped: ${out.gethMissing}` }) },
  ];
}

runBench(log, main);
