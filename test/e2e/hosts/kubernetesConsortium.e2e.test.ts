// A consortium channel across engines (issue 39): a Fabric peer on the registered Kubernetes
// cluster of test/k8s/cluster.sh up (its MSP, TLS and core.yaml in its Secret and ConfigMap, its
// ports NodePorts at the cluster's node address) and an orderer on this machine (process engine,
// its endpoint at the address pods reach this machine at: the cluster's bridge address). They reach
// each other only through their external endpoints: the peer joins the channel (the service
// reaches it through its NodePort), an anchor peer update ordered here is delivered to the peer on
// the cluster, which commits it (its own log, read from the pod). Counted skips, saying why,
// without the cluster, Fabric, or the peer image.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { fabricMissing } from '../../helpers/fabric.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { kubernetesSkipReason, testCluster } from '../../helpers/kubernetes.ts';
import { apiOf, consortiumEnv, node, organization, until } from '../consortium/consortiumApi.ts';

const PEER_IMAGE = 'lnm-fabric-peer:local';
const imageMissing = (() => {
  try {
    execFileSync('docker', ['image', 'inspect', PEER_IMAGE], { stdio: 'ignore' });
    return undefined;
  } catch {
    return `the image ${PEER_IMAGE} is not on the Docker Engine (.ci/docker.sh builds it; cluster.sh import loads it into the cluster)`;
  }
})();
const t = requiresAll(suite('kubernetes: a peer on the cluster and an orderer here in one channel'), ['kubernetes', (await kubernetesSkipReason()) ?? imageMissing], ['fabric', fabricMissing]);
const cluster = testCluster();
const c = () => cluster!.connection;
const PREFIX = `k8sc${process.pid % 100000}-`;
let server: TestServer;
const api = apiOf(() => server);
const made: any[] = [];

t.before(async () => {
  server = await startServer({ env: consortiumEnv({ LNM_NODE_ENGINE: 'process', LNM_IMAGE_FABRIC_PEER: PEER_IMAGE, LNM_HOST_CHECK_SECONDS: '2', LNM_DOCKER_PREFIX: PREFIX }) });
});

t.after(async () => {
  for (const n of made.reverse()) await api('DELETE', `/nodes/${n.id}`).catch(() => undefined);
  for (const n of made) await until(`${n.name} gone`, async () => (await api('GET', `/nodes/${n.id}`)).status === 404, 90_000).catch(() => undefined);
  await server?.stop();
  server?.reapNodes();
});

t('a peer on the cluster joins the channel of an orderer here and commits what it orders', async () => {
  const h = await api('POST', '/hosts', { name: 'cluster', kind: 'kubernetes', url: c().server, externalIp: c().nodeAddress, kubernetes: { caCertificate: c().caCertificate, token: c().token, namespace: c().namespace, storageClass: c().storageClass } });
  assert.is(h.status, 201, h.text);
  const org = await organization(api, 'ClusterOrg', 'ClusterMSP');
  // This machine as the pods reach it: the cluster's node address is this machine's bridge.
  const base = 22000 + (process.pid % 400) * 10;
  const peerBase = 30000 + ((process.pid * 11 + 600) % 2300);
  const orderer = await node(api, 'here-orderer', 'CONSORTIUM_ORDERER', org.id, { port: base, adminPort: base + 1, operationsPort: base + 2, externalEndpoint: `${c().nodeAddress}:${base}`, domainNames: [c().nodeAddress] });
  made.push(orderer);
  const peer = await node(api, 'cluster-peer', 'CONSORTIUM_PEER', org.id, { hostId: h.json.id, port: peerBase, chaincodePort: peerBase + 1, operationsPort: peerBase + 2 });
  made.push(peer);
  assert.is(peer.config.externalEndpoint, `${c().nodeAddress}:${peerBase}`);
  assert.is(peer.config.hostId, h.json.id);

  const net = await api('POST', '/networks/consortium', { name: 'across', channelName: 'across', ordererIds: [orderer.id], peerIds: [peer.id] });
  assert.is(net.status, 201, net.text);
  assert.is((await api('POST', `/networks/consortium/${net.json.id}/orderers/${orderer.id}/join`)).status, 200);
  await until('the cluster peer to join', async () => {
    const j = await api('POST', `/networks/consortium/${net.json.id}/peers/${peer.id}/join`);
    return j.status === 200 ? j : null;
  }, 90_000, 1000);
  await until('the anchor peer update', async () => {
    const a = await api('POST', `/networks/consortium/${net.json.id}/anchor-peers`, { organizationId: 'ClusterMSP', anchorPeers: [{ host: c().nodeAddress, port: peerBase }] });
    if (a.status !== 200 && a.status !== 409 && a.status !== 503) assert.unreachable(a.text);
    return a.status === 200 ? a : null;
  }, 90_000, 1000);
  const info = await until('the channel at block 1 (read from the peer on the cluster)', async () => {
    const r = await api('GET', `/networks/consortium/${net.json.id}/info`);
    return r.status === 200 && r.json.height >= 2 ? r.json : null;
  }, 60_000);
  assert.ok(info.height >= 2);
  await until('the cluster peer to commit block 1 (its pod\'s log)', async () => {
    const logs = await api('GET', `/nodes/${peer.id}/logs?tail=300`);
    return logs.json.lines.some((l: string) => /\[across\] Committed block \[1\]/.test(l)) ? true : null;
  }, 30_000);
});

t.run();
