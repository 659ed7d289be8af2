// Orderer and channel policies and the Application ACLs changed through PUT .../config on real
// Fabric 2.5 (a counted skip without the programs): one raft orderer and one peer of Org1MSP.
// Hostile bodies (a rule that is not valid, an MSP id not in the group, an unknown ACL resource,
// an ACL policy that does not exist, a channel Admins no admin could satisfy) are refused with
// nothing submitted. The ACL qscc/GetChainInfo set to Admins: a client identity issued from the
// organization's CA, allowed before, is refused; an admin identity still reads it. An orderer
// Writers policy change is read back from GET .../config and the channel still commits after it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { fabricMissing } from '../../helpers/fabric.ts';
import { requires } from '../../helpers/requirements.ts';
import { apiOf, channelCommits, channelConfigOf, configUpdate, consortiumEnv, issuedIdentity, oneOrganizationChannel, peerHeight, profileGateway, removeConsortiumNodes, until } from './consortiumApi.ts';

const CHANNEL = 'policyacl';
const t = requires(suite('orderer and channel policies and ACLs as config updates (real Fabric 2.5)'), 'fabric', fabricMissing);
let server: TestServer;
const api = apiOf(() => server);
let networkId: number;
let orgId: number;
let peerPort: number;
const configPath = () => `/networks/${networkId}/channels/${CHANNEL}/config`;

const channelConfig = () => channelConfigOf(api, networkId, CHANNEL);
const update = (body: unknown) => configUpdate(api, networkId, CHANNEL, body);
const commits = channelCommits(api, () => networkId, 'Org1MSP', () => peerPort, () => peerHeight(api, networkId));

/** qscc GetChainInfo through the gateway as the identity: the height, or the error's text. */
async function chainInfoAs(identity: { certificate: string; privateKey: string }): Promise<{ ok: true } | { ok: false; error: string }> {
  const profile = (await api('GET', `/organizations/${orgId}/connection-profile?channel=${CHANNEL}`)).json;
  const g = profileGateway(profile, identity);
  try {
    await g.network.getContract('qscc').evaluateTransaction('GetChainInfo', CHANNEL);
    return { ok: true };
  } catch (err) {
    const e = err as Error & { details?: { message: string }[] };
    return { ok: false, error: `${e.message} ${(e.details ?? []).map((d) => d.message).join(' ')}` };
  } finally {
    g.close();
  }
}

t.before(async () => {
  server = await startServer({ env: consortiumEnv() });
  // Org1MSP, one raft orderer and one peer, joined, the peer Org1's anchor peer.
  const setup = await oneOrganizationChannel(api, CHANNEL, CHANNEL);
  orgId = setup.org1.id;
  networkId = setup.network.id;
  peerPort = setup.peer.config.port;
});
t.after(async () => {
  if (!server) return;
  await removeConsortiumNodes(api, server.dataDir);
  await server.stop();
});

t('hostile bodies are refused naming the field and why, nothing submitted', async () => {
  const before = await channelConfig();
  const refusals: Array<[unknown, number, string, RegExp]> = [
    [{ ordererPolicies: { Writers: { type: 'Signature', rule: "OR('Org1MSP.member'" } } }, 400, 'ordererPolicies.Writers', /expected/],
    [{ ordererPolicies: { Writers: { type: 'Signature', rule: "OR('Org9MSP.member')" } } }, 400, 'ordererPolicies.Writers', /Org9MSP/],
    [{ channelPolicies: { Readers: { type: 'ImplicitMeta', rule: 'SOME Readers' } } }, 400, 'channelPolicies.Readers', /ANY\|ALL\|MAJORITY/],
    [{ channelPolicies: { Writers: { type: 'ImplicitMeta', rule: 'ANY Endorsement' } } }, 400, 'channelPolicies.Writers', /Endorsement/],
    [{ acls: { 'qscc/GetEverything': '/Channel/Application/Admins' } }, 400, 'acls.qscc/GetEverything', /not a channel resource/],
    [{ acls: { 'qscc/GetChainInfo': '/Channel/Application/Bosses' } }, 400, 'acls.qscc/GetChainInfo', /does not exist/],
    [{ policies: { Readers: { type: 'Signature', rule: "OR('Org9MSP.member')" } } }, 400, 'policies.Readers', /Org9MSP/],
    [{ channelPolicies: { Admins: { type: 'Signature', rule: "OR('Org1MSP.client')" } } }, 409, 'channelPolicies.Admins', /OR\('Org1MSP.client'\)/],
  ];
  for (const [body, status, field, why] of refusals) {
    const r = await api('PUT', configPath(), body);
    assert.is(r.status, status, r.text);
    assert.match(r.json.message, why);
    if (status === 400) assert.is(r.json.details[0].field, field, r.text);
    else assert.is(r.json.code, 'POLICY_UNSATISFIABLE', r.text);
  }
  const after = await channelConfig();
  assert.is(after.sequence, before.sequence, 'nothing submitted');
});

