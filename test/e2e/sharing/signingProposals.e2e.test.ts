// Signatures collected for channel changes, on real Fabric 2.5.12 with two instances: A holds
// organization A (and the orderer), B holds organizations B and C, all three application
// organizations of A's channel, whose /Channel/Application/Admins is MAJORITY (2 of 3).
// - The policy is evaluated first: a change A alone cannot make is refused naming B and C
//   (required A, B, C; held A; one more needed), in the 409 and in the dry run.
// - Across instances: a policy change proposed by A (signed by A at once) travels to B, which
//   signs it with B only; with 1 signature the submit is refused naming the missing ones, with
//   2 (one collected from B) it is accepted and the channel's config carries it.
// - Within A: an anchor-peer change of C (needs C's admin, a key A does not hold) is kept for
//   uploads; C's operator signs the downloaded update elsewhere (B's key API signs header ||
//   update with C's admin key: a detached ConfigSignature); a damaged and a high-S signature are
//   400s naming why, the good one is verified and added once (a second is a 409), and the
//   orderer accepts the update with it.
// - ACLs and orderer policies are carried by a proposal as every change type (item 4).
// - An MSP update of B (a new root and an intermediate CA), needing B's Admins only, proposed on
//   A (which signs nothing), signed on B, submitted on A: the channel's MSP of B carries them.
//   Orderer organization kinds go through their routes' rules (last one: 409; endpoints checked).
// - An orderer organization of B: A adds B's organization to /Channel/Orderer (A's orderer Admins
//   sign that alone); then /Channel/Orderer/Admins needs B too, and B's endpoints (its own Admins)
//   are proposed on A, signed on B, submitted on A and read back from the channel config.
// - A proposal whose channel config moved on since it was prepared is refused as stale.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { common, msp } from '@hyperledger/fabric-protos';
import { p256 } from '@noble/curves/nist';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { fabricMissing } from '../../helpers/fabric.ts';
import { requires } from '../../helpers/requirements.ts';
import { apiOf, consortiumEnv, node, organization, until } from '../consortium/consortiumApi.ts';
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { testOrganization } from '../../helpers/fabric.ts';
import { issueCertificate } from '../../../adapters/x509/certificateBuilder.ts';
import { organizationCaProfile } from '../../../adapters/x509/certificateProfiles.ts';

const t = requires(suite('channel changes signed by 2 of 3 organizations: policy first, proposals across and within instances (real Fabric 2.5.12)'), 'fabric', fabricMissing);
let a: TestServer;
let b: TestServer;
const apiA = apiOf(() => a);
const apiB = apiOf(() => b);
const made: Array<{ api: typeof apiA; id: number }> = [];
const channel = 'sigchannel';
let networkId: number;
let orgC: { id: number; mspId: string; adminKeyId: number };

const N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;

t.after(async () => {
  for (const n of made.reverse()) await n.api('DELETE', `/nodes/${n.id}`).catch(() => undefined);
  for (const [api, s] of [[apiA, a], [apiB, b]] as const) {
    if (!s) continue;
    await until('every node removed', async () => ((await api('GET', '/nodes/platform/CONSORTIUM')).json?.total === 0 ? true : null), 30_000).catch(() => undefined);
  }
  await Promise.all([a?.stop(), b?.stop()]);
  for (const s of [a, b]) s?.reapNodes();
});

