// Chaincode end to end with the real Fabric 2.5.12 programs (helpers/programs.ts) and the server as
// a child process, over HTTP: two organizations, one raft orderer, two peers each (the network
// of the consortium tests), a channel with anchor peers. The sample asset registry (samples/chaincode/asset-registry) is deployed as a
// service with an endorsement policy that needs both organizations, invoked on one
// organization's identity and read back on the other's, checked in the ledger explorer, upgraded
// to version 2, and its server killed from outside. The lifecycle steps are also driven one by one.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { startServer, type TestServer } from '../../helpers/server.ts';
import Docker from 'dockerode';
import { dockerSkipReason, imagesMissing } from '../../helpers/dockerAvailability.ts';
import { fabricMissing } from '../../helpers/fabric.ts';
import { requires, requiresAll } from '../../helpers/requirements.ts';
import { apiOf, consortiumEnv, events, http2Answer, installedConnection, removeConsortiumNodes, twoOrganizationChannel, until } from './consortiumApi.ts';

const t = requires(suite('consortium chaincode end to end (real Fabric 2.5.12)'), 'fabric', fabricMissing);
const image = 'lnm-chaincode-asset-registry:local';
/** The one test that also runs the chaincode from an image: it needs the Docker Engine and that image too. */
const withImage = requiresAll(t, ['docker', await dockerSkipReason()], ['docker', await imagesMissing([image])]);
let server: TestServer;
const api = apiOf(() => server);

const sampleDir = path.join(import.meta.dirname, '..', '..', '..', 'samples', 'chaincode', 'asset-registry');
const sample = (version: '1' | '2') => ['package.json', 'assetRegistry.ts'].map((p) => {
  const content = readFileSync(path.join(sampleDir, p), 'utf8');
  return { path: p, content: version === '2' ? content.replace("const REGISTRY_VERSION = '1';", "const REGISTRY_VERSION = '2';") : content };
});
const BOTH = "AND('Org1MSP.peer','Org2MSP.peer')";

const nodes: any[] = [];
let org1: any;
let peer1: any;
let peer2: any;
let peer1b: any;
let peer2b: any;
let network: any;
let deployed: any;

t.before(async () => {
  server = await startServer({ env: consortiumEnv() });
});
t.after(async () => {
  if (!server) return;
  await removeConsortiumNodes(api, server.dataDir);
  await server.stop();
});

t('a network of two organizations (one orderer, two peers each) with anchor peers', async () => {
  const made = await twoOrganizationChannel(api, 'trade', 'tradechannel', { peersPerOrganization: 2 });
  ({ org1, peer1, peer2, peer1b, peer2b, network } = made);
  nodes.push(made.orderer, peer1, peer2, peer1b, peer2b);
});

t('bad chaincode records are 400 and record nothing', async () => {
  const base = { networkId: network.id, name: 'assets', version: '1.0', source: { files: sample('1') } };
  const cases: Array<[unknown, string]> = [
    [{ ...base, name: 'bad name!' }, 'name'],
    [{ ...base, name: '_lifecycle' }, 'name'],
    [{ ...base, version: 'v 1' }, 'version'],
    [{ ...base, endorsementPolicy: "AND('Org1MSP.peer'" }, 'endorsementPolicy'],
    [{ ...base, source: { files: [{ path: '../x.js', content: '' }, { path: 'package.json', content: '{"main":"x.js"}' }] } }, 'source.files'],
    [{ ...base, source: { files: [{ path: 'package.json', content: '{"main":"missing.js"}' }] } }, 'main'],
    [{ ...base, source: { files: [{ path: 'package.json', content: '{"main":"a.js"}' }, { path: 'a.ts', content: 'const = ;' }] } }, 'compile'],
    [{ ...base, source: {} }, 'source'],
    [{ ...base, source: { archive: Buffer.from('not gzip').toString('base64') } }, 'gzip'],
  ];
  for (const [body, word] of cases) {
    const r = await api('POST', '/sc/consortium/chaincodes', body);
    assert.is(r.status, 400, `${word}: ${r.text}`);
    assert.match(r.text, word);
  }
  assert.is((await api('POST', '/sc/consortium/chaincodes', { ...base, networkId: 999999 })).status, 404);
  assert.is((await api('GET', '/sc/consortium/chaincodes')).json.total, 0);
});

