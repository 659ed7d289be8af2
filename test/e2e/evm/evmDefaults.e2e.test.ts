// Issue 35 item 6, end to end on the real server and a real anvil: `POST /networks/evm
// {"name":"dev"}` takes the documented defaults (GET /networks/evm/defaults), every network gets
// its own chain id and block 0, a duplicate explicit chain id is a 409 naming the other
// network, and an anvil network says it is a one-node development chain.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { JsonRpcProvider } from 'ethers';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { api, killLeftoverNodes } from './evmLifecycle.ts';

let s: TestServer;

test.before(async () => {
  // No besu on the PATH: auto picks anvil for one validator.
  s = await startServer({ env: { PATH: '/usr/bin:/bin' } });
});

test.after(async () => {
  await s?.stop();
  if (s) killLeftoverNodes(s.dataDir);
});

test('a network named alone takes the defaults the defaults endpoint states, and each gets the next free chain id and its own block 0', async () => {
  let r = await api(s, 'GET', '/networks/evm/defaults');
  assert.is(r.status, 200, r.text);
  assert.equal(r.json, { chain_id: 1337, consensus: 'QBFT', block_time: 5, validator_count: 1, client: 'auto', engine: 'process' });

  r = await api(s, 'POST', '/networks/evm', { name: 'dev' });
  assert.is(r.status, 201, r.text);
  const dev = r.json;
  assert.is(dev.chain_id, 1337);
  assert.is(dev.consensus, 'QBFT');
  assert.is(dev.block_time, 5);
  assert.is(dev.validators.length, 1);
  assert.is(dev.client, 'anvil');
  assert.is(dev.development_chain, true);
  assert.match(dev.runs_as, /one-node development chain \(anvil\)/);
  assert.match(dev.runs_as, /no validator set/);

  r = await api(s, 'GET', '/networks/evm/defaults');
  assert.is(r.json.chain_id, 1338, 'the defaults name the next free id');
  r = await api(s, 'POST', '/networks', { name: 'dev-2', type: 'evm', genesis: {} });
  assert.is(r.status, 201, r.text);
  const dev2 = r.json;
  assert.is(dev2.chain_id, 1338);
  assert.is.not(dev2.genesis_block_hash, dev.genesis_block_hash, 'no two networks share a block 0');

  // The hash the service states is the one the real anvil reports for block 0.
  r = await api(s, 'POST', `/networks/${dev2.id}/start`);
  assert.is(r.status, 200, r.text);
  r = await api(s, 'GET', `/networks/evm/${dev2.id}/nodes`);
  const node = (await api(s, 'GET', `/nodes/${r.json.items[0].id}`)).json;
  const rpc = new JsonRpcProvider(node.endpoints.rpc_http, 1338, { staticNetwork: true });
  try {
    assert.is((await rpc.getBlock(0))!.hash, dev2.genesis_block_hash);
    assert.is((await rpc.getNetwork()).chainId, 1338n);
  } finally {
    rpc.destroy();
  }
});

test('an explicit chain id another network uses is a 409 naming that network, and nothing is made', async () => {
  const before = (await api(s, 'GET', '/networks/evm')).json.total;
  const keys = (await api(s, 'GET', '/keys?limit=100')).json.total;
  const r = await api(s, 'POST', '/networks/evm', { name: 'replay', genesis: { chain_id: 1337, consensus: 'QBFT', block_time: 2 } });
  assert.is(r.status, 409, r.text);
  assert.is(r.json.code, 'CHAIN_ID_TAKEN');
  assert.match(r.json.message, /Chain id 1337 is already used by network dev /);
  assert.is((await api(s, 'GET', '/networks/evm')).json.total, before);
  assert.is((await api(s, 'GET', '/keys?limit=100')).json.total, keys, 'no validator key is left behind');
});

test.run();
