// Channel policy and ACL rules, checked before any config update is computed:
//   parseSignatureRule(rule, field)       Fabric's policy language ("OR('Org1MSP.admin', AND('A.peer','B.peer'))",
//                                         "OutOf(2, 'A.member', 'B.member', 'C.member')") as a tree, one principal
//                                         per occurrence in order, as Fabric's policydsl reads it
//   parseImplicitMetaRule(rule, field)    "ANY|ALL|MAJORITY <SubPolicy>"
//   policyTreeOf(config)                  the policies of a channel config (configtxlator JSON) as a tree
//   assertPolicies(tree, groupPath, field, policies)  each rule parsed, naming only MSP ids of the group, its
//                                         ImplicitMeta sub-policy defined by the group's sub-groups, and the group's
//                                         modification policy (Admins) still satisfiable by its organizations' admins
//   assertAcls(tree, acls)                known resources (Fabric 2.5's configtx.yaml list), policy references that exist
//   ordererPoliciesLostWithout(tree, mspId)  the /Channel and /Channel/Orderer Readers, Writers, Admins no admins
//                                         could satisfy any more once that orderer organization leaves
// A 400 (ValidationError) names the field and why; a change that would leave the channel unmodifiable
// is a 409 (POLICY_UNSATISFIABLE) naming the rule.
import type { ChannelConfigJson, ConfigGroupJson } from './consortiumChannelPorts.ts';
import type { ChannelPolicy } from './consortiumPorts.ts';
import { ConflictError, ValidationError } from '../shared/errors.ts';

export const MSP_ROLES = ['member', 'admin', 'client', 'peer', 'orderer'] as const;
export type MspRole = (typeof MSP_ROLES)[number];
export type SignatureRule = { kind: 'signedBy'; mspId: string; role: MspRole } | { kind: 'outOf'; n: number; rules: SignatureRule[] };
export type ImplicitMetaRule = { rule: 'ANY' | 'ALL' | 'MAJORITY'; subPolicy: string };

/**
 * The channel resources an ACL names, as Fabric 2.5.12's configtx.yaml lists them (Application.ACLs):
 * lifecycle, query (qscc), config (cscc), proposal and event APIs of the channel.
 */
export const ACL_RESOURCES = [
  '_lifecycle/CheckCommitReadiness', '_lifecycle/CommitChaincodeDefinition', '_lifecycle/QueryChaincodeDefinition', '_lifecycle/QueryChaincodeDefinitions',
  'lscc/ChaincodeExists', 'lscc/GetDeploymentSpec', 'lscc/GetChaincodeData', 'lscc/GetInstantiatedChaincodes',
  'qscc/GetChainInfo', 'qscc/GetBlockByNumber', 'qscc/GetBlockByHash', 'qscc/GetTransactionByID', 'qscc/GetBlockByTxID',
  'cscc/GetConfigBlock', 'cscc/GetChannelConfig',
  'peer/Propose', 'peer/ChaincodeToChaincode',
  'event/Block', 'event/FilteredBlock',
] as const;

/** The policies each level of a body sets, and the groups they live in. */
export const POLICY_LEVELS = {
  policies: { groupPath: ['Application'], names: null },
  ordererPolicies: { groupPath: ['Orderer'], names: ['Readers', 'Writers', 'Admins', 'BlockValidation'] },
  channelPolicies: { groupPath: [], names: ['Readers', 'Writers', 'Admins'] },
} as const;
export type PolicyLevel = keyof typeof POLICY_LEVELS;

function invalid(field: string, rule: string, why: string): ValidationError {
  return new ValidationError(`Policy rule "${rule}" of ${field} is not valid: ${why}.`, [{ field, message: `"${rule}": ${why}` }]);
}

export function parseImplicitMetaRule(rule: string, field = 'policies'): ImplicitMetaRule {
  const m = /^\s*(ANY|ALL|MAJORITY)\s+([A-Za-z0-9_.-]+)\s*$/.exec(rule);
  if (!m) throw invalid(field, rule, 'an ImplicitMeta rule is "ANY|ALL|MAJORITY <SubPolicy>"');
  return { rule: m[1] as ImplicitMetaRule['rule'], subPolicy: m[2] };
}

type Token = { kind: 'word' | 'string' | 'number'; text: string } | { kind: '(' | ')' | ',' };

