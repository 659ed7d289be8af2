// The first part of a cross-instance consortium, with real Fabric 2.5.12 on two instances: B's
// organization, known to A through node sharing (its public MSP), is added to A's channel by a
// config update A's admin signs; B syncs, sees the channel, records it from the block 0 A shared
// and joins its own peer, which then pulls A's chain from A's orderer: its ledger holds the
// config block that added B's organization. Then a chaincode defined on A, with an endorsement
// policy that needs both organizations, is shared with B, installed and approved there (B's own
// chaincode server and package), committed by A with B's peer among the endorsers, and invoked:
// peers of both instances endorse, and the asset is read on both instances.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { SignJWT, decodeJwt, generateKeyPair } from 'jose';
import { postPinned } from '../../../adapters/sharing/sharingTls.ts';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { fabricMissing } from '../../helpers/fabric.ts';
import { requires } from '../../helpers/requirements.ts';
import { apiOf, consortiumEnv, node, organization, until } from '../consortium/consortiumApi.ts';

const t = requires(suite('a channel of instance A joined by a peer of instance B through node sharing (real Fabric 2.5.12)'), 'fabric', fabricMissing);
let a: TestServer;
let b: TestServer;
const apiA = apiOf(() => a);
const apiB = apiOf(() => b);
const made: Array<{ api: typeof apiA; id: number }> = [];
let peerA: any;
let peerB: any;

t.before(async () => {
  const env = consortiumEnv({ LNM_SHARING_PORT: '0' });
  // Two instances on one host: their chaincode servers take ports from ranges apart (and away
  // from 9100, where other test runs on this host start theirs).
  [a, b] = await Promise.all([startServer({ env: { ...env, LNM_CHAINCODE_PORT_FROM: '9540' } }), startServer({ env: { ...env, LNM_CHAINCODE_PORT_FROM: '9740' } })]);
});
t.after(async () => {
  for (const n of made.reverse()) await n.api('DELETE', `/nodes/${n.id}`).catch(() => undefined);
  for (const [api, s] of [[apiA, a], [apiB, b]] as const) {
    if (!s) continue;
    // Chaincode servers are nodes too (a network's deletion leaves them): removed here as well.
    for (const n of (await api('GET', '/nodes/platform/CONSORTIUM?limit=100')).json?.items ?? []) await api('DELETE', `/nodes/${n.id}`).catch(() => undefined);
    await until('every node removed', async () => ((await api('GET', '/nodes/platform/CONSORTIUM')).json?.total === 0 ? true : null), 30_000).catch(() => undefined);
  }
  await new Promise((r) => setTimeout(r, 1000));
  await Promise.all([a?.stop(), b?.stop()]);
});

