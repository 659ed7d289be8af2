// A SmartBFT consenter removed through a signing proposal is rejoined as a follower, as the direct
// removal does (issue 37 items 3 and 6), on real Fabric 3.1 (a counted skip without a 3.1 release:
// LNM_FABRIC_RELEASES or LNM_FABRIC_BIN). Instance A holds Org1 (five BFT consenters and a peer);
// instance B holds Org2, shared with A and added by A as orderer organization, so that
// /Channel/Orderer/Admins (MAJORITY) then needs Org2's admin too. Removing one of Org1's consenters
// directly is a 409 naming Org2MSP; as a proposal kept on A for uploads it is signed by A at once,
// Org2's detached signature is made on B (B's key API signs header || update) and uploaded, and the
// submit answers `rejoined`: the orderer's channel removed and joined again with the newest config
// block, a follower; it keeps up with the channel after two more commits.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { requires } from '../../helpers/requirements.ts';
import { apiOf, channelCommits, channelConfigOf, fabric31, peerHeight, removeConsortiumNodes, until } from '../consortium/consortiumApi.ts';
import { bftChannel, secondInstanceOrdererOrganization, signatureOfOrg2, submitted } from './bftRejoinKit.ts';

const t = requires(suite('a BFT consenter removed through a signing proposal is rejoined as a follower (real Fabric 3.1, two instances)'), 'fabric-3', fabric31.skip);
const v31 = fabric31.version;
let a: TestServer;
let b: TestServer;
const apiA = apiOf(() => a);
const apiB = apiOf(() => b);
const channel = 'bftproprejoin';
const orderers: any[] = [];
let peer: any;
let networkId = 0;
let org2: { adminKeyId: number };
const height = () => peerHeight(apiA, networkId);
const commits = channelCommits(apiA, () => networkId, 'Org1MSP', () => peer.config.port, height);
const relationOf = async (o: { id: number }) => (await apiA('POST', `/networks/consortium/${networkId}/orderers/${o.id}/join`)).json?.orderer;

t.after(async () => {
  if (a) await removeConsortiumNodes(apiA, a.dataDir);
  await Promise.all([a?.stop(), b?.stop()]);
});

t('a BFT channel of five consenters of Org1 on A; Org2 of B shared and added as orderer organization', async () => {
  // Started here, not in a before hook (uvu drops a hook's error).
  const env = fabric31.env({ LNM_SHARING_PORT: '0' });
  a = await startServer({ env, timeoutMs: 180_000 });
  b = await startServer({ env, timeoutMs: 180_000 });
  const made = await bftChannel(apiA, 'bftp', channel, 5, v31);
  orderers.push(...made.orderers);
  ({ peer, networkId } = made);
  await commits('on the new channel');

  org2 = await secondInstanceOrdererOrganization(apiA, apiB, networkId, channel);
  await commits('with Org2 an orderer organization');
});

t('a consenter of Org1 removed through a proposal (Org2 signing on B): the submit answers rejoined, a follower that keeps up', async () => {
  assert.ok(networkId, 'the channel of the first test');
  const removed = orderers[4];
  const direct = await apiA('DELETE', `/networks/consortium/${networkId}/channels/${channel}/consenters/${removed.id}`);
  assert.is(direct.status, 409, direct.text);
  assert.equal(direct.json.context.missingOrganizations, ['Org2MSP']);

  const proposed = await submitted('the proposal prepared', () => apiA('POST', '/nodesharing/proposals', { network_id: networkId, change: { type: 'consenter', action: 'remove', node_id: removed.id }, collect: 'upload' }));
  assert.equal([proposed.json.signed_by, proposed.json.missing_organizations], [['Org1MSP'], ['Org2MSP']], proposed.text);
  const id = proposed.json.proposal_id;
  let r = await apiA('GET', `/nodesharing/proposals/${id}/update`);
  assert.is(r.status, 200, r.text);
  const { header, der } = await signatureOfOrg2(apiB, org2, Buffer.from(r.json.update, 'base64'));
  r = await apiA('POST', `/nodesharing/proposals/${id}/signatures`, { signature_header: header.toString('base64'), signature: der.toString('base64') });
  assert.is(r.status, 200, r.text);
  assert.equal(r.json.signed_by, ['Org1MSP', 'Org2MSP']);

  const done = await submitted('the proposal submitted', () => apiA('POST', `/nodesharing/proposals/${id}/submit`));
  assert.is(done.json.status, 'submitted', done.text);
  assert.is(done.json.rejoined?.consensus_relation, 'follower', done.text);
  assert.is(done.json.rejoined.steps.length, 2, done.text);
  assert.match(done.json.rejoined.steps[1], `joined again with block ${done.json.block_number}`);
  const c = await channelConfigOf(apiA, networkId, channel);
  assert.is(c.group.groups.Orderer.values.Orderers.value.consenter_mapping.length, 4);
  const h = await commits('with four consenters');
  await until(`${removed.name} a follower at height ${h}`, async () => {
    const o = await relationOf(removed);
    return o?.consensus_relation === 'follower' && o.status === 'active' && o.height >= h ? o : null;
  }, 180_000, 2000);
  const h2 = await commits('again, the follower keeping up');
  await until(`${removed.name} at height ${h2}`, async () => (((await relationOf(removed))?.height ?? 0) >= h2 ? true : null), 120_000, 2000);
});

t.run();
