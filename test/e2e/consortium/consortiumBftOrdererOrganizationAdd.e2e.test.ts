// An orderer organization added to a BFT channel on real Fabric 3.1 (issue 37 items 3 and 4; a
// counted skip without a 3.1 release: LNM_FABRIC_RELEASES or LNM_FABRIC_BIN). Org1MSP has four
// orderers (four SmartBFT consenters) and the peer; Org2MSP, an organization of this service with
// one orderer, is added to /Channel/Orderer: a signing proposal of kind add_orderer_organization is
// planned against the BFT channel (both admins held here: no proposal needed), a dry run shows
// Org2's group alone (its own Endpoints; BlockValidation and the ConsenterMapping untouched, no
// global orderer addresses), then the update; the channel commits. Org2's orderer joins through
// its channel participation API as a follower and pulls the chain; the channel commits. It is then
// added as consenter through the consenter route (ConsenterMapping id 5 with Org2MSP, BlockValidation
// recomputed); it answers consenter/active and catches up, and the channel commits with five.
// Then one of Org1's consenters (one the genesis block names) is removed: Fabric 3.1.5 would leave
// it halted, still saying consenter; the service removes its channel and joins it again with the
// newest config block: it answers follower, pulls the chain past the next commit and keeps up.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { requires } from '../../helpers/requirements.ts';
import { channelCommits, channelConfigOf, fabric31, fabric31Server, organization, peerHeight, runningNode as node, until } from './consortiumApi.ts';

const t = requires(suite('an orderer organization added to a BFT channel (real Fabric 3.1)'), 'fabric-3', fabric31.skip);
const v31 = fabric31.version;
const { api } = fabric31Server(t);
const channel = 'bftaddchannel';

const orderers: any[] = [];
let org2Orderer: any;
let peer: any;
let networkId = 0;
const base = () => `/networks/consortium/${networkId}/channels/${channel}`;
const config = () => channelConfigOf(api, networkId, channel);
const height = () => peerHeight(api, networkId);
const commits = channelCommits(api, () => networkId, 'Org1MSP', () => peer.config.port, height);
const relationOf = async (o: { id: number }) => (await api('POST', `/networks/consortium/${networkId}/orderers/${o.id}/join`)).json?.orderer;
/** A config change retried while the orderers settle (503). */
async function submitted(what: string, call: () => Promise<{ status: number; text: string; json: any }>) {
  return until(what, async () => {
    const x = await call();
    if (x.status !== 200 && x.status !== 503) assert.unreachable(x.text);
    return x.status === 200 ? x : null;
  }, 120_000, 3000);
}

t('a BFT channel of four consenters of Org1; Org2 has an orderer but is no organization of the channel', async () => {
  const org1 = await organization(api, 'Org1', 'Org1MSP');
  const org2 = await organization(api, 'Org2', 'Org2MSP');
  for (const i of [0, 1, 2, 3]) orderers.push(await node(api, `bfta-orderer${i}`, 'CONSORTIUM_ORDERER', org1.id, { fabricVersion: v31 }));
  org2Orderer = await node(api, 'bfta-orderer-org2', 'CONSORTIUM_ORDERER', org2.id, { fabricVersion: v31 });
  peer = await node(api, 'bfta-peer', 'CONSORTIUM_PEER', org1.id, { fabricVersion: v31 });
  const r = await api('POST', '/networks/consortium', { name: 'bfta', channelName: channel, consensus: 'smartbft', ordererIds: orderers.map((o) => o.id), peerIds: [peer.id] });
  assert.is(r.status, 201, r.text);
  networkId = r.json.id;
  for (const o of orderers) {
    const j = await api('POST', `/networks/consortium/${networkId}/orderers/${o.id}/join`);
    assert.is(j.status, 200, j.text);
    assert.is(j.json.orderer.consensus_relation, 'consenter', j.text);
  }
  await until('the peer joined', async () => ((await api('POST', `/networks/consortium/${networkId}/peers/${peer.id}/join`)).status === 200 ? true : null), 90_000, 2000);
  await commits('on the new channel');
  const c = await config();
  assert.equal(Object.keys(c.group.groups.Orderer.groups), ['Org1MSP']);
  const notYet = await api('POST', `/networks/consortium/${networkId}/orderers/${org2Orderer.id}/join`);
  assert.is(notYet.status, 400, `Org2 is no orderer organization yet: ${notYet.text}`);
});

