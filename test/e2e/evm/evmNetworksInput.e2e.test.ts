// Bad input to the evm network and node endpoints: 400 or 409 with a message that says what
// is wrong, and a network that needs besu, once besu is gone, fails to start saying so.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import { startServer, call, basic, type TestServer } from '../../helpers/server.ts';
import { api, killLeftoverNodes } from './evmLifecycle.ts';
import { installBesu } from '../../standins/besuStandinInstall.ts';
import { onGlobalTeardown } from '../../helpers/globalTeardown.ts';

let s: TestServer;
let anvilNetwork: number;
let besuNetwork: number;
const genesis = (chainId: number) => ({ chain_id: chainId, consensus: 'QBFT', block_time: 2 });

test.before(async () => {
  // A network that needs besu is only made where besu is (else the create is refused, nothing
  // made): made with the besu stand-in on PATH, then the service restarts without besu on PATH
  // (the service looks for it on its own PATH), as when besu is removed from a host.
  const standin = installBesu({ real: null });
  onGlobalTeardown(() => standin.remove());
  const maker = await startServer({ env: { PATH: `${standin.binDir}:/usr/bin:/bin` } });
  const besu = await api(maker, 'POST', '/networks', { name: 'input-besu', type: 'evm', validatorCount: 4, genesis: genesis(32002) });
  assert.is(besu.status, 201, besu.text);
  besuNetwork = besu.json.id;
  await maker.stop();
  s = await startServer({ env: { PATH: '/usr/bin:/bin' }, dataDir: maker.dataDir, databaseUrl: maker.databaseUrl! });
  anvilNetwork = (await api(s, 'POST', '/networks/evm', { name: 'input-anvil', genesis: genesis(32001) })).json.id;
});

test.after(async () => {
  await s?.stop();
  if (s) killLeftoverNodes(s.dataDir);
});

test('an unknown consensus is a 400 naming the field and the accepted values', async () => {
  const r = await api(s, 'POST', '/networks', { name: 'bad-consensus', type: 'evm', genesis: { chain_id: 1234, consensus: 'RAFT' } });
  assert.is(r.status, 400);
  assert.match(r.json.message, /consensus/);
  assert.match(r.json.message, /IBFT_2/);
  assert.ok(r.json.details.some((d: { field: string }) => d.field === 'consensus'));
});

test('network names: other characters than alphanumerics and hyphens are a 400, a taken name a 409', async () => {
  let r = await api(s, 'POST', '/networks', { name: 'bad_name!', type: 'evm', genesis: genesis(1235) });
  assert.is(r.status, 400);
  assert.match(r.json.message, /letters, digits and hyphens/);
  r = await api(s, 'POST', '/networks', { name: 'INPUT-ANVIL', type: 'evm', genesis: genesis(1236) });
  assert.is(r.status, 409);
  assert.match(r.json.message, /already exists/);
});

test('creating a network needs NETWORK_CREATE: a VIEWER gets 403', async () => {
  let r = await api(s, 'POST', '/users', { username: 'viewer1', password: 'viewer-password-123', role: 'VIEWER' });
  assert.is(r.status, 201, r.text);
  r = await call(s.api, 'POST', '/networks', { headers: { authorization: basic('viewer1', 'viewer-password-123') }, body: { name: 'by-viewer', type: 'evm', genesis: genesis(1237) } });
  assert.is(r.status, 403);
  assert.match(r.json.message, /NETWORK_CREATE/);
});

test('a validator key of the wrong curve is a 400 saying secp256k1 is needed', async () => {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const r = await api(s, 'POST', '/networks', { name: 'wrong-curve', type: 'evm', validatorKeys: [pem], genesis: genesis(1238) });
  assert.is(r.status, 400, r.text);
  assert.match(r.json.message, /secp256k1/);
  assert.not.match(r.text, /PRIVATE KEY/);
  assert.is((await api(s, 'GET', '/networks/evm')).json.items.some((n: { name: string }) => n.name === 'wrong-curve'), false);
});

test('a secp256k1 validator key is imported and its address becomes the genesis validator', async () => {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'secp256k1' });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const r = await api(s, 'POST', '/networks', { name: 'imported-key', type: 'evm', validatorKeys: [pem], genesis: genesis(1239) });
  assert.is(r.status, 201, r.text);
  assert.is(r.json.validators.length, 1);
  assert.ok(r.json.validators[0].key_held);
});

test('importing a network takes its genesis and validator addresses and generates no keys', async () => {
  const validator = '0x00000000000000000000000000000000000000bb';
  let r = await api(s, 'POST', '/networks/evm/import', { name: 'imported-net', genesis: { chain_id: 1241, consensus: 'QBFT', validators: [validator] } });
  assert.is(r.status, 201, r.text);
  assert.equal(r.json.validators.map((v: { address: string; key_held: boolean }) => [v.address.toLowerCase(), v.key_held]), [[validator, false]]);
  assert.is(r.json.client, 'anvil');
  r = await api(s, 'POST', '/networks/evm/import', { name: 'imported-none', genesis: { chain_id: 1242, consensus: 'QBFT' } });
  assert.is(r.status, 400);
  assert.match(r.json.message, /validators/);
});

