// The first part of a cross-instance consortium, with real Fabric 2.5.12 on two instances: B's
// organization, known to A through node sharing (its public MSP), is added to A's channel by a
// config update A's admin signs; B syncs, sees the channel, records it from the block 0 A shared
// and joins its own peer, which then pulls A's chain from A's orderer: its ledger holds the
// config block that added B's organization.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { fabricSkipReason } from '../../helpers/fabric.ts';
import { apiOf, consortiumEnv, node, organization, until } from '../consortium/consortiumApi.ts';

const t = suite('a channel of instance A joined by a peer of instance B through node sharing (real Fabric 2.5.12)');
const skip = fabricSkipReason();
let a: TestServer;
let b: TestServer;
const apiA = apiOf(() => a);
const apiB = apiOf(() => b);
const made: Array<{ api: typeof apiA; id: number }> = [];

t.before(async () => {
  if (skip) return;
  const env = consortiumEnv({ LNM_SHARING_PORT: '0' });
  [a, b] = await Promise.all([startServer({ env }), startServer({ env })]);
});
t.after(async () => {
  for (const n of made.reverse()) await n.api('DELETE', `/nodes/${n.id}`).catch(() => undefined);
  for (const [api, s] of [[apiA, a], [apiB, b]] as const) {
    if (!s) continue;
    await until('every node removed', async () => ((await api('GET', '/nodes/platform/CONSORTIUM')).json?.total === 0 ? true : null), 30_000).catch(() => undefined);
  }
  await new Promise((r) => setTimeout(r, 1000));
  await Promise.all([a?.stop(), b?.stop()]);
});

t('B\'s organization is added to A\'s channel through sharing, and B\'s peer joins it and receives A\'s blocks', async () => {
  if (skip) return console.log(`  (skipped: ${skip})`);
  const orgA = await organization(apiA, 'CrossOrgA', 'CrossOrgAMSP');
  const ordererA = await node(apiA, 'cross-orderer-a', 'CONSORTIUM_ORDERER', orgA.id);
  made.push({ api: apiA, id: ordererA.id });
  const peerA = await node(apiA, 'cross-peer-a', 'CONSORTIUM_PEER', orgA.id);
  made.push({ api: apiA, id: peerA.id });
  let r = await apiA('POST', '/networks/consortium', { name: 'cross-channel', channelName: 'crosschannel', ordererIds: [ordererA.id], peerIds: [peerA.id] });
  assert.is(r.status, 201, r.text);
  const networkA = r.json;
  assert.is((await apiA('POST', `/networks/consortium/${networkA.id}/orderers/${ordererA.id}/join`)).status, 200);
  assert.is((await apiA('POST', `/networks/consortium/${networkA.id}/peers/${peerA.id}/join`)).status, 200);

  const orgB = await organization(apiB, 'CrossOrgB', 'CrossOrgBMSP');
  const peerB = await node(apiB, 'cross-peer-b', 'CONSORTIUM_PEER', orgB.id);
  made.push({ api: apiB, id: peerB.id });

  // Sharing, both ways: A now knows B's organization (certificates only).
  const inv = await apiA('POST', '/nodesharing/invitations', { bidirectional: true });
  assert.is(inv.status, 201, inv.text);
  r = await apiB('POST', '/nodesharing/accept', { invitation_jwt: inv.json.invitation_jwt });
  assert.is(r.status, 201, r.text);
  const peerOnB = r.json.id;
  assert.equal(r.json.networks, [], 'B is in none of A\'s channels yet');
  const onA = (await apiA('GET', '/nodesharing/peers')).json.items[0];
  assert.ok(onA.organizations.includes('CrossOrgBMSP'), JSON.stringify(onA.organizations));

  // A adds B's organization to its channel: a config update A's admin signs (MAJORITY of one).
  r = await until('the channel config update (once A\'s orderer has a raft leader)', async () => {
    const u = await apiA('PUT', `/networks/${networkA.id}/channels/crosschannel/config`, { organizations: ['CrossOrgAMSP', 'CrossOrgBMSP'] });
    return u.status === 200 ? u : null;
  }, 60_000, 2000);
  assert.is(r.json.status, 'updated', r.text);
  assert.equal(r.json.signed_by, ['CrossOrgAMSP']);
  const config = await apiA('GET', `/networks/consortium/${networkA.id}/channel-config`);
  assert.ok(Object.keys(config.json.config.channel_group.groups.Application.groups).includes('CrossOrgBMSP'));

  // B syncs: the channel is now shared with it; B records it and joins its peer.
  r = await apiB('POST', '/nodesharing/sync', { peer_node_id: peerOnB });
  assert.is(r.status, 200, r.text);
  const shared = r.json.networks.find((n: any) => n.channel_name === 'crosschannel');
  assert.ok(shared, JSON.stringify(r.json.networks));
  assert.equal(shared.organizations, ['CrossOrgAMSP', 'CrossOrgBMSP']);
  r = await apiB('POST', `/nodesharing/peers/${peerOnB}/networks/${shared.network_id}/import`, {});
  assert.is(r.status, 201, r.text);
  const networkB = r.json.network_id;
  r = await apiB('POST', `/networks/consortium/${networkB}/peers/${peerB.id}/join`);
  assert.is(r.status, 200, r.text);

  // B's peer pulls A's chain from A's orderer: block 1 is the update that added B's organization.
  const info = await until('B\'s peer to catch up with A\'s channel', async () => {
    const i = await apiB('GET', `/networks/consortium/${networkB}/info`);
    return i.status === 200 && Number(i.json.height) >= 2 ? i.json : null;
  }, 90_000, 1000);
  const infoA = (await apiA('GET', `/networks/consortium/${networkA.id}/info`)).json;
  assert.is(info.current_block_hash ?? info.currentBlockHash, infoA.current_block_hash ?? infoA.currentBlockHash, `${JSON.stringify(info)} vs ${JSON.stringify(infoA)}`);
  assert.is((await apiB('POST', '/nodesharing/sync', { peer_node_id: peerOnB })).status, 200);
  // The share is on record on both sides under its public event names (audit log, webhooks).
  const sharedOnA = (await apiA('GET', '/audit-logs?limit=500')).json.items.filter((e: any) => (e.event ?? e.details?.event) === 'sharing.network.shared');
  const receivedOnB = (await apiB('GET', '/audit-logs?limit=500')).json.items.filter((e: any) => (e.event ?? e.details?.event) === 'sharing.network.received');
  assert.is(sharedOnA.length, 1, 'shared once, however often B syncs');
  assert.is(receivedOnB.length, 1);
  const block1 = await apiB('GET', `/networks/consortium/${networkB}/blocks/1`);
  assert.is(block1.status, 200, block1.text);
  assert.match(block1.text, /"CONFIG"/, block1.text.slice(0, 800));
});