t('Org2 added as orderer organization (proposal planned, dry run, then the update); its orderer joins as a follower and pulls the chain; the channel commits after each', async () => {
  const endpoint = org2Orderer.config.externalEndpoint as string;
  const c0 = await config();
  const proposed = await api('POST', '/nodesharing/proposals', { network_id: networkId, change: { type: 'add_orderer_organization', msp_id: 'Org2MSP', endpoints: [endpoint] } });
  assert.is(proposed.status, 400, proposed.text);
  assert.equal(proposed.json.details, [{ field: 'change', message: 'no signature missing' }], `the proposal is planned and prepared against the BFT channel: ${proposed.text}`);

  const dry = await api('POST', `${base()}/orderer-organizations?dry_run=true`, { msp_id: 'Org2MSP', endpoints: [endpoint] });
  assert.is(dry.status, 200, dry.text);
  assert.is(dry.json.status, 'dry_run');
  const paths: string[] = dry.json.diff.map((d: { path: string }) => d.path);
  assert.equal(paths, ['channel_group.groups.Orderer.groups.Org2MSP'], 'Org2\'s group alone: BlockValidation, the ConsenterMapping and the channel\'s values untouched');
  assert.equal(dry.json.diff[0].after.values.Endpoints.value.addresses, [endpoint]);
  assert.is((await config()).sequence, c0.sequence, 'a dry run submits nothing');

  const added = await submitted('Org2 added as orderer organization', () => api('POST', `${base()}/orderer-organizations`, { msp_id: 'Org2MSP', endpoints: [endpoint] }));
  assert.is(added.json.status, 'updated', added.text);
  assert.equal(added.json.diff, dry.json.diff);
  const c1 = await config();
  assert.equal(Object.keys(c1.group.groups.Orderer.groups).sort(), ['Org1MSP', 'Org2MSP']);
  assert.is(c1.group.values.OrdererAddresses, undefined, 'V3_0: no global orderer addresses');
  assert.equal(c1.group.groups.Orderer.values.Orderers.value.consenter_mapping.length, 4);
  const network = await api('GET', `/networks/consortium/${networkId}`);
  assert.equal(network.json.orderer_organizations.map((o: { msp_id: string }) => o.msp_id).sort(), ['Org1MSP', 'Org2MSP']);
  const audit = (await api('GET', '/audit-logs?action=NETWORK_UPDATE&limit=100')).json.items as Array<{ after: { change?: { kind?: string; organization?: { mspId?: string } } } | null }>;
  assert.ok(audit.some((e) => e.after?.change?.kind === 'addOrdererOrganization' && e.after.change.organization?.mspId === 'Org2MSP'), 'audited');
  await commits('with Org2 an orderer organization');

  const j = await api('POST', `/networks/consortium/${networkId}/orderers/${org2Orderer.id}/join`);
  assert.is(j.status, 200, j.text);
  assert.is(j.json.orderer.consensus_relation, 'follower', j.text);
  const target = await until('the height at the peer', height, 60_000, 1000);
  await until('Org2\'s orderer to pull the chain', async () => {
    const o = await relationOf(org2Orderer);
    return o?.status === 'active' && o.height >= target ? o : null;
  }, 180_000, 2000);
  await commits('with Org2\'s orderer a follower');
});

t('Org2\'s orderer added as consenter (id 5, Org2MSP, BlockValidation recomputed): consenter/active, caught up; the channel commits with five consenters', async () => {
  const dry = await api('POST', `${base()}/consenters?dry_run=true`, { nodeId: org2Orderer.id });
  assert.is(dry.status, 200, dry.text);
  const entry = dry.json.diff.find((d: { path: string; before: unknown }) => d.path.endsWith('consenter_mapping[]') && d.before === null);
  assert.equal([entry?.after.id, entry?.after.msp_id, entry?.after.port], [5, 'Org2MSP', org2Orderer.config.port], dry.text);
  assert.ok(dry.json.diff.some((d: { path: string }) => d.path.startsWith('channel_group.groups.Orderer.policies.BlockValidation')), dry.text);
  const r = await submitted('Org2\'s orderer added as consenter', () => api('POST', `${base()}/consenters`, { nodeId: org2Orderer.id }));
  assert.is(r.json.status, 'updated', r.text);
  const c = await config();
  assert.equal(c.group.groups.Orderer.values.Orderers.value.consenter_mapping.map((m: { msp_id: string }) => m.msp_id), ['Org1MSP', 'Org1MSP', 'Org1MSP', 'Org1MSP', 'Org2MSP']);
  assert.is(c.group.groups.Orderer.policies.BlockValidation.policy.value.identities.length, 5);
  await until('Org2\'s orderer a consenter', async () => {
    const o = await relationOf(org2Orderer);
    return o?.consensus_relation === 'consenter' && o.status === 'active' ? o : null;
  }, 180_000, 2000);
  const h = await commits('with five consenters');
  await until(`Org2's orderer at height ${h}`, async () => (((await relationOf(org2Orderer))?.height ?? 0) >= h ? true : null), 120_000, 2000);
  const listed = await api('GET', `${base()}/consenters`);
  assert.is(listed.status, 200, listed.text);
  const mine = listed.json.consenters.find((x: { node_id: number | null }) => x.node_id === org2Orderer.id);
  assert.equal([mine?.bft_id, mine?.consensus_relation, mine?.certificate_current], [5, 'consenter', true], listed.text);
});

t('an Org1 consenter of the genesis block removed: rejoined from the newest config block as a follower, it keeps up; the channel commits with four', async () => {
  const removed = orderers[3];
  const r = await submitted(`${removed.name} removed from the consenters`, () => api('DELETE', `${base()}/consenters/${removed.id}`));
  assert.is(r.json.status, 'updated', r.text);
  assert.is(r.json.rejoined?.consensus_relation, 'follower', r.text);
  assert.is(r.json.rejoined.steps.length, 2, r.text);
  assert.match(r.json.rejoined.steps[1], `joined again with block ${r.json.block_number}`);
  const c = await config();
  assert.is(c.group.groups.Orderer.values.Orderers.value.consenter_mapping.length, 4);
  const h = await commits('with four consenters');
  await until(`${removed.name} a follower at height ${h}`, async () => {
    const o = await relationOf(removed);
    return o?.consensus_relation === 'follower' && o.status === 'active' && o.height >= h ? o : null;
  }, 180_000, 2000);
  const h2 = await commits('again, the follower keeping up');
  await until(`${removed.name} at height ${h2}`, async () => (((await relationOf(removed))?.height ?? 0) >= h2 ? true : null), 120_000, 2000);
  const audit = (await api('GET', '/audit-logs?action=NETWORK_UPDATE&limit=200')).json.items as unknown[];
  assert.ok(audit.some((e) => JSON.stringify(e).includes('Fabric 3.1.5 leaves a removed BFT consenter halted')), 'the leave before the rejoin is audited with its steps');
});

t.run();
