// The evm explorer and the node RPC gateway (issue 38), real anvil through the real server: a
// contract deployed and invoked through the service's routes, then its transaction, its block, the
// blocks list, the accounts and search read through the explorer and compared with what the node
// itself answers over JSON-RPC (logs decoded with the recorded ABI); bad input is a 400 naming its
// field, unknown things 404s; a mined transaction that reverted shows the contract's reason. The gateway: an ethers JsonRpcProvider with Basic auth reads the block
// number and a balance; signing/sending/administering methods are refused (403 naming the method,
// a JSON-RPC error inside a batch, an AccessDenied audit entry) and never reach the node; batch and
// body bounds; a node that hangs (SIGSTOP) is a 504; no running node a 409.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FetchRequest, JsonRpcProvider } from 'ethers';
import { startServer, call, basic, ADMIN, type TestServer } from '../../helpers/server.ts';
import { api, killLeftoverNodes, pidOf, startCounterNetwork } from './evmLifecycle.ts';

let s: TestServer;
const net = { id: 0, nodeId: 0, rpcUrl: '', contractId: 0, address: '', deployer: '', deployTx: '', tx: '', block: 0 };

async function rpc<T = any>(method: string, params: unknown[] = []): Promise<T> {
  const r = await fetch(net.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return ((await r.json()) as { result: T }).result;
}
const dec = (hex: string) => BigInt(hex).toString();

test.before(async () => {
  s = await startServer();
});

test.after(async () => {
  await s?.stop();
  if (s) killLeftoverNodes(s.dataDir);
});

test('a transaction invoked through the service reads as the node tells it, its log decoded', async () => {
  Object.assign(net, await startCounterNetwork(s, 'explorer-4545', 4545));
  let r = await api(s, 'POST', `/sc/evm/contracts/${net.contractId}/invoke`, { function: 'set', args: ['4242'] });
  assert.is(r.status, 200, r.text);
  Object.assign(net, { tx: r.json.transaction_hash, block: r.json.block_number });

  r = await api(s, 'GET', `/networks/evm/${net.id}/transactions/${net.tx}`);
  assert.is(r.status, 200, r.text);
  const [t, receipt] = await Promise.all([rpc('eth_getTransactionByHash', [net.tx]), rpc('eth_getTransactionReceipt', [net.tx])]);
  assert.is(r.json.hash, t.hash);
  assert.is(r.json.status, 'success');
  assert.is(r.json.block_number, Number(receipt.blockNumber));
  assert.is(r.json.block_hash, receipt.blockHash);
  assert.is(r.json.from.toLowerCase(), t.from.toLowerCase());
  assert.is(r.json.to.toLowerCase(), net.address.toLowerCase());
  assert.is(r.json.gas_used, dec(receipt.gasUsed));
  assert.is(r.json.gas, dec(t.gas));
  assert.is(r.json.nonce, Number(t.nonce));
  assert.is(r.json.input, t.input);
  assert.is(r.json.logs.length, receipt.logs.length);
  assert.equal(r.json.logs.map((l: any) => [l.contract_id, l.contract_name, l.name, l.args, l.topics, l.data]), receipt.logs.map((l: any) => [net.contractId, 'counter', 'Changed', { value: '4242' }, l.topics, l.data]));
  // Read again: the same answer (now from the cache: a mined transaction does not change).
  const again = await api(s, 'GET', `/networks/evm/${net.id}/transactions/${net.tx.toUpperCase().replace('0X', '0x')}`);
  assert.equal(again.json, r.json);
});

test('a block by number and by hash, and the blocks newest first, equal the node\'s own', async () => {
  const b = await rpc('eth_getBlockByNumber', ['0x' + net.block.toString(16), false]);
  let r = await api(s, 'GET', `/networks/evm/${net.id}/blocks/${net.block}`);
  assert.is(r.status, 200, r.text);
  assert.is(r.json.number, net.block);
  assert.is(r.json.hash, b.hash);
  assert.is(r.json.parent_hash, b.parentHash);
  assert.is(r.json.state_root, b.stateRoot);
  assert.is(r.json.gas_used, dec(b.gasUsed));
  assert.is(r.json.timestamp, new Date(Number(b.timestamp) * 1000).toISOString());
  assert.equal(r.json.transactions.map((x: any) => x.hash), b.transactions);
  assert.ok(r.json.transactions.some((x: any) => x.hash === net.tx));
  const byHash = await api(s, 'GET', `/networks/evm/${net.id}/blocks/${b.hash}`);
  assert.is(byHash.status, 200, byHash.text);
  assert.is(byHash.json.number, net.block);
  assert.is((await api(s, 'GET', `/networks/evm/${net.id}/blocks/0x${net.block.toString(16)}`)).json.hash, b.hash, 'a hex number');

  r = await api(s, 'GET', `/networks/evm/${net.id}/blocks?limit=3&offset=0`);
  assert.is(r.status, 200, r.text);
  assert.is(r.json.limit, 3);
  assert.is(r.json.items.length, 3);
  assert.ok(r.json.total >= net.block + 1);
  assert.is(r.json.items[0].number, r.json.total - 1, 'newest first: the head');
  for (const [i, item] of r.json.items.entries()) {
    assert.is(item.number, r.json.total - 1 - i);
    assert.is(item.hash, (await rpc('eth_getBlockByNumber', ['0x' + item.number.toString(16), false])).hash);
  }
  const last = await api(s, 'GET', `/networks/evm/${net.id}/blocks?limit=5&offset=${r.json.total - 2}`);
  assert.equal(last.json.items.map((x: any) => x.number).slice(-2), [1, 0], 'the last page ends at block 0');
});

test('accounts and search answer what a thing is and where', async () => {
  let r = await api(s, 'GET', `/networks/evm/${net.id}/accounts/${net.deployer}`);
  assert.is(r.status, 200, r.text);
  assert.is(r.json.balance, dec(await rpc('eth_getBalance', [net.deployer, 'latest'])));
  assert.is(r.json.nonce, Number(await rpc('eth_getTransactionCount', [net.deployer, 'latest'])));
  assert.is(r.json.code_size, 0);
  assert.is(r.json.contract, null);
  assert.ok(r.json.service_transactions.some((x: any) => x.transaction_hash === net.deployTx && x.kind === 'deployment' && x.contract_id === net.contractId), r.text);
  r = await api(s, 'GET', `/networks/evm/${net.id}/accounts/${net.address.toLowerCase()}`);
  assert.is(r.status, 200, r.text);
  assert.is(r.json.code_size, ((await rpc<string>('eth_getCode', [net.address, 'latest'])).length - 2) / 2);
  assert.ok(r.json.code_size > 0);
  assert.equal(r.json.contract, { id: net.contractId, name: 'counter' });

  const base = `/networks/evm/${net.id}`;
  r = await api(s, 'GET', `${base}/search?q=${net.tx}`);
  assert.equal([r.json.kind, r.json.block_number, r.json.path], ['transaction', net.block, `${base}/transactions/${net.tx}`]);
  const blockHash = (await rpc('eth_getBlockByNumber', ['0x' + net.block.toString(16), false])).hash;
  r = await api(s, 'GET', `${base}/search?q=${blockHash}`);
  assert.equal([r.json.kind, r.json.id, r.json.path], ['block', net.block, `${base}/blocks/${blockHash}`]);
  r = await api(s, 'GET', `${base}/search?q=${net.block}`);
  assert.equal([r.json.kind, r.json.path], ['block', `${base}/blocks/${net.block}`]);
  r = await api(s, 'GET', `${base}/search?q=${net.address}`);
  assert.equal([r.json.kind, r.json.path], ['contract', `${base}/accounts/${net.address}`]);
  r = await api(s, 'GET', `${base}/search?q=${net.deployer}`);
  assert.is(r.json.kind, 'account');
  r = await api(s, 'GET', `${base}/search?q=${'0x' + 'ab'.repeat(32)}`);
  assert.is(r.status, 404, r.text);
  r = await api(s, 'GET', `${base}/search?q=99999999`);
  assert.is(r.status, 404, r.text);
});

test('bad input is a 400 naming the field; unknown blocks and transactions 404s', async () => {
  const base = `/networks/evm/${net.id}`;
  for (const [p, field] of [
    [`${base}/blocks/-1`, 'numberOrHash'], [`${base}/blocks/0xzz`, 'numberOrHash'], [`${base}/blocks/1.5`, 'numberOrHash'], [`${base}/blocks/0x${'1'.repeat(63)}`, 'numberOrHash'],
    [`${base}/blocks/99999999999999999999`, 'numberOrHash'],
    [`${base}/transactions/0x12`, 'hash'], [`${base}/transactions/${'g'.repeat(66)}`, 'hash'],
    [`${base}/accounts/0x1234`, 'address'], [`${base}/accounts/nothex`, 'address'],
    [`${base}/search?q=abc`, 'q'], [`${base}/search?q=-3`, 'q'], [`${base}/search`, 'q'],
    [`${base}/blocks?limit=0`, 'limit'], [`${base}/blocks?offset=-1`, 'offset'],
  ] as const) {
    const r = await api(s, 'GET', p);
    assert.is(r.status, 400, `${p}: ${r.text}`);
    assert.ok(JSON.stringify(r.json.details ?? []).includes(field), `${p} names ${field}: ${r.text}`);
  }
  let r = await api(s, 'GET', `${base}/blocks/99999999`);
  assert.is(r.status, 404, r.text);
  r = await api(s, 'GET', `${base}/blocks/0x${'cd'.repeat(32)}`);
  assert.is(r.status, 404, r.text);
  r = await api(s, 'GET', `${base}/transactions/0x${'00'.repeat(32)}`);
  assert.is(r.status, 404, r.text);
  r = await api(s, 'GET', '/networks/evm/999999/blocks/1');
  assert.is(r.status, 404, r.text);
});

test('a mined transaction that reverted reads as reverted, with the contract\'s reason', async () => {
  // With a gas limit given, the service sends without estimating: the transaction is mined and reverts.
  let r = await api(s, 'POST', `/sc/evm/contracts/${net.contractId}/invoke`, { function: 'set', args: [0], gasLimit: 100000 });
  assert.is(r.status, 400, r.text);
  const hash = /0x[0-9a-f]{64}/.exec(r.json.message)?.[0];
  assert.ok(hash, r.text);
  r = await api(s, 'GET', `/networks/evm/${net.id}/transactions/${hash}`);
  assert.is(r.status, 200, r.text);
  const receipt = await rpc('eth_getTransactionReceipt', [hash]);
  assert.equal([r.json.status, r.json.revert_reason, r.json.gas_used, r.json.logs], ['reverted', 'zero', dec(receipt.gasUsed), []]);
  r = await api(s, 'GET', `/networks/evm/${net.id}/transactions/${net.tx}`);
  assert.is(r.json.revert_reason, null);
});

test('the gateway: an ethers JsonRpcProvider with Basic auth reads the block number and a balance', async () => {
  const req = new FetchRequest(`${s.api}/networks/evm/${net.id}/rpc`);
  req.setHeader('authorization', basic(ADMIN.username, ADMIN.password));
  const provider = new JsonRpcProvider(req, 4545, { staticNetwork: true });
  try {
    const [height, balance] = await Promise.all([provider.getBlockNumber(), provider.getBalance(net.deployer)]);
    const direct = Number(await rpc('eth_blockNumber'));
    assert.ok(Math.abs(height - direct) <= 2, `${height} against ${direct}`);
    assert.is(balance.toString(), dec(await rpc('eth_getBalance', [net.deployer, 'latest'])));
    assert.is((await provider.getTransactionReceipt(net.tx))?.blockNumber, net.block);
  } finally {
    provider.destroy();
  }
  const one = await api(s, 'POST', `/networks/evm/${net.id}/nodes/${net.nodeId}/rpc`, { jsonrpc: '2.0', id: 'a', method: 'eth_chainId', params: [] });
  assert.equal(one.json, { jsonrpc: '2.0', id: 'a', result: '0x11c1' });
  const anon = await call(s.api, 'POST', `/networks/evm/${net.id}/rpc`, { body: { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] } });
  assert.is(anon.status, 401, anon.text);
});