t('deploy: the sample installed on all four peers, approved by both organizations, committed, its server running', async () => {
  const started = Date.now();
  const r = await api('POST', '/sc/consortium/deploy', { networkId: network.id, name: 'assets', version: '1.0', endorsementPolicy: BOTH, source: { files: sample('1') } });
  assert.is(r.status, 200, r.text);
  deployed = r.json;
  console.log(`  deploy (2 organizations, 2 peers each): ${Date.now() - started} ms`);
  assert.is(deployed.sequence, 1);
  assert.is(deployed.upgrade, false);
  assert.match(deployed.package_id, /^assets_1\.0:[0-9a-f]{64}$/);
  assert.equal(deployed.peers.map((p: any) => p.peer_id).sort(), [peer1.id, peer2.id, peer1b.id, peer2b.id].sort());
  assert.equal(deployed.approvals.map((a: any) => a.msp_id).sort(), ['Org1MSP', 'Org2MSP']);
  assert.is(deployed.commit.status, 'committed');
  assert.is(deployed.server.status, 'running');
  const listed = await api('GET', `/sc/consortium/chaincodes?networkId=${network.id}`);
  assert.is(listed.json.items[0].status, 'committed');
  assert.is(listed.json.items[0].endorsement_policy, BOTH);
  // The server is a node like any other.
  const serverNode = await api('GET', `/nodes/${deployed.server.node_id}`);
  assert.is(serverNode.status, 200, serverNode.text);
  assert.is(serverNode.json.status, 'running');
  const nodeEvents = await events(api, deployed.server.node_id);
  assert.ok(nodeEvents.includes('node.started'), nodeEvents.join());
  // The deploy's progress, in order, in the server's history.
  const steps = nodeEvents.filter((e) => e.startsWith('blockchain.chaincode.'));
  assert.equal(steps, ['blockchain.chaincode.registered', 'blockchain.chaincode.server_assigned', 'blockchain.chaincode.installed', 'blockchain.chaincode.installed', 'blockchain.chaincode.installed', 'blockchain.chaincode.installed', 'blockchain.chaincode.approved', 'blockchain.chaincode.approved', 'blockchain.chaincode.deployed']);
  const audit = await api('GET', '/audit-logs?limit=500');
  assert.ok(JSON.stringify(audit.json).includes('blockchain.chaincode.deployed'), 'blockchain.chaincode.deployed in the audit log');
  // The definition as the peers have it: querycommitted through the real peer CLI is not needed, the commit's transaction is in the ledger.
  const tx = await api('GET', `/networks/consortium/${network.id}/transactions/${deployed.commit.tx_id}`);
  assert.is(tx.json.validation_code, 'VALID');
  // Deploying the same version again changes nothing.
  const again = await api('POST', '/sc/consortium/deploy', { networkId: network.id, name: 'assets', version: '1.0', endorsementPolicy: BOTH, source: { files: sample('1') } });
  assert.is(again.status, 200, again.text);
  assert.is(again.json.commit.status, 'already-committed');
  assert.ok(again.json.peers.every((p: any) => p.already_installed));
  const changed = await api('POST', '/sc/consortium/deploy', { networkId: network.id, name: 'assets', version: '1.0', endorsementPolicy: BOTH, source: { files: sample('2') } });
  assert.is(changed.status, 409, changed.text);
  assert.match(changed.json.message, 'new version');
});