function tokenize(rule: string, field: string): Token[] {
  const tokens: Token[] = [];
  const re = /\s*(?:(\()|(\))|(,)|'([^']*)'|"([^"]*)"|(\d+)|([A-Za-z]+))/y;
  let pos = 0;
  while (pos < rule.length) {
    if (/^\s*$/.test(rule.slice(pos))) break;
    re.lastIndex = pos;
    const m = re.exec(rule);
    if (!m) throw invalid(field, rule, `unexpected text at "${rule.slice(pos).trim().slice(0, 20)}"`);
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

/** A signature rule in Fabric's policy language as a tree (the principals in order of occurrence). */
export function parseSignatureRule(rule: string, field = 'policies'): SignatureRule {
  const tokens = tokenize(rule, field);
  let i = 0;
  let depth = 0;
  const expect = (kind: Token['kind']) => {
    if (tokens[i]?.kind !== kind) throw invalid(field, rule, `expected "${kind}"`);
    return tokens[i++];
  };
  const expression = (): SignatureRule => {
    const token = tokens[i++];
    if (token?.kind === 'string') {
      const dot = token.text.lastIndexOf('.');
      const role = token.text.slice(dot + 1).toLowerCase() as MspRole;
      if (dot <= 0 || !MSP_ROLES.includes(role)) throw invalid(field, rule, `"${token.text}" is not "<MSPID>.<member|admin|client|peer|orderer>"`);
      return { kind: 'signedBy', mspId: token.text.slice(0, dot), role };
    }
    if (token?.kind !== 'word') throw invalid(field, rule, 'expected OR, AND, OutOf or a quoted principal');
    const op = token.text.toLowerCase();
    if (op !== 'or' && op !== 'and' && op !== 'outof') throw invalid(field, rule, `unknown operator ${token.text}`);
    if (++depth > 32) throw invalid(field, rule, 'nested deeper than 32');
    expect('(');
    let n: number | null = null;
    if (op === 'outof') {
      n = Number((expect('number') as { text: string }).text);
      expect(',');
    }
    const rules: SignatureRule[] = [expression()];
    while (tokens[i]?.kind === ',') {
      i++;
      rules.push(expression());
    }
    expect(')');
    depth--;
    if (n === null) n = op === 'or' ? 1 : rules.length;
    if (n < 1 || n > rules.length) throw invalid(field, rule, `OutOf(${n}) over ${rules.length} rules`);
    return { kind: 'outOf', n, rules };
  };
  const root = expression();
  if (i !== tokens.length) throw invalid(field, rule, 'text after the end of the rule');
  return root;
}

/** Every MSP id a signature rule names. */
export function signatureRuleMspIds(rule: SignatureRule): string[] {
  return rule.kind === 'signedBy' ? [rule.mspId] : [...new Set(rule.rules.flatMap(signatureRuleMspIds))];
}

// ---- the channel's policies as a tree ----

export type PolicyDefinition = { type: 'ImplicitMeta'; meta: ImplicitMetaRule } | { type: 'Signature'; rule: SignatureRule | null } | { type: 'other' };
export interface PolicyTree {
  policies: Record<string, PolicyDefinition>;
  groups: Record<string, PolicyTree>;
  modPolicy: string;
  /** An organization's group: its MSP id (from its MSP value), else null. */
  mspId: string | null;
}

const ROLE_NAMES: Record<string, MspRole> = { MEMBER: 'member', ADMIN: 'admin', CLIENT: 'client', PEER: 'peer', ORDERER: 'orderer' };

/** A signature policy envelope as configtxlator decodes it, as a tree; principals other than MSP roles count as no one. */
function signatureOfJson(value: any): SignatureRule | null {
  const identities: any[] = value?.identities ?? [];
  const rule = (r: any): SignatureRule => {
    if (r?.n_out_of) return { kind: 'outOf', n: Number(r.n_out_of.n ?? 0), rules: (r.n_out_of.rules ?? []).map(rule) };
    const p = identities[Number(r?.signed_by ?? 0)];
    const role = p?.principal_classification === 'ROLE' || p?.principal_classification === undefined ? ROLE_NAMES[String(p?.principal?.role ?? 'MEMBER')] : undefined;
    return { kind: 'signedBy', mspId: role ? String(p?.principal?.msp_identifier ?? '') : '', role: role ?? 'member' };
  };
  return value?.rule ? rule(value.rule) : null;
}

function groupTree(group: ConfigGroupJson): PolicyTree {
  const policies: Record<string, PolicyDefinition> = {};
  for (const [name, p] of Object.entries(group.policies ?? {})) {
    const v = p.policy?.value as any;
    if (p.policy?.type === 3) policies[name] = { type: 'ImplicitMeta', meta: { rule: v?.rule, subPolicy: v?.sub_policy } };
    else if (p.policy?.type === 1) policies[name] = { type: 'Signature', rule: signatureOfJson(v) };
    else policies[name] = { type: 'other' };
  }
  const mspValue = (group.values?.MSP?.value as any)?.config?.name;
  return { policies, groups: Object.fromEntries(Object.entries(group.groups ?? {}).map(([k, g]) => [k, groupTree(g)])), modPolicy: group.mod_policy || 'Admins', mspId: typeof mspValue === 'string' ? mspValue : null };
}

export function policyTreeOf(config: ChannelConfigJson): PolicyTree {
  return groupTree(config.channel_group);
}

function groupAt(tree: PolicyTree, path: readonly string[]): PolicyTree | null {
  let g: PolicyTree | undefined = tree;
  for (const name of path) g = g?.groups[name];
  return g ?? null;
}

/** The MSP ids of the organizations under a group (the group itself when it is one). */
export function organizationsUnder(group: PolicyTree): string[] {
  if (group.mspId) return [group.mspId];
  return [...new Set(Object.values(group.groups).flatMap(organizationsUnder))];
}

/**
 * Fabric's evaluation of a signature rule (common/cauthdsl): a principal takes the first signature
 * not yet used that satisfies it; an OutOf keeps the signatures its satisfied sub-rules used.
 * The signers are organization admins, one signature each: an admin satisfies `admin` and `member`.
 */
function signatureSatisfied(rule: SignatureRule, signers: string[], used: boolean[]): boolean {
  if (rule.kind === 'signedBy') {
    if (rule.role !== 'admin' && rule.role !== 'member') return false;
    const i = signers.findIndex((m, k) => !used[k] && m === rule.mspId);
    if (i < 0) return false;
    used[i] = true;
    return true;
  }
  let verified = 0;
  for (const sub of rule.rules) {
    const trial = [...used];
    if (signatureSatisfied(sub, signers, trial)) {
      verified++;
      trial.forEach((v, k) => (used[k] = v));
    }
  }
  return verified >= rule.n;
}

/**
 * Whether the admins of every organization under the group (or of `signers`, the channel's
 * organizations: Fabric evaluates a Signature rule with the channel's MSPs, not the group's; then
 * at every level below too), signing together, satisfy its policy `name`.
 */
function satisfiableByAdmins(group: PolicyTree, name: string, depth = 0, signers?: string[]): boolean {
  const p = group.policies[name];
  if (!p || depth > 8) return false;
  if (p.type === 'Signature') return p.rule !== null && signatureSatisfied(p.rule, signers ?? organizationsUnder(group), []);
  if (p.type === 'other') return false;
  const subs = Object.values(group.groups);
  const met = subs.filter((g) => satisfiableByAdmins(g, p.meta.subPolicy, depth + 1, signers)).length;
  const threshold = p.meta.rule === 'ANY' ? 1 : p.meta.rule === 'ALL' ? subs.length : Math.floor(subs.length / 2) + 1;
  return met >= threshold;
}

/**
 * The /Channel and /Channel/Orderer policies (Readers, Writers, Admins) that the admins of the
 * organizations left could satisfy before but no longer once the orderer organization `mspId`
 * leaves /Channel/Orderer: a Signature rule needing its admin (its MSP stays known to the channel
 * while it is still an application organization), an ImplicitMeta rule needing its group. Their
 * paths, e.g. /Channel/Orderer/Admins.
 */
export function ordererPoliciesLostWithout(tree: PolicyTree, mspId: string): string[] {
  const orderer = tree.groups.Orderer;
  if (!orderer) return [];
  const ordererAfter: PolicyTree = { ...orderer, groups: Object.fromEntries(Object.entries(orderer.groups).filter(([, g]) => g.mspId !== mspId)) };
  const after: PolicyTree = { ...tree, groups: { ...tree.groups, Orderer: ordererAfter } };
  const before = organizationsUnder(tree);
  const left = organizationsUnder(after);
  const lost: string[] = [];
  for (const [path, was, now] of [[[], tree, after], [['Orderer'], orderer, ordererAfter]] as const) {
    for (const name of ['Readers', 'Writers', 'Admins']) {
      if (satisfiableByAdmins(was, name, 0, before) && !satisfiableByAdmins(now, name, 0, left)) lost.push(`${groupName(path)}/${name}`);
    }
  }
  return lost;
}

function groupName(path: readonly string[]): string {
  return ['/Channel', ...path].join('/');
}

/**
 * The policies a body sets at one level, against the channel's current policies: each rule valid;
 * a Signature rule names only organizations of the group; an ImplicitMeta sub-policy is defined
 * by every sub-group; and the group's modification policy, with these set, is still satisfiable
 * by its organizations' admins (409 POLICY_UNSATISFIABLE otherwise, naming the rule).
 */
export function assertPolicies(tree: PolicyTree, level: PolicyLevel, policies: Record<string, ChannelPolicy>, opts: { bft?: boolean } = {}): PolicyDefinition[] {
  const { groupPath, names } = POLICY_LEVELS[level];
  const group = groupAt(tree, groupPath);
  if (!group) throw new ValidationError(`The channel has no group ${groupName(groupPath)}.`, [{ field: level, message: `no ${groupName(groupPath)}` }]);
  const members = organizationsUnder(group);
  const next: Record<string, PolicyDefinition> = { ...group.policies };
  const out: PolicyDefinition[] = [];
  for (const [name, policy] of Object.entries(policies)) {
    const field = `${level}.${name}`;
    if (names && !(names as readonly string[]).includes(name)) throw new ValidationError(`${field}: ${groupName(groupPath)} policies set here are ${names.join(', ')}.`, [{ field, message: `not one of ${names.join(', ')}` }]);
    if (level === 'ordererPolicies' && name === 'BlockValidation' && opts.bft) {
      throw new ValidationError(`${field}: a BFT channel's BlockValidation policy is recomputed by this service from its consenters (a quorum of their identities) at every consenter change; it is not set by hand.`, [{ field, message: 'BlockValidation of a BFT channel is computed from the consenters' }]);
    }
    let def: PolicyDefinition;
    if (policy.type === 'ImplicitMeta') {
      const meta = parseImplicitMetaRule(policy.rule, field);
      const subs = Object.entries(group.groups);
      const lacking = subs.filter(([, g]) => !g.policies[meta.subPolicy]).map(([k]) => k);
      if (!subs.length || lacking.length) throw new ValidationError(`${field}: "${policy.rule}" refers to ${meta.subPolicy}, which ${subs.length ? `the sub-groups ${lacking.join(', ')} of ${groupName(groupPath)} do not define` : `${groupName(groupPath)} has no sub-groups to define`}.`, [{ field, message: `sub-policy ${meta.subPolicy} not defined by ${lacking.join(', ') || 'any sub-group'}` }]);
      def = { type: 'ImplicitMeta', meta };
    } else {
      const rule = parseSignatureRule(policy.rule, field);
      const unknown = signatureRuleMspIds(rule).filter((m) => !members.includes(m));
      if (unknown.length) throw new ValidationError(`${field}: "${policy.rule}" names ${unknown.join(', ')}, not an organization of ${groupName(groupPath)} (${members.join(', ') || 'none'}).`, [{ field, message: `unknown MSP id ${unknown.join(', ')}` }]);
      def = { type: 'Signature', rule };
    }
    next[name] = def;
    out.push(def);
  }
  const modPolicy = group.modPolicy;
  const after: PolicyTree = { ...group, policies: next };
  if (policies[modPolicy] && !satisfiableByAdmins(after, modPolicy)) {
    throw new ConflictError(
      `${level}.${modPolicy}: "${policies[modPolicy].rule}" is ${groupName(groupPath)}'s modification policy, and no set of its organizations' admins (${members.join(', ')}) could satisfy it: the group could never be changed again. Nothing was submitted.`,
      { rule: 'policy-unsatisfiable', field: `${level}.${modPolicy}`, policy: `${groupName(groupPath)}/${modPolicy}`, policyRule: policies[modPolicy].rule },
      'POLICY_UNSATISFIABLE',
    );
  }
  return out;
}

/** The absolute path of a policy reference as an ACL resolves it: relative names are policies of /Channel/Application. */
export function aclPolicyPath(ref: string): string {
  return ref.startsWith('/') ? ref : `/Channel/Application/${ref}`;
}

/** ACLs set per resource: known resources, each referring to a policy the channel defines. */
export function assertAcls(tree: PolicyTree, acls: Record<string, string>): void {
  for (const [resource, ref] of Object.entries(acls)) {
    const field = `acls.${resource}`;
    if (!(ACL_RESOURCES as readonly string[]).includes(resource)) throw new ValidationError(`${field}: ${resource} is not a channel resource Fabric's ACLs name (${ACL_RESOURCES.join(', ')}).`, [{ field, message: 'unknown resource' }]);
    const parts = aclPolicyPath(ref).split('/').slice(1);
    const policy = parts.pop() ?? '';
    const group = parts[0] === 'Channel' ? groupAt(tree, parts.slice(1)) : null;
    if (!group || !group.policies[policy]) throw new ValidationError(`${field}: the policy ${aclPolicyPath(ref)} does not exist in the channel.`, [{ field, message: `no policy ${aclPolicyPath(ref)}` }]);
  }
}
