// Issue 15 end to end, real anvil through the real server (child process): a network created
// with defaults deploys at once from a key holding nothing (free gas); a priced network refuses
// an unfunded deploy with a 400 that says how to fund, and accepts it after a transfer; node
// lists answer from the health monitor's last reading while a node hangs.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { JsonRpcProvider, Wallet, parseEther } from 'ethers';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { api, killLeftoverNodes, pidOf, until } from './evmLifecycle.ts';

// Hand-assembled: the constructor returns the runtime, which answers 42 (one 32-byte word) to any call.
const ANSWER_42 = '0x' + '600a600c600039600a6000f3' + '602a60005260206000f3';
const WORD_42 = '0x' + '00'.repeat(31) + '2a';

let s: TestServer;
const stopped = new Set<number>();

test.before(async () => {
  s = await startServer();
  // Probes every second, so the lists have readings to show.
  const r = await api(s, 'POST', '/settings', { nodeHealthCheckIntervalSeconds: 1, nodeDowntimeThreshold: 100 });
  assert.is(r.status, 200, r.text);
});

test.after(async () => {
  for (const pid of stopped) {
    try {
      process.kill(pid, 'SIGCONT');
    } catch {
      /* gone */
    }
  }
  await s?.stop();
  if (s) killLeftoverNodes(s.dataDir);
});

const rpcOf = (url: string, chainId: number) => new JsonRpcProvider(url, chainId, { staticNetwork: true });
const free = { id: 0, nodeId: 0, rpcUrl: '' };

test('the issue request sequence on defaults deploys from a key that holds nothing, before and after', async () => {
  let r = await api(s, 'POST', '/networks', {
    name: 'free-gas-4242', type: 'evm',
    genesis: { chain_id: 4242, consensus: 'IBFT_2', block_time: 1, gas_limit: '0x1C9C380', validators: [], accounts: {} },
  });
  assert.is(r.status, 201, r.text);
  const network = r.json;
  assert.is(network.gas_pricing, 'free');
  assert.is(network.min_gas_price, '0');
  assert.is(network.base_fee, '0');
  assert.is(network.client, 'anvil');

  r = await api(s, 'POST', `/networks/${network.id}/nodes`, { name: 'free-gas-4242-validator', type: 'validator' });
  assert.is(r.status, 201, r.text);
  const nodeId = r.json.id;
  r = await api(s, 'POST', `/nodes/${nodeId}/start`);
  assert.is(r.status, 200, r.text);
  assert.is(r.json.status, 'running', r.text);
  const rpcUrl = r.json.endpoints.rpc_http;
  Object.assign(free, { id: network.id, nodeId, rpcUrl });

  const first = (await api(s, 'GET', `/nodes/${nodeId}`)).json.block_height;
  assert.type(first, 'number');
  await until('blocks to be mined', async () => (await api(s, 'GET', `/nodes/${nodeId}`)).json.block_height >= first + 2, 30_000);

  const rpc = rpcOf(rpcUrl, 4242);
  try {
    assert.is((await rpc.getBlock(0))!.hash, network.genesis_block_hash);
    const from = network.validators[0].address;
    assert.is(await rpc.getBalance(from), 0n, 'the deploying key holds nothing');

    r = await api(s, 'POST', '/sc/evm/deploy', { networkId: network.id, nodeId, bytecode: ANSWER_42, abi: [] });
    assert.is(r.status, 200, r.text);
    assert.is(r.json.from, from);
    assert.is(await rpc.call({ to: r.json.address, data: '0x' }), WORD_42, 'the contract answers through eth_call');
    const receipt = await rpc.getTransactionReceipt(r.json.transaction_hash);
    assert.is(receipt!.gasPrice, 0n);
    assert.ok(receipt!.gasUsed > 0n);
    assert.is(await rpc.getBalance(from), 0n, 'still nothing after the deploy');
    assert.is((await rpc.getBlock(receipt!.blockNumber))!.baseFeePerGas, 0n, 'the base fee stays 0');
  } finally {
    rpc.destroy();
  }
});

test('gas settings that make no sense are 400s naming the field, on both create bodies', async () => {
  const genesis = { chain_id: 4300, consensus: 'QBFT', block_time: 1 };
  let r = await api(s, 'POST', '/networks', { name: 'bad-gas-1', type: 'evm', genesis: { ...genesis, min_gas_price: 'cheap' } });
  assert.is(r.status, 400, r.text);
  assert.ok(r.json.details.some((d: { field: string }) => d.field === 'min_gas_price'), r.text);
  r = await api(s, 'POST', '/networks/evm', { name: 'bad-gas-2', genesis: { ...genesis, base_fee: '1 gwei' } });
  assert.is(r.status, 400, r.text);
  assert.ok(r.json.details.some((d: { field: string; message: string }) => d.field === 'base_fee' && /amount of wei/.test(d.message)), r.text);
  r = await api(s, 'POST', '/networks/evm', { name: 'bad-gas-3', genesis: { ...genesis, minGasPrice: '9223372036854775808' } });
  assert.is(r.status, 400, r.text);
  assert.ok(r.json.details.some((d: { field: string }) => d.field === 'min_gas_price'), r.text);
  assert.is((await api(s, 'GET', '/networks/evm')).json.items.filter((n: { name: string }) => n.name.startsWith('bad-gas')).length, 0);
});

