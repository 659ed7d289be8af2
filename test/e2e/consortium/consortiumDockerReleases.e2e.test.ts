// Fabric releases under the docker engine (issue 37 item 1) and a SmartBFT channel on docker
// orderers (item 2): .ci/docker.sh builds a peer and an orderer image per Fabric release it finds,
// tagged by version (lnm-fabric-peer:3.1.5); a docker node records the release it runs (default
// the newest image release, a version without images is a 400 naming those there are) and runs
// that release's image. Then 4 orderers of 2 organizations and a peer, all Fabric 3.1 containers:
// a BFT channel built by the service, every orderer joined as an active consenter, the peer
// joined and a config update (anchor peer) committed, then the sample chaincode (its image)
// committed and invoked, and invoked again with one of the four orderers stopped; with a second
// one stopped the channel does not commit and the network's ordering health says which are not
// running; both started, it commits again and they catch up. Skipped, saying why, without a Docker
// Engine or without Fabric 3.1 images (a fresh CI machine has neither).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestServer } from '../../helpers/server.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { SAMPLE_IMAGE, chaincodeImagesMissing, docker, dockerMissing, ourContainers, releaseImages, startDockerServer, stopDockerServer, dockerReleases } from './dockerFabricKit.ts';
import { apiOf, organization, runningNode as node, until } from './consortiumApi.ts';

const { versions: [v31], missing: v31Missing } = await releaseImages(['3.1.']);
const releases = dockerReleases;
const t = requiresAll(suite('Fabric releases and SmartBFT under the docker engine (Fabric 3.1 images)'), ['docker', dockerMissing], ['fabric-3-images', v31Missing], ['chaincode-images', chaincodeImagesMissing]);
let server: TestServer;
const api = apiOf(() => server);
t.before(async () => {
  server = await startDockerServer('dbft');
});
t.after(() => stopDockerServer(server));

let org1: any;
let org2: any;
const orderers: any[] = [];
let peer: any;
let bftNetwork: any;
let chaincodeId = 0;
const invoke = (key: string) => api('POST', `/sc/consortium/chaincodes/${chaincodeId}/invoke`, { function: 'CreateAsset', args: [key, 'blue', '5', 'Tomoko', '300'] });
/** The node's block height on the BFT channel, as GET /nodes/{id} says (null before it has one). */
const heightOf = async (nodeId: number): Promise<number | null> =>
  ((await api('GET', `/nodes/${nodeId}`)).json.networks as Array<{ channel_name: string; block_height?: number | null }>).find((n) => n.channel_name === 'dockbft')?.block_height ?? null;

t('a docker node records the release it runs: the newest image release by default, the one asked for, a 400 naming those there are', async () => {
  const defaults = await api('GET', '/nodes/defaults/consortium-orderer');
  assert.is(defaults.status, 200, defaults.text);
  assert.equal(defaults.json.dockerFabricReleases, releases);
  org1 = await organization(api, 'Org1', 'Org1MSP');
  org2 = await organization(api, 'Org2', 'Org2MSP');
  const absent = await api('POST', '/nodes', { name: 'no-such-release', platform: 'CONSORTIUM', nodeType: 'CONSORTIUM_ORDERER', organizationId: org1.id, config: { fabricVersion: '9.9.9' } });
  assert.is(absent.status, 400, absent.text);
  assert.match(absent.json.message, `Fabric 9.9.9 is not among the releases available for the docker engine: ${releases.join(', ')}`);
  assert.is(absent.json.details[0].field, 'fabricVersion');
  assert.is((await api('GET', '/nodes/platform/CONSORTIUM')).json.total, 0, 'nothing recorded');

  const newest = await node(api, 'dock-bft-orderer0', 'CONSORTIUM_ORDERER', org1.id);
  assert.is(newest.engine, 'docker');
  assert.is(newest.fabric_version, releases[0]);
  assert.is((await api('GET', `/nodes/${newest.id}`)).json.fabric_version, releases[0]);
  orderers.push(newest);
  for (const [i, org] of [org1, org2, org2].entries()) orderers.push(await node(api, `dock-bft-orderer${i + 1}`, 'CONSORTIUM_ORDERER', org.id, { fabricVersion: v31 }));
  peer = await node(api, 'dock-bft-peer', 'CONSORTIUM_PEER', org1.id, { fabricVersion: v31 });
  for (const n of [...orderers.slice(1), peer]) assert.is(n.fabric_version, v31, n.name);
  const containers = await ourContainers(server.dataDir);
  assert.is(containers.filter((c) => c.State === 'running').length, 5, JSON.stringify(containers.map((c) => [c.Image, c.State])));
  assert.ok(containers.some((c) => c.Image === `lnm-fabric-peer:${v31}`), JSON.stringify(containers.map((c) => c.Image)));
  assert.is(containers.filter((c) => c.Image === `lnm-fabric-orderer:${v31}`).length, releases[0] === v31 ? 4 : 3);
});