t('the peers dial the deploy\'s chaincode server over mutual TLS: the installed package says so, the server refuses plain text and clients without the peers\' certificate', async () => {
  const serverNode = (await api('GET', `/nodes/${deployed.server.node_id}`)).json;
  assert.is(serverNode.config.tls, true);
  // The package as the peer installed it: Fabric's connection.json TLS fields, the owner organization's TLS CA as the root.
  const connection = await installedConnection(server.dataDir, peer2.id, deployed.package_id);
  assert.is(connection.address, serverNode.config.address);
  assert.is(connection.tls_required, true);
  assert.is(connection.client_auth_required, true);
  const org1Tls = (await api('GET', `/keys/${org1.tlsKeyId}/certificate`)).text;
  assert.is(connection.root_cert.trim(), org1Tls.trim());
  assert.match(connection.client_cert, 'BEGIN CERTIFICATE');
  assert.match(connection.client_key, 'PRIVATE KEY');
  // The server: plain text refused; TLS without a client certificate refused; the peers' certificate answered in HTTP/2 (gRPC).
  assert.is.not(await http2Answer(serverNode.config.address), 'h2');
  assert.is.not(await http2Answer(serverNode.config.address, { ca: connection.root_cert }), 'h2');
  assert.is(await http2Answer(serverNode.config.address, { ca: connection.root_cert, cert: connection.client_cert, key: connection.client_key }), 'h2');
  // Its key is in its own directory only, 0600; the keys' creation is audited; no answer carries the private key.
  const keyFile = path.join(server.dataDir, 'nodes', `node-${serverNode.id}`, 'tls', 'server.key');
  assert.is(statSync(keyFile).mode & 0o777, 0o600);
  const audit = JSON.stringify((await api('GET', '/audit-logs?limit=500')).json);
  assert.ok(audit.includes(`${serverNode.name}-tls`) && audit.includes(`${serverNode.name}-peer-client-tls`), 'the server\'s TLS keys in the audit log');
  const pem = readFileSync(keyFile, 'utf8').split('\n').slice(1, 3).join('');
  for (const path_ of ['/nodes', `/nodes/${serverNode.id}`, '/sc/consortium/chaincodes', '/keys?limit=500', '/audit-logs?limit=500']) {
    assert.not.ok((await api('GET', path_)).text.includes(pem), `${path_} does not carry the server's key`);
  }
});

t('tls false: a plain-text chaincode server (its package says tls_required false), invoked and queried', async () => {
  const r = await api('POST', '/sc/consortium/deploy', { networkId: network.id, name: 'plain', version: '1', endorsementPolicy: BOTH, tls: false, source: { files: sample('1') } });
  assert.is(r.status, 200, r.text);
  const serverNode = (await api('GET', `/nodes/${r.json.server.node_id}`)).json;
  assert.is(serverNode.config.tls, undefined);
  assert.equal(await installedConnection(server.dataDir, peer1.id, r.json.package_id), { address: serverNode.config.address, dial_timeout: '10s', tls_required: false });
  assert.is(await http2Answer(serverNode.config.address), 'h2');
  const inv = await api('POST', `/sc/consortium/chaincodes/${r.json.chaincode_id}/invoke`, { function: 'CreateAsset', args: ['p1', 'green', '1', 'Plain', '1'] });
  assert.is(inv.status, 200, inv.text);
  assert.is((await api('POST', `/sc/consortium/chaincodes/${r.json.chaincode_id}/query`, { function: 'ReadAsset', args: ['p1'], organization: 'Org2MSP' })).json.result_json.owner, 'Plain');
  // The same version with the other setting would be another chaincode under one version: 409.
  const flipped = await api('POST', '/sc/consortium/deploy', { networkId: network.id, name: 'plain', version: '1', endorsementPolicy: BOTH, tls: true, source: { files: sample('1') } });
  assert.is(flipped.status, 409, flipped.text);
});

let created: any;

