// Chaincode under the docker engine, with the real Fabric 2.5.12 images .ci/docker.sh builds
// (no registry): a peer and an orderer in containers, the sample chaincode deployed from its
// chaincode-as-a-service image (lnm-chaincode-asset-registry:local) and from its files (run in
// lnm-chaincode-node:local), both as containers on the host network, over mutual TLS; invoke and query; the
// image's container killed from outside gives node.downtime, then recovery; the image's server
// certificate renewed: the restarted container presents the new one. Skipped, saying why,
// where no Docker Engine or image is there.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Docker from 'dockerode';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { dockerSkipReason, imagesMissing } from '../../helpers/dockerAvailability.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { apiOf, consortiumEnv, events, hexSerial, http2Answer, installedConnection, node, organization, presentedCertificate, until } from './consortiumApi.ts';

const docker = new Docker();
const SAMPLE_IMAGE = 'lnm-chaincode-asset-registry:local';
const images = { LNM_IMAGE_FABRIC_PEER: 'lnm-fabric-peer:local', LNM_IMAGE_FABRIC_ORDERER: 'lnm-fabric-orderer:local', LNM_IMAGE_CHAINCODE_NODE: 'lnm-chaincode-node:local' };
// Fabric runs inside the images (.ci/docker.sh builds them from the Fabric programs it finds): no Fabric program on this host is used.
const t = requiresAll(suite('consortium chaincode under the docker engine (local Fabric 2.5.12 and chaincode images)'), ['docker', await dockerSkipReason()], ['fabric-images', await imagesMissing([...Object.values(images), SAMPLE_IMAGE])]);
let server: TestServer;
const api = apiOf(() => server);
let network: any;
let fromImage: any;
let peerId: number;

const sampleDir = path.join(import.meta.dirname, '..', '..', '..', 'samples', 'chaincode', 'asset-registry');
const sampleFiles = ['package.json', 'assetRegistry.ts'].map((p) => ({ path: p, content: readFileSync(path.join(sampleDir, p), 'utf8') }));
const ourContainers = (dataDir: string) => docker.listContainers({ all: true, filters: { label: [`lnm.data-dir=${dataDir}`] } });
const containerOf = async (nodeId: number) => (await ourContainers(server.dataDir)).find((c) => c.Labels['lnm.node'] === `node-${nodeId}`);

t.before(async () => {
  // A prefix of this run's own: other deployments (other runs) on the same Docker Engine keep theirs.
  server = await startServer({ env: consortiumEnv({ LNM_NODE_ENGINE: 'docker', LNM_DOCKER_PREFIX: `ccdock${process.pid % 100000}-`, ...images }) });
});
t.after(async () => {
  if (!server) return;
  const all = (await api('GET', '/nodes/platform/CONSORTIUM?limit=100')).json?.items ?? [];
  for (const n of all) await api('DELETE', `/nodes/${n.id}`).catch(() => undefined);
  await until('containers removed', async () => ((await ourContainers(server.dataDir)).length === 0 ? true : null), 30_000).catch(() => undefined);
  for (const c of await ourContainers(server.dataDir)) await docker.getContainer(c.Id).remove({ force: true }).catch(() => undefined);
  await server.stop();
});

t('a peer and an orderer in containers, joined to a channel with an anchor peer', async () => {
  const org = await organization(api, 'CcDockOrg', 'CcDockMSP');
  const orderer = await node(api, 'ccdock-orderer', 'CONSORTIUM_ORDERER', org.id);
  const peer = await node(api, 'ccdock-peer', 'CONSORTIUM_PEER', org.id);
  assert.is(peer.engine, 'docker');
  peerId = peer.id;
  const net = await api('POST', '/networks/consortium', { name: 'ccdock-net', channelName: 'ccdockchannel', ordererIds: [orderer.id], peerIds: [peer.id] });
  assert.is(net.status, 201, net.text);
  network = net.json;
  assert.is((await api('POST', `/networks/consortium/${network.id}/orderers/${orderer.id}/join`)).status, 200);
  await until('the orderer to serve the channel', async () => {
    const j = await api('POST', `/networks/consortium/${network.id}/peers/${peer.id}/join`);
    return j.status === 200 ? j : null;
  }, 60_000, 1000);
  await until('anchor peer', async () => {
    const a = await api('POST', `/networks/consortium/${network.id}/anchor-peers`, { organizationId: 'CcDockMSP', anchorPeers: [{ host: '127.0.0.1', port: peer.config.port }] });
    return a.status === 200 ? a : null;
  }, 60_000, 1000);
});

t('an image source is checked: not a reference or not on the Docker host is a 400 naming it, and nothing is recorded', async () => {
  const base = { networkId: network.id, name: 'assets', version: '1' };
  const missing = await api('POST', '/sc/consortium/chaincodes', { ...base, source: { image: 'lnm-no-such-chaincode:local' } });
  assert.is(missing.status, 400, missing.text);
  assert.match(missing.json.message, 'lnm-no-such-chaincode:local');
  const bad = await api('POST', '/sc/consortium/chaincodes', { ...base, source: { image: 'Not An/Image' } });
  assert.is(bad.status, 400, bad.text);
  assert.match(bad.text, 'source.image');
  const two = await api('POST', '/sc/consortium/chaincodes', { ...base, source: { image: SAMPLE_IMAGE, files: sampleFiles } });
  assert.is(two.status, 400, two.text);
  assert.is((await api('GET', '/sc/consortium/chaincodes')).json.total, 0);
});

