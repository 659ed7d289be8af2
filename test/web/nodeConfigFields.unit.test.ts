// The node create and change forms' Advanced fields (web/src/pages/nodes/nodeConfig.ts):
// which fields each kind shows on create and on change, what is refused before sending, and the
// config object sent (empty fields left out, ports as numbers, TLS names as a list), and a node's
// config read back into form values.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { configFields, configValues, nodeConfigBody, nodeConfigIssues } from '../../web/src/pages/nodes/nodeConfig.ts';

const keys = (k: Parameters<typeof configFields>[0], m: Parameters<typeof configFields>[1]) => configFields(k, m).map((f) => f.key);

test('each kind shows the fields POST /nodes takes, and PUT /nodes/{id} the ones it changes', () => {
  assert.equal(keys('EVM_FULLNODE', 'create'), ['role', 'client', 'engine', 'p2pPort', 'rpcHttpPort', 'rpcWsPort', 'metricsPort', 'externalIp']);
  assert.equal(keys('EVM_FULLNODE', 'update'), ['p2pPort', 'rpcHttpPort', 'rpcWsPort', 'metricsPort']);
  assert.equal(keys('CONSORTIUM_PEER', 'create'), ['engine', 'port', 'chaincodePort', 'operationsPort', 'listenAddress', 'hostname', 'externalEndpoint', 'domainNames']);
  assert.equal(keys('CONSORTIUM_ORDERER', 'update'), ['port', 'adminPort', 'operationsPort', 'listenAddress', 'hostname', 'externalEndpoint', 'domainNames']);
});

test('ports, addresses, host names and endpoints are checked before sending', () => {
  const peer = configFields('CONSORTIUM_PEER', 'create');
  assert.equal(nodeConfigIssues(peer, { port: '7051', chaincodePort: '7052', operationsPort: '9443', listenAddress: '0.0.0.0', hostname: 'peer0.org1.example.com', externalEndpoint: '127.0.0.1:7051', domainNames: 'peer0, 10.0.0.5' }), {});
  const bad = nodeConfigIssues(peer, { port: '80', chaincodePort: '7052', operationsPort: '7052', listenAddress: '300.1.1.1', hostname: 'not a host', externalEndpoint: 'nohost', domainNames: 'ok, bad name' });
  assert.equal(Object.keys(bad).sort(), ['domainNames', 'externalEndpoint', 'hostname', 'listenAddress', 'operationsPort', 'port']);
  assert.match(bad.operationsPort, /same port as Chaincode port/);
  assert.equal(nodeConfigIssues(peer, { port: '70000' }), { port: 'a port from 1024 to 65535' });
  assert.equal(nodeConfigIssues(peer, { port: '7051.5' }), { port: 'a port from 1024 to 65535' });
  assert.equal(nodeConfigIssues(configFields('EVM_FULLNODE', 'create'), { externalIp: '0.0.0.0.1' }), { externalIp: 'an IPv4 address such as 0.0.0.0' });
});

test('the config sent leaves empty fields out; a node config reads back into the form', () => {
  const evm = configFields('EVM_FULLNODE', 'create');
  assert.equal(nodeConfigBody(evm, { role: 'bootnode', client: '', p2pPort: ' 30400 ', rpcHttpPort: '', externalIp: '10.0.0.7' }), { role: 'bootnode', p2pPort: 30400, externalIp: '10.0.0.7' });
  const orderer = configFields('CONSORTIUM_ORDERER', 'update');
  assert.equal(nodeConfigBody(orderer, { domainNames: 'a.example, , 10.0.0.1', adminPort: '7053' }), { adminPort: 7053, domainNames: ['a.example', '10.0.0.1'] });
  assert.equal(configValues(orderer, { port: 7050, adminPort: 7053, domainNames: ['a', 'b'], hostname: null, other: 1 }), { port: '7050', adminPort: '7053', domainNames: 'a, b' });
});

test.run();
