// A consortium network across two hosts, an orderer and a peer on each: this machine (process
// engine, endpoints at the address the second host reaches this machine at) and a second Docker
// Engine in a network namespace the test makes (tcp with --tlsverify, only the Fabric peer and
// orderer images loaded into it). The remote nodes' MSP, TLS and config go to that host through
// its engine. The two orderers are the channel's raft consenters (two of two: no block without
// both, so every block proves they reach each other); both peers join; an anchor peer update
// ordered by them reaches both peers, and the channel is queried. Chaincode (the sample asset
// registry, its server on this machine at LNM_CHAINCODE_HOST, the address the second host
// reaches) is deployed on both peers, invoked, and queried on the remote peer alone.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { fabricMissing } from '../../helpers/fabric.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { secondHostMissing, startSecondDockerHost, type SecondDockerHost } from '../../helpers/secondDockerHost.ts';
import { apiOf, consortiumEnv, node, organization, until } from '../consortium/consortiumApi.ts';

const PEER_IMAGE = 'lnm-fabric-peer:local';
const ORDERER_IMAGE = 'lnm-fabric-orderer:local';
const imageMissing = (() => {
  try {
    execFileSync('docker', ['image', 'inspect', PEER_IMAGE, ORDERER_IMAGE], { stdio: 'ignore' });
    return undefined;
  } catch {
    return `the images ${PEER_IMAGE} and ${ORDERER_IMAGE} are not on the main Docker Engine (.ci/docker.sh builds them)`;
  }
})();
const t = requiresAll(suite('node hosts: a consortium network across two hosts'), ['docker-host', secondHostMissing() ?? imageMissing], ['fabric', fabricMissing]);
let host: SecondDockerHost;
let server: TestServer;
const api = apiOf(() => server);
const made: any[] = [];

t.before(async () => {
  host = await startSecondDockerHost({ images: [PEER_IMAGE, ORDERER_IMAGE] });
  // Chaincode servers run on this machine, at the address the second host reaches it at.
  server = await startServer({ env: consortiumEnv({ LNM_NODE_ENGINE: 'process', LNM_IMAGE_FABRIC_PEER: PEER_IMAGE, LNM_IMAGE_FABRIC_ORDERER: ORDERER_IMAGE, LNM_HOST_CHECK_SECONDS: '2', LNM_CHAINCODE_HOST: host.gateway }) });
});

t.after(async () => {
  for (const n of made.reverse()) await api('DELETE', `/nodes/${n.id}`).catch(() => undefined);
  await server?.stop();
  server?.reapNodes();
  await host?.remove();
});