t('invoke CreateAsset as Org1, read it back as Org2; the transaction is VALID in the block the invoke reported', async () => {
  const id = deployed.chaincode_id;
  const r = await api('POST', `/sc/consortium/chaincodes/${id}/invoke`, { function: 'CreateAsset', args: ['asset1', 'blue', '5', 'Tomoko', '300'], organization: 'Org1MSP' });
  assert.is(r.status, 200, r.text);
  created = r.json;
  assert.is(created.validation_code, 'VALID');
  assert.ok(Number.isInteger(created.block_number) && created.block_number > 0);
  assert.match(created.tx_id, /^[0-9a-f]{64}$/);
  assert.equal(created.result_json, { id: 'asset1', color: 'blue', size: 5, owner: 'Tomoko', value: 300 });
  const read = await api('POST', `/sc/consortium/chaincodes/${id}/query`, { function: 'ReadAsset', args: ['asset1'], organization: 'Org2MSP' });
  assert.is(read.status, 200, read.text);
  assert.is(read.json.msp_id, 'Org2MSP');
  assert.is(read.json.result_json.owner, 'Tomoko');
  const tx = await api('GET', `/networks/consortium/${network.id}/transactions/${created.tx_id}`);
  assert.is(tx.status, 200, tx.text);
  assert.is(tx.json.validation_code, 'VALID');
  assert.is(tx.json.block_number, created.block_number);
  assert.is(tx.json.creator_msp_id, 'Org1MSP');
  const blocks = await api('GET', `/networks/consortium/${network.id}/blocks?limit=10`);
  assert.ok(blocks.json.items.some((b: any) => b.number === created.block_number), 'the block is in /blocks');
  const block = await api('GET', `/networks/consortium/${network.id}/blocks/${created.block_number}`);
  assert.ok(block.json.transactions.some((x: any) => x.id === created.tx_id && x.validation_code === 'VALID'));
  // Transfer and query all, as Org2 this time.
  const moved = await api('POST', `/sc/consortium/chaincodes/${id}/invoke`, { function: 'TransferAsset', args: ['asset1', 'Max'], organization: 'Org2MSP' });
  assert.is(moved.status, 200, moved.text);
  assert.is(moved.json.result, 'Tomoko');
  const all = await api('POST', `/sc/consortium/chaincodes/${id}/query`, { function: 'GetAllAssets' });
  assert.equal(all.json.result_json.map((a: any) => a.owner), ['Max']);
});

t('a rejected invoke is a 4xx with the chaincode\'s message; a query creates no transaction', async () => {
  const id = deployed.chaincode_id;
  const twice = await api('POST', `/sc/consortium/chaincodes/${id}/invoke`, { function: 'CreateAsset', args: ['asset1', 'red', '1', 'Eve', '1'] });
  assert.is(twice.status, 422, twice.text);
  assert.match(twice.json.message ?? twice.text, 'asset asset1 already exists');
  const bad = await api('POST', `/sc/consortium/chaincodes/${id}/query`, { function: 'ReadAsset', args: ['nope'] });
  assert.is(bad.status, 422, bad.text);
  assert.match(bad.text, 'asset nope does not exist');
  const unknownOrg = await api('POST', `/sc/consortium/chaincodes/${id}/query`, { function: 'ReadAsset', args: ['asset1'], organization: 'Org9MSP' });
  assert.is(unknownOrg.status, 400, unknownOrg.text);
  const before = (await api('GET', `/networks/consortium/${network.id}/info`)).json.height;
  const q = await api('POST', `/sc/consortium/chaincodes/${id}/query`, { function: 'ReadAsset', args: ['asset1'] });
  assert.is(q.status, 200, q.text);
  assert.is(q.json.validation_code, undefined);
  await new Promise((r) => setTimeout(r, 2500));
  assert.is((await api('GET', `/networks/consortium/${network.id}/info`)).json.height, before, 'no block after a query');
  const none = await api('GET', `/networks/consortium/${network.id}/transactions/${q.json.tx_id}`);
  assert.is(none.status, 404, none.text);
});

t('upgrade to version 2: sequence 2, blockchain.chaincode.upgraded, the new behaviour, the old data', async () => {
  const before = await api('POST', `/sc/consortium/chaincodes/${deployed.chaincode_id}/query`, { function: 'RegistryVersion' });
  assert.is(before.json.result, '1');
  const r = await api('POST', '/sc/consortium/deploy', { networkId: network.id, name: 'assets', version: '2.0', endorsementPolicy: BOTH, source: { files: sample('2') } });
  assert.is(r.status, 200, r.text);
  assert.is(r.json.sequence, 2);
  assert.is(r.json.upgrade, true);
  assert.is(r.json.commit.status, 'committed');
  const after = await api('POST', `/sc/consortium/chaincodes/${r.json.chaincode_id}/query`, { function: 'RegistryVersion' });
  assert.is(after.json.result, '2');
  assert.is(after.json.version, '2.0');
  // The older record's id reaches the committed version too.
  const viaOld = await api('POST', `/sc/consortium/chaincodes/${deployed.chaincode_id}/query`, { function: 'ReadAsset', args: ['asset1'] });
  assert.is(viaOld.json.result_json.owner, 'Max');
  assert.is(viaOld.json.version, '2.0');
  const audit = await api('GET', '/audit-logs?limit=500');
  assert.ok(JSON.stringify(audit.json).includes('blockchain.chaincode.upgraded'));
  // The peers dial only version 2's server now: version 1's is stopped.
  await until('the version 1 server stopped', async () => ((await api('GET', `/nodes/${deployed.server.node_id}`)).json.status === 'stopped' ? true : null), 30_000);
  deployed = r.json;
});