t('three organizations in A\'s channel, B and C held by instance B', async () => {
  // Started here, not in a before hook (uvu drops a hook's error); a loaded host starts slowly.
  const env = consortiumEnv({ LNM_SHARING_PORT: '0' });
  a = await startServer({ env: { ...env, LNM_CHAINCODE_PORT_FROM: '9840' }, timeoutMs: 180_000 });
  b = await startServer({ env: { ...env, LNM_CHAINCODE_PORT_FROM: '9870' }, timeoutMs: 180_000 });
  const orgA = await organization(apiA, 'SigOrgA', 'SigOrgAMSP');
  const ordererA = await node(apiA, 'sig-orderer-a', 'CONSORTIUM_ORDERER', orgA.id);
  made.push({ api: apiA, id: ordererA.id });
  let r = await apiA('POST', '/networks/consortium', { name: 'sig-channel', channelName: channel, ordererIds: [ordererA.id], organizationIds: [orgA.id] });
  assert.is(r.status, 201, r.text);
  networkId = r.json.id;
  assert.is((await apiA('POST', `/networks/consortium/${networkId}/orderers/${ordererA.id}/join`)).status, 200);
  await organization(apiB, 'SigOrgB', 'SigOrgBMSP');
  orgC = await organization(apiB, 'SigOrgC', 'SigOrgCMSP');
  const inv = await apiA('POST', '/nodesharing/invitations', { bidirectional: true });
  assert.is(inv.status, 201, inv.text);
  r = await apiB('POST', '/nodesharing/accept', { invitation_jwt: inv.json.invitation_jwt, fingerprint: inv.json.key_fingerprint });
  assert.is(r.status, 201, r.text);
  const peerOnB = r.json.id;
  // With A alone in the channel, MAJORITY of one: A adds B and C in one update.
  r = await until('B and C added to A\'s channel (once A\'s orderer has a raft leader)', async () => {
    const u = await apiA('PUT', `/networks/${networkId}/channels/${channel}/config`, { organizations: ['SigOrgAMSP', 'SigOrgBMSP', 'SigOrgCMSP'] });
    return u.status === 200 ? u : null;
  }, 60_000, 2000);
  assert.is(r.json.status, 'updated', r.text);
  r = await apiB('POST', '/nodesharing/sync', { peer_node_id: peerOnB });
  assert.is(r.status, 200, r.text);
  const shared = r.json.networks.find((n: any) => n.channel_name === channel);
  assert.ok(shared, r.text);
  r = await apiB('POST', `/nodesharing/peers/${peerOnB}/networks/${shared.network_id}/import`, {});
  assert.is(r.status, 201, r.text);
});

const policies = { Endorsement: { type: 'ImplicitMeta', rule: 'ANY Endorsement' } };

t('the policy first: A alone is refused naming B and C, one more needed; the dry run says the same', async () => {
  let r = await apiA('PUT', `/networks/${networkId}/channels/${channel}/config`, { policies });
  assert.is(r.status, 409, r.text);
  assert.is(r.json.code, 'SIGNATURES_MISSING');
  const c = r.json.context;
  assert.equal([c.requiredOrganizations, c.heldOrganizations, c.missingOrganizations], [['SigOrgAMSP', 'SigOrgBMSP', 'SigOrgCMSP'], ['SigOrgAMSP'], ['SigOrgBMSP', 'SigOrgCMSP']], r.text);
  assert.equal(c.unmet, [{ policyPath: '/Channel/Application/Admins', rule: 'MAJORITY Admins', missingOrganizations: ['SigOrgBMSP', 'SigOrgCMSP'], moreNeeded: 1 }]);
  r = await apiA('PUT', `/networks/${networkId}/channels/${channel}/config?dry_run=true`, { policies });
  assert.is(r.status, 200, r.text);
  assert.is(r.json.status, 'dry_run');
  assert.equal([r.json.required_organizations, r.json.held_organizations, r.json.missing_organizations], [['SigOrgAMSP', 'SigOrgBMSP', 'SigOrgCMSP'], ['SigOrgAMSP'], ['SigOrgBMSP', 'SigOrgCMSP']]);
  assert.equal(r.json.unmet, [{ policy_path: '/Channel/Application/Admins', rule: 'MAJORITY Admins', missing_organizations: ['SigOrgBMSP', 'SigOrgCMSP'], more_needed: 1 }]);
  assert.ok(r.json.diff.some((d: any) => d.path.includes('Endorsement')), JSON.stringify(r.json.diff));
});

