// A channel's orderer organizations changed on real Fabric 2.5 (a counted skip without the
// programs; issue 37 item 4): a channel with a raft orderer of each of two organizations and a
// peer each. Org1's orderer endpoints are set (a dry run first: the diff, nothing submitted);
// removing Org2 as orderer organization is refused while its orderer is a consenter (naming it),
// accepted once that consenter is removed (dry run first), after which the network lists one
// orderer organization and the channel still commits; the last orderer organization is refused.
// Then rule policy-unsatisfiable on the real channel: Org3, an orderer organization only (no peer,
// not in /Channel/Application), is added, and /Channel/Orderer/Admins set to a Signature rule that
// needs Org3's admin; removing Org3 (and its dry run) is a 409 POLICY_UNSATISFIABLE naming that
// policy and /Channel/Admins (MAJORITY of the groups' Admins), the config sequence unchanged;
// once the policy is MAJORITY Admins again the removal is accepted and the channel commits.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { fabricMissing } from '../../helpers/fabric.ts';
import { requires } from '../../helpers/requirements.ts';
import { apiOf, configUpdate, consortiumEnv, organization, removeConsortiumNodes, runningNode, until, channelConfigOf, peerHeight } from './consortiumApi.ts';

const t = requires(suite('orderer organizations of a channel (real Fabric 2.5)'), 'fabric', fabricMissing);
let server: TestServer;
const api = apiOf(() => server);
interface Node { id: number; name: string; config: { port: number; externalEndpoint: string } }
let orderers: Node[] = [];
let peers: Node[] = [];
let networkId = 0;
const channel = 'ordorgchannel';
const base = () => `/networks/consortium/${networkId}/channels/${channel}`;
const config = () => channelConfigOf(api, networkId, channel);
const height = () => peerHeight(api, networkId);
let toggle = 0;
async function commits(what: string) {
  const before = await until('the height at a peer', height, 60_000, 1000);
  toggle++;
  const anchors = [{ host: '127.0.0.1', port: peers[1].config.port }, ...(toggle % 2 ? [{ host: 'localhost', port: peers[1].config.port }] : [])];
  await until(`an anchor peer update ${what}`, async () => {
    const a = await api('POST', `/networks/consortium/${networkId}/anchor-peers`, { organizationId: 'Org2MSP', anchorPeers: anchors });
    if (a.status !== 200 && a.status !== 503 && a.status !== 409) assert.unreachable(a.text);
    return a.status === 200 && a.json.status === 'updated' ? a : null;
  }, 120_000, 2000);
  await until(`the new block at a peer ${what}`, async () => ((await height()) ?? 0) > before, 60_000, 1000);
}

