// The consortium network of issue 39 all on the registered Kubernetes cluster of
// test/k8s/cluster.sh up (Fabric 2.5.12 images, no registry: imported into the cluster's
// containerd): 3 etcdraft orderers and 2 peers placed through POST /nodes with config.hostId, the
// channel made and joined by all, chaincode from its chaincode-as-a-service image deployed: its
// server runs on the cluster too (a StatefulSet and a Service there, labelled with the deployment
// prefix and node id), and the peers, all in the cluster, dial its Service's cluster IP (the
// address of connection.json). Invoked and queried through the service's API; one orderer's pod
// deleted and the channel still commits; a peer scaled to 0 and back keeps its ledger; the
// server deleted takes its objects with it. Counted skips, saying why, without the cluster,
// Fabric, or the images.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { fabricMissing } from '../../helpers/fabric.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { adminKubeConfig, kubernetesSkipReason, testCluster } from '../../helpers/kubernetes.ts';
import { apiOf, consortiumEnv, http2Answer, node, organization, until } from '../consortium/consortiumApi.ts';

const PEER_IMAGE = 'lnm-fabric-peer:local';
const ORDERER_IMAGE = 'lnm-fabric-orderer:local';
const CHAINCODE_IMAGE = 'lnm-chaincode-asset-registry:local';
const CHAINCODE_NODE_IMAGE = 'lnm-chaincode-node:local';
const imageMissing = (() => {
  try {
    execFileSync('docker', ['image', 'inspect', PEER_IMAGE, ORDERER_IMAGE, CHAINCODE_IMAGE, CHAINCODE_NODE_IMAGE], { stdio: 'ignore' });
    return undefined;
  } catch {
    return `the images ${PEER_IMAGE}, ${ORDERER_IMAGE}, ${CHAINCODE_IMAGE} and ${CHAINCODE_NODE_IMAGE} are not on the Docker Engine (.ci/docker.sh builds them; cluster.sh import loads each into the cluster)`;
  }
})();
const t = requiresAll(suite('kubernetes: 3 orderers, 2 peers and the chaincode server on the cluster'), ['kubernetes', (await kubernetesSkipReason()) ?? imageMissing], ['fabric', fabricMissing]);
const cluster = testCluster();
const c = () => cluster!.connection;
const PREFIX = `k8scc${process.pid % 100000}-`;
// NodePorts of this run (the cluster is shared): 3 per node.
const BASE = 30000 + ((process.pid * 17) % 1900);
let server: TestServer;
const api = apiOf(() => server);
const made: any[] = [];
let core: k8s.CoreV1Api;
let networkId = 0;
let chaincodeId = 0;
let serverNodeId = 0;
let filesServerId = 0;
const objectName = (id: number) => `${PREFIX}node-${id}`;

t.before(async () => {
  core = adminKubeConfig().makeApiClient(k8s.CoreV1Api);
  server = await startServer({ env: consortiumEnv({ LNM_NODE_ENGINE: 'process', LNM_IMAGE_FABRIC_PEER: PEER_IMAGE, LNM_IMAGE_FABRIC_ORDERER: ORDERER_IMAGE, LNM_IMAGE_CHAINCODE_NODE: CHAINCODE_NODE_IMAGE, LNM_HOST_CHECK_SECONDS: '2', LNM_DOCKER_PREFIX: PREFIX }) });
});

t.after(async () => {
  const all = [...made.reverse(), ...[serverNodeId, filesServerId].filter(Boolean).map((id) => ({ id, name: `chaincode server ${id}` }))];
  for (const n of all) await api('DELETE', `/nodes/${n.id}?deleteVolume=true`).catch(() => undefined);
  for (const n of all) await until(`${n.name} gone`, async () => (await api('GET', `/nodes/${n.id}`)).status === 404, 90_000).catch(() => undefined);
  await server?.stop();
  server?.reapNodes();
});

