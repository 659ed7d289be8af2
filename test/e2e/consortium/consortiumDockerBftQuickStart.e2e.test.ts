// The consortium quick start with `engine: docker` and `consensus: smartbft`, run by itself on a
// fresh server (issue 37 item 2 under the docker engine): the same calls, in the same order, as
// the console's quick start (web/src/pages/networks/ConsortiumQuickStart.tsx): the check first
// (POST /networks/consortium/quickstart/check with engine docker and smartbft: 204, nothing made),
// two organizations, four orderers spread over them and a peer each as docker containers of the
// newest Fabric 3.1 image release, the BFT network, every orderer joined as an active consenter,
// the peers joined, each organization's anchor peer; then the sample chaincode from its image
// committed, invoked and queried (chaincode answering). Skipped, saying why, without a Docker
// Engine or without Fabric 3.1 images (a fresh CI machine has neither).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestServer } from '../../helpers/server.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { SAMPLE_IMAGE, chaincodeImagesMissing, dockerMissing, ourContainers, releaseImages, startDockerServer, stopDockerServer, dockerReleases } from './dockerFabricKit.ts';
import { apiOf, channelConfigOf, runningNode, until } from './consortiumApi.ts';

const { versions: [v31], missing: v31Missing } = await releaseImages(['3.1.']);
const releases = dockerReleases;
const t = requiresAll(suite('the consortium quick start with engine docker and consensus smartbft, by itself (Fabric 3.1 images)'), ['docker', dockerMissing], ['fabric-3-images', v31Missing], ['chaincode-images', chaincodeImagesMissing]);
let server: TestServer;
const api = apiOf(() => server);
t.before(async () => {
  server = await startDockerServer('dqs');
});
t.after(() => stopDockerServer(server));

