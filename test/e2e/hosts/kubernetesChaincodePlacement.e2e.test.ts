// A chaincode server placed on the registered Kubernetes cluster (test/k8s/cluster.sh up) by the
// operator's choice (`placement: {hostId}` in the deploy body) while the channel's orderer and
// peer run on this machine (process engine): the server is a StatefulSet and NodePort Service on
// the cluster, connection.json names its NodePort at the cluster's address, which the peer here
// dials over mutual TLS; invoke and query work. A placement on a host that is no cluster is a 400.
// Its TLS certificate renewed (POST /sc/consortium/chaincodes/{id}/server/certificates/renew): the
// server's ConfigMap on the cluster holds the new certificate and the pod, restarted, presents it
// at the NodePort; invoke and query still work.
// Counted skips, saying why, without the cluster, Fabric, or the chaincode image.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import * as k8s from '@kubernetes/client-node';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { fabricMissing } from '../../helpers/fabric.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { adminKubeConfig, kubernetesSkipReason, testCluster } from '../../helpers/kubernetes.ts';
import { apiOf, consortiumEnv, hexSerial, http2Answer, installedConnection, node, organization, presentedCertificate, until } from '../consortium/consortiumApi.ts';

const CHAINCODE_IMAGE = 'lnm-chaincode-asset-registry:local';
const imageMissing = (() => {
  try {
    execFileSync('docker', ['image', 'inspect', CHAINCODE_IMAGE], { stdio: 'ignore' });
    return undefined;
  } catch {
    return `the image ${CHAINCODE_IMAGE} is not on the Docker Engine (.ci/docker.sh builds it; cluster.sh import loads it into the cluster)`;
  }
})();
const t = requiresAll(suite('kubernetes: a chaincode server placed on the cluster, its peer and orderer here'), ['kubernetes', (await kubernetesSkipReason()) ?? imageMissing], ['fabric', fabricMissing]);
const cluster = testCluster();
const c = () => cluster!.connection;
const PREFIX = `k8sccp${process.pid % 100000}-`;
let server: TestServer;
const api = apiOf(() => server);
const made: any[] = [];
let placed: { chaincodeId: number; serverNode: any; connection: any } | null = null;

t.before(async () => {
  server = await startServer({ env: consortiumEnv({ LNM_NODE_ENGINE: 'process', LNM_HOST_CHECK_SECONDS: '2', LNM_DOCKER_PREFIX: PREFIX }) });
});

t.after(async () => {
  for (const n of made.reverse()) await api('DELETE', `/nodes/${n.id}`).catch(() => undefined);
  for (const n of made) await until(`${n.name} gone`, async () => (await api('GET', `/nodes/${n.id}`)).status === 404, 90_000).catch(() => undefined);
  await server?.stop();
  server?.reapNodes();
});