t('across instances: refused with A\'s signature only, naming B and C; accepted with B\'s collected from instance B', async () => {
  let r = await apiA('POST', '/nodesharing/proposals', { network_id: networkId, change: { type: 'channel_config', policies }, description: 'endorsement by any organization' });
  assert.is(r.status, 201, r.text);
  assert.equal([r.json.signed_by, r.json.missing_organizations, r.json.required_organizations], [['SigOrgAMSP'], ['SigOrgBMSP', 'SigOrgCMSP'], ['SigOrgAMSP', 'SigOrgBMSP', 'SigOrgCMSP']]);
  assert.ok(r.json.peer_id, r.text);
  const id = r.json.proposal_id;
  r = await apiA('POST', `/nodesharing/proposals/${id}/submit`);
  assert.is(r.status, 409, r.text);
  assert.is(r.json.code, 'SIGNATURES_MISSING');
  assert.equal(r.json.context.missingOrganizations, ['SigOrgBMSP', 'SigOrgCMSP']);
  assert.match(r.json.message, /SigOrgBMSP, SigOrgCMSP/);

  const onB = (await apiB('GET', '/nodesharing/proposals')).json.items.find((p: any) => p.id === id);
  assert.equal([onB.role, onB.status, onB.missing_organizations], ['signer', 'awaiting-signatures', ['SigOrgBMSP', 'SigOrgCMSP']]);
  assert.is((await apiB('POST', `/nodesharing/proposals/${id}/sign?organizations=SigOrgAMSP`)).status, 400, 'B cannot sign for A');
  r = await apiB('POST', `/nodesharing/proposals/${id}/sign?organizations=SigOrgBMSP`);
  assert.is(r.status, 200, r.text);
  assert.equal(r.json.signed_by, ['SigOrgBMSP']);

  r = await apiA('GET', `/nodesharing/proposals/${id}`);
  assert.is(r.status, 200, r.text);
  assert.equal([r.json.signed_by, r.json.missing_organizations, r.json.satisfied, r.json.stale, r.json.kinds], [['SigOrgAMSP', 'SigOrgBMSP'], [], true, false, ['policies']], r.text);
  const before = (await apiA('GET', `/networks/consortium/${networkId}/channel-config`)).json.sequence;
  r = await apiA('POST', `/nodesharing/proposals/${id}/submit`);
  assert.is(r.status, 200, r.text);
  assert.equal(r.json.signed_by, ['SigOrgAMSP', 'SigOrgBMSP']);
  assert.ok(r.json.sequence > before);
  const config = (await apiA('GET', `/networks/consortium/${networkId}/channel-config`)).json.config;
  assert.match(JSON.stringify(config.channel_group.groups.Application.policies.Endorsement), 'ANY');
  assert.is((await apiA('POST', `/nodesharing/proposals/${id}/submit`)).status, 409, 'submitted once');
});

/** A ConfigSignature made outside A: header (C's admin identity, a nonce) and B's key API signing header || update with C's admin key. */
async function detachedSignatureOfC(update: Buffer): Promise<{ header: Buffer; der: Buffer }> {
  const cert = await apiB('GET', `/keys/${orgC.adminKeyId}/certificate`);
  assert.is(cert.status, 200, cert.text);
  const identity = new msp.SerializedIdentity();
  identity.setMspid('SigOrgCMSP');
  identity.setIdBytes(Buffer.from(cert.text));
  const header = new common.SignatureHeader();
  header.setCreator(identity.serializeBinary());
  header.setNonce(randomBytes(24));
  const headerBytes = Buffer.from(header.serializeBinary());
  const r = await apiB('POST', `/keys/${orgC.adminKeyId}/sign-data`, { data: Buffer.concat([headerBytes, update]).toString('base64') });
  assert.is(r.status, 200, r.text);
  return { header: headerBytes, der: Buffer.from(r.json.signature, 'base64') };
}

const lowS = (der: Buffer, high: boolean) => {
  const sig = p256.Signature.fromBytes(der, 'der');
  const isHigh = sig.s > N / 2n;
  return Buffer.from((isHigh === high ? sig : new p256.Signature(sig.r, N - sig.s)).toBytes('der'));
};

