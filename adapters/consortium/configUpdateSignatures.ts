// Whose admin signatures a config update needs, worked out as the orderer's validator does:
// every element of the write set that exists in the current config with its version raised is
// checked against that element's current mod_policy (relative names resolve from the group
// itself for a group, from the parent group for a value or policy). Each of those policies is
// then evaluated with one admin signature per available organization:
//   ImplicitMeta ANY/ALL/MAJORITY <sub> over the sub-groups' <sub> policies;
//   Signature policies, where an admin satisfies the MSP's "admin" and "member" principals.
//   requiredPolicies(current, update)            -> policy paths, e.g. ["/Channel/Application/Admins"]
//   evaluatePolicy(current, path, signerMspIds)  -> { satisfied, missingOrganizations, moreNeeded, rule }
//   organizationsReferenced(current, path)       -> every MSP id whose admin could count
//   signatureRequirement(current, policies, signerMspIds) -> required / held / missing organizations and the unmet policies
import { common, msp } from '@hyperledger/fabric-protos';
import type { SignatureRequirement, UnmetPolicy } from '../../domain/consortium/consortiumChannelPorts.ts';

export interface PolicyEvaluation {
  satisfied: boolean;
  missingOrganizations: string[];
  moreNeeded: number;
  rule: string;
}

function mapGet<V>(map: { get(key: string): V | undefined }, key: string): V | undefined {
  return map.get(key);
}

function keysOf(map: { forEach(callback: (value: unknown, key: string) => void): void }): string[] {
  const keys: string[] = [];
  map.forEach((_v, k) => keys.push(k));
  return keys.sort();
}

function resolve(groupPath: string[], modPolicy: string): string {
  return modPolicy.startsWith('/') ? modPolicy : `/${[...groupPath, modPolicy].join('/')}`;
}

/** Policy paths the update must satisfy; groupPath starts at "Channel". */
export function requiredPolicies(current: common.Config, update: common.ConfigUpdate): string[] {
  const paths = new Set<string>();
  const walk = (written: common.ConfigGroup, existing: common.ConfigGroup | undefined, path: string[]) => {
    if (existing && written.getVersion() === existing.getVersion() + 1) paths.add(resolve(path, existing.getModPolicy()));
    for (const key of keysOf(written.getValuesMap())) {
      const before = existing && mapGet(existing.getValuesMap(), key);
      if (before && written.getValuesMap().get(key)!.getVersion() === before.getVersion() + 1) paths.add(resolve(path, before.getModPolicy()));
    }
    for (const key of keysOf(written.getPoliciesMap())) {
      const before = existing && mapGet(existing.getPoliciesMap(), key);
      if (before && written.getPoliciesMap().get(key)!.getVersion() === before.getVersion() + 1) paths.add(resolve(path, before.getModPolicy()));
    }
    for (const key of keysOf(written.getGroupsMap())) {
      walk(written.getGroupsMap().get(key)!, existing && mapGet(existing.getGroupsMap(), key), [...path, key]);
    }
  };
  const writeSet = update.getWriteSet();
  if (writeSet) walk(writeSet, current.getChannelGroup(), ['Channel']);
  return [...paths].sort();
}

function locate(current: common.Config, policyPath: string): { group: common.ConfigGroup; policy: common.Policy } {
  const parts = policyPath.split('/').filter(Boolean);
  if (parts[0] !== 'Channel') throw new Error(`Policy path ${policyPath} does not start at /Channel.`);
  let group = current.getChannelGroup();
  for (const name of parts.slice(1, -1)) group = group && mapGet(group.getGroupsMap(), name);
  const policy = group && mapGet(group.getPoliciesMap(), parts[parts.length - 1])?.getPolicy();
  if (!group || !policy) throw new Error(`The channel config has no policy ${policyPath}.`);
  return { group, policy };
}

const implicitNames = ['ANY', 'ALL', 'MAJORITY'];
const roleNames = ['member', 'admin', 'client', 'peer', 'orderer'];

