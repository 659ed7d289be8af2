// Whose admin signatures a channel config change needs, read from the decoded channel config
// (GET .../channel-config, configtxlator's JSON) the way the service's planner
// (adapters/consortium/configUpdateSignatures.ts) and the orderer work it out: the change is
// checked against the mod_policy of what it modifies (relative names resolve from the group for
// a group, from the parent group for a value or policy), and that policy is evaluated with one
// admin signature per organization whose admin this service holds: ImplicitMeta ANY/ALL/MAJORITY
// over the sub-groups' policies, Signature policies where an admin satisfies the MSP's admin and
// member principals. The console shows it before a change is sent; the API's 409 stays the word
// that counts.

export interface ConfigGroup {
  groups?: Record<string, ConfigGroup>;
  mod_policy?: string;
  policies?: Record<string, { mod_policy?: string; policy?: { type: number; value: unknown } | null }>;
  values?: Record<string, { mod_policy?: string; value?: unknown }>;
}

export interface ChannelConfigJson {
  channel_group?: ConfigGroup;
}

export type Change = { kind: 'anchorPeers'; mspId: string } | { kind: 'addOrganizations' } | { kind: 'policy'; name: string } | { kind: 'batch'; values: Array<'BatchTimeout' | 'BatchSize'> };

export interface PolicyNeed {
  /** e.g. /Channel/Application/Admins */
  path: string;
  /** "MAJORITY Admins" or "OutOf(1, 'Org1MSP.admin')". */
  rule: string;
  satisfied: boolean;
  /** Organizations whose admins could sign it and this service does not hold. */
  missing: string[];
  /** Organizations whose admins could count. */
  counted: string[];
  moreNeeded: number;
}

const IMPLICIT_META = 3;
const SIGNATURE = 1;

function groupAt(config: ChannelConfigJson, names: string[]): ConfigGroup | undefined {
  let g = config.channel_group;
  for (const n of names) g = g?.groups?.[n];
  return g;
}

function resolve(groupPath: string[], modPolicy: string | undefined): string {
  const p = modPolicy || 'Admins';
  return p.startsWith('/') ? p : `/${['Channel', ...groupPath, p].join('/')}`;
}

/** The policy paths a change must satisfy. */
export function policiesFor(config: ChannelConfigJson, change: Change): string[] {
  const app = groupAt(config, ['Application']);
  if (change.kind === 'addOrganizations') return [resolve(['Application'], app?.mod_policy)];
  if (change.kind === 'batch') {
    // The orderer's values (BatchTimeout, BatchSize) are checked against their own mod_policy, in the Orderer group.
    const orderer = groupAt(config, ['Orderer']);
    return [...new Set(change.values.map((v) => resolve(['Orderer'], orderer?.values?.[v] ? orderer.values[v].mod_policy : orderer?.mod_policy)))];
  }
  if (change.kind === 'policy') {
    const existing = app?.policies?.[change.name];
    // A new policy adds to the group (its mod_policy); an existing one is checked against its own.
    return [resolve(['Application'], existing ? existing.mod_policy : app?.mod_policy)];
  }
  const org = app?.groups?.[change.mspId];
  const value = org?.values?.AnchorPeers;
  return [resolve(['Application', change.mspId], value ? value.mod_policy : org?.mod_policy)];
}

interface Principal {
  principal?: { msp_identifier?: string; role?: string };
  principal_classification?: string;
}
type Rule = { signed_by?: number; n_out_of?: { n: number; rules: Rule[] } };

function evaluateSignature(value: { identities?: Principal[]; rule?: Rule | null }, held: Set<string>): Omit<PolicyNeed, 'path'> {
  const ids = value.identities ?? [];
  const text = (i: number) => {
    const p = ids[i];
    return p?.principal?.msp_identifier ? `'${p.principal.msp_identifier}.${(p.principal.role ?? '').toLowerCase()}'` : `principal ${i}`;
  };
  const adminCan = (i: number) => {
    const p = ids[i];
    return p?.principal_classification === 'ROLE' && !!p.principal?.msp_identifier && (p.principal.role === 'ADMIN' || p.principal.role === 'MEMBER');
  };
  const counted = new Set<string>();
  const walk = (r: Rule): { ok: boolean; missing: Set<string>; more: number; text: string } => {
    if (!r.n_out_of) {
      const i = r.signed_by ?? 0;
      const msp = ids[i]?.principal?.msp_identifier ?? '';
      if (adminCan(i)) counted.add(msp);
      const ok = adminCan(i) && held.has(msp);
      return { ok, missing: new Set(!ok && adminCan(i) ? [msp] : []), more: ok ? 0 : 1, text: text(i) };
    }
    const parts = r.n_out_of.rules.map(walk);
    const got = parts.filter((p) => p.ok).length;
    const ok = got >= r.n_out_of.n;
    return { ok, missing: new Set(ok ? [] : parts.filter((p) => !p.ok).flatMap((p) => [...p.missing])), more: ok ? 0 : r.n_out_of.n - got, text: `OutOf(${r.n_out_of.n}, ${parts.map((p) => p.text).join(', ')})` };
  };
  if (!value.rule) return { rule: 'empty signature policy', satisfied: false, missing: [], counted: [], moreNeeded: 1 };
  const w = walk(value.rule);
  return { rule: w.text, satisfied: w.ok, missing: [...w.missing].sort(), counted: [...counted].sort(), moreNeeded: w.more };
}