t('within A: C\'s operator signs the downloaded update elsewhere; bad signatures are 400s naming why, the good one is verified, added once, and submitted', async () => {
  const anchorPeers = [{ host: 'peer0.sigorgc.example.com', port: 7051 }];
  let r = await apiA('PUT', `/networks/${networkId}/channels/${channel}/anchor-peers?dry_run=true`, { organizationId: 'SigOrgCMSP', anchorPeers });
  assert.is(r.status, 200, r.text);
  assert.equal([r.json.required_organizations, r.json.held_organizations, r.json.missing_organizations], [['SigOrgCMSP'], [], ['SigOrgCMSP']], r.text);
  r = await apiA('POST', '/nodesharing/proposals', { network_id: networkId, change: { type: 'anchor_peers', organizationId: 'SigOrgCMSP', anchorPeers }, collect: 'upload' });
  assert.is(r.status, 201, r.text);
  assert.equal([r.json.peer_id, r.json.signed_by, r.json.missing_organizations], [null, [], ['SigOrgCMSP']]);
  const id = r.json.proposal_id;
  r = await apiA('GET', `/nodesharing/proposals/${id}/update`);
  assert.is(r.status, 200, r.text);
  const update = Buffer.from(r.json.update, 'base64');
  assert.ok(r.json.envelope.length > r.json.update.length, 'the signconfigtx file wraps the update');
  assert.equal(r.json.changes.filter((c: string) => c.includes('AnchorPeers')), ['/Channel/Application/SigOrgCMSP/values/AnchorPeers']);

  const { header, der } = await detachedSignatureOfC(update);
  const damaged = Buffer.from(lowS(der, false));
  damaged[damaged.length - 1] ^= 1;
  r = await apiA('POST', `/nodesharing/proposals/${id}/signatures`, { signature_header: header.toString('base64'), signature: damaged.toString('base64') });
  assert.is(r.status, 400, r.text);
  assert.is(r.json.code, 'SIGNATURE_INVALID');
  assert.match(r.json.message, /does not verify/);
  r = await apiA('POST', `/nodesharing/proposals/${id}/signatures`, { signature_header: header.toString('base64'), signature: lowS(der, true).toString('base64') });
  assert.is(r.status, 400, r.text);
  assert.match(r.json.message, /high-S/);
  r = await apiA('POST', `/nodesharing/proposals/${id}/submit`);
  assert.is(r.status, 409, 'nothing collected yet');
  assert.equal(r.json.context.missingOrganizations, ['SigOrgCMSP']);

  r = await apiA('POST', `/nodesharing/proposals/${id}/signatures`, { signature_header: header.toString('base64'), signature: lowS(der, false).toString('base64') });
  assert.is(r.status, 200, r.text);
  assert.equal([r.json.added, r.json.signed_by], [['SigOrgCMSP'], ['SigOrgCMSP']]);
  const again = await detachedSignatureOfC(update);
  r = await apiA('POST', `/nodesharing/proposals/${id}/signatures`, { signature_header: again.header.toString('base64'), signature: lowS(again.der, false).toString('base64') });
  assert.is(r.status, 409, r.text);
  assert.is(r.json.code, 'SIGNATURE_EXISTS');

  r = await apiA('POST', `/nodesharing/proposals/${id}/submit`);
  assert.is(r.status, 200, r.text);
  assert.equal(r.json.signed_by, ['SigOrgCMSP']);
  const config = (await apiA('GET', `/networks/consortium/${networkId}/channel-config`)).json.config;
  assert.match(JSON.stringify(config.channel_group.groups.Application.groups.SigOrgCMSP.values.AnchorPeers), 'peer0.sigorgc.example.com');
  const map = (await apiA('GET', `/networks/consortium/${networkId}/map`)).json;
  assert.equal(map.organizations.find((o: any) => o.msp_id === 'SigOrgCMSP').anchor_peers, anchorPeers, 'recorded on the network as a direct change is');
  const audit = (await apiA('GET', '/audit-logs?limit=500')).json.items.filter((e: any) => e.resource_type === 'config_proposal' || e.resourceType === 'config_proposal');
  assert.ok(audit.some((e: any) => (e.action === 'SIGN') && JSON.stringify(e).includes('SigOrgCMSP')), JSON.stringify(audit).slice(0, 1500));
});

t('ACLs and orderer policies travel in a proposal too: the dry run names B and C; B\'s signature collected from instance B, submitted, read back', async () => {
  const change = { acls: { 'qscc/GetChainInfo': 'Admins' }, ordererPolicies: { Writers: { type: 'Signature', rule: "OR('SigOrgAMSP.member')" } } };
  let r = await apiA('PUT', `/networks/${networkId}/channels/${channel}/config?dry_run=true`, change);
  assert.is(r.status, 200, r.text);
  assert.equal([r.json.held_organizations, r.json.missing_organizations], [['SigOrgAMSP'], ['SigOrgBMSP', 'SigOrgCMSP']], r.text);
  assert.ok(r.json.diff.some((d: any) => d.path === 'channel_group.groups.Application.values.ACLs.value.acls.qscc/GetChainInfo.policy_ref'), JSON.stringify(r.json.diff));
  r = await apiA('POST', '/nodesharing/proposals', { network_id: networkId, change: { type: 'channel_config', ...change }, description: 'chain info for admins only' });
  assert.is(r.status, 201, r.text);
  const id = r.json.proposal_id;
  r = await apiB('POST', `/nodesharing/proposals/${id}/sign?organizations=SigOrgBMSP`);
  assert.is(r.status, 200, r.text);
  r = await apiA('GET', `/nodesharing/proposals/${id}`);
  assert.equal([r.json.satisfied, r.json.kinds], [true, ['policies', 'acls']], r.text);
  r = await apiA('POST', `/nodesharing/proposals/${id}/submit`);
  assert.is(r.status, 200, r.text);
  const group = (await apiA('GET', `/networks/consortium/${networkId}/channel-config`)).json.config.channel_group;
  assert.is(group.groups.Application.values.ACLs.value.acls['qscc/GetChainInfo'].policy_ref, 'Admins');
  assert.is(group.groups.Orderer.policies.Writers.policy.type, 1);
});

