// The policy and ACL rules checked before a channel's policies or ACLs are changed
// (domain/consortium/policyRules.ts), against a channel config in configtxlator's JSON shape:
// rules parsed as Fabric's policydsl reads them, MSP ids of the group only, ImplicitMeta
// sub-policies that the sub-groups define, BlockValidation refused on a BFT channel, a
// modification policy no admins could satisfy refused (409), ACL resources of Fabric 2.5's
// configtx.yaml only, each referring to a policy the channel defines.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ACL_RESOURCES, assertAcls, assertPolicies, parseSignatureRule, policyTreeOf } from '../../../domain/consortium/policyRules.ts';
import type { ChannelConfigJson } from '../../../domain/consortium/consortiumChannelPorts.ts';
import { channelConfig, refused, sig } from './ruleFixtures.ts';
import { defaultAcls } from '../../../adapters/consortium/channelConfigValues.ts';

const t = suite('channel policy and ACL rules');

const config: ChannelConfigJson = channelConfig(['Org1MSP', 'Org2MSP'], ['OrdererMSP']);
const tree = policyTreeOf(config);

t('valid policies of each level pass: ImplicitMeta over defined sub-policies, Signature rules naming the group\'s organizations', () => {
  assertPolicies(tree, 'policies', { Endorsement: { type: 'Signature', rule: "OutOf(2, 'Org1MSP.peer', 'Org2MSP.peer')" }, Readers: { type: 'ImplicitMeta', rule: 'ANY Readers' } });
  assertPolicies(tree, 'ordererPolicies', { Writers: { type: 'Signature', rule: "OR('OrdererMSP.member')" }, BlockValidation: { type: 'ImplicitMeta', rule: 'ANY Writers' } });
  assertPolicies(tree, 'channelPolicies', { Admins: { type: 'ImplicitMeta', rule: 'ALL Admins' }, Readers: { type: 'Signature', rule: "OR('Org1MSP.member', 'OrdererMSP.member')" } });
});

t('a rule that is not valid is a 400 naming the field and why', () => {
  for (const [level, name, policy, why] of [
    ['channelPolicies', 'Writers', { type: 'ImplicitMeta', rule: 'SOME Writers' }, /ANY\|ALL\|MAJORITY/],
    ['ordererPolicies', 'Readers', { type: 'Signature', rule: "OR('OrdererMSP.admin'" }, /expected "\)"/],
    ['ordererPolicies', 'Readers', { type: 'Signature', rule: "OR('OrdererMSP.boss')" }, /member\|admin\|client\|peer\|orderer/],
    ['policies', 'Admins', { type: 'Signature', rule: "OutOf(3, 'Org1MSP.admin', 'Org2MSP.admin')" }, /OutOf\(3\) over 2/],
    ['policies', 'Readers', { type: 'Signature', rule: "XOR('Org1MSP.admin')" }, /unknown operator XOR/],
  ] as const) {
    const e = refused(() => assertPolicies(tree, level, { [name]: policy }));
    assert.is(e.status, 400);
    assert.is(e.details?.[0].field, `${level}.${name}`);
    assert.match(e.message, why);
  }
});

t('a Signature rule naming an MSP id outside the group is a 400 naming it (an application org is not an orderer org)', () => {
  const e = refused(() => assertPolicies(tree, 'ordererPolicies', { Writers: { type: 'Signature', rule: "OR('OrdererMSP.member', 'Org1MSP.member')" } }));
  assert.is(e.status, 400);
  assert.is(e.details?.[0].field, 'ordererPolicies.Writers');
  assert.match(e.message, /names Org1MSP, not an organization of \/Channel\/Orderer/);
  const u = refused(() => assertPolicies(tree, 'channelPolicies', { Readers: { type: 'Signature', rule: "OR('Org9MSP.member')" } }));
  assert.match(u.details?.[0].message ?? '', /unknown MSP id Org9MSP/);
});

t('an ImplicitMeta sub-policy the sub-groups do not define is a 400; a name not settable at the level is a 400', () => {
  const e = refused(() => assertPolicies(tree, 'channelPolicies', { Writers: { type: 'ImplicitMeta', rule: 'ANY Endorsement' } }));
  assert.is(e.status, 400);
  assert.match(e.message, /Endorsement, which the sub-groups Orderer of \/Channel do not define/);
  const n = refused(() => assertPolicies(tree, 'channelPolicies', { BlockValidation: { type: 'ImplicitMeta', rule: 'ANY Writers' } }));
  assert.is(n.details?.[0].field, 'channelPolicies.BlockValidation');
});