/** Evaluates a policy of the config with the admins of `held` (MSP ids) signing. */
export function evaluatePolicy(config: ChannelConfigJson, path: string, held: Iterable<string>): PolicyNeed {
  const signers = new Set(held);
  const parts = path.split('/').filter(Boolean);
  const group = groupAt(config, parts.slice(1, -1));
  const policy = group?.policies?.[parts[parts.length - 1]]?.policy;
  if (!group || !policy) return { path, rule: 'no such policy in the channel', satisfied: false, missing: [], counted: [], moreNeeded: 1 };
  if (policy.type === SIGNATURE) return { path, ...evaluateSignature(policy.value as never, signers) };
  if (policy.type !== IMPLICIT_META) return { path, rule: `policy type ${policy.type}`, satisfied: false, missing: [], counted: [], moreNeeded: 1 };
  const meta = policy.value as { rule?: string; sub_policy?: string };
  const sub = meta.sub_policy ?? '';
  const base = path.slice(0, path.lastIndexOf('/'));
  // As Fabric does, sub-groups without the sub-policy do not count towards the threshold.
  const subs = Object.keys(group.groups ?? {})
    .sort()
    .filter((name) => group.groups![name].policies?.[sub])
    .map((name) => evaluatePolicy(config, `${base}/${name}/${sub}`, signers));
  const threshold = meta.rule === 'ANY' ? 1 : meta.rule === 'ALL' ? subs.length : Math.floor(subs.length / 2) + 1;
  const got = subs.filter((s) => s.satisfied).length;
  const satisfied = got >= threshold;
  return {
    path,
    rule: `${meta.rule} ${sub}`,
    satisfied,
    missing: satisfied ? [] : [...new Set(subs.filter((s) => !s.satisfied).flatMap((s) => s.missing))].sort(),
    counted: [...new Set(subs.flatMap((s) => s.counted))].sort(),
    moreNeeded: satisfied ? 0 : threshold - got,
  };
}

/** What a change needs, in the order of its policies. */
export function signaturesNeeded(config: ChannelConfigJson, change: Change, held: Iterable<string>): PolicyNeed[] {
  const h = [...held];
  return policiesFor(config, change).map((p) => evaluatePolicy(config, p, h));
}

/** A policy in words: ImplicitMeta "MAJORITY Admins", Signature "OutOf(1, 'Org1MSP.admin')". */
export function policyText(policy: { type: number; value: unknown } | null | undefined): string {
  if (!policy) return '—';
  if (policy.type === IMPLICIT_META) {
    const v = policy.value as { rule?: string; sub_policy?: string };
    return `ImplicitMeta: ${v.rule} ${v.sub_policy}`;
  }
  if (policy.type === SIGNATURE) return `Signature: ${evaluateSignature(policy.value as never, new Set()).rule}`;
  return `type ${policy.type}`;
}

/** The anchor peers an organization's group holds. */
export function anchorPeersOf(config: ChannelConfigJson, mspId: string): Array<{ host: string; port: number }> {
  const v = groupAt(config, ['Application', mspId])?.values?.AnchorPeers?.value as { anchor_peers?: Array<{ host: string; port: number }> } | undefined;
  return v?.anchor_peers ?? [];
}

export interface RuleCount {
  /** The organizations the rule counts (those whose sub-policy or principal it names). */
  organizations: string[];
  /** How many of them must sign; null when the rule cannot be read here (the API checks it). */
  needed: number | null;
  /** What is counted: "Admins" (ImplicitMeta's sub-policy) or "admin"/"member" principals. */
  what: string;
}

/**
 * Who a policy rule being written counts, before it is sent: ImplicitMeta "MAJORITY Admins" in a
 * group counts the sub-groups that have an Admins policy (ANY 1, ALL every one, MAJORITY more
 * than half); a Signature rule names its principals ('Org1MSP.admin'), OR needs 1, AND all,
 * OutOf(n, ...) n of them (the outermost operator).
 */
export function ruleCounts(config: ChannelConfigJson, groupPath: string[], type: 'ImplicitMeta' | 'Signature', rule: string): RuleCount | null {
  const text = rule.trim();
  if (type === 'ImplicitMeta') {
    const m = /^(ANY|ALL|MAJORITY)\s+(\S+)$/.exec(text);
    if (!m) return null;
    const group = groupAt(config, groupPath);
    const organizations = Object.keys(group?.groups ?? {})
      .sort()
      .filter((g) => group!.groups![g].policies?.[m[2]]);
    const n = organizations.length;
    return { organizations, needed: m[1] === 'ANY' ? Math.min(1, n) : m[1] === 'ALL' ? n : Math.floor(n / 2) + 1, what: m[2] };
  }
  const principals = [...text.matchAll(/'([^'.]+)\.([a-z]+)'/gi)];
  if (!principals.length) return null;
  const organizations = [...new Set(principals.map((p) => p[1]))].sort();
  const roles = [...new Set(principals.map((p) => p[2].toLowerCase()))].join(' or ');
  const outer = /^(OR|AND|OutOf)\s*\(\s*(\d+)?/i.exec(text);
  const count = principals.length;
  const needed = !outer ? (count === 1 ? 1 : null) : outer[1].toUpperCase() === 'OR' ? 1 : outer[1].toUpperCase() === 'AND' ? count : outer[2] ? Number(outer[2]) : null;
  return { organizations, needed, what: roles };
}
