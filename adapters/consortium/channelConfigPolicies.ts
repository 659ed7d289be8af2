// Channel policies as Fabric encodes them: ImplicitMeta ("MAJORITY Admins") and signature
// policies written in Fabric's policy language ("OR('Org1MSP.admin', AND('A.peer','B.peer'))",
// "OutOf(2, 'A.member', 'B.member', 'C.member')"), parsed here into SignaturePolicyEnvelopes the
// same way Fabric's policydsl does (one principal per occurrence, in order).
//   configPolicy({type, rule}, modPolicy = 'Admins') -> common.ConfigPolicy
//   signaturePolicyEnvelope(rule)                     -> common.SignaturePolicyEnvelope
//   implicitMetaPolicy(rule)                          -> common.ImplicitMetaPolicy
import { common, msp } from '@hyperledger/fabric-protos';
import type { ChannelPolicy } from '../../domain/consortium/consortiumPorts.ts';
import { ValidationError } from '../../domain/shared/errors.ts';

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

function invalid(rule: string, why: string): ValidationError {
  return new ValidationError(`Policy rule "${rule}" is not valid: ${why}.`, [{ field: 'policies', message: `"${rule}": ${why}` }]);
}

export function implicitMetaPolicy(rule: string): common.ImplicitMetaPolicy {
  const m = /^\s*(ANY|ALL|MAJORITY)\s+(\S+)\s*$/.exec(rule);
  if (!m) throw invalid(rule, 'an ImplicitMeta rule is "ANY|ALL|MAJORITY <SubPolicy>"');
  const policy = new common.ImplicitMetaPolicy();
  policy.setRule(implicitRules[m[1]]);
  policy.setSubPolicy(m[2]);
  return policy;
}

type Token = { kind: 'word' | 'string' | 'number'; text: string } | { kind: '(' | ')' | ',' };

function tokenize(rule: string): Token[] {
  const tokens: Token[] = [];
  const re = /\s*(?:(\()|(\))|(,)|'([^']*)'|"([^"]*)"|(\d+)|([A-Za-z]+))/y;
  let pos = 0;
  while (pos < rule.length) {
    if (/^\s*$/.test(rule.slice(pos))) break;
    re.lastIndex = pos;
    const m = re.exec(rule);
    if (!m) throw invalid(rule, `unexpected text at "${rule.slice(pos).trim().slice(0, 20)}"`);
    pos = re.lastIndex;
    if (m[1]) tokens.push({ kind: '(' });
    else if (m[2]) tokens.push({ kind: ')' });
    else if (m[3]) tokens.push({ kind: ',' });
    else if (m[4] !== undefined || m[5] !== undefined) tokens.push({ kind: 'string', text: m[4] ?? m[5] });
    else if (m[6]) tokens.push({ kind: 'number', text: m[6] });
    else tokens.push({ kind: 'word', text: m[7] });
  }
  return tokens;
}

export function signaturePolicyEnvelope(rule: string): common.SignaturePolicyEnvelope {
  const tokens = tokenize(rule);
  const principals: msp.MSPPrincipal[] = [];
  let i = 0;
  const expect = (kind: Token['kind']) => {
    if (tokens[i]?.kind !== kind) throw invalid(rule, `expected "${kind}"`);
    return tokens[i++];
  };
  const principal = (text: string): common.SignaturePolicy => {
    const dot = text.lastIndexOf('.');
    const role = mspRoles[text.slice(dot + 1).toLowerCase()];
    if (dot <= 0 || role === undefined) throw invalid(rule, `"${text}" is not "<MSPID>.<member|admin|client|peer|orderer>"`);
    const mspRole = new msp.MSPRole();
    mspRole.setMspIdentifier(text.slice(0, dot));
    mspRole.setRole(role);
    const p = new msp.MSPPrincipal();
    p.setPrincipalClassification(msp.MSPPrincipal.Classification.ROLE);
    p.setPrincipal(mspRole.serializeBinary());
    principals.push(p);
    const signedBy = new common.SignaturePolicy();
    signedBy.setSignedBy(principals.length - 1);
    return signedBy;
  };
  const expression = (): common.SignaturePolicy => {
    const token = tokens[i++];
    if (token?.kind === 'string') return principal(token.text);
    if (token?.kind !== 'word') throw invalid(rule, 'expected OR, AND, OutOf or a quoted principal');
    const op = token.text.toLowerCase();
    if (op !== 'or' && op !== 'and' && op !== 'outof') throw invalid(rule, `unknown operator ${token.text}`);
    expect('(');
    let n: number | null = null;
    if (op === 'outof') {
      const count = expect('number') as { text: string };
      n = Number(count.text);
      expect(',');
    }
    const rules: common.SignaturePolicy[] = [expression()];
    while (tokens[i]?.kind === ',') {
      i++;
      rules.push(expression());
    }
    expect(')');
    if (n === null) n = op === 'or' ? 1 : rules.length;
    if (n < 1 || n > rules.length) throw invalid(rule, `OutOf(${n}) over ${rules.length} rules`);
    const nOutOf = new common.SignaturePolicy.NOutOf();
    nOutOf.setN(n);
    nOutOf.setRulesList(rules);
    const policy = new common.SignaturePolicy();
    policy.setNOutOf(nOutOf);
    return policy;
  };
  const root = expression();
  if (i !== tokens.length) throw invalid(rule, 'text after the end of the rule');
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
