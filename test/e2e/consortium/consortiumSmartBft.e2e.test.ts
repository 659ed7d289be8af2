// SmartBFT (issue 37 item 2) on real Fabric 3.1 orderers and peers (a counted skip without a 3.1
// release: LNM_FABRIC_RELEASES or LNM_FABRIC_BIN): refusals first (fewer than 4 orderers; an
// orderer on Fabric 2.5), then a BFT channel of 4 orderers across 2 organizations with a peer
// each, built by the service (Orderer type BFT, ConsenterMapping, V3_0): every osnadmin join
// answers consenter/active, the sample chaincode is deployed and invoked; one orderer stopped: the
// channel still commits; two stopped: it does not, and the network's ordering health says so;
// both back: the channel commits again and they catch up to the peers' height.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { fabricReleaseOf } from '../../helpers/programs.ts';
import { requires } from '../../helpers/requirements.ts';
import { apiOf, consortiumEnv, organization, removeConsortiumNodes, runningNode as node, until } from './consortiumApi.ts';

const r31 = fabricReleaseOf('3.1');
const r25 = fabricReleaseOf('2.5');
const t = requires(suite('SmartBFT channel of 4 orderers (real Fabric 3.1)'), 'fabric-3', r31.ok ? undefined : r31.reason);
const v31 = r31.ok ? r31.release.version : '';
let server: TestServer;
const api = apiOf(() => server);

const sampleDir = path.join(import.meta.dirname, '..', '..', '..', 'samples', 'chaincode', 'asset-registry');
const sample = ['package.json', 'assetRegistry.ts'].map((p) => ({ path: p, content: readFileSync(path.join(sampleDir, p), 'utf8') }));

t.before(async () => {
  const releases = [r25, r31].flatMap((r) => (r.ok ? [r.release.binDir] : [])).join(':');
  server = await startServer({ env: consortiumEnv({ LNM_FABRIC_RELEASES: releases, LNM_NODE_ENGINE: 'process' }) });
});
t.after(async () => {
  if (!server) return;
  await removeConsortiumNodes(api, server.dataDir);
  await server.stop();
});

let org1: any;
let org2: any;
const orderers: any[] = [];
let peer1: any;
let peer2: any;
let network: any;
let chaincodeId: number;

const heightOf = async (nodeId: number, channel: string): Promise<number | null> =>
  ((await api('GET', `/nodes/${nodeId}`)).json.networks as Array<{ channel_name: string; block_height?: number | null }>).find((n) => n.channel_name === channel)?.block_height ?? null;

const invoke = (key: string) => api('POST', `/sc/consortium/chaincodes/${chaincodeId}/invoke`, { function: 'CreateAsset', args: [key, 'blue', '5', 'Tomoko', '300'], organization: 'Org1MSP' });

t('refused up front: smartbft with 3 orderers (4 tolerate one fault), and with an orderer on Fabric 2.5', async () => {
  org1 = await organization(api, 'Org1', 'Org1MSP');
  org2 = await organization(api, 'Org2', 'Org2MSP');
  for (const [i, org] of [org1, org1, org2, org2].entries()) orderers.push(await node(api, `bft-orderer${i}`, 'CONSORTIUM_ORDERER', org.id, { fabricVersion: v31 }));
  peer1 = await node(api, 'bft-peer-org1', 'CONSORTIUM_PEER', org1.id, { fabricVersion: v31 });
  peer2 = await node(api, 'bft-peer-org2', 'CONSORTIUM_PEER', org2.id, { fabricVersion: v31 });
  for (const o of orderers) assert.is(o.fabric_version, v31);

  const three = await api('POST', '/networks/consortium', { name: 'bft3', channelName: 'bftthree', consensus: 'smartbft', ordererIds: orderers.slice(0, 3).map((o) => o.id), peerIds: [peer1.id] });
  assert.is(three.status, 400, three.text);
  assert.match(three.json.message, 'smartbft needs at least 4 orderers');
  assert.match(three.json.message, '3 tolerate 0 and 4 tolerate one');
  const badOption = await api('POST', '/networks/consortium', { name: 'bftopt', channelName: 'bftopt', consensus: 'smartbft', ordererIds: orderers.map((o) => o.id), peerIds: [peer1.id], smartBftOptions: { requestForwardTimeout: '30s' } });
  assert.is(badOption.status, 400, badOption.text);
  assert.is(badOption.json.details[0].field, 'smartBftOptions.requestForwardTimeout');
  if (r25.ok) {
    const old = await node(api, 'bft-orderer-25', 'CONSORTIUM_ORDERER', org1.id, { fabricVersion: r25.release.version });
    const mixed = await api('POST', '/networks/consortium', { name: 'bft25', channelName: 'bftold', consensus: 'smartbft', ordererIds: [...orderers.slice(0, 3).map((o) => o.id), old.id], peerIds: [peer1.id] });
    assert.is(mixed.status, 400, mixed.text);
    assert.match(mixed.json.message, `orderer bft-orderer-25 runs Fabric ${r25.release.version}; smartbft needs Fabric 3.0 or newer orderers`);
    assert.is((await api('DELETE', `/nodes/${old.id}`)).status, 204);
  }
  assert.is((await api('GET', '/networks/consortium')).json.total, 0, 'nothing recorded');
});