t('B\'s organization is added to A\'s channel through sharing, and B\'s peer joins it and receives A\'s blocks', async () => {
  const orgA = await organization(apiA, 'CrossOrgA', 'CrossOrgAMSP');
  const ordererA = await node(apiA, 'cross-orderer-a', 'CONSORTIUM_ORDERER', orgA.id);
  made.push({ api: apiA, id: ordererA.id });
  peerA = await node(apiA, 'cross-peer-a', 'CONSORTIUM_PEER', orgA.id);
  made.push({ api: apiA, id: peerA.id });
  let r = await apiA('POST', '/networks/consortium', { name: 'cross-channel', channelName: 'crosschannel', ordererIds: [ordererA.id], peerIds: [peerA.id] });
  assert.is(r.status, 201, r.text);
  const networkA = r.json;
  assert.is((await apiA('POST', `/networks/consortium/${networkA.id}/orderers/${ordererA.id}/join`)).status, 200);
  assert.is((await apiA('POST', `/networks/consortium/${networkA.id}/peers/${peerA.id}/join`)).status, 200);

  const orgB = await organization(apiB, 'CrossOrgB', 'CrossOrgBMSP');
  peerB = await node(apiB, 'cross-peer-b', 'CONSORTIUM_PEER', orgB.id);
  made.push({ api: apiB, id: peerB.id });

  // Sharing, both ways: A now knows B's organization (certificates only).
  const inv = await apiA('POST', '/nodesharing/invitations', { bidirectional: true });
  assert.is(inv.status, 201, inv.text);
  r = await apiB('POST', '/nodesharing/accept', { invitation_jwt: inv.json.invitation_jwt, fingerprint: inv.json.key_fingerprint });
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

const sampleDir = path.join(import.meta.dirname, '..', '..', '..', 'samples', 'chaincode', 'asset-registry');
const sample = ['package.json', 'assetRegistry.ts'].map((p) => ({ path: p, content: readFileSync(path.join(sampleDir, p), 'utf8') }));
const BOTH = "AND('CrossOrgAMSP.peer','CrossOrgBMSP.peer')";

t('a chaincode defined on A is shared with B, approved by B\'s organization there, committed by A, and endorsed by peers of both instances', async () => {
  const networkA = (await apiA('GET', '/networks/consortium')).json.items.find((n: any) => n.channel_name === 'crosschannel');
  const networkB = (await apiB('GET', '/networks/consortium')).json.items.find((n: any) => n.channel_name === 'crosschannel');
  const peerOnA = (await apiA('GET', '/nodesharing/peers')).json.items[0];
  // A's peer is its organization's anchor (A's admin alone signs that): B's peer gossips with it,
  // so A's gateway discovers B's peer as an endorser.
  let r = await until('A\'s anchor peer', async () => {
    const u = await apiA('POST', `/networks/consortium/${networkA.id}/anchor-peers`, { organizationId: 'CrossOrgAMSP', anchorPeers: [{ host: '127.0.0.1', port: peerA.config.port }] });
    if (u.status !== 200 && u.status !== 409 && u.status !== 503) assert.unreachable(u.text);
    return u.status === 200 ? u : null;
  }, 60_000, 1000);
  assert.equal(r.json.signed_by, ['CrossOrgAMSP']);
  assert.is((await apiA('POST', '/nodesharing/sync', { peer_node_id: peerOnA.id })).status, 200);

  // A defines the chaincode, installs it on its peer and approves it for its organization.
  r = await apiA('POST', '/sc/consortium/chaincodes', { networkId: networkA.id, name: 'xassets', version: '1.0', endorsementPolicy: BOTH, source: { files: sample } });
  assert.is(r.status, 201, r.text);
  const ccA = r.json;
  assert.is(ccA.shared_from, null);
  r = await apiA('POST', `/sc/consortium/peer/${peerA.id}/chaincode/install`, { chaincodeId: ccA.id });
  assert.is(r.status, 200, r.text);
  const packageA = r.json.package_id;
  r = await apiA('POST', `/sc/consortium/peer/${peerA.id}/chaincode/approve`, { chaincodeId: ccA.id });
  assert.is(r.status, 200, r.text);
  assert.is(r.json.status, 'approved');
  // MAJORITY of two organizations: A cannot commit alone, and is told whose approval is missing.
  r = await apiA('POST', `/sc/consortium/peer/${peerA.id}/chaincode/commit`, { chaincodeId: ccA.id });
  assert.is(r.status, 409, r.text);
  assert.is(r.json.code, 'APPROVALS_MISSING');
  assert.match(r.json.message, 'CrossOrgBMSP');

  // A shares the definition with B; B lists it as shared from A, with the same definition.
  r = await apiA('POST', '/nodesharing/chaincodes', { chaincode_id: ccA.id });
  assert.is(r.status, 201, r.text);
  assert.is(r.json.peer_id, peerOnA.id);
  const ccBId = r.json.peer_chaincode_id;
  assert.ok(Number.isInteger(ccBId), r.text);
  assert.is((await apiA('POST', '/nodesharing/chaincodes', { chaincode_id: ccA.id })).json.peer_chaincode_id, ccBId, 'sharing again changes nothing on B');
  const listedB = (await apiB('GET', `/sc/consortium/chaincodes?networkId=${networkB.id}`)).json.items;
  assert.is(listedB.length, 1, JSON.stringify(listedB));
  const ccB = listedB[0];
  assert.is(ccB.id, ccBId);
  assert.equal([ccB.name, ccB.version, ccB.sequence, ccB.endorsement_policy, ccB.init_required, ccB.collections, ccB.status], ['xassets', '1.0', 1, BOTH, false, null, 'registered']);
  const aOnB = (await apiB('GET', '/nodesharing/peers')).json.items[0];
  assert.equal(ccB.shared_from, { peer_id: aOnB.id, instance_id: aOnB.instance_id, chaincode_id: ccA.id });
  // B cannot share back what it received.
  assert.is((await apiB('POST', '/nodesharing/chaincodes', { chaincode_id: ccB.id })).status, 400);

  // B's instance-to-instance route refuses an unsigned request, and one claiming to be A signed by another key.
  const claimsB = decodeJwt((await apiB('POST', '/nodesharing/invitations', {})).json.invitation_jwt);
  const shareBody = { chaincodeId: ccA.id, channelName: 'crosschannel', name: 'intruded', version: '1', sequence: 1, endorsementPolicy: null, initRequired: false, collections: null, files: sample };
  const unsigned = await postPinned(String(claimsB.url), String(claimsB.tls_certificate), '/sharing/v1/chaincodes', shareBody, null);
  assert.is(unsigned.status, 401, JSON.stringify(unsigned.body));
  const { privateKey } = await generateKeyPair('ES256');
  const forged = await new SignJWT({ bh: createHash('sha256').update(JSON.stringify(shareBody)).digest('base64url'), sub: claimsB.iss }).setProtectedHeader({ alg: 'ES256' })
    .setIssuer(ccB.shared_from.instance_id).setAudience('lnm-nodesharing-peer').setIssuedAt().setExpirationTime('1m').sign(privateKey);
  const forgedShare = await postPinned(String(claimsB.url), String(claimsB.tls_certificate), '/sharing/v1/chaincodes', shareBody, forged);
  assert.is(forgedShare.status, 401, JSON.stringify(forgedShare.body));
  assert.is((await apiB('GET', '/sc/consortium/chaincodes')).json.total, 1, 'nothing recorded from refused requests');

  // B installs on its own peer (its own chaincode server, so another package id) and approves for its organization.
  r = await apiB('POST', `/sc/consortium/peer/${peerB.id}/chaincode/install`, { chaincodeId: ccB.id });
  assert.is(r.status, 200, r.text);
  assert.match(r.json.package_id, /^xassets_1\.0:[0-9a-f]{64}$/);
  assert.is.not(r.json.package_id, packageA, 'each instance runs its own chaincode server');
  r = await apiB('POST', `/sc/consortium/peer/${peerB.id}/chaincode/approve`, { chaincodeId: ccB.id });
  assert.is(r.status, 200, r.text);
  assert.is(r.json.status, 'approved');
  assert.is(r.json.msp_id, 'CrossOrgBMSP');

  // A commits: B's peer endorses the commit too (MAJORITY Endorsement of two).
  r = await apiA('POST', `/sc/consortium/peer/${peerA.id}/chaincode/commit`, { chaincodeId: ccA.id });
  assert.is(r.status, 200, r.text);
  assert.is(r.json.status, 'committed');
  assert.equal([...r.json.approved_by].sort(), ['CrossOrgAMSP', 'CrossOrgBMSP']);
  // B was told: its peer saw the commit, B recorded it and started its own chaincode server.
  assert.equal(r.json.shared_with.map((x: any) => [x.peer_id, x.status, x.server_status, x.error]), [[peerOnA.id, 'server-started', 'running', null]], r.text);
  const ccBNow = (await apiB('GET', `/sc/consortium/chaincodes?networkId=${networkB.id}`)).json.items[0];
  assert.is(ccBNow.status, 'committed');
  assert.is((await apiB('GET', `/nodes/${ccBNow.server_node_id}`)).json.status, 'running');
  // B's own commit call changes nothing more.
  r = await apiB('POST', `/sc/consortium/peer/${peerB.id}/chaincode/commit`, { chaincodeId: ccB.id });
  assert.is(r.status, 200, r.text);
  assert.is(r.json.status, 'already-committed');
  assert.is(r.json.server_status, 'running');

  // The invoke needs both organizations' endorsements (AND): VALID means peers of both instances endorsed.
  r = await until('an invoke endorsed by both instances (once gossip tells A\'s peer about B\'s)', async () => {
    const x = await apiA('POST', `/sc/consortium/chaincodes/${ccA.id}/invoke`, { function: 'CreateAsset', args: ['x1', 'green', '3', 'Ada', '120'], organization: 'CrossOrgAMSP', endorsingOrganizations: ['CrossOrgAMSP', 'CrossOrgBMSP'] });
    if (x.status === 200) return x;
    if (x.status !== 409 && x.status !== 503) assert.unreachable(x.text);
    console.log(`  (invoke not yet: ${x.status} ${x.json?.message?.slice(0, 200)})`);
    return null;
  }, 90_000, 3000);
  assert.is(r.json.validation_code, 'VALID', r.text);
  const tx = await apiA('GET', `/networks/consortium/${networkA.id}/transactions/${r.json.tx_id}`);
  assert.is(tx.json.validation_code, 'VALID');
  // Readable on both instances, each through its own peer and identity.
  const onB = await until('B\'s peer to commit the invoke', async () => {
    const q = await apiB('POST', `/sc/consortium/chaincodes/${ccB.id}/query`, { function: 'ReadAsset', args: ['x1'], organization: 'CrossOrgBMSP' });
    return q.status === 200 ? q : null;
  }, 30_000, 1000);
  assert.is(onB.json.msp_id, 'CrossOrgBMSP');
  assert.equal(onB.json.result_json, { id: 'x1', color: 'green', size: 3, owner: 'Ada', value: 120 });
  const onA = await apiA('POST', `/sc/consortium/chaincodes/${ccA.id}/query`, { function: 'ReadAsset', args: ['x1'], organization: 'CrossOrgAMSP' });
  assert.is(onA.json.result_json.owner, 'Ada');

  const sharing = async (api: typeof apiA) => (await api('GET', '/audit-logs?limit=500')).json.items.map((e: any) => e.event).filter((x: any) => String(x).startsWith('sharing.chaincode.'));
  assert.equal(await sharing(apiA), ['sharing.chaincode.shared'], 'shared once: the repeat was no news on B');
  assert.equal(await sharing(apiB), ['sharing.chaincode.received']);
});

t.run();
