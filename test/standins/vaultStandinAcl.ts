// Tokens and ACL policies of the Vault stand-in. Policies are written in the HCL subset that
// policies for a key provider use:  path "transit/*" { capabilities = ["create", "update"] }
// Matching follows Vault: an exact path beats a glob, a longer glob prefix beats a shorter one,
// `+` matches one path segment, and "deny" wins over everything on the chosen rule.
import { randomBytes } from 'node:crypto';

export type Capability = 'create' | 'read' | 'update' | 'patch' | 'delete' | 'list' | 'sudo' | 'deny';
interface Rule {
  pattern: string;
  capabilities: Set<Capability>;
}
export interface TokenEntry {
  policies: string[];
}

export function parsePolicy(hcl: string): Rule[] | string {
  const rules: Rule[] = [];
  const stripped = hcl.replace(/#[^\n]*/g, '');
  for (const m of stripped.matchAll(/path\s+"([^"]+)"\s*\{([^}]*)\}/g)) {
    const caps = /capabilities\s*=\s*\[([^\]]*)\]/.exec(m[2]);
    if (!caps) return `failed to parse policy: path "${m[1]}" has no capabilities`;
    const list = [...caps[1].matchAll(/"([^"]+)"/g)].map((c) => c[1]);
    const unknown = list.find((c) => !['create', 'read', 'update', 'patch', 'delete', 'list', 'sudo', 'deny'].includes(c));
    if (unknown) return `failed to parse policy: invalid capability "${unknown}"`;
    rules.push({ pattern: m[1], capabilities: new Set(list as Capability[]) });
  }
  if (!rules.length && stripped.trim()) return 'failed to parse policy: no path rules';
  return rules;
}

function matches(pattern: string, path: string): { ok: boolean; score: number } {
  const glob = pattern.endsWith('*');
  const body = glob ? pattern.slice(0, -1) : pattern;
  const pSeg = body.split('/');
  const xSeg = path.split('/');
  if (!glob && pSeg.length !== xSeg.length) return { ok: false, score: 0 };
  for (let i = 0; i < pSeg.length; i++) {
    const last = i === pSeg.length - 1;
    if (pSeg[i] === '+') {
      if (xSeg[i] === undefined) return { ok: false, score: 0 };
      continue;
    }
    if (last && glob) {
      if (xSeg[i] === undefined || !xSeg[i].startsWith(pSeg[i])) return { ok: false, score: 0 };
    } else if (pSeg[i] !== xSeg[i]) return { ok: false, score: 0 };
  }
  return { ok: true, score: glob ? body.length : Number.MAX_SAFE_INTEGER };
}

export function createAcl() {
  const policies = new Map<string, { text: string; rules: Rule[] }>();
  const tokens = new Map<string, TokenEntry>();

  function allowed(token: string, path: string, capability: Capability): boolean {
    const entry = tokens.get(token);
    if (!entry) return false;
    if (entry.policies.includes('root')) return true;
    return capabilities(token, path).includes(capability);
  }

  /** What sys/capabilities-self reports for a path: ["root"], ["deny"] or the granted list. */
  function capabilities(token: string, path: string): string[] {
    const entry = tokens.get(token);
    if (!entry) return ['deny'];
    if (entry.policies.includes('root')) return ['root'];
    let best: { score: number; caps: Set<Capability> } | null = null;
    for (const name of entry.policies) {
      for (const rule of policies.get(name)?.rules ?? []) {
        const m = matches(rule.pattern, path);
        if (!m.ok) continue;
        if (!best || m.score > best.score) best = { score: m.score, caps: new Set(rule.capabilities) };
        else if (m.score === best.score) rule.capabilities.forEach((c) => best!.caps.add(c));
      }
    }
    if (!best || best.caps.has('deny') || best.caps.size === 0) return ['deny'];
    return [...best.caps].sort();
  }

  function issue(policyNames: string[]): string {
    const token = 'hvs.' + randomBytes(18).toString('base64url');
    tokens.set(token, { policies: policyNames });
    return token;
  }

  return {
    allowed,
    capabilities,
    issue,
    lookup: (token: string) => tokens.get(token),
    setPolicy: (name: string, text: string, rules: Rule[]) => policies.set(name, { text, rules }),
    getPolicy: (name: string) => policies.get(name),
    deletePolicy: (name: string) => policies.delete(name),
    /** Policies (as written) and tokens, for the barrier of a stand-in with storage. */
    snapshot: () => ({ policies: [...policies].map(([name, p]) => [name, p.text]), tokens: [...tokens] }),
    restore(state: unknown) {
      const s = state as { policies: [string, string][]; tokens: [string, TokenEntry][] };
      policies.clear();
      tokens.clear();
      for (const [name, text] of s.policies) policies.set(name, { text, rules: parsePolicy(text) as Rule[] });
      for (const [token, entry] of s.tokens) tokens.set(token, entry);
    },
  };
}
export type Acl = ReturnType<typeof createAcl>;