t('a BFT channel of 4 orderers across 2 organizations: every orderer joins as an active consenter, both peers join', async () => {
  const r = await api('POST', '/networks/consortium', { name: 'bft', channelName: 'bftchannel', consensus: 'smartbft', ordererIds: orderers.map((o) => o.id), peerIds: [peer1.id, peer2.id] });
  assert.is(r.status, 201, r.text);
  network = r.json;
  assert.is(network.consensus, 'smartbft');
  assert.equal(network.ordering, { orderers: 4, running: 4, faults_tolerated: 1, quorum: 3, can_order: true, reason: null });
  for (const o of orderers) {
    const j = await api('POST', `/networks/consortium/${network.id}/orderers/${o.id}/join`);
    assert.is(j.status, 200, j.text);
    assert.is(j.json.orderer.consensus_relation, 'consenter', `${o.name}: ${j.text}`);
    assert.is(j.json.orderer.status, 'active', `${o.name}: ${j.text}`);
  }
  for (const p of [peer1, peer2]) {
    await until(`${p.name} joined`, async () => {
      const j = await api('POST', `/networks/consortium/${network.id}/peers/${p.id}/join`);
      return j.status === 200 ? j : null;
    }, 90_000, 2000);
  }
  for (const [msp, p] of [['Org1MSP', peer1], ['Org2MSP', peer2]] as const) {
    await until(`anchor peer of ${msp}`, async () => {
      const a = await api('POST', `/networks/consortium/${network.id}/anchor-peers`, { organizationId: msp, anchorPeers: [{ host: '127.0.0.1', port: p.config.port }] });
      // Retried while the orderers settle (409, 503 until then); anything else is the answer.
      if (a.status !== 200 && a.status !== 409 && a.status !== 503) assert.unreachable(a.text);
      if (a.status !== 200) throw new Error(a.text);
      return a;
    }, 90_000, 2000);
  }
});

t('the sample chaincode deployed and invoked through the BFT orderers', async () => {
  const d = await api('POST', '/sc/consortium/deploy', { networkId: network.id, name: 'assets', version: '1.0', source: { files: sample } });
  assert.is(d.status, 200, d.text);
  assert.is(d.json.commit.status, 'committed');
  chaincodeId = d.json.chaincode_id;
  const r = await invoke('asset1');
  assert.is(r.status, 200, r.text);
  assert.is(r.json.validation_code, 'VALID');
});

t('one orderer stopped: the channel still commits; two stopped: it does not and the ordering health says so; both back: it commits and they catch up', async () => {
  const [, , o2, o3] = orderers;
  assert.is((await api('POST', `/nodes/${o3.id}/stop`)).json.status, 'stopped');
  const one = await invoke('asset2');
  assert.is(one.status, 200, one.text);
  assert.is(one.json.validation_code, 'VALID');
  assert.equal((await api('GET', `/networks/consortium/${network.id}`)).json.ordering.can_order, true);

  assert.is((await api('POST', `/nodes/${o2.id}/stop`)).json.status, 'stopped');
  const health = (await api('GET', `/networks/consortium/${network.id}`)).json.ordering;
  assert.is(health.can_order, false);
  assert.is(health.running, 2);
  assert.match(health.reason, '2 of 4 SmartBFT orderers run, 3 are needed; not running: bft-orderer2, bft-orderer3');
  const before = await heightOf(peer1.id, 'bftchannel');
  const none = await invoke('asset3');
  assert.is.not(none.status, 200, `committed with two of four orderers down: ${none.text}`);
  assert.ok(none.status < 600);
  assert.is(await heightOf(peer1.id, 'bftchannel'), before, 'no block was cut');

  for (const o of [o2, o3]) assert.is((await api('POST', `/nodes/${o.id}/start`)).json.status, 'running');
  assert.is((await api('GET', `/networks/consortium/${network.id}`)).json.ordering.can_order, true);
  const again = await until('the channel to commit again', async () => {
    const r = await invoke('asset4');
    return r.status === 200 ? r : null;
  }, 180_000, 3000);
  assert.is(again.json.validation_code, 'VALID');
  const target = await heightOf(peer1.id, 'bftchannel');
  assert.ok(target !== null && target > before!, `peer height ${target} after ${before}`);
  for (const o of [o2, o3]) await until(`${o.name} caught up to ${target}`, async () => ((await heightOf(o.id, 'bftchannel')) ?? 0) >= target!, 120_000, 2000);
  const read = await api('POST', `/sc/consortium/chaincodes/${chaincodeId}/query`, { function: 'ReadAsset', args: ['asset2'], organization: 'Org2MSP' });
  assert.is(read.status, 200, read.text);
});

t.run();