test('a priced network refuses an unfunded deploy with a 400 that says how to fund, and deploys after a transfer', async () => {
  const funder = Wallet.createRandom();
  let r = await api(s, 'POST', '/networks/evm', {
    name: 'priced-4243',
    genesis: { chain_id: 4243, consensus: 'QBFT', block_time: 1, min_gas_price: '2000000000', accounts: { [funder.address]: { balance: parseEther('10').toString() } } },
  });
  assert.is(r.status, 201, r.text);
  const network = r.json;
  assert.is(network.gas_pricing, 'priced');
  assert.is(network.min_gas_price, '2000000000');
  assert.is(network.base_fee, '1000000000');
  r = await api(s, 'POST', `/networks/${network.id}/start`);
  assert.is(r.status, 200, r.text);
  const node = r.json.nodes[0];
  assert.is(node.status, 'running', r.text);
  const from = network.validators[0].address;

  r = await api(s, 'POST', '/sc/evm/deploy', { networkId: network.id, bytecode: ANSWER_42, abi: [] });
  assert.is(r.status, 400, r.text);
  assert.match(r.json.message, /has not enough funds to deploy/, r.text);
  for (const how of [/genesis\.accounts/, /validatorBalance/, /transfer/]) assert.match(r.json.message, how);
  assert.ok(r.json.details.some((d: { field: string }) => d.field === 'from'), r.text);

  const rpc = rpcOf(node.endpoints.rpc_http, 4243);
  try {
    assert.is((await rpc.getBlock(0))!.hash, network.genesis_block_hash);
    const sent = await funder.connect(rpc).sendTransaction({ to: from, value: parseEther('1') });
    await sent.wait(1, 30_000);
    assert.is(await rpc.getBalance(from), parseEther('1'));

    r = await api(s, 'POST', '/sc/evm/deploy', { networkId: network.id, bytecode: ANSWER_42, abi: [] });
    assert.is(r.status, 200, r.text);
    assert.is(await rpc.call({ to: r.json.address, data: '0x' }), WORD_42);
    const receipt = await rpc.getTransactionReceipt(r.json.transaction_hash);
    assert.ok(receipt!.gasPrice >= 2_000_000_000n, `paid ${receipt!.gasPrice}, at least min_gas_price`);
    assert.is(await rpc.getBalance(from), parseEther('1') - receipt!.gasUsed * receipt!.gasPrice, 'the key paid for its gas');
  } finally {
    rpc.destroy();
  }
});

test('node lists answer from the last reading while a node hangs; a single read is bounded', async () => {
  assert.ok(free.nodeId, 'the free-gas network of the first test is running');
  const listed = async () => {
    const t0 = Date.now();
    const r = await api(s, 'GET', '/nodes?limit=100');
    assert.is(r.status, 200, r.text);
    return { ms: Date.now() - t0, node: r.json.items.find((n: { id: number }) => n.id === free.nodeId), all: r.json.items };
  };
  const healthy = await until('a healthy reading with a block height', async () => {
    const { node } = await listed();
    return node?.last_probe?.status === 'healthy' && typeof node.block_height === 'number' ? node : null;
  }, 30_000);
  assert.is(healthy.block_height, healthy.last_probe.block_height);
  assert.type(healthy.last_probe.peer_count, 'number');
  assert.ok(Date.parse(healthy.last_probe.at) > Date.now() - 30_000);
  for (const path of ['/nodes/platform/EVM', `/networks/evm/${free.id}/nodes`]) {
    const r = await api(s, 'GET', path);
    assert.ok(r.json.items.find((n: { id: number }) => n.id === free.nodeId).last_probe, path);
  }

  // The node hangs: its process is stopped, its RPC port accepts connections and never answers.
  const pid = pidOf(s, free.nodeId)!;
  process.kill(pid, 'SIGSTOP');
  stopped.add(pid);
  try {
    const hangingSince = new Date().toISOString();
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const { ms, node } = await listed();
      times.push(ms);
      assert.is(node.status, 'running');
      assert.type(node.block_height, 'number', 'the last reading is still shown');
    }
    // A live probe of the hanging node would take its whole 1.5 s timeout.
    assert.ok(Math.max(...times) < 1000, `list times while a node hangs: ${times.join(', ')} ms`);

    const unreachable = await until('the health monitor to see it unreachable', async () => {
      const { node } = await listed();
      return node.last_probe.status === 'unreachable' ? node : null;
    }, 30_000);
    assert.ok(unreachable.last_probe.at >= hangingSince, 'the reading is from while it hangs');
    assert.ok(unreachable.last_probe.healthy_at < hangingSince, 'the figures are from the last answered probe');
    assert.is(unreachable.block_height, unreachable.last_probe.block_height);
    assert.type(unreachable.last_probe.error, 'string');

    const t0 = Date.now();
    const one = await api(s, 'GET', `/nodes/${free.nodeId}`);
    const ms = Date.now() - t0;
    assert.is(one.status, 200);
    assert.is(one.json.block_height, null, 'the live read gave up');
    assert.ok(ms < 4000, `GET /nodes/{id} took ${ms} ms`);
    assert.is(one.json.last_probe.status, 'unreachable');
  } finally {
    process.kill(pid, 'SIGCONT');
    stopped.delete(pid);
  }
  await until('a healthy reading again', async () => (await listed()).node.last_probe.status === 'healthy', 30_000);
});

test.run();