t('an MSP update of B (a new root and intermediate CA) proposed on A, signed on B, submitted on A: the channel\'s MSP of B carries them', async () => {
  const root = await testOrganization('SigOrgBMSP', 'newsigorgb.example.com');
  const key = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
  const intermediate = await issueCertificate({ ...organizationCaProfile({ domain: 'int.sigorgb.example.com' }, new Date(), 5), isCa: true }, createPublicKey(key).export({ type: 'spki', format: 'pem' }).toString(), { certificatePem: root.signCa.certPem, signer: root.signCa.signer });
  let r = await apiA('POST', '/nodesharing/proposals', { network_id: networkId, change: { type: 'msp_update', msp_id: 'SigOrgBMSP', intermediateCerts: [intermediate.pem] } });
  assert.is(r.status, 400, r.text);
  assert.is(r.json.code, 'MSP_CERTIFICATE', 'the direct route\'s checks: an intermediate whose root the MSP lacks');
  assert.is(r.json.details[0].field, 'intermediateCerts[0]');
  r = await apiA('POST', '/nodesharing/proposals', { network_id: networkId, change: { type: 'msp_update', msp_id: 'NoSuchMSP', rootCerts: [root.signCa.certPem] } });
  assert.is(r.status, 404, r.text);
  r = await apiA('POST', '/nodesharing/proposals', { network_id: networkId, change: { type: 'msp_update', msp_id: 'SigOrgBMSP', rootCerts: [root.signCa.certPem], intermediateCerts: [intermediate.pem] }, description: 'a new CA for B' });
  assert.is(r.status, 201, r.text);
  assert.equal([r.json.required_organizations, r.json.held_organizations, r.json.signed_by, r.json.missing_organizations], [['SigOrgBMSP'], [], [], ['SigOrgBMSP']], r.text);
  assert.ok(r.json.peer_id, r.text);
  const id = r.json.proposal_id;
  r = await apiA('POST', `/nodesharing/proposals/${id}/submit`);
  assert.is(r.status, 409, r.text);
  assert.equal(r.json.context.missingOrganizations, ['SigOrgBMSP']);
  r = await apiB('POST', `/nodesharing/proposals/${id}/sign?organizations=SigOrgBMSP`);
  assert.is(r.status, 200, r.text);
  r = await apiA('GET', `/nodesharing/proposals/${id}`);
  assert.equal([r.json.satisfied, r.json.kinds], [true, ['mspUpdate']], r.text);
  r = await apiA('POST', `/nodesharing/proposals/${id}/submit`);
  assert.is(r.status, 200, r.text);
  assert.equal(r.json.signed_by, ['SigOrgBMSP']);
  const msp = (await apiA('GET', `/networks/consortium/${networkId}/channel-config`)).json.config.channel_group.groups.Application.groups.SigOrgBMSP.values.MSP.value.config;
  const pems = (l: string[] | undefined) => (l ?? []).map((c) => Buffer.from(c, 'base64').toString('utf8').trim());
  assert.ok(pems(msp.root_certs).includes(root.signCa.certPem.trim()), 'the new root in B\'s MSP');
  assert.equal(pems(msp.intermediate_certs), [intermediate.pem.trim()], 'the new intermediate in B\'s MSP');
});

t('orderer organization kinds are planned by their routes\' use cases: the last orderer organization is a 409, endpoints A signs alone need no proposal', async () => {
  let r = await apiA('POST', '/nodesharing/proposals', { network_id: networkId, change: { type: 'remove_orderer_organization', msp_id: 'SigOrgAMSP' } });
  assert.is(r.status, 409, r.text);
  assert.is(r.json.code, 'LAST_ORDERER_ORGANIZATION');
  r = await apiA('POST', '/nodesharing/proposals', { network_id: networkId, change: { type: 'orderer_endpoints', msp_id: 'SigOrgBMSP', endpoints: ['orderer0.sigorgb.example.com:7050'] } });
  assert.is(r.status, 404, 'B is no orderer organization of the channel');
  r = await apiA('POST', '/nodesharing/proposals', { network_id: networkId, change: { type: 'orderer_endpoints', msp_id: 'SigOrgAMSP', endpoints: ['not an endpoint'] } });
  assert.is(r.status, 400, r.text);
  assert.is(r.json.details[0].field, 'endpoints[0]');
  r = await apiA('POST', '/nodesharing/proposals', { network_id: networkId, change: { type: 'orderer_endpoints', msp_id: 'SigOrgAMSP', endpoints: ['orderer0.sigorga.example.com:7050'] } });
  assert.is(r.status, 400, r.text);
  assert.equal(r.json.details, [{ field: 'change', message: 'no signature missing' }], 'prepared against the channel: /Channel/Orderer/Admins is A\'s, held here');
});