t('each step alone: approve before install, install twice, commit before enough approvals', async () => {
  const collections = [{ name: 'notes', policy: "OR('Org1MSP.member','Org2MSP.member')", requiredPeerCount: 0, maxPeerCount: 1, blockToLive: 0, memberOnlyRead: true, memberOnlyWrite: true }];
  const badCollection = await api('POST', '/sc/consortium/chaincodes', { networkId: network.id, name: 'steps', version: '1', source: { files: sample('1') }, collections: [{ ...collections[0], policy: 'OR(' }] });
  assert.is(badCollection.status, 400, badCollection.text);
  assert.match(badCollection.text, 'collections[0].policy');
  const rec = await api('POST', '/sc/consortium/chaincodes', { networkId: network.id, name: 'steps', version: '1', endorsementPolicy: BOTH, collections, source: { files: sample('1') } });
  assert.is(rec.status, 201, rec.text);
  const body = { chaincodeId: rec.json.id };
  const early = await api('POST', `/sc/consortium/peer/${peer1.id}/chaincode/approve`, body);
  assert.is(early.status, 409, early.text);
  assert.match(early.text, 'not installed on peer peer0-org1');
  const i1 = await api('POST', `/sc/consortium/peer/${peer1.id}/chaincode/install`, body);
  assert.is(i1.status, 200, i1.text);
  assert.is(i1.json.already_installed, false);
  const i2 = await api('POST', `/sc/consortium/peer/${peer1.id}/chaincode/install`, body);
  assert.is(i2.json.package_id, i1.json.package_id);
  assert.is(i2.json.already_installed, true);
  const none = await api('POST', `/sc/consortium/peer/${peer1.id}/chaincode/commit`, body);
  assert.is(none.status, 409, none.text);
  assert.match(none.text, 'Org1MSP, Org2MSP');
  const a1 = await api('POST', `/sc/consortium/peer/${peer1.id}/chaincode/approve`, body);
  assert.is(a1.status, 200, a1.text);
  assert.is(a1.json.status, 'approved');
  assert.is((await api('POST', `/sc/consortium/peer/${peer1.id}/chaincode/approve`, body)).json.status, 'already-approved');
  const half = await api('POST', `/sc/consortium/peer/${peer1.id}/chaincode/commit`, body);
  assert.is(half.status, 409, half.text);
  assert.match(half.json.message, 'still missing: Org2MSP');
  assert.is((await api('POST', `/sc/consortium/peer/${peer2.id}/chaincode/install`, body)).status, 200);
  assert.is((await api('POST', `/sc/consortium/peer/${peer2.id}/chaincode/approve`, body)).status, 200);
  const done = await api('POST', `/sc/consortium/peer/${peer2.id}/chaincode/commit`, body);
  assert.is(done.status, 200, done.text);
  assert.is(done.json.status, 'committed');
  assert.is(done.json.server_status, 'running');
  assert.is((await api('POST', `/sc/consortium/peer/${peer2.id}/chaincode/commit`, body)).json.status, 'already-committed');
  const listed = (await api('GET', `/sc/consortium/chaincodes?name=steps`)).json.items[0];
  assert.is(listed.status, 'committed');
  assert.equal(listed.approved_by.sort(), ['Org1MSP', 'Org2MSP']);
  const inv = await api('POST', `/sc/consortium/chaincodes/${rec.json.id}/invoke`, { function: 'CreateAsset', args: ['s1', 'green', '1', 'Ann', '2'] });
  assert.is(inv.status, 200, inv.text);
  // The collection is part of the committed definition: private data through transient data.
  const note = await api('POST', `/sc/consortium/chaincodes/${rec.json.id}/invoke`, { function: 'SetPrivateNote', args: ['notes', 's1'], transient: { note: 'fragile' }, endorsingOrganizations: ['Org1MSP', 'Org2MSP'] });
  assert.is(note.status, 200, note.text);
  const tx = await api('GET', `/networks/consortium/${network.id}/blocks/${note.json.block_number}`);
  assert.ok(tx.json.transactions.some((x: any) => x.id === note.json.tx_id && x.validation_code === 'VALID'));
  const read = await api('POST', `/sc/consortium/chaincodes/${rec.json.id}/query`, { function: 'GetPrivateNote', args: ['notes', 's1'], organization: 'Org2MSP' });
  assert.is(read.status, 200, read.text);
  assert.is(read.json.result, 'fragile');
  const missing = await api('POST', `/sc/consortium/chaincodes/${rec.json.id}/invoke`, { function: 'SetPrivateNote', args: ['nosuch', 's1'], transient: { note: 'x' } });
  assert.ok(missing.status >= 400 && missing.status < 500, missing.text);
  for (const [path, b, status] of [
    [`/sc/consortium/peer/${peer1.id}/chaincode/install`, { chaincodeId: 999999 }, 404],
    [`/sc/consortium/peer/999999/chaincode/install`, body, 404],
    [`/sc/consortium/peer/${nodes[0].id}/chaincode/install`, body, 400],
    [`/sc/consortium/chaincodes/999999/invoke`, { function: 'X' }, 404],
  ] as const) {
    const r = await api('POST', path, b);
    assert.is(r.status, status, `${path}: ${r.text}`);
  }
});