t('placement {hostId}: the server on the cluster at its NodePort, the peer here dials it over TLS; invoke and query', async () => {
  const h = await api('POST', '/hosts', { name: 'cluster', kind: 'kubernetes', url: c().server, externalIp: c().nodeAddress, kubernetes: { caCertificate: c().caCertificate, token: c().token, namespace: c().namespace, storageClass: c().storageClass } });
  assert.is(h.status, 201, h.text);
  const org = await organization(api, 'PlacedOrg', 'PlacedMSP');
  const base = 23000 + (process.pid % 400) * 10;
  const orderer = await node(api, 'here-orderer', 'CONSORTIUM_ORDERER', org.id, { port: base, adminPort: base + 1, operationsPort: base + 2 });
  made.push(orderer);
  const peer = await node(api, 'here-peer', 'CONSORTIUM_PEER', org.id, { port: base + 3, chaincodePort: base + 4, operationsPort: base + 5 });
  made.push(peer);
  const net = await api('POST', '/networks/consortium', { name: 'placed', channelName: 'placed', ordererIds: [orderer.id], peerIds: [peer.id] });
  assert.is(net.status, 201, net.text);
  assert.is((await api('POST', `/networks/consortium/${net.json.id}/orderers/${orderer.id}/join`)).status, 200);
  await until('the peer to join', async () => {
    const j = await api('POST', `/networks/consortium/${net.json.id}/peers/${peer.id}/join`);
    return j.status === 200 ? j : null;
  }, 90_000, 1000);
  await until('the anchor peer update', async () => {
    const a = await api('POST', `/networks/consortium/${net.json.id}/anchor-peers`, { organizationId: 'PlacedMSP', anchorPeers: [{ host: '127.0.0.1', port: peer.config.port }] });
    if (a.status !== 200 && a.status !== 409 && a.status !== 503) assert.unreachable(a.text);
    return a.status === 200 ? a : null;
  }, 90_000, 1000);

  // A placement on a host that is not a registered cluster records nothing.
  const body = { networkId: net.json.id, name: 'placed-assets', version: '1', source: { image: CHAINCODE_IMAGE } };
  const nowhere = await api('POST', '/sc/consortium/deploy', { ...body, placement: { hostId: 999999 } });
  assert.is(nowhere.status, 400, nowhere.text);
  assert.match(nowhere.text, 'placement.hostId');
  assert.is((await api('GET', '/sc/consortium/chaincodes')).json.total, 0);

  const r = await api('POST', '/sc/consortium/deploy', { ...body, placement: { hostId: h.json.id } });
  assert.is(r.status, 200, r.text);
  assert.is(r.json.server.status, 'running', r.text);
  const serverNode = (await api('GET', `/nodes/${r.json.server.node_id}`)).json;
  made.push(serverNode);
  assert.is(serverNode.config.hostId, h.json.id);
  // The peer is not in the cluster: it dials the NodePort at the cluster's address.
  assert.is(serverNode.config.address, `${c().nodeAddress}:${serverNode.config.port}`);
  assert.is(serverNode.config.externalAddress, serverNode.config.address);
  const core = adminKubeConfig().makeApiClient(k8s.CoreV1Api);
  const pod = await core.readNamespacedPod({ name: `${PREFIX}node-${serverNode.id}-0`, namespace: c().namespace });
  assert.is(pod.metadata?.labels?.['lnm.node'], `node-${serverNode.id}`);
  assert.match(pod.spec!.containers[0].image!, CHAINCODE_IMAGE);
  const connection = await installedConnection(server.dataDir, peer.id, r.json.package_id);
  assert.is(connection.address, serverNode.config.address);
  assert.is(connection.tls_required, true);
  assert.is.not(await http2Answer(serverNode.config.address), 'h2');
  assert.is(await http2Answer(serverNode.config.address, { ca: connection.root_cert, cert: connection.client_cert, key: connection.client_key }), 'h2');

  const inv = await api('POST', `/sc/consortium/chaincodes/${r.json.chaincode_id}/invoke`, { function: 'CreateAsset', args: ['p1', 'blue', '5', 'Placed', '300'] });
  assert.is(inv.status, 200, inv.text);
  assert.is(inv.json.validation_code, 'VALID');
  const read = await api('POST', `/sc/consortium/chaincodes/${r.json.chaincode_id}/query`, { function: 'ReadAsset', args: ['p1'] });
  assert.is(read.status, 200, read.text);
  assert.is(read.json.result_json.owner, 'Placed');
  // The same version placed elsewhere would be another deployment under one version: 409.
  const moved = await api('POST', '/sc/consortium/deploy', body);
  assert.is(moved.status, 409, moved.text);
  placed = { chaincodeId: r.json.chaincode_id, serverNode, connection };
});

const presentedSerial = async (address: string, connection: any) => hexSerial((await presentedCertificate(address, connection)).serialNumber);

t('its certificate renewed: the ConfigMap on the cluster holds the new one, the restarted pod presents it at the NodePort, invoke and query still work', async () => {
  assert.ok(placed, 'the placed deploy of the first test');
  const { chaincodeId, serverNode, connection } = placed;
  const old = await presentedSerial(serverNode.config.address, connection);
  const r = await api('POST', `/sc/consortium/chaincodes/${chaincodeId}/server/certificates/renew`);
  assert.is(r.status, 200, r.text);
  assert.is(r.json.server.status, 'running', r.text);
  assert.is(hexSerial(r.json.certificate.previous_serial_number), old);
  const renewed = hexSerial(r.json.certificate.serial_number);
  assert.is.not(renewed, old);
  const core = adminKubeConfig().makeApiClient(k8s.CoreV1Api);
  const config = await core.readNamespacedConfigMap({ name: `${PREFIX}node-${serverNode.id}-config`, namespace: c().namespace });
  const serials = Object.values(config.data ?? {}).filter((v) => v.includes('BEGIN CERTIFICATE')).map((pem) => hexSerial(new X509Certificate(pem).serialNumber));
  assert.ok(serials.includes(renewed), `the ConfigMap holds the renewed certificate (${serials.join(', ')})`);
  assert.not.ok(serials.includes(old), 'and no longer the old one');
  await until('the pod presenting the renewed certificate', async () => ((await presentedSerial(serverNode.config.address, connection).catch(() => null)) === renewed ? true : null), 120_000, 1000);
  const inv = await api('POST', `/sc/consortium/chaincodes/${chaincodeId}/invoke`, { function: 'CreateAsset', args: ['p2', 'red', '1', 'Renewed', '1'] });
  assert.is(inv.status, 200, inv.text);
  const read = await api('POST', `/sc/consortium/chaincodes/${chaincodeId}/query`, { function: 'ReadAsset', args: ['p1'] });
  assert.is(read.json.result_json.owner, 'Placed');
});

t.run();
