// A rolling upgrade from Fabric 2.5 to 3.1 of docker nodes (issue 37 item 7), on real Docker with
// the per-release images .ci/docker.sh builds (lnm-fabric-peer:2.5.12, lnm-fabric-peer:3.1.5, the
// same of lnm-fabric-orderer): three raft orderers and a peer of Org1, each container on the 2.5
// image, a channel with the sample chaincode (its image) committed and invoked. Channel V3_0 is
// refused naming every 2.5 node (the release each records). Then each node is upgraded in turn
// (POST /nodes/{id}/upgrade): its container is made again from the 3.1 image on the same node
// directory, its own /version says 3.1, its ledger height at least what it was, and an invoke
// commits after each (the channel committing throughout, one node down at a time). Then V3_0 is
// accepted, an invoke commits, and the ledger is intact (an asset written on 2.5 read back,
// block 0's hash unchanged). Skipped, saying why, without a Docker Engine or without the 2.5 and
// 3.1 release images or the chaincode images (a fresh CI machine has none).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestServer } from '../../helpers/server.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { SAMPLE_IMAGE, chaincodeImagesMissing, docker, dockerMissing, ourContainers, releaseImages, startDockerServer, stopDockerServer } from './dockerFabricKit.ts';
import { apiOf, organization, runningNode, until } from './consortiumApi.ts';

const { versions: [v25, v31], missing: releasesMissing } = await releaseImages(['2.5.', '3.1.']);
const t = requiresAll(
  suite('a rolling upgrade of docker nodes, Fabric 2.5 -> 3.1 (release images)'),
  ['docker', dockerMissing],
  ['fabric-release-images', releasesMissing],
  ['chaincode-images', chaincodeImagesMissing],
);
let server: TestServer;
const api = apiOf(() => server);
const channel = 'dockupgrade';
let networkId = 0;
let chaincodeId = 0;
let orderers: any[] = [];
let peer: any;
const configPath = () => `/networks/${networkId}/channels/${channel}/config`;
let setupError: unknown = null;

async function setup() {
  server = await startDockerServer('dup');
  const org1 = await organization(api, 'Org1', 'Org1MSP');
  const on25 = { fabricVersion: v25 };
  orderers = [];
  for (const i of [0, 1, 2]) orderers.push(await runningNode(api, `dup-orderer${i}`, 'CONSORTIUM_ORDERER', org1.id, on25));
  peer = await runningNode(api, 'dup-peer0', 'CONSORTIUM_PEER', org1.id, on25);
  const r = await api('POST', '/networks/consortium', { name: 'dockupgrade', channelName: channel, ordererIds: orderers.map((o) => o.id), peerIds: [peer.id], batchTimeout: '500ms' });
  assert.is(r.status, 201, r.text);
  networkId = r.json.id;
  for (const o of orderers) assert.is((await api('POST', `/networks/consortium/${networkId}/orderers/${o.id}/join`)).status, 200);
  await until('the peer joined', async () => {
    const j = await api('POST', `/networks/consortium/${networkId}/peers/${peer.id}/join`);
    return j.status === 200 ? j : null;
  }, 90_000, 2000);
  const d = await until('the sample chaincode committed', async () => {
    const x = await api('POST', '/sc/consortium/deploy', { networkId, name: 'assets', version: '1', source: { image: SAMPLE_IMAGE } });
    if (x.status !== 200 && x.status !== 503 && x.status !== 409) assert.unreachable(x.text);
    return x.status === 200 ? x : null;
  }, 180_000, 3000);
  assert.is(d.json.commit.status, 'committed', d.text);
  chaincodeId = d.json.chaincode_id;
}

t.before(async () => {
  try {
    await setup();
  } catch (err) {
    setupError = err;
  }
});
// uvu drops a before hook's error: it is thrown again from each test.
t.before.each(() => {
  if (setupError) throw setupError;
});
t.after(() => stopDockerServer(server));

