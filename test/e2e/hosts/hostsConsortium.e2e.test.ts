// A consortium network across two hosts: the orderer on this machine (process engine, its
// endpoint the address the second host reaches this machine at), the peer on a second Docker
// Engine in a network namespace the test makes (tcp with --tlsverify, only lnm-fabric-peer:local
// loaded into it). The peer's MSP, TLS and core.yaml go to that host through its engine; the
// service joins it to the channel over the host's address; it pulls the channel's blocks from
// the orderer through the orderer's external endpoint (an anchor peer update ordered on this
// machine reaches it), and the channel is queried from it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { fabricMissing } from '../../helpers/fabric.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { secondHostMissing, startSecondDockerHost, type SecondDockerHost } from '../../helpers/secondDockerHost.ts';
import { apiOf, consortiumEnv, node, organization, until } from '../consortium/consortiumApi.ts';

const PEER_IMAGE = 'lnm-fabric-peer:local';
const imageMissing = (() => {
  try {
    execFileSync('docker', ['image', 'inspect', PEER_IMAGE], { stdio: 'ignore' });
    return undefined;
  } catch {
    return `the image ${PEER_IMAGE} is not on the main Docker Engine (.ci/docker.sh builds it)`;
  }
})();
const t = requiresAll(suite('node hosts: a consortium network across two hosts'), ['docker-host', secondHostMissing() ?? imageMissing], ['fabric', fabricMissing]);
let host: SecondDockerHost;
let server: TestServer;
const api = apiOf(() => server);
const made: any[] = [];

t.before(async () => {
  host = await startSecondDockerHost({ images: [PEER_IMAGE] });
  server = await startServer({ env: consortiumEnv({ LNM_NODE_ENGINE: 'process', LNM_IMAGE_FABRIC_PEER: PEER_IMAGE, LNM_HOST_CHECK_SECONDS: '2' }) });
});

t.after(async () => {
  for (const n of made.reverse()) await api('DELETE', `/nodes/${n.id}`).catch(() => undefined);
  await server?.stop();
  server?.reapNodes();
  await host?.remove();
});

t('an orderer on this machine and a peer on the second host join one channel, and the peer serves it', async () => {
  const h = await api('POST', '/hosts', { name: 'second', url: host.url, tls: host.pki });
  assert.is(h.status, 201, h.text);
  const org = await organization(api, 'HostOrg', 'HostMSP');
  // Ports picked per run: the orderer's endpoint must be known before it is created (it is in its certificate).
  const base = 21000 + (process.pid % 400) * 10;
  const orderer = await node(api, 'host1-orderer', 'CONSORTIUM_ORDERER', org.id, { port: base, adminPort: base + 3, operationsPort: base + 4, externalEndpoint: `${host.gateway}:${base}`, domainNames: [host.gateway] });
  made.push(orderer);
  const peer = await node(api, 'host2-peer', 'CONSORTIUM_PEER', org.id, { hostId: h.json.id });
  made.push(peer);
  assert.is(peer.config.externalEndpoint, `${host.address}:${peer.config.port}`);
  assert.is(peer.engine, 'docker');
  assert.match(host.docker(['ps', '--format', '{{.Names}} {{.Image}}']), new RegExp(`lnm-node-${peer.id} ${PEER_IMAGE}`));

  const net = await api('POST', '/networks/consortium', { name: 'two-hosts', channelName: 'twohosts', ordererIds: [orderer.id], peerIds: [peer.id] });
  assert.is(net.status, 201, net.text);
  assert.is((await api('POST', `/networks/consortium/${net.json.id}/orderers/${orderer.id}/join`)).status, 200);
  await until('the remote peer to join', async () => {
    const j = await api('POST', `/networks/consortium/${net.json.id}/peers/${peer.id}/join`);
    return j.status === 200 ? j : null;
  }, 60_000, 1000);
  // An update ordered on this machine reaches the peer on the other host: block 1.
  await until('the anchor peer update', async () => {
    const a = await api('POST', `/networks/consortium/${net.json.id}/anchor-peers`, { organizationId: 'HostMSP', anchorPeers: [{ host: host.address, port: peer.config.port }] });
    if (a.status !== 200 && a.status !== 409 && a.status !== 503) assert.unreachable(a.text);
    return a.status === 200 ? a : null;
  }, 60_000, 1000);
  const info = await until('the remote peer to have block 1', async () => {
    const r = await api('GET', `/networks/consortium/${net.json.id}/info`);
    return r.status === 200 && r.json.height >= 2 ? r.json : null;
  }, 60_000);
  assert.ok(info.height >= 2);
  const logs = await api('GET', `/nodes/${peer.id}/logs?tail=50`);
  assert.is(logs.status, 200);
  assert.ok(logs.json.lines.some((l: string) => /twohosts/.test(l)), 'the remote peer\'s own log names the channel');
});

t.run();