t('3 orderers and 2 peers on the cluster: channel joined by all, chaincode served from the cluster, invoked and queried', async () => {
  const h = await api('POST', '/hosts', { name: 'cluster', kind: 'kubernetes', url: c().server, externalIp: c().nodeAddress, kubernetes: { caCertificate: c().caCertificate, token: c().token, namespace: c().namespace, storageClass: c().storageClass } });
  assert.is(h.status, 201, h.text);
  const hostId = h.json.id;
  const org = await organization(api, 'ClusterOrg', 'ClusterMSP');
  const at = (i: number) => BASE + i * 3;
  const nodes = await Promise.all([
    ...[0, 1, 2].map((i) => node(api, `k8s-orderer${i}`, 'CONSORTIUM_ORDERER', org.id, { hostId, port: at(i), adminPort: at(i) + 1, operationsPort: at(i) + 2 })),
    ...[3, 4].map((i) => node(api, `k8s-peer${i - 3}`, 'CONSORTIUM_PEER', org.id, { hostId, port: at(i), chaincodePort: at(i) + 1, operationsPort: at(i) + 2 })),
  ]);
  made.push(...nodes);
  const orderers = nodes.slice(0, 3);
  const peers = nodes.slice(3);
  for (const n of nodes) assert.is(n.config.hostId, hostId);

  const net = await api('POST', '/networks/consortium', { name: 'oncluster', channelName: 'oncluster', ordererIds: orderers.map((o) => o.id), peerIds: peers.map((p) => p.id) });
  assert.is(net.status, 201, net.text);
  networkId = net.json.id;
  for (const o of orderers) assert.is((await api('POST', `/networks/consortium/${networkId}/orderers/${o.id}/join`)).status, 200);
  for (const p of peers) {
    await until(`${p.name} to join`, async () => {
      const j = await api('POST', `/networks/consortium/${networkId}/peers/${p.id}/join`);
      return j.status === 200 ? j : null;
    }, 90_000, 1000);
  }

  const r = await api('POST', '/sc/consortium/deploy', { networkId, name: 'assets', version: '1', source: { image: CHAINCODE_IMAGE } });
  assert.is(r.status, 200, r.text);
  assert.equal(r.json.peers.map((p: any) => p.peer_id).sort(), peers.map((p) => p.id).sort());
  assert.is(r.json.commit.status, 'committed');
  assert.is(r.json.server.status, 'running', r.text);
  chaincodeId = r.json.chaincode_id;
  serverNodeId = r.json.server.node_id;
  // The server is placed on the cluster; connection.json names its Service's cluster IP (every peer is in the cluster).
  const cc = (await api('GET', `/nodes/${serverNodeId}`)).json;
  assert.is(cc.config.hostId, hostId, JSON.stringify(cc.config));
  const svc = await core.readNamespacedService({ name: objectName(serverNodeId), namespace: c().namespace });
  assert.is(svc.metadata?.labels?.['lnm.node'], `node-${serverNodeId}`);
  assert.is(cc.config.address, `${svc.spec!.clusterIP}:${cc.config.port}`);
  assert.is(cc.config.externalAddress, `${c().nodeAddress}:${cc.config.port}`);
  const pod = await core.readNamespacedPod({ name: `${objectName(serverNodeId)}-0`, namespace: c().namespace });
  assert.match(pod.spec!.containers[0].image!, CHAINCODE_IMAGE);
  // Over mutual TLS: its key is the one item of its Secret; plain text at its NodePort is refused (the peers' invoke below goes through TLS).
  assert.is(cc.config.tls, true);
  const secret = await core.readNamespacedSecret({ name: `${objectName(serverNodeId)}-keys`, namespace: c().namespace });
  assert.is(Object.keys(secret.data ?? {}).length, 1);
  assert.is.not(await http2Answer(cc.config.externalAddress), 'h2');

  const inv = await api('POST', `/sc/consortium/chaincodes/${chaincodeId}/invoke`, { function: 'CreateAsset', args: ['asset1', 'blue', '5', 'Tomoko', '300'] });
  assert.is(inv.status, 200, inv.text);
  const read = await api('POST', `/sc/consortium/chaincodes/${chaincodeId}/query`, { function: 'ReadAsset', args: ['asset1'] });
  assert.is(read.status, 200, read.text);
  assert.match(JSON.stringify(read.json), /Tomoko/);
});

t('a chaincode given as files runs on the cluster in the chaincode-node image, its files in the ConfigMap', async () => {
  assert.ok(networkId, 'the network of the first test');
  const sampleDir = path.join(import.meta.dirname, '..', '..', '..', 'samples', 'chaincode', 'asset-registry');
  const files = ['package.json', 'assetRegistry.ts'].map((p) => ({ path: p, content: readFileSync(path.join(sampleDir, p), 'utf8') }));
  const r = await api('POST', '/sc/consortium/deploy', { networkId, name: 'assets-files', version: '1', source: { files } });
  assert.is(r.status, 200, r.text);
  assert.is(r.json.server.status, 'running', r.text);
  filesServerId = r.json.server.node_id;
  const pod = await core.readNamespacedPod({ name: `${objectName(filesServerId)}-0`, namespace: c().namespace });
  assert.match(pod.spec!.containers[0].image!, CHAINCODE_NODE_IMAGE);
  const inv = await api('POST', `/sc/consortium/chaincodes/${r.json.chaincode_id}/invoke`, { function: 'CreateAsset', args: ['f1', 'red', '1', 'Ann', '2'] });
  assert.is(inv.status, 200, inv.text);
  const all = await api('POST', `/sc/consortium/chaincodes/${r.json.chaincode_id}/query`, { function: 'GetAllAssets' });
  assert.is(all.status, 200, all.text);
  assert.match(JSON.stringify(all.json), /Ann/);
});

