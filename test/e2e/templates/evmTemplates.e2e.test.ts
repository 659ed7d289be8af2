// Templates of evm networks between two instances: a network of instance A exported, imported on
// instance B with B's own validator key; B's chain runs (real anvil), its genesis differs from
// A's only where the binding differs, and the contract deployed on A through the service (and so
// listed by the export) is deployed on it.
// validate reports each kind of error, and an import that fails leaves nothing behind.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Contract, JsonRpcProvider, getAddress } from 'ethers';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { api, killLeftoverNodes, STORE_ABI, STORE_BYTECODE } from '../evm/evmLifecycle.ts';

let a: TestServer;
let b: TestServer;
const FUNDED = '0x00000000000000000000000000000000000000aa';

test.before(async () => {
  [a, b] = await Promise.all([startServer(), startServer()]);
});
test.after(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  for (const s of [a, b]) if (s) killLeftoverNodes(s.dataDir);
});

let template: any;
let networkA: any;

test('an evm network exports as a template: its validator key becomes a variable, nothing secret travels', async () => {
  let r = await api(a, 'POST', '/networks/evm', { name: 'tpl-source', description: 'template source', validatorBalance: '5000000000000000000', genesis: { chain_id: 4242, consensus: 'QBFT', block_time: 1, accounts: { [FUNDED]: { balance: '777' } } } });
  assert.is(r.status, 201, r.text);
  networkA = r.json;
  // A contract deployed through the service is recorded, listed under the network, and exported.
  r = await api(a, 'POST', `/networks/${networkA.id}/start`);
  assert.is(r.status, 200, r.text);
  r = await api(a, 'POST', '/sc/evm/deploy', { networkId: networkA.id, name: 'Store', abi: STORE_ABI, bytecode: STORE_BYTECODE, args: ['31337'] });
  assert.is(r.status, 200, r.text);
  const deployedA = r.json;
  assert.ok(Number.isInteger(deployedA.contract_id), r.text);
  assert.is(deployedA.name, 'Store');
  assert.is((await api(a, 'POST', '/sc/evm/deploy', { networkId: networkA.id, name: 'bad name', bytecode: STORE_BYTECODE })).status, 400);
  r = await api(a, 'GET', `/networks/evm/${networkA.id}/contracts`);
  assert.is(r.status, 200, r.text);
  assert.is(r.json.total, 1, r.text);
  const listed = r.json.items[0];
  assert.equal([listed.id, listed.name, listed.address, listed.transaction_hash, listed.block_number, listed.args, listed.constructor_args, listed.bytecode], [deployedA.contract_id, 'Store', deployedA.address, deployedA.transaction_hash, deployedA.block_number, ['31337'], null, STORE_BYTECODE]);
  assert.equal(listed.abi, STORE_ABI);
  assert.is((await api(a, 'GET', '/networks/evm/999999/contracts')).status, 404);
  r = await api(a, 'GET', `/networks/templates/export/${networkA.id}`);
  assert.is(r.status, 200, r.text);
  template = r.json;
  assert.is(template.version, '2.0.0');
  assert.is(template.platform, 'EVM');
  assert.equal(template.variables.map((v: any) => [v.name, v.type]), [['validator1', 'key']]);
  assert.equal(template.network.validatorKeys, ['${validator1.id}']);
  assert.equal(template.network.alloc, { '${validator1.ethereumAddress}': { balance: '5000000000000000000' }, [getAddress(FUNDED)]: { balance: '777' } });
  assert.is(template.network.chainId, 4242);
  assert.is(template.network.blockPeriod, 1);
  assert.equal(template.network.smartContracts, [{ name: 'Store', abi: STORE_ABI, bytecode: STORE_BYTECODE, args: ['31337'] }], 'the deployed contract, without its address on A');
  assert.not.match(r.text, /PRIVATE KEY|BEGIN CERTIFICATE|keyHandle|handle/i);
  assert.not.match(r.text, new RegExp(networkA.validators[0].address.slice(2), 'i'), 'A\'s validator address is a placeholder, not a value');
});

