// The channel page's ACL and orderer/channel policy panel (web/src/pages/networks/ChannelPolicies.tsx, its helpers web/src/components/channelAcls.ts)
// reads the decoded config: the Application ACLs sorted by resource, the /Channel and
// /Channel/Orderer policies with their rules in words; its resource list is the service's
// (domain/consortium/policyRules.ts), so the form offers nothing the API refuses as unknown.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ACL_RESOURCES, aclRows, levelPolicyRows } from '../../web/src/components/channelAcls.ts';
import { policyText } from '../../web/src/components/channelPolicies.ts';
import { ACL_RESOURCES as SERVICE_RESOURCES } from '../../domain/consortium/policyRules.ts';

const config = {
  channel_group: {
    policies: { Admins: { policy: { type: 3, value: { rule: 'MAJORITY', sub_policy: 'Admins' } } } },
    groups: {
      Application: { values: { ACLs: { value: { acls: { 'qscc/GetChainInfo': { policy_ref: '/Channel/Application/Admins' }, 'event/Block': { policy_ref: 'Readers' } } } } } },
      Orderer: {
        policies: {
          Writers: { policy: { type: 1, value: { identities: [{ principal: { msp_identifier: 'OrdererMSP', role: 'MEMBER' }, principal_classification: 'ROLE' }], rule: { n_out_of: { n: 1, rules: [{ signed_by: 0 }] } } } } },
          BlockValidation: { policy: { type: 3, value: { rule: 'ANY', sub_policy: 'Writers' } } },
        },
      },
    },
  },
};

test('the ACLs as the config has them, sorted by resource', () => {
  assert.equal(aclRows(config), [{ resource: 'event/Block', policyRef: 'Readers' }, { resource: 'qscc/GetChainInfo', policyRef: '/Channel/Application/Admins' }]);
  assert.equal(aclRows({ channel_group: {} }), []);
});

test('the orderer and channel policies with their rules in words', () => {
  const rows = (level: 'channelPolicies' | 'ordererPolicies') => levelPolicyRows(config, level).map((p) => ({ name: p.name, rule: policyText(p.policy) }));
  assert.equal(rows('channelPolicies'), [{ name: 'Admins', rule: 'ImplicitMeta: MAJORITY Admins' }]);
  const orderer = rows('ordererPolicies');
  assert.equal(orderer.map((p) => p.name), ['BlockValidation', 'Writers']);
  assert.is(orderer[0].rule, 'ImplicitMeta: ANY Writers');
  assert.match(orderer[1].rule, /OrdererMSP\.member/);
});

test('the resources offered are the service\'s', () => {
  assert.equal([...ACL_RESOURCES].sort(), [...SERVICE_RESOURCES].sort());
});

test.run();