t('ACL qscc/GetChainInfo set to Admins: a client identity allowed before is refused; an admin identity still reads it', async () => {
  const client = await issuedIdentity(api, orgId, 'reader-client', 'client');
  const admin = await issuedIdentity(api, orgId, 'reader-admin', 'admin');
  assert.equal(await chainInfoAs(client), { ok: true });
  const before = await channelConfig();
  assert.is(before.group.groups.Application.values.ACLs.value.acls['qscc/GetChainInfo'].policy_ref, '/Channel/Application/Readers');

  const dry = await api('PUT', `${configPath()}?dry_run=true`, { acls: { 'qscc/GetChainInfo': 'Admins' } });
  assert.is(dry.status, 200, dry.text);
  assert.is(dry.json.status, 'dry_run');
  assert.equal(dry.json.diff, [{ path: 'channel_group.groups.Application.values.ACLs.value.acls.qscc/GetChainInfo.policy_ref', before: '/Channel/Application/Readers', after: 'Admins' }]);
  assert.equal(dry.json.policies, ['/Channel/Application/Admins']);
  assert.is((await channelConfig()).sequence, before.sequence, 'a dry run submits nothing');

  const r = await update({ acls: { 'qscc/GetChainInfo': '/Channel/Application/Admins' } });
  assert.is(r.json.status, 'updated', r.text);
  const after = await channelConfig();
  assert.is(after.sequence, r.json.sequence);
  const acls = after.group.groups.Application.values.ACLs.value.acls;
  assert.is(acls['qscc/GetChainInfo'].policy_ref, '/Channel/Application/Admins');
  assert.is(acls['qscc/GetBlockByNumber'].policy_ref, '/Channel/Application/Readers', 'the other ACLs kept');

  // The peer applies the new config block once it has it.
  const refused = await until('the client refused by the peer', async () => {
    const c = await chainInfoAs(client);
    return c.ok ? null : c;
  }, 60_000, 1000);
  assert.match(refused.error, /access denied|Failed evaluating policy|authorization/i);
  assert.equal(await chainInfoAs(admin), { ok: true });
});

t('orderer Writers changed to a Signature rule: read back from GET .../config, audited, and the channel commits after it', async () => {
  const before = await channelConfig();
  assert.is(before.group.groups.Orderer.policies.Writers.policy.type, 3);
  const r = await update({ ordererPolicies: { Writers: { type: 'Signature', rule: "OR('Org1MSP.member')" } }, channelPolicies: { Readers: { type: 'ImplicitMeta', rule: 'ANY Readers' } } });
  assert.is(r.json.status, 'updated', r.text);
  assert.ok(r.json.diff.some((d: { path: string }) => d.path.startsWith('channel_group.groups.Orderer.policies.Writers')), r.text);
  const after = await channelConfig();
  const writers = after.group.groups.Orderer.policies.Writers.policy;
  assert.is(writers.type, 1);
  assert.equal(writers.value.identities, [{ principal: { msp_identifier: 'Org1MSP', role: 'MEMBER' }, principal_classification: 'ROLE' }]);
  assert.equal(writers.value.rule, { n_out_of: { n: 1, rules: [{ signed_by: 0 }] } });
  const audit = await api('GET', '/audit-logs?action=NETWORK_UPDATE&limit=100');
  assert.is(audit.status, 200, audit.text);
  const kinds = audit.json.items.flatMap((e: { after: { change?: { changes?: Array<{ kind: string; group?: string }> } } | null }) => e.after?.change?.changes?.map((c) => `${c.kind}${c.group ? ` ${c.group}` : ''}`) ?? []);
  assert.ok(kinds.includes('acls') && kinds.includes('policies /Channel/Orderer'), kinds.join(','));

  await commits('after the orderer Writers change');
});

t.run();
