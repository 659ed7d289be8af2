// The functions of a contract's ABI, for forms: JSON fragments ({ type: 'function', ... }) and
// human-readable ones ("function set(uint256 value)", as ethers writes them) alike. Reads (view,
// pure, constant) are queried; the rest are sent as transactions. Arguments typed into text
// fields become what the API's ABI encoder accepts: arrays and tuples from JSON, booleans from
// true/false, everything else as the string typed (integers stay exact as decimal strings).

export interface AbiParam {
  name: string;
  type: string;
}

export interface AbiFunction {
  name: string;
  /** name(type,...): what the API is sent, unambiguous when the name is overloaded. */
  signature: string;
  inputs: AbiParam[];
  outputs: AbiParam[];
  read: boolean;
}

/** Splits a parameter list at top-level commas (tuples keep theirs). */
function splitTop(list: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of list) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  if (cur.trim()) out.push(cur);
  return out.map((s) => s.trim()).filter(Boolean);
}

const MODIFIERS = new Set(['indexed', 'memory', 'calldata', 'storage', 'payable']);

function param(text: string): AbiParam {
  const t = text.trim();
  if (t.startsWith('(') || t.startsWith('tuple(')) {
    const close = t.lastIndexOf(')');
    const suffix = t.slice(close + 1).trim().split(/\s+/);
    const arr = suffix[0]?.match(/^(\[\d*\])+$/) ? suffix.shift()! : '';
    const inner = splitTop(t.slice(t.indexOf('(') + 1, close)).map((p) => param(p).type);
    return { type: `(${inner.join(',')})${arr}`, name: suffix.filter((w) => !MODIFIERS.has(w)).pop() ?? '' };
  }
  const words = t.split(/\s+/).filter((w) => !MODIFIERS.has(w));
  return { type: canonical(words[0] ?? ''), name: words[1] ?? '' };
}

function canonical(type: string): string {
  return type.replace(/^uint(?=$|\[)/, 'uint256').replace(/^int(?=$|\[)/, 'int256');
}

function fromJsonParam(p: { type?: string; name?: string; components?: unknown[] }): AbiParam {
  const type = String(p.type ?? '');
  if (type.startsWith('tuple') && Array.isArray(p.components)) {
    return { type: `(${p.components.map((c) => fromJsonParam(c as typeof p).type).join(',')})${type.slice(5)}`, name: String(p.name ?? '') };
  }
  return { type: canonical(type), name: String(p.name ?? '') };
}

function fromString(s: string): AbiFunction | null {
  const m = s.trim().match(/^function\s+([A-Za-z_$][\w$]*)\s*\((.*)$/s);
  if (!m) return null;
  // The parameter list ends at the parenthesis that closes the first one.
  let depth = 1;
  let i = 0;
  for (; i < m[2].length && depth > 0; i++) {
    if (m[2][i] === '(') depth++;
    if (m[2][i] === ')') depth--;
  }
  const inputs = splitTop(m[2].slice(0, i - 1)).map(param);
  const rest = m[2].slice(i);
  const ret = rest.match(/returns\s*\((.*)\)\s*$/s);
  const outputs = ret ? splitTop(ret[1]).map(param) : [];
  const read = /\b(view|pure|constant)\b/.test(rest.replace(/returns\s*\(.*$/s, ''));
  return { name: m[1], signature: `${m[1]}(${inputs.map((p) => p.type).join(',')})`, inputs, outputs, read };
}

export function abiFunctions(abi: unknown): AbiFunction[] {
  if (!Array.isArray(abi)) return [];
  const out: AbiFunction[] = [];
  for (const f of abi) {
    if (typeof f === 'string') {
      const fn = fromString(f);
      if (fn) out.push(fn);
    } else if (f && typeof f === 'object' && (f as { type?: string }).type === 'function') {
      const j = f as { name?: string; inputs?: unknown[]; outputs?: unknown[]; stateMutability?: string; constant?: boolean };
      const inputs = (j.inputs ?? []).map((p) => fromJsonParam(p as never));
      out.push({
        name: String(j.name ?? ''),
        signature: `${j.name}(${inputs.map((p) => p.type).join(',')})`,
        inputs,
        outputs: (j.outputs ?? []).map((p) => fromJsonParam(p as never)),
        read: j.stateMutability === 'view' || j.stateMutability === 'pure' || j.constant === true,
      });
    }
  }
  return out.filter((f) => f.name);
}

/** A typed-in argument as the API takes it; a JSON error names the parameter. */
export function argumentValue(p: AbiParam, text: string): unknown {
  const t = text.trim();
  if (p.type.endsWith(']') || p.type.startsWith('(')) {
    try {
      return JSON.parse(t);
    } catch {
      throw new Error(`${p.name || p.type}: an array or tuple is written as JSON, e.g. [1, 2].`);
    }
  }
  if (p.type === 'bool') {
    if (t === 'true') return true;
    if (t === 'false') return false;
    throw new Error(`${p.name || p.type}: true or false.`);
  }
  return t;
}
