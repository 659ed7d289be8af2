// Fixtures of the consortium rule tests (policyRules, capabilityRules, consenterRules): the
// refusal a rule check throws, and channel configs in configtxlator's JSON shape built from
// their parts (levels with ImplicitMeta policies, organizations with Signature policies by role).
import * as assert from 'uvu/assert';
import type { ChannelConfigJson, ConfigGroupJson } from '../../../domain/consortium/consortiumChannelPorts.ts';
import { AppError } from '../../../domain/shared/errors.ts';

/** The AppError `fn` throws (its status, code and message for further checks); fails the test when it throws none. */
export function refused(fn: () => void): AppError {
  try {
    fn();
  } catch (err) {
    assert.instance(err, AppError);
    return err as AppError;
  }
  throw new Error('expected a refusal');
}

/** An ImplicitMeta policy: `rule` (ANY, ALL, MAJORITY) over the sub-groups' `sub` policies. */
export const meta = (rule: string, sub: string) => ({ mod_policy: 'Admins', version: '0', policy: { type: 3, value: { rule, sub_policy: sub } } });

/** A Signature policy: `n` (default 1) signatures among `mspIds` (one or several) in `role` (MEMBER, ADMIN, PEER, ...). */
export const sig = (mspIds: string | string[], role: string, n = 1) => {
  const ids = typeof mspIds === 'string' ? [mspIds] : mspIds;
  return {
    mod_policy: 'Admins', version: '0',
    policy: { type: 1, value: { identities: ids.map((m) => ({ principal: { msp_identifier: m, role }, principal_classification: 'ROLE' })), rule: { n_out_of: { n, rules: ids.map((_, i) => ({ signed_by: i })) } }, version: 0 } },
  };
};

export const group = (policies: ConfigGroupJson['policies'], groups: Record<string, ConfigGroupJson> = {}, values: ConfigGroupJson['values'] = {}): ConfigGroupJson => ({ groups, mod_policy: 'Admins', policies, values, version: '0' });

/** An organization's group as configtxgen writes it: Readers, Writers, Admins, Endorsement by role, its MSP. */
export const org = (mspId: string) => group(
  { Readers: sig(mspId, 'MEMBER'), Writers: sig(mspId, 'MEMBER'), Admins: sig(mspId, 'ADMIN'), Endorsement: sig(mspId, 'PEER') },
  {}, { MSP: { mod_policy: 'Admins', version: '0', value: { config: { name: mspId }, type: 0 } } },
);

/** A level's Readers, Writers (ANY) and Admins (`admins`, default MAJORITY). */
export const levelPolicies = (admins = 'MAJORITY') => ({ Readers: meta('ANY', 'Readers'), Writers: meta('ANY', 'Writers'), Admins: meta(admins, 'Admins') });

/** A channel of application organizations `applicationOrgs` and orderer organizations `ordererOrgs`, at `sequence`. */
export function channelConfig(applicationOrgs: string[], ordererOrgs: string[], sequence = '3'): ChannelConfigJson {
  return {
    sequence,
    channel_group: group(levelPolicies(), {
      Application: group({ ...levelPolicies(), Endorsement: meta('MAJORITY', 'Endorsement') }, Object.fromEntries(applicationOrgs.map((m) => [m, org(m)]))),
      Orderer: group({ ...levelPolicies(), BlockValidation: meta('ANY', 'Writers') }, Object.fromEntries(ordererOrgs.map((m) => [m, org(m)]))),
    }),
  };
}
