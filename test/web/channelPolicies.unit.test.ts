// The console's preview of the signatures a channel change needs, over configs in the shape the
// API decodes them (configtxlator's JSON): the same rules as the service's planner
// (adapters/consortium/configUpdateSignatures.ts). The e2e test consoleChannel checks the preview
// against a real channel and the API's 409.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { anchorPeersOf, evaluatePolicy, policiesFor, policyText, ruleCounts, signaturesNeeded, type ChannelConfigJson, type ConfigGroup } from '../../web/src/components/channelPolicies.ts';

const implicit = (rule: string, sub: string) => ({ type: 3, value: { rule, sub_policy: sub } });
const admin = (msp: string) => ({ type: 1, value: { identities: [{ principal: { msp_identifier: msp, role: 'ADMIN' }, principal_classification: 'ROLE' }], rule: { n_out_of: { n: 1, rules: [{ signed_by: 0 }] } }, version: 0 } });
const org = (msp: string, anchors: Array<{ host: string; port: number }> | null): ConfigGroup => ({
  mod_policy: 'Admins',
  policies: { Admins: { mod_policy: 'Admins', policy: admin(msp) }, Readers: { mod_policy: 'Admins', policy: admin(msp) } },
  values: anchors ? { AnchorPeers: { mod_policy: 'Admins', value: { anchor_peers: anchors } }, MSP: { mod_policy: 'Admins', value: {} } } : { MSP: { mod_policy: 'Admins', value: {} } },
  groups: {},
});

function config(orgs: string[], adminsPolicy: { type: number; value: unknown } = implicit('MAJORITY', 'Admins')): ChannelConfigJson {
  return {
    channel_group: {
      mod_policy: 'Admins',
      groups: {
        Application: {
          mod_policy: 'Admins',
          groups: Object.fromEntries(orgs.map((o, i) => [o, org(o, i === 0 ? [{ host: 'peer0.org1', port: 7051 }] : null)])),
          policies: { Admins: { mod_policy: 'Admins', policy: adminsPolicy }, Writers: { mod_policy: 'Admins', policy: implicit('ANY', 'Writers') } },
          values: {},
        },
      },
      policies: {},
      values: {},
    },
  };
}

test('adding organizations or changing an application policy needs the Application group\'s Admins: a majority of its organizations\' admins', () => {
  const c = config(['Org1MSP', 'Org2MSP', 'Org3MSP']);
  assert.equal(policiesFor(c, { kind: 'addOrganizations' }), ['/Channel/Application/Admins']);
  assert.equal(policiesFor(c, { kind: 'policy', name: 'Writers' }), ['/Channel/Application/Admins']);
  assert.equal(policiesFor(c, { kind: 'policy', name: 'Endorsement' }), ['/Channel/Application/Admins'], 'a new policy: the group\'s mod_policy');
  const [need] = signaturesNeeded(c, { kind: 'addOrganizations' }, ['Org1MSP', 'Org2MSP']);
  assert.equal(need, { path: '/Channel/Application/Admins', rule: 'MAJORITY Admins', satisfied: true, missing: [], counted: ['Org1MSP', 'Org2MSP', 'Org3MSP'], moreNeeded: 0 });
  const short = evaluatePolicy(c, '/Channel/Application/Admins', ['Org1MSP']);
  assert.equal([short.satisfied, short.missing, short.moreNeeded], [false, ['Org2MSP', 'Org3MSP'], 1]);
});

test('anchor peers need the organization\'s own admin, whoever else signs', () => {
  const c = config(['Org1MSP', 'Org2MSP']);
  assert.equal(policiesFor(c, { kind: 'anchorPeers', mspId: 'Org1MSP' }), ['/Channel/Application/Org1MSP/Admins']);
  assert.equal(policiesFor(c, { kind: 'anchorPeers', mspId: 'Org2MSP' }), ['/Channel/Application/Org2MSP/Admins'], 'no AnchorPeers value yet: the group\'s mod_policy');
  const [n] = signaturesNeeded(c, { kind: 'anchorPeers', mspId: 'Org2MSP' }, ['Org1MSP']);
  assert.equal([n.rule, n.satisfied, n.missing], ["OutOf(1, 'Org2MSP.admin')", false, ['Org2MSP']]);
  assert.equal(anchorPeersOf(c, 'Org1MSP'), [{ host: 'peer0.org1', port: 7051 }]);
  assert.equal(anchorPeersOf(c, 'Org2MSP'), []);
});

