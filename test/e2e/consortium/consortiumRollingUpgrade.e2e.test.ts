// Capabilities and a rolling upgrade from Fabric 2.5 to 3.1 on the real releases (issue 37 items 4
// and 7; LNM_FABRIC_RELEASES with a 2.5 and a 3.1 release, a counted skip without both): a channel
// of three raft orderers (Org1) and a peer of each of two organizations, every node on 2.5.
// Capability changes are checked first: channel V3_0 is refused naming each 2.5 node (also as a
// dry run), a lowered capability is a 400, the levels it has already change nothing.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { fabricReleaseOf } from '../../helpers/programs.ts';
import { requires } from '../../helpers/requirements.ts';
import { apiOf, consortiumEnv, organization, removeConsortiumNodes, runningNode, until } from './consortiumApi.ts';

const r25 = fabricReleaseOf('2.5');
const r31 = fabricReleaseOf('3.1');
const t = requires(suite('channel capabilities and a rolling upgrade 2.5 -> 3.1 (real Fabric)'), 'fabric-releases', !r25.ok ? r25.reason : !r31.ok ? r31.reason : undefined);
const v25 = r25.ok ? r25.release.version : '';
let server: TestServer;
const api = apiOf(() => server);
interface Node { id: number; name: string; config: { port: number; operationsPort: number } }
let orderers: Node[] = [];
let peers: Node[] = [];
let networkId = 0;
const channel = 'upgradechannel';
const configPath = () => `/networks/${networkId}/channels/${channel}/config`;

const height = async () => {
  const r = await api('GET', `/networks/consortium/${networkId}/info`);
  return r.status === 200 ? Number(r.json.height) : null;
};
let toggle = 0;
/** The channel orders: an anchor peer update (alternating its entries) commits a config block a peer then has. */
async function commits(what: string): Promise<number> {
  const before = await until('the height at a peer', height, 60_000, 1000);
  toggle++;
  const anchors = [{ host: '127.0.0.1', port: peers[1].config.port }, ...(toggle % 2 ? [{ host: 'localhost', port: peers[1].config.port }] : [])];
  await until(`an anchor peer update ${what}`, async () => {
    const a = await api('POST', `/networks/consortium/${networkId}/anchor-peers`, { organizationId: 'Org2MSP', anchorPeers: anchors });
    if (a.status !== 200 && a.status !== 503 && a.status !== 409) assert.unreachable(a.text);
    return a.status === 200 && a.json.status === 'updated' ? a : null;
  }, 120_000, 2000);
  return until(`the new config block at a peer ${what}`, async () => {
    const h = (await height()) ?? 0;
    return h > before ? h : null;
  }, 60_000, 1000);
}

t.before(async () => {
  server = await startServer({ env: consortiumEnv({ LNM_FABRIC_RELEASES: `${r25.ok && r25.release.binDir}:${r31.ok && r31.release.binDir}`, LNM_NODE_ENGINE: 'process' }) });
  const org1 = await organization(api, 'Org1', 'Org1MSP');
  const org2 = await organization(api, 'Org2', 'Org2MSP');
  const on25 = { fabricVersion: v25 };
  orderers = [];
  for (const i of [0, 1, 2]) orderers.push(await runningNode(api, `orderer${i}`, 'CONSORTIUM_ORDERER', org1.id, on25));
  peers = [await runningNode(api, 'peer0-org1', 'CONSORTIUM_PEER', org1.id, on25), await runningNode(api, 'peer0-org2', 'CONSORTIUM_PEER', org2.id, on25)];
  const r = await api('POST', '/networks/consortium', { name: 'upgradenet', channelName: channel, ordererIds: orderers.map((o) => o.id), peerIds: peers.map((p) => p.id), batchTimeout: '500ms' });
  assert.is(r.status, 201, r.text);
  networkId = r.json.id;
  for (const o of orderers) assert.is((await api('POST', `/networks/consortium/${networkId}/orderers/${o.id}/join`)).status, 200);
  await until('the orderers to serve the channel', async () => {
    const j = await api('POST', `/networks/consortium/${networkId}/peers/${peers[0].id}/join`);
    return j.status === 200 ? j : null;
  }, 90_000, 1000);
  assert.is((await api('POST', `/networks/consortium/${networkId}/peers/${peers[1].id}/join`)).status, 200);
  await commits('after the joins');
});
t.after(async () => {
  if (!server) return;
  await removeConsortiumNodes(api, server.dataDir);
  await server.stop();
});

t('on 2.5: channel V3_0 is a 409 naming every 2.5 node (dry run too, nothing submitted); lowering is a 400; the levels it has change nothing', async () => {
  const before = await api('GET', configPath());
  assert.is(before.status, 200, before.text);
  const caps = before.json.config.channel_group;
  assert.equal(Object.keys(caps.values.Capabilities.value.capabilities), ['V2_0']);
  assert.equal(Object.keys(caps.groups.Application.values.Capabilities.value.capabilities), ['V2_5']);

  for (const path of [configPath(), `${configPath()}?dry_run=true`]) {
    const refused = await api('PUT', path, { capabilities: { channel: 'V3_0' } });
    assert.is(refused.status, 409, refused.text);
    assert.is(refused.json.code, 'CAPABILITY_NODES_BELOW_V3');
    assert.match(refused.json.message, /Rule capability-v3-nodes/);
    for (const n of [...orderers, ...peers]) assert.match(refused.json.message, `${n.name} (Fabric ${v25})`);
  }
  const lowered = await api('PUT', configPath(), { capabilities: { application: 'V2_0' } });
  assert.is(lowered.status, 400, lowered.text);
  assert.is(lowered.json.code, 'CAPABILITY_LOWERING');
  assert.match(lowered.json.message, /application is V2_5, V2_0 asked/);
  const unknown = await api('PUT', configPath(), { capabilities: { orderer: 'V3_0' } });
  assert.is(unknown.status, 400, unknown.text);
  const same = await api('PUT', configPath(), { capabilities: { channel: 'V2_0', orderer: 'V2_0', application: 'V2_5' } });
  assert.is(same.status, 200, same.text);
  assert.is(same.json.status, 'unchanged');
  assert.equal(same.json.diff, []);
  const after = await api('GET', configPath());
  assert.is(after.json.sequence, before.json.sequence, 'nothing was submitted');
});

t.run();