withImage('an image source on this process-engine service: its server runs in a container of the image, and the peers (processes) reach it', async () => {
  const docker = new Docker();
  const r = await api('POST', '/sc/consortium/deploy', { networkId: network.id, name: 'boxed', version: '1', endorsementPolicy: BOTH, source: { image } });
  assert.is(r.status, 200, r.text);
  assert.is(r.json.server.status, 'running');
  assert.is((await api('GET', `/nodes/${r.json.server.node_id}`)).json.engine, 'docker');
  const [container] = await docker.listContainers({ filters: { label: [`lnm.node=node-${r.json.server.node_id}`, `lnm.data-dir=${server.dataDir}`] } });
  assert.is(container?.Image, image);
  const inv = await api('POST', `/sc/consortium/chaincodes/${r.json.chaincode_id}/invoke`, { function: 'CreateAsset', args: ['b1', 'grey', '1', 'Box', '1'], organization: 'Org2MSP' });
  assert.is(inv.status, 200, inv.text);
  const read = await api('POST', `/sc/consortium/chaincodes/${r.json.chaincode_id}/query`, { function: 'ReadAsset', args: ['b1'], organization: 'Org1MSP' });
  assert.is(read.json.result_json.owner, 'Box');
});

t('initRequired: Fabric refuses an invoke before Init; deploy sends Init after the commit (its function and args), then invokes work', async () => {
  const body = { networkId: network.id, name: 'seeded', version: '1', endorsementPolicy: BOTH, initRequired: true, init: { function: 'CreateAsset', args: ['seed', 'white', '1', 'Init', '0'] }, source: { files: sample('1') } };
  const notRequired = await api('POST', '/sc/consortium/chaincodes', { ...body, name: 'noinit', initRequired: false });
  assert.is(notRequired.status, 400, notRequired.text);
  assert.match(notRequired.text, 'initRequired');
  const rec = await api('POST', '/sc/consortium/chaincodes', body);
  assert.is(rec.status, 201, rec.text);
  assert.is(rec.json.init_required, true);
  assert.is(rec.json.initialized, false);
  // The steps alone commit it, as `peer lifecycle chaincode commit` does, without Init.
  for (const p of [peer1, peer2]) {
    assert.is((await api('POST', `/sc/consortium/peer/${p.id}/chaincode/install`, { chaincodeId: rec.json.id })).status, 200);
    assert.is((await api('POST', `/sc/consortium/peer/${p.id}/chaincode/approve`, { chaincodeId: rec.json.id })).status, 200);
  }
  const committed = await api('POST', `/sc/consortium/peer/${peer1.id}/chaincode/commit`, { chaincodeId: rec.json.id });
  assert.is(committed.status, 200, committed.text);
  assert.is(committed.json.server_status, 'running');
  // Fabric itself refuses the first ordinary invoke (CheckInit on the peers): a 409 saying what to do.
  const early = await until('the peers to know the committed definition', async () => {
    const r = await api('POST', `/sc/consortium/chaincodes/${rec.json.id}/invoke`, { function: 'CreateAsset', args: ['x1', 'red', '1', 'Ann', '1'] });
    return /no combination of peers|no peer combination/.test(r.text) ? null : r;
  }, 30_000, 1000);
  assert.is(early.status, 409, early.text);
  assert.match(early.json.message, 'must call as init first');
  assert.match(early.json.message, "the service's chaincode deploy");
  // Deploy repeats nothing done and sends Init.
  const d = await api('POST', '/sc/consortium/deploy', body);
  assert.is(d.status, 200, d.text);
  assert.is(d.json.commit.status, 'already-committed');
  assert.is(d.json.init.status, 'initialized');
  const initTx = await api('GET', `/networks/consortium/${network.id}/transactions/${d.json.init.tx_id}`);
  assert.is(initTx.json.validation_code, 'VALID');
  assert.is(initTx.json.block_number, d.json.init.block_number);
  // Init ran the named function: the seed asset exists; an ordinary invoke works right after.
  const seed = await api('POST', `/sc/consortium/chaincodes/${rec.json.id}/query`, { function: 'ReadAsset', args: ['seed'] });
  assert.is(seed.status, 200, seed.text);
  assert.is(seed.json.result_json.owner, 'Init');
  const inv = await api('POST', `/sc/consortium/chaincodes/${rec.json.id}/invoke`, { function: 'CreateAsset', args: ['x1', 'red', '1', 'Ann', '1'] });
  assert.is(inv.status, 200, inv.text);
  assert.is(inv.json.validation_code, 'VALID');
  const again = await api('POST', '/sc/consortium/deploy', body);
  assert.is(again.json.init.status, 'already-initialized');
  const listed = (await api('GET', `/sc/consortium/chaincodes?name=seeded`)).json.items[0];
  assert.is(listed.initialized, true);
  assert.is(listed.init_tx_id, d.json.init.tx_id);
  assert.ok((await events(api, d.json.server.node_id)).includes('blockchain.chaincode.initialized'));
});