test('a Signature Admins policy naming an organization this service does not hold: nothing can change until it signs', () => {
  const c = config(['Org1MSP', 'Org2MSP'], { type: 1, value: { identities: [{ principal: { msp_identifier: 'Org3MSP', role: 'ADMIN' }, principal_classification: 'ROLE' }], rule: { n_out_of: { n: 1, rules: [{ signed_by: 0 }] } }, version: 0 } });
  const [n] = signaturesNeeded(c, { kind: 'policy', name: 'Writers' }, ['Org1MSP', 'Org2MSP']);
  assert.equal([n.rule, n.satisfied, n.missing, n.moreNeeded], ["OutOf(1, 'Org3MSP.admin')", false, ['Org3MSP'], 1]);
  assert.is(policyText(c.channel_group!.groups!.Application.policies!.Admins.policy), "Signature: OutOf(1, 'Org3MSP.admin')");
  assert.is(policyText(implicit('ANY', 'Readers')), 'ImplicitMeta: ANY Readers');
  assert.is(evaluatePolicy(c, '/Channel/Application/Nope', []).satisfied, false);
});

test('the orderer\'s batch settings are checked against their values\' mod_policy in the Orderer group: its Admins, a majority of the orderer organizations\' admins', () => {
  const c = config(['Org1MSP']);
  c.channel_group!.groups!.Orderer = {
    mod_policy: 'Admins',
    groups: { OrdererMSP: org('OrdererMSP', null), Orderer2MSP: org('Orderer2MSP', null) },
    policies: { Admins: { mod_policy: 'Admins', policy: implicit('MAJORITY', 'Admins') } },
    values: { BatchTimeout: { mod_policy: 'Admins', value: { timeout: '2s' } }, BatchSize: { mod_policy: '/Channel/Admins', value: {} } },
  };
  assert.equal(policiesFor(c, { kind: 'batch', values: ['BatchTimeout'] }), ['/Channel/Orderer/Admins']);
  assert.equal(policiesFor(c, { kind: 'batch', values: ['BatchTimeout', 'BatchSize'] }), ['/Channel/Orderer/Admins', '/Channel/Admins'], 'each value under its own mod_policy');
  const [need] = signaturesNeeded(c, { kind: 'batch', values: ['BatchTimeout'] }, ['OrdererMSP']);
  assert.is(need.satisfied, false, 'one of two orderer organizations is no majority');
  assert.equal(need.missing, ['Orderer2MSP']);
  assert.is(signaturesNeeded(c, { kind: 'batch', values: ['BatchTimeout'] }, ['OrdererMSP', 'Orderer2MSP'])[0].satisfied, true);
});

test('the policy editor says who a rule being written counts: ImplicitMeta over the organizations with the sub-policy, Signature by its principals and outer operator', () => {
  const c = config(['Org1MSP', 'Org2MSP', 'Org3MSP']);
  assert.equal(ruleCounts(c, ['Application'], 'ImplicitMeta', 'MAJORITY Admins'), { organizations: ['Org1MSP', 'Org2MSP', 'Org3MSP'], needed: 2, what: 'Admins' });
  assert.equal(ruleCounts(c, ['Application'], 'ImplicitMeta', 'ANY Readers'), { organizations: ['Org1MSP', 'Org2MSP', 'Org3MSP'], needed: 1, what: 'Readers' });
  assert.equal(ruleCounts(c, ['Application'], 'ImplicitMeta', 'ALL Admins')!.needed, 3);
  assert.equal(ruleCounts(c, ['Application'], 'ImplicitMeta', 'MAJORITY Endorsement'), { organizations: [], needed: 1, what: 'Endorsement' }, 'no organization has that sub-policy: MAJORITY of none needs 1, as Fabric counts it (cannot be met)');
  assert.is(ruleCounts(c, ['Application'], 'ImplicitMeta', 'SOME Admins'), null);
  assert.equal(ruleCounts(c, ['Application'], 'Signature', "OR('Org1MSP.admin', 'Org2MSP.admin')"), { organizations: ['Org1MSP', 'Org2MSP'], needed: 1, what: 'admin' });
  assert.equal(ruleCounts(c, ['Application'], 'Signature', "AND('Org1MSP.admin', 'Org3MSP.member')"), { organizations: ['Org1MSP', 'Org3MSP'], needed: 2, what: 'admin or member' });
  assert.equal(ruleCounts(c, ['Application'], 'Signature', "OutOf(2, 'Org1MSP.admin', 'Org2MSP.admin', 'Org3MSP.admin')")!.needed, 2);
  assert.is(ruleCounts(c, ['Application'], 'Signature', 'OR(nobody)'), null);
});

test.run();