t('one orderer\'s pod deleted: the channel still commits, and Kubernetes brings the orderer back', async () => {
  assert.ok(chaincodeId, 'the network of the first test');
  const orderer = made.find((n) => n.name === 'k8s-orderer0');
  const before = (await core.readNamespacedPod({ name: `${objectName(orderer.id)}-0`, namespace: c().namespace })).metadata!.uid;
  await core.deleteNamespacedPod({ name: `${objectName(orderer.id)}-0`, namespace: c().namespace, gracePeriodSeconds: 0 });
  // Two consenters of three order on (a new raft leader first when the deleted one led).
  const inv = await until('an invoke ordered without that orderer', async () => {
    const r = await api('POST', `/sc/consortium/chaincodes/${chaincodeId}/invoke`, { function: 'CreateAsset', args: ['asset2', 'red', '3', 'Ida', '10'] });
    if (r.status !== 200) throw new Error(`${r.status} ${r.text}`);
    return r;
  }, 90_000, 2000);
  assert.ok(inv.json.block_number > 0, inv.text);
  await until('the orderer\'s pod made again and Ready', async () => {
    const p = await core.readNamespacedPod({ name: `${objectName(orderer.id)}-0`, namespace: c().namespace });
    return p.metadata!.uid !== before && p.status?.conditions?.some((x) => x.type === 'Ready' && x.status === 'True') ? p : null;
  }, 120_000, 1000);
  await until('the orderer running again', async () => ((await api('GET', `/nodes/${orderer.id}`)).json.status === 'running' ? true : null), 60_000, 1000);
});

t('a peer scaled to 0 and back keeps its ledger: alone, it answers the query', async () => {
  assert.ok(chaincodeId, 'the network of the first test');
  const [peer0, peer1] = made.filter((n) => n.nodeType === 'CONSORTIUM_PEER');
  const height = (await api('GET', `/networks/consortium/${networkId}/info`)).json.height;
  // The peer has the channel's last block (asset2's or later) before it stops: its own log says so.
  // A peer whose deliver stream was on the deleted orderer's pod notices only when gRPC keepalive
  // gives up on the silent connection (Fabric's peer.keepalive.deliveryClient: 60 s interval, 20 s
  // timeout), then reconnects: allow for that, at Fabric's defaults.
  await until(`${peer0.name} to commit block ${height - 1}`, async () => {
    const logs = await api('GET', `/nodes/${peer0.id}/logs?tail=400`);
    return logs.json.lines.some((l: string) => new RegExp(`\\[oncluster\\] Committed block \\[${height - 1}\\]`).test(l)) ? true : null;
  }, 180_000, 1000);
  assert.is((await api('POST', `/nodes/${peer0.id}/stop`)).json.status, 'stopped');
  await until('the peer\'s pod gone', async () => (await core.readNamespacedPod({ name: `${objectName(peer0.id)}-0`, namespace: c().namespace }).then(() => false, () => true)) || null, 60_000);
  const started = await api('POST', `/nodes/${peer0.id}/start`);
  assert.is(started.json.status, 'running', started.text);
  assert.is((await api('POST', `/nodes/${peer1.id}/stop`)).json.status, 'stopped');
  const read = await until('the query on the restarted peer alone', async () => {
    const r = await api('POST', `/sc/consortium/chaincodes/${chaincodeId}/query`, { function: 'ReadAsset', args: ['asset2'] });
    if (r.status !== 200) throw new Error(`${r.status} ${r.text}`);
    return r;
  }, 90_000, 1000);
  assert.match(JSON.stringify(read.json), /Ida/);
  const info = await until('the channel read from the restarted peer', async () => {
    const r = await api('GET', `/networks/consortium/${networkId}/info`);
    return r.status === 200 ? r.json : null;
  }, 30_000);
  assert.ok(info.height >= height, `height ${info.height} after the restart, ${height} before`);
});

t('the chaincode server deleted: its StatefulSet, Service and claim go from the cluster', async () => {
  assert.ok(serverNodeId, 'the server of the first test');
  const d = await api('DELETE', `/nodes/${serverNodeId}`);
  assert.ok(d.status === 202 || d.status === 200 || d.status === 204, d.text);
  const ns = c().namespace;
  await until('the server\'s objects gone', async () => {
    const svc = await core.readNamespacedService({ name: objectName(serverNodeId), namespace: ns }).then(() => true, () => false);
    const claim = await core.readNamespacedPersistentVolumeClaim({ name: `${objectName(serverNodeId)}-data`, namespace: ns }).then(() => true, () => false);
    return !svc && !claim ? true : null;
  }, 120_000, 1000);
  serverNodeId = 0;
});

t.run();