test('validate reports each kind of error on the other instance, and a good binding resolves', async () => {
  let r = await api(b, 'POST', '/keys', { name: 'b-validator', algorithm: 'ECDSA', curve: 'secp256k1' });
  assert.is(r.status, 201, r.text);
  const keyB = r.json;
  r = await api(b, 'POST', '/keys', { name: 'b-p256', algorithm: 'ECDSA', curve: 'P-256' });
  assert.is(r.status, 201, r.text);
  const p256 = r.json;
  const validate = (t: unknown, variableBindings: unknown) => api(b, 'POST', '/networks/templates/validate', { template: t, variableBindings });
  const codes = async (t: unknown, bindings: unknown) => {
    const res = await validate(t, bindings);
    assert.is(res.status, 200, res.text);
    assert.is(res.json.valid, false, res.text);
    return res.json.errors.map((e: any) => e.code).sort();
  };
  assert.equal(await codes({ ...template, version: '1.0.0' }, { validator1: { keyId: keyB.id } }), ['UNSUPPORTED_VERSION']);
  assert.equal(await codes({ ...template, network: { ...template.network, validatorKeys: ['${ghost.id}'] } }, { validator1: { keyId: keyB.id } }), ['PLACEHOLDER_WITHOUT_VARIABLE']);
  assert.equal(await codes(template, { validator1: { keyId: keyB.id }, stranger: { keyId: keyB.id } }), ['UNKNOWN_VARIABLE']);
  assert.equal(await codes(template, { validator1: { nodeId: 1 } }), ['WRONG_BINDING_TYPE']);
  assert.equal(await codes(template, { validator1: { keyId: p256.id } }), ['WRONG_BINDING_TYPE']);
  assert.equal(await codes(template, { validator1: { keyId: 999999 } }), ['BINDING_NOT_FOUND']);
  assert.equal(await codes(template, {}), ['MISSING_BINDING']);

  r = await validate(template, { validator1: { keyId: keyB.id } });
  assert.is(r.status, 200, r.text);
  assert.is(r.json.valid, true, r.text);
  assert.equal(r.json.errors, []);
  assert.equal(r.json.variables, [{ name: 'validator1', type: 'key', resolved: { id: keyB.id, ethereumAddress: keyB.ethereumAddress ?? keyB.ethereum_address } }]);

  // An import that fails (a contract whose bytecode reverts) leaves no network behind.
  const before = (await api(b, 'GET', '/networks/evm')).json.total;
  r = await api(b, 'POST', '/networks/templates/import', { template: { ...template, network: { ...template.network, smartContracts: [{ name: 'Reverts', bytecode: '0x60006000fd' }] } }, variableBindings: { validator1: { keyId: keyB.id } }, name: 'tpl-fails' });
  assert.ok(r.status >= 400 && r.status < 500, r.text);
  assert.is((await api(b, 'GET', '/networks/evm')).json.total, before, 'nothing created stays');
  // A template error on import is a 400 naming it; nothing is created either.
  r = await api(b, 'POST', '/networks/templates/import', { template: { ...template, version: '3.0.0' }, variableBindings: { validator1: { keyId: keyB.id } } });
  assert.is(r.status, 400, r.text);
  assert.match(r.text, 'version');
  assert.is((await api(b, 'GET', '/networks/evm')).json.total, before);
});

test('imported on the other instance with its own key: the chain runs, the genesis differs only in the bound key, the listed contract is deployed', async () => {
  const keyB = (await api(b, 'GET', '/keys?limit=100')).json.items.find((k: any) => k.name === 'b-validator');
  const address = keyB.ethereumAddress ?? keyB.ethereum_address;
  const r = await api(b, 'POST', '/networks/templates/import', { template, variableBindings: { validator1: { keyId: keyB.id } } });
  assert.is(r.status, 201, r.text);
  assert.is(r.json.platform, 'EVM');
  assert.is(r.json.contracts.length, 1);
  const networkB = (await api(b, 'GET', `/networks/evm/${r.json.network_id}`)).json;
  assert.is(networkB.name, 'tpl-source');
  assert.is(networkB.status, 'running');
  assert.is(networkB.chain_id, 4242);
  assert.equal(networkB.validators.map((v: any) => [v.address, v.key_id, v.key_held]), [[address, keyB.id, true]]);

  // B recorded the contract it deployed, under the template's name.
  const onB = (await api(b, 'GET', `/networks/evm/${networkB.id}/contracts`)).json.items;
  assert.equal(onB.map((c: any) => [c.name, c.address]), [['Store', r.json.contracts[0].address]]);
  // Exported again from B, the template is A's: only the bound key differs, and it is a variable.
  const again = (await api(b, 'GET', `/networks/templates/export/${networkB.id}`)).json;
  assert.equal(again.network, template.network);

  const node = (await api(b, 'GET', `/networks/evm/${networkB.id}/nodes`)).json.items[0];
  const rpc = new JsonRpcProvider(node.endpoints.rpc_http, 4242, { staticNetwork: true });
  try {
    assert.is((await rpc.getBlock(0))!.hash, networkB.genesis_block_hash);
    assert.is(await rpc.getBalance(FUNDED, 0), 777n, 'the literal alloc entry carried over');
    assert.is(await rpc.getBalance(address, 0), 5000000000000000000n, 'the bound key is funded as A\'s validator was');
    assert.is(await rpc.getBalance(networkA.validators[0].address, 0), 0n, 'A\'s validator has nothing on B\'s chain');
    const height = await rpc.getBlockNumber();
    await new Promise((res) => setTimeout(res, 2500));
    assert.ok((await rpc.getBlockNumber()) > height, 'the chain produces blocks');
    const store = new Contract(r.json.contracts[0].address, STORE_ABI, rpc);
    assert.is(await store.get(), 31337n);
  } finally {
    rpc.destroy();
  }
});

test.run();