t('a chaincode server killed from outside: node.downtime, then recovery, and the next invoke works', async () => {
  const serverId = deployed.server.node_id;
  const pid = Number(JSON.parse(readFileSync(path.join(server.dataDir, 'nodes', `node-${serverId}`, 'node.pid.json'), 'utf8')).pid);
  process.kill(pid, 'SIGKILL');
  await until('node.downtime', async () => ((await events(api, serverId)).includes('node.downtime') ? true : null), 60_000);
  assert.is((await api('GET', `/nodes/${serverId}`)).json.status, 'down');
  // The next invoke starts the server again before it runs.
  const r = await api('POST', `/sc/consortium/chaincodes/${deployed.chaincode_id}/invoke`, { function: 'CreateAsset', args: ['asset2', 'red', '2', 'Ida', '10'] });
  assert.is(r.status, 200, r.text);
  assert.is(r.json.validation_code, 'VALID');
  await until('node.recovery', async () => ((await events(api, serverId)).includes('node.recovery') ? true : null), 60_000);
  assert.is((await api('GET', `/nodes/${serverId}`)).json.status, 'running');
});

const pidOf = (nodeId: number) => Number(JSON.parse(readFileSync(path.join(server.dataDir, 'nodes', `node-${nodeId}`, 'node.pid.json'), 'utf8')).pid);