function evaluateSignature(envelope: common.SignaturePolicyEnvelope, signers: Set<string>): PolicyEvaluation {
  const principals = envelope.getIdentitiesList().map((p) => {
    if (p.getPrincipalClassification() !== msp.MSPPrincipal.Classification.ROLE) return { mspId: null, role: -1, text: 'non-role principal' };
    const role = msp.MSPRole.deserializeBinary(p.getPrincipal_asU8());
    return { mspId: role.getMspIdentifier(), role: role.getRole(), text: `'${role.getMspIdentifier()}.${roleNames[role.getRole()] ?? role.getRole()}'` };
  });
  const adminCounts = (i: number) => {
    const p = principals[i];
    return p !== undefined && p.mspId !== null && signers.has(p.mspId) && (p.role === msp.MSPRole.MSPRoleType.ADMIN || p.role === msp.MSPRole.MSPRoleType.MEMBER);
  };
  const walk = (rule: common.SignaturePolicy): { ok: boolean; missing: Set<string>; moreNeeded: number; text: string } => {
    if (!rule.hasNOutOf()) {
      const i = rule.getSignedBy();
      const p = principals[i];
      const ok = adminCounts(i);
      const adminCanSign = p?.mspId && (p.role === msp.MSPRole.MSPRoleType.ADMIN || p.role === msp.MSPRole.MSPRoleType.MEMBER);
      return { ok, missing: new Set(!ok && adminCanSign ? [p.mspId!] : []), moreNeeded: ok ? 0 : 1, text: p?.text ?? `principal ${i}` };
    }
    const n = rule.getNOutOf()!;
    const parts = n.getRulesList().map(walk);
    const satisfied = parts.filter((r) => r.ok).length;
    const ok = satisfied >= n.getN();
    const missing = new Set(ok ? [] : parts.filter((r) => !r.ok).flatMap((r) => [...r.missing]));
    return { ok, missing, moreNeeded: ok ? 0 : n.getN() - satisfied, text: `OutOf(${n.getN()}, ${parts.map((r) => r.text).join(', ')})` };
  };
  const root = envelope.getRule();
  if (!root) return { satisfied: false, missingOrganizations: [], moreNeeded: 1, rule: 'empty signature policy' };
  const result = walk(root);
  return { satisfied: result.ok, missingOrganizations: [...result.missing].sort(), moreNeeded: result.moreNeeded, rule: result.text };
}

function evaluateIn(current: common.Config, policyPath: string, signers: Set<string>): PolicyEvaluation {
  const { group, policy } = locate(current, policyPath);
  if (policy.getType() === common.Policy.PolicyType.SIGNATURE) {
    return evaluateSignature(common.SignaturePolicyEnvelope.deserializeBinary(policy.getValue_asU8()), signers);
  }
  if (policy.getType() !== common.Policy.PolicyType.IMPLICIT_META) {
    return { satisfied: false, missingOrganizations: [], moreNeeded: 1, rule: `policy type ${policy.getType()} is not evaluated here` };
  }
  const meta = common.ImplicitMetaPolicy.deserializeBinary(policy.getValue_asU8());
  const base = policyPath.slice(0, policyPath.lastIndexOf('/'));
  // As Fabric does, sub-groups without the sub-policy do not count towards the threshold.
  const subs = keysOf(group.getGroupsMap())
    .filter((name) => group.getGroupsMap().get(name)!.getPoliciesMap().has(meta.getSubPolicy()))
    .map((name) => evaluateIn(current, `${base}/${name}/${meta.getSubPolicy()}`, signers));
  const threshold = meta.getRule() === common.ImplicitMetaPolicy.Rule.ANY ? 1 : meta.getRule() === common.ImplicitMetaPolicy.Rule.ALL ? subs.length : Math.floor(subs.length / 2) + 1;
  const satisfiedCount = subs.filter((s) => s.satisfied).length;
  const satisfied = satisfiedCount >= threshold;
  return {
    satisfied,
    missingOrganizations: satisfied ? [] : [...new Set(subs.filter((s) => !s.satisfied).flatMap((s) => s.missingOrganizations))].sort(),
    moreNeeded: satisfied ? 0 : threshold - satisfiedCount,
    rule: `${implicitNames[meta.getRule()]} ${meta.getSubPolicy()}`,
  };
}

export function evaluatePolicy(current: common.Config, policyPath: string, signerMspIds: Iterable<string>): PolicyEvaluation {
  return evaluateIn(current, policyPath, new Set(signerMspIds));
}

export function organizationsReferenced(current: common.Config, policyPath: string): string[] {
  return evaluateIn(current, policyPath, new Set()).missingOrganizations;
}

/** The policies evaluated with one admin signature of each of `signerMspIds`: whose signatures count, which of those are held, which are missing. */
export function signatureRequirement(current: common.Config, policies: string[], signerMspIds: Iterable<string>): SignatureRequirement {
  const signers = new Set(signerMspIds);
  const unmet: UnmetPolicy[] = [];
  for (const policyPath of policies) {
    const evaluation = evaluatePolicy(current, policyPath, signers);
    if (!evaluation.satisfied) unmet.push({ policyPath, rule: evaluation.rule, missingOrganizations: evaluation.missingOrganizations, moreNeeded: evaluation.moreNeeded });
  }
  const required = [...new Set(policies.flatMap((p) => organizationsReferenced(current, p)))].sort();
  return {
    policies,
    requiredOrganizations: required,
    heldOrganizations: required.filter((m) => signers.has(m)),
    missingOrganizations: [...new Set(unmet.flatMap((u) => u.missingOrganizations))].sort(),
    unmet,
  };
}
