// Channel policies as Fabric encodes them: ImplicitMeta ("MAJORITY Admins") and signature
// policies written in Fabric's policy language ("OR('Org1MSP.admin', AND('A.peer','B.peer'))",
// "OutOf(2, 'A.member', 'B.member', 'C.member')"), parsed by domain/consortium/policyRules.ts and
// encoded here into SignaturePolicyEnvelopes the same way Fabric's policydsl does (one principal per occurrence, in order).
//   configPolicy({type, rule}, modPolicy = 'Admins') -> common.ConfigPolicy
//   signaturePolicyEnvelope(rule)                     -> common.SignaturePolicyEnvelope
//   implicitMetaPolicy(rule)                          -> common.ImplicitMetaPolicy
import { common, msp } from '@hyperledger/fabric-protos';
import type { ChannelPolicy } from '../../domain/consortium/consortiumPorts.ts';
import { parseImplicitMetaRule, parseSignatureRule, type SignatureRule } from '../../domain/consortium/policyRules.ts';

type RoleType = msp.MSPRole.MSPRoleTypeMap[keyof msp.MSPRole.MSPRoleTypeMap];
type ImplicitRule = common.ImplicitMetaPolicy.RuleMap[keyof common.ImplicitMetaPolicy.RuleMap];

export const mspRoles: Record<string, RoleType> = {
  member: msp.MSPRole.MSPRoleType.MEMBER,
  admin: msp.MSPRole.MSPRoleType.ADMIN,
  client: msp.MSPRole.MSPRoleType.CLIENT,
  peer: msp.MSPRole.MSPRoleType.PEER,
  orderer: msp.MSPRole.MSPRoleType.ORDERER,
};

const implicitRules: Record<string, ImplicitRule> = {
  ANY: common.ImplicitMetaPolicy.Rule.ANY,
  ALL: common.ImplicitMetaPolicy.Rule.ALL,
  MAJORITY: common.ImplicitMetaPolicy.Rule.MAJORITY,
};

export function implicitMetaPolicy(rule: string, field = 'policies'): common.ImplicitMetaPolicy {
  const parsed = parseImplicitMetaRule(rule, field);
  const policy = new common.ImplicitMetaPolicy();
  policy.setRule(implicitRules[parsed.rule]);
  policy.setSubPolicy(parsed.subPolicy);
  return policy;
}

/** The envelope of a rule parsed by domain/consortium/policyRules.ts: one principal per occurrence, in order (Fabric's policydsl). */
export function signaturePolicyEnvelope(rule: string, field = 'policies'): common.SignaturePolicyEnvelope {
  const principals: msp.MSPPrincipal[] = [];
  const build = (r: SignatureRule): common.SignaturePolicy => {
    const policy = new common.SignaturePolicy();
    if (r.kind === 'signedBy') {
      const mspRole = new msp.MSPRole();
      mspRole.setMspIdentifier(r.mspId);
      mspRole.setRole(mspRoles[r.role]);
      const p = new msp.MSPPrincipal();
      p.setPrincipalClassification(msp.MSPPrincipal.Classification.ROLE);
      p.setPrincipal(mspRole.serializeBinary());
      principals.push(p);
      policy.setSignedBy(principals.length - 1);
      return policy;
    }
    const nOutOf = new common.SignaturePolicy.NOutOf();
    nOutOf.setN(r.n);
    nOutOf.setRulesList(r.rules.map(build));
    policy.setNOutOf(nOutOf);
    return policy;
  };
  const root = build(parseSignatureRule(rule, field));
  const envelope = new common.SignaturePolicyEnvelope();
  envelope.setVersion(0);
  envelope.setRule(root);
  envelope.setIdentitiesList(principals);
  return envelope;
}

export function configPolicy(policy: ChannelPolicy, modPolicy = 'Admins'): common.ConfigPolicy {
  const inner = new common.Policy();
  if (policy.type === 'ImplicitMeta') {
    inner.setType(common.Policy.PolicyType.IMPLICIT_META);
    inner.setValue(implicitMetaPolicy(policy.rule).serializeBinary());
  } else {
    inner.setType(common.Policy.PolicyType.SIGNATURE);
    inner.setValue(signaturePolicyEnvelope(policy.rule).serializeBinary());
  }
  const config = new common.ConfigPolicy();
  config.setPolicy(inner);
  config.setModPolicy(modPolicy);
  return config;
}

/**
 * The BlockValidation policy of a BFT channel, as Fabric's EncodeBFTBlockVerificationPolicy
 * computes it: a block is valid with the signatures of a quorum, ceil((n + f + 1) / 2), of the
 * consenters, each named by its own identity (MSPPrincipal IDENTITY).
 */
export function bftBlockValidationPolicy(consenters: { mspId: string; identityCertPem: string }[], quorum: number, modPolicy = 'Admins'): common.ConfigPolicy {
  const principals = consenters.map((c) => {
    const identity = new msp.SerializedIdentity();
    identity.setMspid(c.mspId);
    identity.setIdBytes(Buffer.from(c.identityCertPem));
    const principal = new msp.MSPPrincipal();
    principal.setPrincipalClassification(msp.MSPPrincipal.Classification.IDENTITY);
    principal.setPrincipal(identity.serializeBinary());
    return principal;
  });
  const rules = consenters.map((_, i) => {
    const rule = new common.SignaturePolicy();
    rule.setSignedBy(i);
    return rule;
  });
  const nOutOf = new common.SignaturePolicy.NOutOf();
  nOutOf.setN(quorum);
  nOutOf.setRulesList(rules);
  const root = new common.SignaturePolicy();
  root.setNOutOf(nOutOf);
  const envelope = new common.SignaturePolicyEnvelope();
  envelope.setVersion(0);
  envelope.setRule(root);
  envelope.setIdentitiesList(principals);
  const inner = new common.Policy();
  inner.setType(common.Policy.PolicyType.SIGNATURE);
  inner.setValue(envelope.serializeBinary());
  const config = new common.ConfigPolicy();
  config.setPolicy(inner);
  config.setModPolicy(modPolicy);
  return config;
}