t('deploy from the sample\'s image: its server is a container of that image; invoke and query work', async () => {
  const r = await api('POST', '/sc/consortium/deploy', { networkId: network.id, name: 'assets', version: '1', source: { image: SAMPLE_IMAGE } });
  assert.is(r.status, 200, r.text);
  fromImage = r.json;
  assert.is(fromImage.commit.status, 'committed');
  assert.is(fromImage.server.status, 'running');
  const serverNode = (await api('GET', `/nodes/${fromImage.server.node_id}`)).json;
  assert.is(serverNode.engine, 'docker');
  // Over mutual TLS (the default): the image's server took its key and certificate from the variables; plain text is refused.
  assert.is(serverNode.config.tls, true);
  assert.is.not(await http2Answer(serverNode.config.address), 'h2');
  const container = await containerOf(fromImage.server.node_id);
  assert.ok(container, 'the chaincode server is a container');
  assert.is(container!.Image, SAMPLE_IMAGE);
  assert.is(container!.State, 'running');
  const listed = (await api('GET', `/sc/consortium/chaincodes?name=assets`)).json.items[0];
  assert.equal(listed.source, { kind: 'image', image: SAMPLE_IMAGE });
  const inv = await api('POST', `/sc/consortium/chaincodes/${fromImage.chaincode_id}/invoke`, { function: 'CreateAsset', args: ['a1', 'blue', '5', 'Tomoko', '300'] });
  assert.is(inv.status, 200, inv.text);
  assert.is(inv.json.validation_code, 'VALID');
  const read = await api('POST', `/sc/consortium/chaincodes/${fromImage.chaincode_id}/query`, { function: 'ReadAsset', args: ['a1'] });
  assert.is(read.status, 200, read.text);
  assert.is(read.json.result_json.owner, 'Tomoko');
});

t('deploy from files under the docker engine: the server is a container of the chaincode-node image', async () => {
  const r = await api('POST', '/sc/consortium/deploy', { networkId: network.id, name: 'assets-files', version: '1', source: { files: sampleFiles } });
  assert.is(r.status, 200, r.text);
  assert.is(r.json.server.status, 'running');
  const serverNode = (await api('GET', `/nodes/${r.json.server.node_id}`)).json;
  assert.is(serverNode.engine, 'docker');
  assert.is((await containerOf(r.json.server.node_id))?.Image, images.LNM_IMAGE_CHAINCODE_NODE);
  // Over mutual TLS: the peer (a container) presents the package's client certificate; plain text and no certificate are refused.
  assert.is(serverNode.config.tls, true);
  const connection = await installedConnection(server.dataDir, peerId, r.json.package_id);
  assert.is(connection.tls_required, true);
  assert.is.not(await http2Answer(serverNode.config.address), 'h2');
  assert.is.not(await http2Answer(serverNode.config.address, { ca: connection.root_cert }), 'h2');
  assert.is(await http2Answer(serverNode.config.address, { ca: connection.root_cert, cert: connection.client_cert, key: connection.client_key }), 'h2');
  const inv = await api('POST', `/sc/consortium/chaincodes/${r.json.chaincode_id}/invoke`, { function: 'CreateAsset', args: ['f1', 'red', '1', 'Ann', '2'] });
  assert.is(inv.status, 200, inv.text);
  const all = await api('POST', `/sc/consortium/chaincodes/${r.json.chaincode_id}/query`, { function: 'GetAllAssets' });
  assert.equal(all.json.result_json.map((a: any) => a.id), ['f1']);
});

t('the image\'s container killed from outside: node.downtime, then the next invoke restarts it and recovery follows', async () => {
  const serverId = fromImage.server.node_id;
  await docker.getContainer((await containerOf(serverId))!.Id).kill();
  await until('node.downtime', async () => ((await events(api, serverId)).includes('node.downtime') ? true : null), 60_000);
  assert.is((await api('GET', `/nodes/${serverId}`)).json.status, 'down');
  const r = await api('POST', `/sc/consortium/chaincodes/${fromImage.chaincode_id}/invoke`, { function: 'CreateAsset', args: ['a2', 'red', '2', 'Ida', '10'] });
  assert.is(r.status, 200, r.text);
  assert.is(r.json.validation_code, 'VALID');
  await until('node.recovery', async () => ((await events(api, serverId)).includes('node.recovery') ? true : null), 60_000);
  assert.is((await containerOf(serverId))?.State, 'running');
});

t('the image\'s server certificate renewed under the docker engine: the restarted container presents the new one; invoke works', async () => {
  const serverNode = (await api('GET', `/nodes/${fromImage.server.node_id}`)).json;
  const connection = await installedConnection(server.dataDir, peerId, fromImage.package_id);
  const r = await api('POST', `/sc/consortium/chaincodes/${fromImage.chaincode_id}/server/certificates/renew`);
  assert.is(r.status, 200, r.text);
  assert.is(r.json.server.status, 'running', r.text);
  const renewed = hexSerial(r.json.certificate.serial_number);
  assert.is.not(renewed, hexSerial(r.json.certificate.previous_serial_number));
  await until('the container presenting the renewed certificate', async () => (hexSerial((await presentedCertificate(serverNode.config.address, connection).catch(() => null))?.serialNumber ?? '') === renewed ? true : null), 60_000, 500);
  assert.is((await containerOf(fromImage.server.node_id))?.State, 'running');
  const inv = await api('POST', `/sc/consortium/chaincodes/${fromImage.chaincode_id}/invoke`, { function: 'CreateAsset', args: ['a3', 'green', '3', 'Renewed', '1'] });
  assert.is(inv.status, 200, inv.text);
  assert.is(inv.json.validation_code, 'VALID');
});

t.run();