t('peers killed from outside: a query goes through the organization\'s other peer once one is down; with both down a query is a 503 and an invoke that needs them fails naming what is missing; after their restart both work', async () => {
  const cc = deployed.chaincode_id;
  process.kill(pidOf(peer2.id), 'SIGKILL');
  await until('node.downtime of peer0-org2', async () => ((await events(api, peer2.id)).includes('node.downtime') ? true : null), 60_000);
  const other = await api('POST', `/sc/consortium/chaincodes/${cc}/query`, { function: 'ReadAsset', args: ['asset1'], organization: 'Org2MSP' });
  assert.is(other.status, 200, other.text);
  assert.is(other.json.peer_id, peer2b.id, 'through the running peer of Org2');
  process.kill(pidOf(peer2b.id), 'SIGKILL');
  await new Promise((r) => setTimeout(r, 500));
  const q = await api('POST', `/sc/consortium/chaincodes/${cc}/query`, { function: 'ReadAsset', args: ['asset1'], organization: 'Org2MSP' });
  assert.is(q.status, 503, q.text);
  // The peer it tried: peer1-org2 while the health monitor still has it running, peer0-org2 (the
  // first of the two) once it saw both go down; either way a peer of Org2, named.
  assert.match(q.json.message, /peer[01]-org2/);
  const inv = await api('POST', `/sc/consortium/chaincodes/${cc}/invoke`, { function: 'CreateAsset', args: ['asset3', 'red', '2', 'Ida', '10'], organization: 'Org1MSP' });
  assert.ok(inv.status >= 400 && inv.status < 600 && inv.status !== 500, inv.text);
  assert.ok(inv.json.message.length > 20, inv.text);
  await until('node.downtime of peer1-org2', async () => ((await events(api, peer2b.id)).includes('node.downtime') ? true : null), 60_000);
  for (const p of [peer2, peer2b]) {
    const started = await api('POST', `/nodes/${p.id}/start`);
    assert.is(started.json.status, 'running', started.text);
  }
  const again = await until('an invoke endorsed by both organizations again', async () => {
    const r = await api('POST', `/sc/consortium/chaincodes/${cc}/invoke`, { function: 'CreateAsset', args: ['asset3', 'red', '2', 'Ida', '10'], organization: 'Org1MSP' });
    return r.status === 200 ? r : null;
  }, 60_000, 2000);
  assert.is(again.json.validation_code, 'VALID');
  const read = await api('POST', `/sc/consortium/chaincodes/${cc}/query`, { function: 'ReadAsset', args: ['asset3'], organization: 'Org2MSP' });
  assert.is(read.status, 200, read.text);
});

t('deleting the network: refused while its peers and orderer joined (its chaincode servers keep running), then it takes its chaincode servers with it', async () => {
  const servers = (await api('GET', '/nodes/platform/CONSORTIUM?limit=100')).json.items.filter((n: any) => n.role === 'chaincode');
  assert.ok(servers.length >= 3, `chaincode servers: ${JSON.stringify(servers.map((n: any) => n.name))}`);
  const refused = await api('DELETE', `/networks/consortium/${network.id}`);
  assert.is(refused.status, 409, refused.text);
  assert.match(refused.json.message, 'peer0-org1');
  assert.is((await api('GET', `/nodes/${deployed.server.node_id}`)).json.status, 'running', 'a refused deletion leaves the servers running');
  const pid = pidOf(deployed.server.node_id);
  for (const n of nodes) assert.is((await api('DELETE', `/nodes/${n.id}`)).status, 204);
  for (const n of nodes) await until(`${n.name} deleted`, async () => ((await api('GET', `/nodes/${n.id}`)).status === 404 ? true : null), 30_000);
  const deleted = await api('DELETE', `/networks/consortium/${network.id}`);
  assert.is(deleted.status, 204, deleted.text);
  for (const n of servers) await until(`chaincode server ${n.name} deleted`, async () => ((await api('GET', `/nodes/${n.id}`)).status === 404 ? true : null), 30_000);
  await until('the chaincode server process ended', async () => {
    try {
      process.kill(pid, 0);
      return null;
    } catch {
      return true;
    }
  }, 30_000);
  assert.is((await api('GET', `/sc/consortium/chaincodes?networkId=${network.id}`)).json.total, 0);
});

t.run();
