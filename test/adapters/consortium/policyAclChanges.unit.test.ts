// Orderer and channel policies and Application ACLs in a channel config update (no node: a
// genesis block of two organizations, both application and orderer organizations): the ACLs set
// merge into the Application group's ACLs value (the others kept) and need the Application's
// Admins; an orderer policy needs /Channel/Orderer/Admins, a channel policy /Channel/Admins; the
// rules of domain/consortium/policyRules.ts read the genesis config decoded as the service shows it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { common, peer } from '@hyperledger/fabric-protos';
import { buildChannelGenesisBlock } from '../../../adapters/consortium/fabricGenesis.ts';
import { configFromBlock } from '../../../adapters/consortium/channelConfig.ts';
import { configJson } from '../../../adapters/consortium/channelConfigJson.ts';
import { applyChange } from '../../../adapters/consortium/configUpdateChanges.ts';
import { planConfigUpdate } from '../../../adapters/consortium/configUpdate.ts';
import { assertAcls, assertPolicies, policyTreeOf } from '../../../domain/consortium/policyRules.ts';
import { AppError } from '../../../domain/shared/errors.ts';
import { testOrganization } from '../../helpers/fabric.ts';
import { genesisInput } from './channelTestInput.ts';

const t = suite<{ config: common.Config }>('orderer and channel policies and ACLs in a config update', {} as { config: common.Config });

t.before(async (ctx) => {
  const org1 = await testOrganization('Org1MSP', 'org1.example.com');
  const org2 = await testOrganization('Org2MSP', 'org2.example.com');
  ctx.config = configFromBlock(buildChannelGenesisBlock(await genesisInput('mychannel', org1, org2)));
});

function aclsOf(config: common.Config): Record<string, string> {
  const v = config.getChannelGroup()!.getGroupsMap().get('Application')!.getValuesMap().get('ACLs')!;
  const out: Record<string, string> = {};
  peer.ACLs.deserializeBinary(v.getValue_asU8()).getAclsMap().forEach((r, k) => (out[k] = r.getPolicyRef()));
  return out;
}

t('an ACL set: that resource changes, the others kept; the diff names it; /Channel/Application/Admins signs; the JSON view shows it', (ctx) => {
  const before = aclsOf(ctx.config);
  const change = { kind: 'acls' as const, acls: { 'qscc/GetChainInfo': '/Channel/Application/Admins' } };
  const after = applyChange(ctx.config, change);
  const got = aclsOf(after);
  assert.is(got['qscc/GetChainInfo'], '/Channel/Application/Admins');
  assert.equal(Object.keys(got).sort(), Object.keys(before).sort());
  for (const k of Object.keys(before)) if (k !== 'qscc/GetChainInfo') assert.is(got[k], before[k], k);
  const plan = planConfigUpdate(ctx.config, 'mychannel', change, ['Org1MSP', 'Org2MSP']);
  assert.equal(plan.diff, [{ path: 'channel_group.groups.Application.values.ACLs.value.acls.qscc/GetChainInfo.policy_ref', before: '/Channel/Application/Readers', after: '/Channel/Application/Admins' }]);
  assert.equal(plan.policies, ['/Channel/Application/Admins']);
  const view = configJson(after).channel_group.groups.Application.values.ACLs.value as { acls: Record<string, { policy_ref: string }> };
  assert.is(view.acls['qscc/GetChainInfo'].policy_ref, '/Channel/Application/Admins');
});

t('orderer Writers and channel Readers: each written in its group, signed for by that group\'s Admins', (ctx) => {
  const orderer = planConfigUpdate(ctx.config, 'mychannel', { kind: 'policies', groupPath: ['Orderer'], policies: { Writers: { type: 'Signature', rule: "OR('Org1MSP.orderer', 'Org2MSP.admin')" } } }, ['Org1MSP', 'Org2MSP']);
  assert.equal(orderer.policies, ['/Channel/Orderer/Admins']);
  assert.ok(orderer.diff.every((d) => d.path.startsWith('channel_group.groups.Orderer.policies.Writers')), JSON.stringify(orderer.diff));
  const channel = planConfigUpdate(ctx.config, 'mychannel', { kind: 'policies', groupPath: [], policies: { Readers: { type: 'ImplicitMeta', rule: 'MAJORITY Readers' } } }, ['Org1MSP', 'Org2MSP']);
  assert.equal(channel.policies, ['/Channel/Admins']);
  assert.equal(channel.diff, [{ path: 'channel_group.policies.Readers.policy.value.rule', before: 'ANY', after: 'MAJORITY' }]);
});

t('the rules read the genesis config as decoded: its organizations, sub-policies and ACL policies', (ctx) => {
  const tree = policyTreeOf(configJson(ctx.config));
  assertPolicies(tree, 'ordererPolicies', { Writers: { type: 'Signature', rule: "OR('Org1MSP.orderer', 'Org2MSP.admin')" }, Admins: { type: 'ImplicitMeta', rule: 'ANY Admins' } });
  assertPolicies(tree, 'channelPolicies', { Admins: { type: 'Signature', rule: "AND('Org1MSP.admin', 'Org2MSP.admin')" } });
  assertAcls(tree, { 'qscc/GetChainInfo': '/Channel/Application/Admins', 'event/Block': 'Org1MSP/Readers' });
  let err: unknown;
  try {
    assertPolicies(tree, 'channelPolicies', { Admins: { type: 'ImplicitMeta', rule: 'ANY Endorsement' } });
  } catch (e) {
    err = e;
  }
  assert.instance(err, AppError);
  assert.is((err as AppError).status, 400);
});

t.run();