t('a proposal prepared before the channel\'s config moved on is refused as stale', async () => {
  let r = await apiA('POST', '/nodesharing/proposals', { network_id: networkId, change: { type: 'anchor_peers', organizationId: 'SigOrgBMSP', anchorPeers: [{ host: 'peer0.sigorgb.example.com', port: 7051 }] }, collect: 'upload' });
  assert.is(r.status, 201, r.text);
  const id = r.json.proposal_id;
  // A alone may change the orderer's batch settings (/Channel/Orderer/Admins: A's orderer organization).
  r = await apiA('PUT', `/networks/${networkId}/channels/${channel}/config`, { batch: { batchTimeout: '1s' } });
  assert.is(r.status, 200, r.text);
  r = await apiA('GET', `/nodesharing/proposals/${id}`);
  assert.is(r.json.stale, true, r.text);
  r = await apiA('POST', `/nodesharing/proposals/${id}/submit`);
  assert.is(r.status, 409, r.text);
  assert.is(r.json.code, 'PROPOSAL_STALE');
  assert.match(r.json.message, /stale: it was prepared against config sequence \d+/);
});

t('an orderer organization of B: added by A, then its endpoints proposed on A, signed on B, submitted; /Channel/Orderer/Admins then needs B too', async () => {
  const base = `/networks/consortium/${networkId}/channels/${channel}/orderer-organizations`;
  const endpoints = ['orderer0.sigorgb.example.com:7050', 'orderer1.sigorgb.example.com:7050'];
  // B's organization (its public MSP, shared with A) joins /Channel/Orderer: A's orderer Admins alone sign that.
  let r = await apiA('POST', base, { msp_id: 'SigOrgBMSP', endpoints: ['not an endpoint'] });
  assert.is(r.status, 400, r.text);
  assert.is(r.json.details[0].field, 'endpoints[0]');
  r = await apiA('POST', base, { msp_id: 'NoSuchMSP', endpoints: [endpoints[0]] });
  assert.is(r.status, 400, r.text);
  r = await apiA('POST', `${base}?dry_run=true`, { msp_id: 'SigOrgBMSP', endpoints: [endpoints[0]] });
  assert.is(r.status, 200, r.text);
  assert.equal([r.json.status, r.json.policies, r.json.missing_organizations], ['dry_run', ['/Channel/Orderer/Admins'], []], r.text);
  r = await apiA('POST', base, { msp_id: 'SigOrgBMSP', endpoints: [endpoints[0]] });
  assert.is(r.status, 200, r.text);
  assert.is(r.json.status, 'updated', r.text);
  assert.is((await apiA('POST', base, { msp_id: 'SigOrgBMSP', endpoints: [endpoints[0]] })).json.code, 'ORDERER_ORGANIZATION_EXISTS');
  const network = (await apiA('GET', `/networks/consortium/${networkId}`)).json;
  assert.ok(network.orderer_organizations.some((o: any) => (o.msp_id ?? o.mspId) === 'SigOrgBMSP'), JSON.stringify(network.orderer_organizations));
  // /Channel/Orderer/Admins is now MAJORITY of A's and B's admins: A alone cannot change the batch settings.
  r = await apiA('PUT', `/networks/${networkId}/channels/${channel}/config?dry_run=true`, { batch: { batchTimeout: '3s' } });
  assert.is(r.status, 200, r.text);
  assert.equal([r.json.required_organizations, r.json.held_organizations, r.json.missing_organizations], [['SigOrgAMSP', 'SigOrgBMSP'], ['SigOrgAMSP'], ['SigOrgBMSP']], r.text);

  // B's endpoints: /Channel/Orderer/SigOrgBMSP/Admins, an admin only instance B holds.
  r = await apiA('PUT', `${base}/SigOrgBMSP/endpoints`, { endpoints });
  assert.is(r.status, 409, r.text);
  assert.equal(r.json.context.missingOrganizations, ['SigOrgBMSP']);
  r = await apiA('POST', '/nodesharing/proposals', { network_id: networkId, change: { type: 'orderer_endpoints', msp_id: 'SigOrgBMSP', endpoints }, description: 'two orderers of B' });
  assert.is(r.status, 201, r.text);
  assert.equal([r.json.required_organizations, r.json.signed_by, r.json.missing_organizations], [['SigOrgBMSP'], [], ['SigOrgBMSP']], r.text);
  assert.ok(r.json.peer_id, r.text);
  const id = r.json.proposal_id;
  r = await apiA('POST', `/nodesharing/proposals/${id}/submit`);
  assert.is(r.status, 409, r.text);
  assert.equal(r.json.context.missingOrganizations, ['SigOrgBMSP']);
  const onB = (await apiB('GET', '/nodesharing/proposals')).json.items.find((p: any) => p.id === id);
  assert.equal([onB.role, onB.missing_organizations], ['signer', ['SigOrgBMSP']]);
  r = await apiB('POST', `/nodesharing/proposals/${id}/sign?organizations=SigOrgBMSP`);
  assert.is(r.status, 200, r.text);
  r = await apiA('GET', `/nodesharing/proposals/${id}`);
  assert.equal([r.json.satisfied, r.json.kinds, r.json.policies], [true, ['ordererEndpoints'], ['/Channel/Orderer/SigOrgBMSP/Admins']], r.text);
  r = await apiA('POST', `/nodesharing/proposals/${id}/submit`);
  assert.is(r.status, 200, r.text);
  assert.equal(r.json.signed_by, ['SigOrgBMSP']);
  const orderer = (await apiA('GET', `/networks/consortium/${networkId}/channel-config`)).json.config.channel_group.groups.Orderer;
  assert.equal(orderer.groups.SigOrgBMSP.values.Endpoints.value.addresses, endpoints);
  assert.equal(orderer.groups.SigOrgAMSP.values.Endpoints.value.addresses.length, 1, 'A\'s endpoints kept');
  // One MSP for B in the channel: the orderer group carries the application group's definition.
  const app = (await apiA('GET', `/networks/consortium/${networkId}/channel-config`)).json.config.channel_group.groups.Application;
  assert.equal(orderer.groups.SigOrgBMSP.values.MSP.value, app.groups.SigOrgBMSP.values.MSP.value, 'the same MSP definition (each element keeps its own version)');
});

