// Capabilities and a rolling upgrade from Fabric 2.5 to 3.1 on the real releases (issue 37 items 4
// and 7; LNM_FABRIC_RELEASES with a 2.5 and a 3.1 release, a counted skip without both): a channel
// of three raft orderers (Org1) and a peer of each of two organizations, every node on 2.5.
// Capability changes are checked first: channel V3_0 is refused naming each 2.5 node (also as a
// dry run), a lowered capability is a 400, the levels it has already change nothing. Then every
// node is upgraded to 3.1 one at a time (POST /nodes/{id}/upgrade): a second upgrade while one is
// under way is a 409, as is one while another node of the channel is stopped; after each node the
// node's own /version says 3.1, its ledger height equals the channel's and the channel commits a
// new block. Then V3_0 (dry run: the diff, nothing submitted; then submitted) is accepted, the
// channel still commits, and the ledger is intact (heights kept, the first blocks read with the
// hashes they had on 2.5). Each switch is audited (the node's config change, 2.5 -> 3.1).
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
const v31 = r31.ok ? r31.release.version : '';
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

/** What the node's own operations endpoint says it runs. */
async function runningVersion(operationsPort: number): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${operationsPort}/version`);
  return ((await res.json()) as { Version: string }).Version;
}
const blockHash = async (n: number) => {
  const r = await api('GET', `/networks/consortium/${networkId}/blocks/${n}`);
  assert.is(r.status, 200, r.text);
  return r.json.hash as string;
};
let hashesOn25: string[] = [];

t('every node upgraded to 3.1 one at a time, the channel committing after each; refusals first', async () => {
  hashesOn25 = [await blockHash(0), await blockHash(1)];
  const wrong = await api('POST', `/nodes/${peers[0].id}/upgrade`, { fabricVersion: '2.4.9' });
  assert.is(wrong.status, 400, wrong.text);
  assert.match(wrong.json.message, `Fabric 2.4.9 is not among the releases this service finds`);
  const same = await api('POST', `/nodes/${peers[0].id}/upgrade`, { fabricVersion: v25 });
  assert.is(same.status, 409, same.text);

  // One node down at a time: with a peer stopped, no orderer of its channel is upgraded.
  assert.is((await api('POST', `/nodes/${peers[1].id}/stop`)).status, 200);
  await until('the peer stopped', async () => ((await api('GET', `/nodes/${peers[1].id}`)).json.status === 'stopped' ? true : null), 60_000);
  const down = await api('POST', `/nodes/${orderers[0].id}/upgrade`, { fabricVersion: v31 });
  assert.is(down.status, 409, down.text);
  assert.is(down.json.code, 'NODES_DOWN');
  assert.match(down.json.message, `${peers[1].name} (stopped)`);
  assert.is((await api('GET', `/nodes/${orderers[0].id}`)).json.fabric_version, v25, 'nothing changed');
  assert.is((await api('POST', `/nodes/${peers[1].id}/start`)).status, 200);
  await until('the peer running', async () => ((await api('GET', `/nodes/${peers[1].id}`)).json.status === 'running' ? true : null), 60_000);

  for (const [i, n] of [...orderers, ...peers].entries()) {
    const upgrade = api('POST', `/nodes/${n.id}/upgrade`, { fabricVersion: v31 });
    if (i === 0) {
      // While the first upgrade holds the node down, another is refused.
      await until(`${n.name} going down`, async () => (['stopping', 'stopped', 'starting'].includes((await api('GET', `/nodes/${n.id}`)).json.status) ? true : null), 60_000, 100);
      const second = await api('POST', `/nodes/${peers[0].id}/upgrade`, { fabricVersion: v31 });
      assert.is(second.status, 409, second.text);
      assert.is(second.json.code, 'UPGRADE_IN_PROGRESS');
      assert.match(second.json.message, n.name);
    }
    const r = await upgrade;
    assert.is(r.status, 200, r.text);
    assert.is(r.json.from_version, v25);
    assert.is(r.json.to_version, v31);
    assert.is(r.json.node.fabric_version, v31);
    assert.is(r.json.node.status, 'running');
    assert.is(r.json.channels.length, 1, r.text);
    assert.is(r.json.channels[0].channel_name, channel);
    assert.ok(r.json.channels[0].height >= r.json.channels[0].channel_height, r.text);
    assert.is(await runningVersion(n.config.operationsPort), v31);
    await commits(`after ${n.name} runs ${v31}`);
  }
  const audited = await api('GET', '/audit-logs?resource_type=node&limit=200');
  assert.is(audited.status, 200, audited.text);
  const switches = audited.json.items.filter((e: { before: { fabricVersion?: string } | null; after: { fabricVersion?: string } | null }) => e.before?.fabricVersion === v25 && e.after?.fabricVersion === v31);
  assert.is(switches.length, 5, 'one audited release switch per node');
});

t('all on 3.1: channel V3_0 accepted (dry run first), the channel commits, the ledger is intact', async () => {
  const before = await api('GET', configPath());
  const dry = await api('PUT', `${configPath()}?dry_run=true`, { capabilities: { channel: 'V3_0' } });
  assert.is(dry.status, 200, dry.text);
  assert.is(dry.json.status, 'dry_run');
  assert.equal(dry.json.diff, [
    { path: 'channel_group.values.Capabilities.value.capabilities.V2_0', before: {}, after: null },
    { path: 'channel_group.values.Capabilities.value.capabilities.V3_0', before: null, after: {} },
  ]);
  assert.equal(dry.json.missing_organizations, []);
  assert.is((await api('GET', configPath())).json.sequence, before.json.sequence, 'a dry run submits nothing');
  const heightBefore = (await height())!;
  const raised = await api('PUT', configPath(), { capabilities: { channel: 'V3_0' } });
  assert.is(raised.status, 200, raised.text);
  assert.is(raised.json.status, 'updated');
  assert.ok(raised.json.sequence > before.json.sequence);
  const after = await api('GET', configPath());
  assert.equal(Object.keys(after.json.config.channel_group.values.Capabilities.value.capabilities), ['V3_0']);
  const h = await commits('after V3_0');
  assert.ok(h >= heightBefore + 2, `height ${h} after ${heightBefore}: the capability block and a commit`);
  assert.equal([await blockHash(0), await blockHash(1)], hashesOn25);
  const lowered = await api('PUT', configPath(), { capabilities: { channel: 'V2_0' } });
  assert.is(lowered.status, 400, lowered.text);
});

t.run();