t.before(async () => {
  server = await startServer({ env: consortiumEnv() });
  const org1 = await organization(api, 'Org1', 'Org1MSP');
  const org2 = await organization(api, 'Org2', 'Org2MSP');
  orderers = [await runningNode(api, 'orderer0-org1', 'CONSORTIUM_ORDERER', org1.id), await runningNode(api, 'orderer0-org2', 'CONSORTIUM_ORDERER', org2.id)];
  peers = [await runningNode(api, 'peer0-org1', 'CONSORTIUM_PEER', org1.id), await runningNode(api, 'peer0-org2', 'CONSORTIUM_PEER', org2.id)];
  const r = await api('POST', '/networks/consortium', { name: 'ordorgnet', channelName: channel, ordererIds: orderers.map((o) => o.id), peerIds: peers.map((p) => p.id), batchTimeout: '500ms' });
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

t('orderer endpoints set (dry run first); an orderer organization removed once its consenter is; the last one kept', async () => {
  const c0 = await config();
  const now = c0.group.groups.Orderer.groups.Org1MSP.values.Endpoints.value.addresses as string[];
  assert.equal(now, [orderers[0].config.externalEndpoint]);
  const port = orderers[0].config.port;
  const endpoints = [...now, `localhost:${port}`];
  const bad = await api('PUT', `${base()}/orderer-organizations/Org1MSP/endpoints`, { endpoints: ['no-port'] });
  assert.is(bad.status, 400, bad.text);
  const dry = await api('PUT', `${base()}/orderer-organizations/Org1MSP/endpoints?dry_run=true`, { endpoints });
  assert.is(dry.status, 200, dry.text);
  assert.is(dry.json.status, 'dry_run');
  assert.equal(dry.json.diff, [{ path: 'channel_group.groups.Orderer.groups.Org1MSP.values.Endpoints.value.addresses[]', before: null, after: `localhost:${port}` }]);
  assert.is((await config()).sequence, c0.sequence);
  const set = await api('PUT', `${base()}/orderer-organizations/Org1MSP/endpoints`, { endpoints });
  assert.is(set.status, 200, set.text);
  assert.is(set.json.status, 'updated');
  assert.equal((await config()).group.groups.Orderer.groups.Org1MSP.values.Endpoints.value.addresses, endpoints);
  await commits('after the endpoints');

  const held = await api('DELETE', `${base()}/orderer-organizations/Org2MSP`);
  assert.is(held.status, 409, held.text);
  assert.is(held.json.code, 'ORDERER_ORGANIZATION_CONSENTERS');
  assert.match(held.json.message, orderers[1].config.externalEndpoint);
  const removedConsenter = await until('the consenter of Org2 removed', async () => {
    const d = await api('DELETE', `${base()}/consenters/${orderers[1].id}`);
    if (d.status !== 200 && d.status !== 503) assert.unreachable(d.text);
    return d.status === 200 ? d : null;
  }, 120_000, 2000);
  assert.is(removedConsenter.json.status, 'updated');
  const dryRemove = await api('DELETE', `${base()}/orderer-organizations/Org2MSP?dry_run=true`);
  assert.is(dryRemove.status, 200, dryRemove.text);
  assert.is(dryRemove.json.status, 'dry_run');
  assert.ok(dryRemove.json.diff.some((d: { path: string; after: unknown }) => d.path.startsWith('channel_group.groups.Orderer.groups.Org2MSP') && d.after === null), JSON.stringify(dryRemove.json.diff).slice(0, 500));
  const removed = await until('Org2 removed as orderer organization', async () => {
    const d = await api('DELETE', `${base()}/orderer-organizations/Org2MSP`);
    if (d.status !== 200 && d.status !== 503) assert.unreachable(d.text);
    return d.status === 200 ? d : null;
  }, 60_000, 2000);
  assert.is(removed.json.status, 'updated');
  const after = await config();
  assert.equal(Object.keys(after.group.groups.Orderer.groups), ['Org1MSP']);
  assert.ok(after.group.groups.Application.groups.Org2MSP, 'still an application organization');
  const network = await api('GET', `/networks/consortium/${networkId}`);
  assert.equal(network.json.orderer_organizations.map((o: { msp_id: string }) => o.msp_id), ['Org1MSP']);
  await commits('after Org2 left the orderer group');
  const last = await api('DELETE', `${base()}/orderer-organizations/Org1MSP`);
  assert.is(last.status, 409, last.text);
  assert.is(last.json.code, 'LAST_ORDERER_ORGANIZATION');
});

t('rule policy-unsatisfiable on the real channel: an orderer-only organization named by /Channel/Orderer/Admins is not removed (409, nothing submitted) until the policy no longer needs it', async () => {
  const org3 = await organization(api, 'Org3', 'Org3MSP');
  assert.ok(org3.id);
  const added = await until('Org3 added as orderer organization', async () => {
    const a = await api('POST', `${base()}/orderer-organizations`, { msp_id: 'Org3MSP', endpoints: ['orderer0.org3.example.com:7050'] });
    if (a.status !== 200 && a.status !== 503) assert.unreachable(a.text);
    return a.status === 200 ? a : null;
  }, 60_000, 2000);
  assert.is(added.json.status, 'updated');
  const rule = "AND('Org1MSP.admin', 'Org3MSP.admin')";
  const set = await configUpdate(api, networkId, channel, { ordererPolicies: { Admins: { type: 'Signature', rule } } }, 'the orderer Admins needing Org3');
  assert.is(set.json.status, 'updated', set.text);
  await commits('with the orderer Admins a Signature rule');
  const c0 = await config();
  assert.equal(Object.keys(c0.group.groups.Orderer.groups).sort(), ['Org1MSP', 'Org3MSP']);
  assert.not.ok(c0.group.groups.Application.groups.Org3MSP, 'Org3 is no application organization');
  assert.is(c0.group.groups.Orderer.policies.Admins.policy.type, 1, 'a Signature policy on the channel');

  for (const path of [`${base()}/orderer-organizations/Org3MSP?dry_run=true`, `${base()}/orderer-organizations/Org3MSP`]) {
    const refused = await api('DELETE', path);
    assert.is(refused.status, 409, refused.text);
    assert.is(refused.json.code, 'POLICY_UNSATISFIABLE');
    // /Channel/Admins (MAJORITY of the Application and Orderer groups' Admins) would be lost with it.
    assert.equal(refused.json.context, { rule: 'policy-unsatisfiable', policies: ['/Channel/Admins', '/Channel/Orderer/Admins'] });
    assert.match(refused.json.message, /Rule policy-unsatisfiable: without Org3MSP, no set of the remaining organizations' admins could satisfy \/Channel\/Admins, \/Channel\/Orderer\/Admins of channel ordorgchannel/);
    assert.match(refused.json.message, /Nothing was submitted/);
  }
  const c1 = await config();
  assert.is(c1.sequence, c0.sequence, 'nothing submitted');
  assert.ok(c1.group.groups.Orderer.groups.Org3MSP, 'Org3 still an orderer organization');

  const back = await configUpdate(api, networkId, channel, { ordererPolicies: { Admins: { type: 'ImplicitMeta', rule: 'MAJORITY Admins' } } }, 'the orderer Admins back to MAJORITY Admins');
  assert.is(back.json.status, 'updated', back.text);
  const removed = await until('Org3 removed as orderer organization', async () => {
    const d = await api('DELETE', `${base()}/orderer-organizations/Org3MSP`);
    if (d.status !== 200 && d.status !== 503) assert.unreachable(d.text);
    return d.status === 200 ? d : null;
  }, 60_000, 2000);
  assert.is(removed.json.status, 'updated');
  const c2 = await config();
  assert.ok(c2.sequence > c1.sequence + 1, `sequence ${c2.sequence} after ${c1.sequence}: the policy, then the removal`);
  assert.equal(Object.keys(c2.group.groups.Orderer.groups), ['Org1MSP']);
  const network = await api('GET', `/networks/consortium/${networkId}`);
  assert.equal(network.json.orderer_organizations.map((o: { msp_id: string }) => o.msp_id), ['Org1MSP']);
  await commits('after Org3 left the orderer group');
});

t.run();