t('a SmartBFT channel on 4 docker orderers (Fabric 3.1 images): every orderer an active consenter, the peer joined, a config update committed', async () => {
  assert.is(releases[0], v31, 'the newest image release is 3.1 (the first orderer runs it)');
  const r = await api('POST', '/networks/consortium', { name: 'dock-bft', channelName: 'dockbft', consensus: 'smartbft', ordererIds: orderers.map((o) => o.id), peerIds: [peer.id] });
  assert.is(r.status, 201, r.text);
  const network = r.json;
  assert.is(network.consensus, 'smartbft');
  assert.equal(network.ordering, { orderers: 4, running: 4, faults_tolerated: 1, quorum: 3, can_order: true, reason: null });
  for (const o of orderers) {
    const j = await api('POST', `/networks/consortium/${network.id}/orderers/${o.id}/join`);
    assert.is(j.status, 200, j.text);
    assert.is(j.json.orderer.consensus_relation, 'consenter', `${o.name}: ${j.text}`);
    assert.is(j.json.orderer.status, 'active', `${o.name}: ${j.text}`);
  }
  await until('the peer joined', async () => {
    const j = await api('POST', `/networks/consortium/${network.id}/peers/${peer.id}/join`);
    return j.status === 200 ? j : null;
  }, 90_000, 2000);
  const anchors = await until('the anchor peer update ordered by the BFT orderers', async () => {
    const a = await api('POST', `/networks/consortium/${network.id}/anchor-peers`, { organizationId: 'Org1MSP', anchorPeers: [{ host: '127.0.0.1', port: peer.config.port }] });
    // Retried while the orderers settle (409, 503 until then); anything else is the answer.
    if (a.status !== 200 && a.status !== 409 && a.status !== 503) assert.unreachable(a.text);
    return a.status === 200 ? a : null;
  }, 120_000, 2000);
  assert.is(anchors.json.status, 'updated', anchors.text);
  const info = await until('the peer to have the config block', async () => {
    const i = await api('GET', `/networks/consortium/${network.id}/info`);
    return i.status === 200 && i.json.height >= 2 ? i.json : null;
  }, 60_000, 1000);
  assert.ok(info.height >= 2, JSON.stringify(info));
  bftNetwork = network;
});

t('chaincode from the sample image committed and invoked through the docker BFT orderers; one orderer stopped: it still commits', async () => {
  const d = await api('POST', '/sc/consortium/deploy', { networkId: bftNetwork.id, name: 'assets', version: '1', source: { image: SAMPLE_IMAGE } });
  assert.is(d.status, 200, d.text);
  assert.is(d.json.commit.status, 'committed');
  chaincodeId = d.json.chaincode_id;
  const first = await invoke('dock-asset1');
  assert.is(first.status, 200, first.text);
  assert.is(first.json.validation_code, 'VALID');
  assert.is((await api('POST', `/nodes/${orderers[3].id}/stop`)).json.status, 'stopped');
  const second = await until('a commit with one of four orderers stopped', async () => {
    const r = await invoke('dock-asset2');
    return r.status === 200 ? r : null;
  }, 90_000, 3000);
  assert.is(second.json.validation_code, 'VALID');
  const read = await api('POST', `/sc/consortium/chaincodes/${d.json.chaincode_id}/query`, { function: 'ReadAsset', args: ['dock-asset2'] });
  assert.is(read.status, 200, read.text);
});

t('two of the four docker orderers stopped: the channel does not commit and the network\'s ordering health says so; both started: it commits again and they catch up', async () => {
  assert.ok(chaincodeId, 'the chaincode of the test before');
  const [, , o2, o3] = orderers;
  assert.is((await api('POST', `/nodes/${o2.id}/stop`)).json.status, 'stopped');
  const health = (await api('GET', `/networks/consortium/${bftNetwork.id}`)).json.ordering;
  assert.is(health.can_order, false, JSON.stringify(health));
  assert.is(health.running, 2);
  assert.match(health.reason, `2 of 4 SmartBFT orderers run, 3 are needed; not running: ${o2.name}, ${o3.name}`);
  const before = await heightOf(peer.id);
  assert.ok(before !== null && before > 0, `peer height ${before}`);
  const none = await invoke('dock-asset3');
  assert.is.not(none.status, 200, `committed with two of four orderers stopped: ${none.text}`);
  assert.ok(none.status >= 400 && none.status < 600, none.text);
  assert.is(await heightOf(peer.id), before, 'no block was cut');

  for (const o of [o2, o3]) assert.is((await api('POST', `/nodes/${o.id}/start`)).json.status, 'running', o.name);
  assert.equal((await api('GET', `/networks/consortium/${bftNetwork.id}`)).json.ordering, { orderers: 4, running: 4, faults_tolerated: 1, quorum: 3, can_order: true, reason: null });
  const again = await until('the channel to commit again', async () => {
    const r = await invoke('dock-asset4');
    return r.status === 200 ? r : null;
  }, 180_000, 3000);
  assert.is(again.json.validation_code, 'VALID');
  const target = await heightOf(peer.id);
  assert.ok(target !== null && target > before!, `peer height ${target} after ${before}`);
  for (const o of [o2, o3]) await until(`${o.name} caught up to ${target}`, async () => ((await heightOf(o.id)) ?? 0) >= target!, 120_000, 2000);
  const read = await api('POST', `/sc/consortium/chaincodes/${chaincodeId}/query`, { function: 'ReadAsset', args: ['dock-asset4'] });
  assert.is(read.status, 200, read.text);
});

t.run();