t('checked, then two organizations, four docker orderers and two docker peers, the BFT channel joined and anchored, the sample chaincode answering', async () => {
  assert.is(releases[0], v31, 'the newest image release is 3.1 (the quick start\'s nodes take the newest)');
  const name = 'qs-dock-bft';
  const channel = 'qsdockbft';
  const msps = ['Org1MSP', 'Org2MSP'];
  const planned = [
    { name: 'qsd-orderer0', nodeType: 'CONSORTIUM_ORDERER', msp: 'Org1MSP' }, { name: 'qsd-orderer1', nodeType: 'CONSORTIUM_ORDERER', msp: 'Org2MSP' },
    { name: 'qsd-orderer2', nodeType: 'CONSORTIUM_ORDERER', msp: 'Org1MSP' }, { name: 'qsd-orderer3', nodeType: 'CONSORTIUM_ORDERER', msp: 'Org2MSP' },
    { name: 'qsd-peer0', nodeType: 'CONSORTIUM_PEER', msp: 'Org1MSP' }, { name: 'qsd-peer1', nodeType: 'CONSORTIUM_PEER', msp: 'Org2MSP' },
  ] as const;
  const check = await api('POST', '/networks/consortium/quickstart/check', {
    name, channelName: channel, organizations: msps.map((m) => ({ name: m.replace('MSP', ''), mspId: m })), nodes: planned.map((n) => ({ name: n.name, nodeType: n.nodeType })), engine: 'docker', consensus: 'smartbft',
  });
  assert.is(check.status, 204, check.text);
  assert.is((await api('GET', '/organizations')).json.total, 0, 'the check made nothing');

  const orgs: Record<string, number> = {};
  for (const m of msps) {
    const o = await api('POST', '/organizations', { name: m.replace('MSP', ''), mspId: m });
    assert.is(o.status, 201, o.text);
    orgs[m] = o.json.id;
  }
  const made: Record<string, any> = {};
  for (const n of planned) {
    made[n.name] = await runningNode(api, n.name, n.nodeType, orgs[n.msp]);
    assert.is(made[n.name].engine, 'docker', n.name);
    assert.is(made[n.name].fabric_version, v31, n.name);
  }
  const orderers = planned.filter((n) => n.nodeType === 'CONSORTIUM_ORDERER').map((n) => made[n.name]);
  const peers = planned.filter((n) => n.nodeType === 'CONSORTIUM_PEER').map((n) => made[n.name]);
  const r = await api('POST', '/networks/consortium', { name, channelName: channel, consensus: 'smartbft', ordererIds: orderers.map((o) => o.id), peerIds: peers.map((p) => p.id) });
  assert.is(r.status, 201, r.text);
  const nid = r.json.id;
  assert.equal(r.json.ordering, { orderers: 4, running: 4, faults_tolerated: 1, quorum: 3, can_order: true, reason: null });
  for (const o of orderers) {
    const j = await api('POST', `/networks/consortium/${nid}/orderers/${o.id}/join`);
    assert.is(j.status, 200, j.text);
    assert.is(j.json.orderer.consensus_relation, 'consenter', `${o.name}: ${j.text}`);
  }
  // Retried while the channel forms, as the console's quick start does.
  for (const p of peers) await until(`${p.name} joined`, async () => ((await api('POST', `/networks/consortium/${nid}/peers/${p.id}/join`)).status === 200 ? true : null), 120_000, 2000);
  for (const [i, m] of msps.entries()) {
    const earlier: string[] = [];
    const anchored = await until(`the anchor peer of ${m}`, async () => {
      const a = await api('POST', `/networks/consortium/${nid}/anchor-peers`, { organizationId: m, anchorPeers: [{ host: '127.0.0.1', port: peers[i].config.port }] });
      if (a.status !== 200 && a.status !== 409 && a.status !== 503) assert.unreachable(a.text);
      if (a.status !== 200) earlier.push(`${a.status} ${a.json?.code ?? ''}`);
      return a.status === 200 ? a : null;
    }, 120_000, 2000);
    // A retry after an answer that came before the update was seen committed (a 503 while the BFT
    // orderers settle) finds it there: unchanged, which is what the retry must say.
    assert.ok(anchored.json.status === 'updated' || (earlier.length > 0 && anchored.json.status === 'unchanged'), `${anchored.text} after ${JSON.stringify(earlier)}`);
    const { group } = await channelConfigOf(api, nid, channel);
    assert.equal(group.groups.Application.groups[m].values.AnchorPeers.value.anchor_peers, [{ host: '127.0.0.1', port: peers[i].config.port }]);
  }

  const d = await api('POST', '/sc/consortium/deploy', { networkId: nid, name: 'assets', version: '1', source: { image: SAMPLE_IMAGE } });
  assert.is(d.status, 200, d.text);
  assert.is(d.json.commit.status, 'committed');
  const invoked = await api('POST', `/sc/consortium/chaincodes/${d.json.chaincode_id}/invoke`, { function: 'CreateAsset', args: ['qs-asset1', 'blue', '5', 'Tomoko', '300'], organization: 'Org1MSP' });
  if (invoked.status !== 200) {
    // What the chaincode servers were doing then (state, ports, log tail), for the failure's message.
    const servers = ((await api('GET', '/nodes/platform/CONSORTIUM?limit=100')).json.items as any[]).filter((n) => n.nodeType === 'CONSORTIUM_CHAINCODE' || n.node_type === 'CONSORTIUM_CHAINCODE');
    const said = await Promise.all(servers.map(async (n) => ({ name: n.name, status: n.status, config: n.config, log: (await api('GET', `/nodes/${n.id}/logs?lines=20`)).text.slice(-1500) })));
    assert.unreachable(`${invoked.text}\nchaincode servers: ${JSON.stringify(said)}\ncontainers: ${JSON.stringify((await ourContainers(server.dataDir)).map((c) => [c.Names, c.Image, c.State, c.Ports]))}`);
  }
  assert.is(invoked.json.validation_code, 'VALID');
  const read = await api('POST', `/sc/consortium/chaincodes/${d.json.chaincode_id}/query`, { function: 'ReadAsset', args: ['qs-asset1'], organization: 'Org2MSP' });
  assert.is(read.status, 200, read.text);
  assert.match(read.text, 'Tomoko');
});

t.run();