t('orderer organizations added and removed across instances: /Channel/Orderer/Admins needs B\'s admin, so C is added by a proposal proposed on A, signed on B, submitted on A; then removed the same way', async () => {
  const base = `/networks/consortium/${networkId}/channels/${channel}/orderer-organizations`;
  const configOnA = async () => (await apiA('GET', `/networks/consortium/${networkId}/channel-config`)).json;
  const ordererOrgs = async () => (await apiA('GET', `/networks/consortium/${networkId}`)).json.orderer_organizations.map((o: any) => o.msp_id ?? o.mspId);
  const endpoints = ['orderer0.sigorgc.example.com:7050'];
  // A and B are the orderer organizations: MAJORITY of their admins is both, and instance A holds A only.
  let r = await apiA('POST', `${base}?dry_run=true`, { msp_id: 'SigOrgCMSP', endpoints });
  assert.is(r.status, 200, r.text);
  assert.equal([r.json.policies, r.json.held_organizations, r.json.missing_organizations], [['/Channel/Orderer/Admins'], ['SigOrgAMSP'], ['SigOrgBMSP']], r.text);
  const before = (await configOnA()).sequence;
  r = await apiA('POST', base, { msp_id: 'SigOrgCMSP', endpoints });
  assert.is(r.status, 409, r.text);
  assert.is(r.json.code, 'SIGNATURES_MISSING');
  assert.equal(r.json.context.missingOrganizations, ['SigOrgBMSP']);
  r = await apiA('POST', '/nodesharing/proposals', { network_id: networkId, change: { type: 'add_orderer_organization', msp_id: 'SigOrgCMSP', endpoints }, description: 'C orders too' });
  assert.is(r.status, 201, r.text);
  assert.equal([r.json.policies, r.json.required_organizations, r.json.signed_by, r.json.missing_organizations], [['/Channel/Orderer/Admins'], ['SigOrgAMSP', 'SigOrgBMSP'], ['SigOrgAMSP'], ['SigOrgBMSP']], r.text);
  assert.ok(r.json.peer_id, r.text);
  let id = r.json.proposal_id;
  r = await apiA('POST', `/nodesharing/proposals/${id}/submit`);
  assert.is(r.status, 409, r.text);
  assert.is(r.json.code, 'SIGNATURES_MISSING');
  assert.equal(r.json.context.missingOrganizations, ['SigOrgBMSP']);
  assert.match(r.json.message, /SigOrgBMSP/);
  assert.is((await configOnA()).sequence, before, 'nothing submitted without B');
  let onB = (await apiB('GET', '/nodesharing/proposals')).json.items.find((p: any) => p.id === id);
  assert.equal([onB.role, onB.status, onB.missing_organizations], ['signer', 'awaiting-signatures', ['SigOrgBMSP']]);
  r = await apiB('POST', `/nodesharing/proposals/${id}/sign?organizations=SigOrgBMSP`);
  assert.is(r.status, 200, r.text);
  r = await apiA('GET', `/nodesharing/proposals/${id}`);
  assert.equal([r.json.satisfied, r.json.stale, r.json.kinds, r.json.signed_by], [true, false, ['addOrdererOrganization'], ['SigOrgAMSP', 'SigOrgBMSP']], r.text);
  r = await apiA('POST', `/nodesharing/proposals/${id}/submit`);
  assert.is(r.status, 200, r.text);
  assert.equal(r.json.signed_by, ['SigOrgAMSP', 'SigOrgBMSP']);
  let config = await configOnA();
  assert.ok(config.sequence > before, `sequence ${config.sequence} after ${before}`);
  let orderer = config.config.channel_group.groups.Orderer;
  assert.equal(Object.keys(orderer.groups).sort(), ['SigOrgAMSP', 'SigOrgBMSP', 'SigOrgCMSP']);
  assert.equal(orderer.groups.SigOrgCMSP.values.Endpoints.value.addresses, endpoints, 'read back from A\'s orderer');
  assert.ok((await ordererOrgs()).includes('SigOrgCMSP'), 'recorded on the network');

  // Three orderer organizations: MAJORITY is 2 of 3; A holds one, B and C are instance B's.
  r = await apiA('DELETE', `${base}/SigOrgCMSP?dry_run=true`);
  assert.is(r.status, 200, r.text);
  assert.equal([r.json.held_organizations, r.json.missing_organizations], [['SigOrgAMSP'], ['SigOrgBMSP', 'SigOrgCMSP']], r.text);
  assert.equal(r.json.unmet, [{ policy_path: '/Channel/Orderer/Admins', rule: 'MAJORITY Admins', missing_organizations: ['SigOrgBMSP', 'SigOrgCMSP'], more_needed: 1 }]);
  const mid = config.sequence;
  r = await apiA('POST', '/nodesharing/proposals', { network_id: networkId, change: { type: 'remove_orderer_organization', msp_id: 'SigOrgCMSP' }, description: 'C orders no more' });
  assert.is(r.status, 201, r.text);
  assert.equal([r.json.signed_by, r.json.missing_organizations], [['SigOrgAMSP'], ['SigOrgBMSP', 'SigOrgCMSP']], r.text);
  id = r.json.proposal_id;
  r = await apiA('POST', `/nodesharing/proposals/${id}/submit`);
  assert.is(r.status, 409, r.text);
  assert.equal(r.json.context.missingOrganizations, ['SigOrgBMSP', 'SigOrgCMSP']);
  assert.match(r.json.message, /SigOrgBMSP, SigOrgCMSP/);
  assert.is((await configOnA()).sequence, mid, 'nothing submitted with A alone');
  onB = (await apiB('GET', '/nodesharing/proposals')).json.items.find((p: any) => p.id === id);
  assert.equal([onB.role, onB.missing_organizations], ['signer', ['SigOrgBMSP', 'SigOrgCMSP']]);
  // The leaving organization's admin signs its own removal.
  r = await apiB('POST', `/nodesharing/proposals/${id}/sign?organizations=SigOrgCMSP`);
  assert.is(r.status, 200, r.text);
  assert.equal(r.json.signed_by, ['SigOrgCMSP']);
  r = await apiA('GET', `/nodesharing/proposals/${id}`);
  assert.equal([r.json.satisfied, r.json.kinds], [true, ['removeOrdererOrganization']], r.text);
  r = await apiA('POST', `/nodesharing/proposals/${id}/submit`);
  assert.is(r.status, 200, r.text);
  assert.equal(r.json.signed_by, ['SigOrgAMSP', 'SigOrgCMSP']);
  config = await configOnA();
  assert.ok(config.sequence > mid, `sequence ${config.sequence} after ${mid}`);
  orderer = config.config.channel_group.groups.Orderer;
  assert.equal(Object.keys(orderer.groups).sort(), ['SigOrgAMSP', 'SigOrgBMSP']);
  assert.ok(config.config.channel_group.groups.Application.groups.SigOrgCMSP, 'C stays an application organization');
  assert.not.ok((await ordererOrgs()).includes('SigOrgCMSP'), 'the network lists it no more');
  const audit = (await apiA('GET', '/audit-logs?limit=500')).json.items.filter((e: any) => (e.resource_type ?? e.resourceType) === 'config_proposal');
  assert.ok(audit.filter((e: any) => JSON.stringify(e).includes(id)).length >= 2, 'the proposal and its signatures audited');
});

t.run();