test('anvil cannot be chosen for several validators: 400', async () => {
  const r = await api(s, 'POST', '/networks', { name: 'anvil-many', type: 'evm', client: 'anvil', validatorCount: 3, genesis: genesis(1240) });
  assert.is(r.status, 400);
  assert.match(r.json.message, /besu/);
});

test('node ports out of range are a 400 naming each field', async () => {
  const r = await api(s, 'POST', '/nodes', { name: 'bad-ports', platform: 'EVM', nodeType: 'EVM_FULLNODE', networkId: anvilNetwork, config: { p2pPort: 80, rpcHttpPort: 70000 } });
  assert.is(r.status, 400, r.text);
  assert.match(r.json.message, /config\.p2pPort must be a port from 1024 to 65535, got 80/);
  assert.match(r.json.message, /config\.rpcHttpPort/);
});

test('a port already in use on the host is a 409', async () => {
  const busy: Server = createServer();
  await new Promise<void>((r) => busy.listen(0, '127.0.0.1', () => r()));
  const port = (busy.address() as { port: number }).port;
  try {
    const r = await api(s, 'POST', '/nodes', { name: 'busy-port', platform: 'EVM', nodeType: 'EVM_FULLNODE', networkId: anvilNetwork, config: { rpcHttpPort: port } });
    assert.is(r.status, 409, r.text);
    assert.match(r.json.message, new RegExp(`${port}.*in use`));
  } finally {
    busy.close();
  }
});

test('a port assigned to another node is a 409 naming that node', async () => {
  let r = await api(s, 'POST', `/networks/${besuNetwork}/nodes`, { name: 'besu-boot', type: 'bootnode' });
  assert.is(r.status, 201, r.text);
  const taken = r.json.config.p2pPort;
  r = await api(s, 'POST', `/networks/${besuNetwork}/nodes`, { name: 'besu-v1', type: 'validator', port: taken });
  assert.is(r.status, 409, r.text);
  assert.match(r.json.message, /besu-boot/);
});

test('a bootnode with RPC ports is a 400', async () => {
  const r = await api(s, 'POST', `/networks/${besuNetwork}/nodes`, { name: 'boot-rpc', type: 'bootnode', rpc_port: 18545 });
  assert.is(r.status, 400, r.text);
  assert.match(r.json.message, /bootnode has a peer-to-peer port only/);
});

test('a network that needs besu fails to start where there is none, saying what to install, and never reports running', async () => {
  const r = await api(s, 'POST', `/networks/${besuNetwork}/start`);
  assert.is(r.status, 200, r.text);
  assert.ok(r.json.nodes.length >= 4);
  for (const n of r.json.nodes) {
    assert.is(n.status, 'error');
    assert.match(n.error, /install besu/);
  }
  const network = (await api(s, 'GET', `/networks/evm/${besuNetwork}`)).json;
  assert.is(network.status, 'error');
  assert.is(network.client, 'besu');
  const events = (await api(s, 'GET', `/nodes/${r.json.nodes[0].id}/events`)).json.items.map((e: { event: string }) => e.event);
  assert.ok(events.includes('node.start_failed'));
  assert.not.ok(events.includes('node.started'));
});

test('validator votes on an anvil network are refused honestly, never faked', async () => {
  const r = await api(s, 'POST', `/networks/${anvilNetwork}/validators/votes`, { address: '0x00000000000000000000000000000000000000aa', add: true });
  assert.is(r.status, 409, r.text);
  assert.match(r.json.message, /no validator voting/);
  const v = await api(s, 'GET', `/networks/${anvilNetwork}/validators`);
  assert.is(v.json.voting, false);
  assert.is(v.json.validators.length, 1);
});

test('a vote on a besu network with no running validator is a 409', async () => {
  const r = await api(s, 'POST', `/networks/${besuNetwork}/validators/votes`, { address: '0x00000000000000000000000000000000000000aa', add: false });
  assert.is(r.status, 409, r.text);
  assert.match(r.json.message, /No validator node/);
});

test('an anvil network is one node: a second one is a 409, a bootnode a 400', async () => {
  let r = await api(s, 'POST', `/networks/${anvilNetwork}/nodes`, { name: 'anvil-boot', type: 'bootnode' });
  assert.is(r.status, 400, r.text);
  assert.match(r.json.message, /single-node/);
  r = await api(s, 'POST', `/networks/${anvilNetwork}/nodes`, { name: 'anvil-v1', type: 'validator' });
  assert.is(r.status, 201, r.text);
  r = await api(s, 'POST', `/networks/${anvilNetwork}/nodes`, { name: 'anvil-v2', type: 'validator' });
  assert.is(r.status, 409, r.text);
  assert.match(r.json.message, /single-node development chain/);
  r = await api(s, 'DELETE', `/networks/evm/${anvilNetwork}`);
  assert.is(r.status, 204);
});

test.run();
