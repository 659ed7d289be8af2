// The same consortium network once under the docker engine: peers and orderers in containers
// of the local Fabric images that .ci/docker.sh builds from the Fabric programs it finds (no registry), on
// the host network, reading MSP, TLS and config from the bound node directory. Skipped, saying
// why, where no Docker Engine or image is there.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import Docker from 'dockerode';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { dockerSkipReason, imagesMissing } from '../../helpers/dockerAvailability.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { apiOf, consortiumEnv, node, organization, until } from './consortiumApi.ts';

const docker = new Docker();
const images = { LNM_IMAGE_FABRIC_PEER: 'lnm-fabric-peer:local', LNM_IMAGE_FABRIC_ORDERER: 'lnm-fabric-orderer:local' };
// Fabric runs inside the images (.ci/docker.sh builds them from the Fabric programs it finds): no Fabric program on this host is used.
const t = requiresAll(suite('consortium network under the docker engine (local Fabric images)'), ['docker', await dockerSkipReason()], ['fabric-images', await imagesMissing(Object.values(images))]);
let server: TestServer;
const api = apiOf(() => server);
const made: any[] = [];

const ourContainers = (dataDir: string) => docker.listContainers({ all: true, filters: { label: [`lnm.data-dir=${dataDir}`] } });

t.before(async () => {
  server = await startServer({ env: consortiumEnv({ LNM_NODE_ENGINE: 'docker', ...images }) });
});
t.after(async () => {
  if (!server) return;
  for (const n of made) await api('DELETE', `/nodes/${n.id}`).catch(() => undefined);
  await until('containers removed', async () => ((await ourContainers(server.dataDir)).length === 0 ? true : null), 30_000).catch(() => undefined);
  for (const c of await ourContainers(server.dataDir)) await docker.getContainer(c.Id).remove({ force: true }).catch(() => undefined);
  await server.stop();
});

t('an orderer and a peer run in containers, join a channel the service built, and the explorer reads it', async () => {
  const org = await organization(api, 'DockOrg', 'DockMSP');
  const orderer = await node(api, 'dock-orderer', 'CONSORTIUM_ORDERER', org.id);
  const peer = await node(api, 'dock-peer', 'CONSORTIUM_PEER', org.id);
  made.push(orderer, peer);
  assert.is(orderer.engine, 'docker');
  const containers = await ourContainers(server.dataDir);
  assert.is(containers.filter((c) => c.State === 'running').length, 2, JSON.stringify(containers.map((c) => [c.Image, c.State])));
  // The image of the release the peer records (the newest image tagged by version, lnm-fabric-peer:3.1.5), else the configured one.
  const peerImage = peer.fabric_version ? `lnm-fabric-peer:${peer.fabric_version}` : images.LNM_IMAGE_FABRIC_PEER;
  assert.ok(containers.some((c) => c.Image === peerImage), JSON.stringify(containers.map((c) => c.Image)));
  const net = await api('POST', '/networks/consortium', { name: 'dock-net', channelName: 'dockchannel', ordererIds: [orderer.id], peerIds: [peer.id] });
  assert.is(net.status, 201, net.text);
  assert.is((await api('POST', `/networks/consortium/${net.json.id}/orderers/${orderer.id}/join`)).status, 200);
  const joined = await api('POST', `/networks/consortium/${net.json.id}/peers/${peer.id}/join`);
  assert.is(joined.status, 200, joined.text);
  const anchors = await until('the single raft node to order an anchor peer update', async () => {
    const r = await api('POST', `/networks/consortium/${net.json.id}/anchor-peers`, { organizationId: 'DockMSP', anchorPeers: [{ host: '127.0.0.1', port: peer.config.port }] });
    return r.status === 200 ? r : null;
  }, 60_000, 2000);
  assert.is(anchors.json.status, 'updated');
  const info = await until('the peer to have block 1', async () => {
    const r = await api('GET', `/networks/consortium/${net.json.id}/info`);
    return r.status === 200 && r.json.height >= 2 ? r.json : null;
  }, 30_000);
  assert.ok(info.height >= 2);
  const stopped = await api('POST', `/nodes/${peer.id}/stop`);
  assert.is(stopped.json.status, 'stopped');
  const again = await api('POST', `/nodes/${peer.id}/start`);
  assert.is(again.json.status, 'running', again.text);
});

t.run();