test('the gateway refuses what signs, sends or administers, names it, audits it, and never forwards it', async () => {
  const path = `/networks/evm/${net.id}/rpc`;
  const nonceBefore = await rpc('eth_getTransactionCount', [net.deployer, 'latest']);
  for (const method of ['eth_sendTransaction', 'eth_sendRawTransaction', 'eth_sign', 'personal_sign', 'admin_addPeer', 'miner_stop', 'debug_traceTransaction', 'anvil_setBalance', 'evm_mine', 'hardhat_impersonateAccount', 'txpool_content', 'qbft_proposeValidatorVote', 'eth_newFilter']) {
    const r = await api(s, 'POST', path, { jsonrpc: '2.0', id: 7, method, params: [] });
    assert.is(r.status, 403, `${method}: ${r.text}`);
    assert.ok(r.json.message.includes(method), r.text);
    assert.is(r.json.context.method, method);
  }
  const blockBefore = Number(await rpc('eth_blockNumber'));
  const batch = await api(s, 'POST', path, [
    { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] },
    { jsonrpc: '2.0', id: 2, method: 'anvil_mine', params: ['0x64'] },
    { jsonrpc: '2.0', id: 3, method: 'eth_sendTransaction', params: [{ from: net.deployer, to: net.address, value: '0x1' }] },
    { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] },
    { id: 5, method: 'eth_chainId' },
  ]);
  assert.is(batch.status, 200, batch.text);
  assert.is(batch.json.length, 5);
  assert.match(batch.json[0].result, /^0x[0-9a-f]+$/);
  assert.equal([batch.json[1].id, batch.json[1].error.code, batch.json[1].error.data], [2, -32601, { status: 403, code: 'RPC_METHOD_REFUSED', method: 'anvil_mine' }]);
  assert.ok(batch.json[1].error.message.includes('anvil_mine'));
  assert.equal([batch.json[2].id, batch.json[2].error.data.method], [3, 'eth_sendTransaction']);
  assert.equal(batch.json[3], { jsonrpc: '2.0', id: 1, result: '0x11c1' }, 'duplicate ids answered in place');
  assert.equal([batch.json[4].id, batch.json[4].error.code], [5, -32600]);
  assert.ok(Number(await rpc('eth_blockNumber')) < blockBefore + 50, 'anvil_mine never reached the node');
  assert.is(await rpc('eth_getTransactionCount', [net.deployer, 'latest']), nonceBefore, 'nothing was sent');

  const log = await api(s, 'GET', '/audit-logs?status=denied&limit=100');
  const messages = log.json.items.map((e: { error_message: string | null }) => e.error_message ?? '').join('\n');
  for (const m of ['eth_sendTransaction', 'admin_addPeer', 'anvil_mine']) assert.ok(messages.includes(m), `audited: ${m}\n${messages}`);
});