let asset = 0;
/** An invoke committed by the channel (retried while the orderers settle after a restart). */
async function invokes(what: string): Promise<string> {
  const key = `dup-asset${++asset}`;
  const r = await until(`an invoke ${what}`, async () => {
    const x = await api('POST', `/sc/consortium/chaincodes/${chaincodeId}/invoke`, { function: 'CreateAsset', args: [key, 'blue', '5', 'Tomoko', '300'] });
    return x.status === 200 ? x : null;
  }, 120_000, 2000);
  assert.is(r.json.validation_code, 'VALID', r.text);
  return key;
}
const height = async () => {
  const r = await api('GET', `/networks/consortium/${networkId}/info`);
  return r.status === 200 ? Number(r.json.height) : null;
};
const blockHash = async (n: number) => {
  const r = await api('GET', `/networks/consortium/${networkId}/blocks/${n}`);
  assert.is(r.status, 200, r.text);
  return r.json.hash as string;
};
async function runningVersion(operationsPort: number): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${operationsPort}/version`);
  return ((await res.json()) as { Version: string }).Version;
}
const imageOf = async (nodeId: number) => (await ourContainers(server.dataDir)).find((c) => c.Labels['lnm.node'] === `node-${nodeId}`)?.Image;
let firstKey = '';
let hashOn25 = '';

t('on 2.5 V3_0 is refused naming the 2.5 nodes; each node upgraded to 3.1 in turn (its container on the 3.1 image, ledger kept), an invoke committed after each', async () => {
  firstKey = await invokes('on 2.5');
  hashOn25 = await blockHash(0);
  const refused = await api('PUT', configPath(), { capabilities: { channel: 'V3_0' } });
  assert.is(refused.status, 409, refused.text);
  assert.is(refused.json.code, 'CAPABILITY_NODES_BELOW_V3');
  for (const n of [...orderers, peer]) {
    assert.match(refused.json.message, `${n.name} (Fabric ${v25})`);
    assert.is(await imageOf(n.id), `lnm-fabric-${n === peer ? 'peer' : 'orderer'}:${v25}`, n.name);
  }

  for (const n of [...orderers, peer]) {
    const before = (await height())!;
    const r = await api('POST', `/nodes/${n.id}/upgrade`, { fabricVersion: v31 });
    assert.is(r.status, 200, r.text);
    assert.is(r.json.from_version, v25);
    assert.is(r.json.to_version, v31);
    assert.is(r.json.node.fabric_version, v31);
    assert.is(r.json.node.status, 'running');
    assert.is(r.json.channels.length, 1, r.text);
    assert.ok(r.json.channels[0].height >= before, `${n.name}: height ${r.json.channels[0].height}, ${before} before: ${r.text}`);
    assert.is(await imageOf(n.id), `lnm-fabric-${n === peer ? 'peer' : 'orderer'}:${v31}`, n.name);
    assert.is(await runningVersion(n.config.operationsPort), v31);
    await invokes(`after ${n.name} runs ${v31}`);
    assert.ok((await height())! > before, 'the channel committed');
  }
  const audited = await api('GET', '/audit-logs?resource_type=node&limit=200');
  const switches = audited.json.items.filter((e: { before: { fabricVersion?: string } | null; after: { fabricVersion?: string } | null }) => e.before?.fabricVersion === v25 && e.after?.fabricVersion === v31);
  assert.is(switches.length, 4, 'one audited release switch per node');
});

t('all on 3.1: V3_0 accepted, an invoke commits, the ledger written on 2.5 intact', async () => {
  const raised = await api('PUT', configPath(), { capabilities: { channel: 'V3_0' } });
  assert.is(raised.status, 200, raised.text);
  assert.is(raised.json.status, 'updated');
  await invokes('after V3_0');
  const read = await api('POST', `/sc/consortium/chaincodes/${chaincodeId}/query`, { function: 'ReadAsset', args: [firstKey] });
  assert.is(read.status, 200, read.text);
  assert.match(read.text, firstKey);
  assert.is(await blockHash(0), hashOn25);
});

t.run();