t('BlockValidation of a BFT channel is a 400 saying the service computes it from the consenters; on etcdraft it is set', () => {
  const e = refused(() => assertPolicies(tree, 'ordererPolicies', { BlockValidation: { type: 'ImplicitMeta', rule: 'ANY Writers' } }, { bft: true }));
  assert.is(e.status, 400);
  assert.match(e.message, /recomputed by this service from its consenters/);
  assertPolicies(tree, 'ordererPolicies', { BlockValidation: { type: 'ImplicitMeta', rule: 'ANY Writers' } }, { bft: false });
});

t('an Admins rule no set of the organizations\' admins could satisfy is a 409 naming the rule; a satisfiable one passes', () => {
  for (const [level, rule] of [
    ['channelPolicies', { type: 'Signature', rule: "OR('Org1MSP.client', 'OrdererMSP.peer')" }],
    ['channelPolicies', { type: 'Signature', rule: "AND('Org1MSP.admin', 'Org1MSP.admin')" }],
    ['ordererPolicies', { type: 'Signature', rule: "OR('OrdererMSP.orderer')" }],
    ['policies', { type: 'Signature', rule: "OutOf(2, 'Org1MSP.admin', 'Org1MSP.member')" }],
  ] as const) {
    const e = refused(() => assertPolicies(tree, level, { Admins: rule }));
    assert.is(e.status, 409, rule.rule);
    assert.is(e.code, 'POLICY_UNSATISFIABLE');
    assert.ok(e.message.includes(rule.rule), e.message);
  }
  assertPolicies(tree, 'channelPolicies', { Admins: { type: 'Signature', rule: "AND('Org1MSP.admin', 'OrdererMSP.admin')" } });
  assertPolicies(tree, 'policies', { Admins: { type: 'Signature', rule: "OutOf(2, 'Org1MSP.admin', 'Org2MSP.member')" } });
});

t('an ImplicitMeta Admins over sub-policies no admin satisfies is a 409 (the Orderer group\'s Admins made unsatisfiable first)', () => {
  const broken: ChannelConfigJson = JSON.parse(JSON.stringify(config));
  broken.channel_group.groups.Orderer.groups.OrdererMSP.policies.Admins = sig('OrdererMSP', 'CLIENT');
  const e = refused(() => assertPolicies(policyTreeOf(broken), 'channelPolicies', { Admins: { type: 'ImplicitMeta', rule: 'ALL Admins' } }));
  assert.is(e.status, 409);
  assertPolicies(policyTreeOf(broken), 'channelPolicies', { Admins: { type: 'ImplicitMeta', rule: 'ANY Admins' } });
});

t('ACLs: Fabric\'s resources set to policies the channel defines pass; unknown resources and missing policies are 400s naming the resource', () => {
  assertAcls(tree, { 'qscc/GetChainInfo': '/Channel/Application/Admins', 'event/Block': 'Readers', 'peer/Propose': '/Channel/Orderer/Writers' });
  const e = refused(() => assertAcls(tree, { 'qscc/GetEverything': '/Channel/Application/Admins' }));
  assert.is(e.status, 400);
  assert.is(e.details?.[0].field, 'acls.qscc/GetEverything');
  assert.match(e.message, /not a channel resource/);
  for (const ref of ['/Channel/Application/Bosses', 'Bosses', '/Channel/Nowhere/Admins', 'Org9MSP/Admins', '/Other/Application/Admins']) {
    const m = refused(() => assertAcls(tree, { 'qscc/GetChainInfo': ref }));
    assert.is(m.status, 400, ref);
    assert.match(m.message, /does not exist in the channel/);
  }
  assertAcls(tree, { 'qscc/GetChainInfo': '/Channel/Application/Org1MSP/Admins' });
});

t('the ACL resources are those of Fabric 2.5\'s configtx.yaml the genesis block writes', () => {
  assert.equal([...ACL_RESOURCES].sort(), Object.keys(defaultAcls).sort());
});

t('the parser reads principals in order of occurrence, OR as OutOf(1), AND as OutOf(all)', () => {
  assert.equal(parseSignatureRule("OR('A.admin', AND('B.peer', \"C.member\"))"), {
    kind: 'outOf', n: 1, rules: [{ kind: 'signedBy', mspId: 'A', role: 'admin' }, { kind: 'outOf', n: 2, rules: [{ kind: 'signedBy', mspId: 'B', role: 'peer' }, { kind: 'signedBy', mspId: 'C', role: 'member' }] }],
  });
});

t.run();