test('the gateway\'s bounds: malformed bodies 400, a batch above 100 a 413, a hanging node a 504, no running node a 409', async () => {
  const path = `/networks/evm/${net.id}/rpc`;
  for (const raw of ['{"jsonrpc":"2.0","method":', '[]', '{"jsonrpc":"1.0","id":1,"method":"eth_chainId"}', '{"jsonrpc":"2.0","id":1}', '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":"x"}', `{"jsonrpc":"2.0","id":1,"method":"${'a'.repeat(200)}"}`]) {
    const r = await call(s.api, 'POST', path, { headers: { authorization: basic(ADMIN.username, ADMIN.password) }, raw });
    assert.is(r.status, 400, `${raw.slice(0, 60)}: ${r.text}`);
    assert.type(r.json.code, 'string');
  }
  const big = await api(s, 'POST', path, Array.from({ length: 101 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_chainId', params: [] })));
  assert.is(big.status, 413, big.text);
  const hundred = await api(s, 'POST', path, Array.from({ length: 100 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_chainId', params: [] })));
  assert.is(hundred.status, 200, hundred.text);
  assert.is(hundred.json.length, 100);
  let r = await api(s, 'POST', `/networks/evm/${net.id}/nodes/999999/rpc`, { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] });
  assert.is(r.status, 404, r.text);

  const pid = pidOf(s, net.nodeId);
  assert.ok(pid, 'the node runs as a process');
  process.kill(pid!, 'SIGSTOP');
  try {
    r = await api(s, 'POST', path, { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] });
    assert.is(r.status, 504, r.text);
    assert.is(r.json.code, 'RPC_TIMEOUT');
    assert.not.ok(r.text.includes('127.0.0.1:') && r.text.includes('@'), 'no credentials in the message');
  } finally {
    process.kill(pid!, 'SIGCONT');
  }
  r = await api(s, 'POST', `/nodes/${net.nodeId}/stop`);
  assert.ok(r.status < 300, r.text);
  r = await api(s, 'POST', path, { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] });
  assert.is(r.status, 409, r.text);
  r = await api(s, 'GET', `/networks/evm/${net.id}/blocks/1`);
  assert.is(r.status, 409, r.text);
  assert.is(r.json.code, 'NO_RUNNING_NODE');
});

test.run();