t('a policy change that needs B\'s admin travels to B as a proposal, is signed there, and A submits it', async () => {
  if (skip) return;
  const networkA = (await apiA('GET', '/networks/consortium')).json.items.find((n: any) => n.channel_name === 'crosschannel');
  const networkB = (await apiB('GET', '/networks/consortium')).json.items.find((n: any) => n.channel_name === 'crosschannel');
  const policies = { Endorsement: { type: 'ImplicitMeta', rule: 'ANY Endorsement' } };
  // With two organizations, MAJORITY Admins needs both: A alone cannot change the channel.
  let r = await apiA('PUT', `/networks/${networkA.id}/channels/crosschannel/config`, { policies });
  assert.is(r.status, 409, r.text);
  assert.equal(r.json.missingOrganizations ?? r.json.context?.missingOrganizations ?? r.json.extra?.missingOrganizations, ['CrossOrgBMSP'], r.text);

  r = await apiA('POST', '/nodesharing/proposals', { network_id: networkA.id, policies, description: 'endorsement by any organization' });
  assert.is(r.status, 201, r.text);
  assert.equal(r.json.missing_organizations, ['CrossOrgBMSP']);
  const proposalId = r.json.proposal_id;
  r = await apiA('POST', `/nodesharing/proposals/${proposalId}/submit`);
  assert.is(r.status, 409, r.text);
  assert.is(r.json.code, 'SIGNATURES_MISSING');

  const onB = (await apiB('GET', '/nodesharing/proposals')).json.items;
  assert.equal(onB.map((p: any) => [p.id, p.role, p.status, p.channel_name, p.description]), [[proposalId, 'signer', 'awaiting-signatures', 'crosschannel', 'endorsement by any organization']]);
  assert.equal(onB[0].changes, ['/Channel/Application/policies/Endorsement'], 'B sees what it signs, decoded from the update itself');
  r = await apiB('POST', `/nodesharing/proposals/${proposalId}/sign`);
  assert.is(r.status, 200, r.text);
  assert.equal(r.json.signed_by, ['CrossOrgBMSP']);
  assert.is((await apiB('POST', `/nodesharing/proposals/${proposalId}/sign`)).status, 409, 'signed once');

  const before = (await apiA('GET', `/networks/consortium/${networkA.id}/channel-config`)).json.sequence;
  r = await apiA('POST', `/nodesharing/proposals/${proposalId}/submit`);
  assert.is(r.status, 200, r.text);
  assert.equal([...r.json.signed_by].sort(), ['CrossOrgAMSP', 'CrossOrgBMSP']);
  assert.ok(r.json.sequence > before);
  const config = (await apiA('GET', `/networks/consortium/${networkA.id}/channel-config`)).json.config;
  assert.match(JSON.stringify(config.channel_group.groups.Application.policies.Endorsement), 'ANY');
  // B's peer receives the new config block from A's orderer too.
  await until('B\'s peer to receive the config block', async () => {
    const i = await apiB('GET', `/networks/consortium/${networkB.id}/info`);
    return i.status === 200 && Number(i.json.height) >= r.json.block_number + 1 ? true : null;
  }, 60_000, 1000);
  const events = async (api: typeof apiA) => (await api('GET', '/audit-logs?limit=500')).json.items.map((e: any) => e.event).filter((x: any) => String(x).startsWith('sharing.')).sort();
  assert.equal(await events(apiA), ['sharing.network.shared', 'sharing.proposal.shared', 'sharing.signature.received']);
  assert.equal(await events(apiB), ['sharing.network.received', 'sharing.proposal.received', 'sharing.signature.shared']);
});

t.run();