t('an orderer and a peer per host join one channel, its blocks ordered by both orderers, and the channel is queried', async () => {
  const h = await api('POST', '/hosts', { name: 'second', url: host.url, tls: host.pki });
  assert.is(h.status, 201, h.text);
  const hostId = h.json.id;
  const org = await organization(api, 'HostOrg', 'HostMSP');
  // Ports picked per run: a local node's endpoint must be known before it is created (it is in its certificate).
  const base = 21000 + (process.pid % 400) * 10;
  const local = (port: number) => ({ externalEndpoint: `${host.gateway}:${port}`, domainNames: [host.gateway] });
  const [orderer1, orderer2, peer1, peer2] = await Promise.all([
    node(api, 'host1-orderer', 'CONSORTIUM_ORDERER', org.id, { port: base, adminPort: base + 1, operationsPort: base + 2, ...local(base) }),
    node(api, 'host2-orderer', 'CONSORTIUM_ORDERER', org.id, { hostId }),
    node(api, 'host1-peer', 'CONSORTIUM_PEER', org.id, { port: base + 5, chaincodePort: base + 6, operationsPort: base + 7, ...local(base + 5) }),
    node(api, 'host2-peer', 'CONSORTIUM_PEER', org.id, { hostId }),
  ]);
  made.push(orderer1, orderer2, peer1, peer2);
  for (const n of [orderer2, peer2]) {
    assert.is(n.config.externalEndpoint, `${host.address}:${n.config.port}`);
    assert.is(n.engine, 'docker');
  }
  const remote = host.docker(['ps', '--format', '{{.Names}} {{.Image}}']);
  assert.match(remote, new RegExp(`lnm-node-${peer2.id} ${PEER_IMAGE}`));
  assert.match(remote, new RegExp(`lnm-node-${orderer2.id} ${ORDERER_IMAGE}`));

  const net = await api('POST', '/networks/consortium', { name: 'two-hosts', channelName: 'twohosts', ordererIds: [orderer1.id, orderer2.id], peerIds: [peer1.id, peer2.id] });
  assert.is(net.status, 201, net.text);
  for (const o of [orderer1, orderer2]) assert.is((await api('POST', `/networks/consortium/${net.json.id}/orderers/${o.id}/join`)).status, 200);
  for (const p of [peer1, peer2]) {
    await until(`${p.name} to join`, async () => {
      const j = await api('POST', `/networks/consortium/${net.json.id}/peers/${p.id}/join`);
      return j.status === 200 ? j : null;
    }, 60_000, 1000);
  }
  // Ordered by the two consenters together (raft needs both of two), delivered to both peers.
  await until('the anchor peer update', async () => {
    const a = await api('POST', `/networks/consortium/${net.json.id}/anchor-peers`, { organizationId: 'HostMSP', anchorPeers: [{ host: host.address, port: peer2.config.port }] });
    if (a.status !== 200 && a.status !== 409 && a.status !== 503) assert.unreachable(a.text);
    return a.status === 200 ? a : null;
  }, 90_000, 1000);
  const info = await until('a peer to have block 1', async () => {
    const r = await api('GET', `/networks/consortium/${net.json.id}/info`);
    return r.status === 200 && r.json.height >= 2 ? r.json : null;
  }, 60_000);
  assert.ok(info.height >= 2);
  // The remote peer has block 1 too: its own log says it committed it.
  await until('the remote peer to commit block 1', async () => {
    const logs = await api('GET', `/nodes/${peer2.id}/logs?tail=200`);
    return logs.json.lines.some((l: string) => /\[twohosts\] Committed block \[1\]/.test(l)) ? true : null;
  }, 30_000);
});

t('chaincode is installed on both peers, invoked and queried across the hosts', async () => {
  const network = (await api('GET', '/networks/consortium')).json.items[0];
  const sampleDir = path.join(import.meta.dirname, '..', '..', '..', 'samples', 'chaincode', 'asset-registry');
  const files = ['package.json', 'assetRegistry.ts'].map((p) => ({ path: p, content: readFileSync(path.join(sampleDir, p), 'utf8') }));
  const peers = made.filter((n) => n.nodeType === 'CONSORTIUM_PEER');
  const r = await api('POST', '/sc/consortium/deploy', { networkId: network.id, name: 'assets', version: '1.0', source: { files } });
  assert.is(r.status, 200, r.text);
  assert.equal(r.json.peers.map((p: any) => p.peer_id).sort(), peers.map((p) => p.id).sort());
  assert.is(r.json.commit.status, 'committed');
  const id = r.json.chaincode_id;
  const inv = await api('POST', `/sc/consortium/chaincodes/${id}/invoke`, { function: 'CreateAsset', args: ['asset1', 'blue', '5', 'Tomoko', '300'] });
  assert.is(inv.status, 200, inv.text);
  const read = await api('POST', `/sc/consortium/chaincodes/${id}/query`, { function: 'ReadAsset', args: ['asset1'] });
  assert.is(read.status, 200, read.text);
  assert.match(JSON.stringify(read.json), /Tomoko/);
  // The peer on the second host committed the invoke's block too.
  const height = (await api('GET', `/networks/consortium/${network.id}/info`)).json.height;
  const remote = peers.find((p) => p.config.hostId);
  await until('the remote peer to commit the invoke', async () => {
    const logs = await api('GET', `/nodes/${remote.id}/logs?tail=300`);
    return logs.json.lines.some((l: string) => new RegExp(`\\[twohosts\\] Committed block \\[${height - 1}\\]`).test(l)) ? true : null;
  }, 30_000);
  // With this machine's peer stopped, the query runs on the peer on the second host: its chaincode
  // server is reached from there, at this machine's address.
  const local = peers.find((p) => !p.config.hostId);
  assert.is((await api('POST', `/nodes/${local.id}/stop`)).json.status, 'stopped');
  const remoteRead = await api('POST', `/sc/consortium/chaincodes/${id}/query`, { function: 'ReadAsset', args: ['asset1'] });
  assert.is(remoteRead.status, 200, remoteRead.text);
  assert.match(JSON.stringify(remoteRead.json), /Tomoko/);
});

t.run();
