// The placeholders of a plugin's compose text, Go-template style as SPEC's descriptors write them:
//   {{ .parameters.<field>[.<sub>...] }}     a deploy parameter
//   {{ range .volumeMounts }} ... {{ end }}  once per volume mount, with {{ .Source }},
//                                            {{ .Target }} and {{ if .ReadOnly }}...{{ end }}
// Anything else between {{ }} is refused when the descriptor is installed, never at deploy.
//
// Rendering is structural, never text splicing of values: every placeholder is first replaced by
// an inert marker (letters and digits, unique in the text), the range blocks are expanded (their
// shape depends only on the descriptor and on how many mounts the service gives), and the result
// is parsed as YAML. A marker may only stand in a value (a scalar), never in a key, tag or anchor.
// The values are then set on those scalars in the parsed tree and the tree is serialised: a
// placeholder that is a whole plain scalar takes the value's type (number, boolean, null; a string
// double-quoted; an object or array as its JSON text, a string), one inside a longer or quoted
// scalar is interpolated as text into that one string. So no value can add, remove or change a key
// or a collection, whatever characters it holds (line breaks of any kind, flow indicators, quotes,
// comment signs, anchors, tags). Every `$` of a value is written `$$`, so Compose's variable
// interpolation gives the container the literal text and never the service's environment. The
// output holds no raw NEL, LS, PS or C1 control character (YAML 1.1 readers, the Python
// docker-compose among them, take the first three for line breaks): they are written as escapes.
// The rendered document is read back and must equal the tree that was meant, and it must pass the
// compose policy (composePolicy.ts) with only the service's own mounts as host paths.
import YAML, { isAlias, isCollection, isScalar, type Document, type Scalar } from 'yaml';
import { AppError, ValidationError, type FieldIssue } from '../shared/errors.ts';
import { composeIssues } from './composePolicy.ts';

export interface VolumeMount {
  Source: string;
  Target: string;
  ReadOnly: boolean;
}

const FIELD = 'spec.dockerCompose.contents';
const TOKEN = /\{\{-?\s*(.*?)\s*-?\}\}/g;
const PARAM = /^\.parameters\.([A-Za-z_][A-Za-z0-9_]*)((?:\.[A-Za-z_][A-Za-z0-9_]*)*)$/;
const IN_RANGE = new Set(['.Source', '.Target', 'if .ReadOnly', 'end']);
/** Characters a descriptor may not hold raw: YAML 1.1 line breaks (NEL, LS, PS), DEL, C1 controls, non-characters. */
const RAW_UNSAFE = /[\u007f-\u009f\u2028\u2029\ufffe\uffff]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function tokenIssues(contents: string, parameterNames: string[]): FieldIssue[] {
  const issues: FieldIssue[] = [];
  let depth = 0; // inside range .volumeMounts (1) and its if (2)
  for (const m of contents.matchAll(TOKEN)) {
    const t = m[1];
    const p = PARAM.exec(t);
    if (p && depth === 0) {
      if (!parameterNames.includes(p[1])) issues.push({ field: FIELD, message: `{{ ${t} }} names a parameter that spec.parameters does not declare` });
    } else if (t === 'range .volumeMounts' && depth === 0) depth = 1;
    else if (depth > 0 && IN_RANGE.has(t)) {
      if (t === 'if .ReadOnly') depth = depth === 1 ? 2 : -99;
      else if (t === 'end') depth -= 1;
    } else issues.push({ field: FIELD, message: `unknown placeholder {{ ${t} }}: use .parameters.<field> or range .volumeMounts (.Source, .Target, if .ReadOnly)` });
    if (depth < 0) {
      issues.push({ field: FIELD, message: 'unbalanced {{ if }}/{{ end }}' });
      depth = 0;
    }
  }
  if (depth !== 0) issues.push({ field: FIELD, message: '{{ range .volumeMounts }} is not closed by {{ end }}' });
  return issues;
}

type Slot = { token: string } & ({ kind: 'param'; name: string; path: string[] } | { kind: 'mount'; index: number; field: 'Source' | 'Target' });

interface Expanded {
  text: string;
  slots: Slot[];
  marker: RegExp;
  markerOf: (i: number) => string;
}

/** A marker prefix that does not occur in the text: letters only, so a marker is a plain scalar anywhere. */
function markerPrefix(text: string): string {
  const lower = text.toLowerCase();
  for (let n = 0; ; n++) {
    const prefix = `lnmslot${'q'.repeat(n)}x`;
    if (!lower.includes(prefix)) return prefix;
  }
}

/** The range block's body and where it ends: the {{ end }} that closes it, past an inner {{ if }}. */
function rangeBlock(text: string, from: number): { body: string; end: number } {
  const tokens = new RegExp(TOKEN.source, 'g');
  tokens.lastIndex = from;
  let depth = 1;
  for (let m = tokens.exec(text); m; m = tokens.exec(text)) {
    if (m[1] === 'if .ReadOnly') depth++;
    else if (m[1] === 'end' && --depth === 0) return { body: text.slice(from, m.index), end: m.index + m[0].length };
  }
  return { body: text.slice(from), end: text.length };
}

/** The text with range blocks expanded and every placeholder a marker; which marker stands for what. */
function expand(contents: string, mounts: Array<{ ReadOnly: boolean }>): Expanded {
  const prefix = markerPrefix(contents);
  const markerOf = (i: number) => `${prefix}${i}z`;
  const slots: Slot[] = [];
  const slot = (s: Slot) => markerOf(slots.push(s) - 1);
  let text = '';
  let rest = contents;
  const start = /\{\{-?\s*range \.volumeMounts\s*-?\}\}/;
  for (let m = start.exec(rest); m; m = start.exec(rest)) {
    const block = rangeBlock(rest, m.index + m[0].length);
    text += rest.slice(0, m.index);
    mounts.forEach((v, index) => {
      text += block.body
        .replace(/\{\{-?\s*if \.ReadOnly\s*-?\}\}([\s\S]*?)\{\{-?\s*end\s*-?\}\}/g, (_x, inner: string) => (v.ReadOnly ? inner : ''))
        .replace(/\{\{-?\s*\.(Source|Target)\s*-?\}\}/g, (token, field: 'Source' | 'Target') => slot({ token, kind: 'mount', index, field }));
    });
    rest = rest.slice(block.end);
  }
  text += rest;
  text = text.replace(TOKEN, (token, t: string) => {
    const p = PARAM.exec(t);
    if (!p) throw new ValidationError('The compose text holds a placeholder it cannot fill.', [{ field: FIELD, message: `unknown placeholder ${token}` }]);
    return slot({ token, kind: 'param', name: p[1], path: p[2].split('.').filter(Boolean) });
  });
  return { text, slots, markerOf, marker: new RegExp(`${prefix}(\\d+)z`, 'g') };
}

function parse(text: string, what: string): Document.Parsed {
  let doc: Document.Parsed;
  try {
    doc = YAML.parseDocument(text, { version: '1.1', merge: true, uniqueKeys: true, prettyErrors: false });
  } catch (err) {
    throw new ValidationError(`The compose text is not valid YAML ${what}.`, [{ field: FIELD, message: err instanceof RangeError ? 'it is nested too deeply' : (err as Error).message.split('\n')[0] }]);
  }
  if (doc.errors.length) throw new ValidationError(`The compose text is not valid YAML ${what}.`, doc.errors.slice(0, 5).map((e) => ({ field: FIELD, message: e.message.split('\n')[0] })));
  return doc;
}

function toJS(doc: Document, what: string): unknown {
  try {
    return doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    throw new ValidationError(`The compose text cannot be read ${what}.`, [{ field: FIELD, message: err instanceof RangeError ? 'it is nested too deeply' : (err as Error).message.split('\n')[0] }]);
  }
}

interface Placement {
  /** Scalars (values) holding markers, with the marker indexes each holds. */
  values: Array<{ node: Scalar; indexes: number[] }>;
  issues: FieldIssue[];
}

/** Where the markers ended up: only inside value scalars (or comments); never a key, tag, anchor or alias. */
function place(doc: Document.Parsed, e: Expanded): Placement {
  const values: Placement['values'] = [];
  const issues: FieldIssue[] = [];
  const seen = new Set<number>();
  const indexesIn = (s: string) => [...s.matchAll(e.marker)].map((m) => Number(m[1]));
  const wrongPlace = (s: string | undefined, where: string) => {
    for (const i of indexesIn(s ?? '')) {
      seen.add(i);
      issues.push({ field: FIELD, message: `placeholder ${e.slots[i]?.token ?? ''} stands in ${where}: a placeholder may only be (part of) a value` });
    }
  };
  const comments: string[] = [doc.commentBefore ?? '', doc.comment ?? ''];
  YAML.visit(doc, (key, node) => {
    if (isScalar(node) || isCollection(node)) {
      comments.push(node.commentBefore ?? '', node.comment ?? '');
      wrongPlace(node.tag, 'a tag');
      wrongPlace(node.anchor, 'an anchor');
    }
    if (isAlias(node)) wrongPlace(node.source, 'an alias');
    if (isScalar(node) && typeof node.value === 'string') {
      const indexes = indexesIn(node.value);
      if (!indexes.length) return;
      if (key === 'key') wrongPlace(node.value, 'a key');
      else {
        indexes.forEach((i) => seen.add(i));
        values.push({ node, indexes });
      }
    }
  });
  const inComments = new Set(indexesIn(comments.join('\n')));
  e.slots.forEach((s, i) => {
    if (!seen.has(i) && !inComments.has(i)) issues.push({ field: FIELD, message: `placeholder ${s.token} is not (part of) a value: a placeholder may only be (part of) a value` });
  });
  return { values, issues };
}

/** The problems of a descriptor's compose text, found when it is installed. */
export function placeholderIssues(contents: string, parameterNames: string[]): FieldIssue[] {
  const issues = tokenIssues(contents, parameterNames);
  if (issues.length) return issues;
  if (RAW_UNSAFE.test(contents)) return [{ field: FIELD, message: 'holds a raw NEL, LS, PS, DEL or C1 control character: write it as an escape in a double-quoted string' }];
  if (LONE_SURROGATE.test(contents)) return [{ field: FIELD, message: 'holds a lone UTF-16 surrogate' }];
  // The shape with one read-only mount, one writable mount and none: each must parse, keep its
  // placeholders in values, and pass the compose policy with the mount as the only host path.
  for (const mounts of [[{ ReadOnly: true }], [{ ReadOnly: false }], []]) {
    try {
      const e = expand(contents, mounts);
      const doc = parse(e.text, 'once its placeholders are set aside');
      const found = place(doc, e);
      if (found.issues.length) return found.issues;
      const sources = new Set(e.slots.flatMap((s, i) => (s.kind === 'mount' && s.field === 'Source' ? [e.markerOf(i)] : [])));
      const policy = composeIssues(toJS(doc, 'once its placeholders are set aside'), sources, FIELD, new RegExp(`^${e.marker.source}`));
      if (policy.length) return policy;
    } catch (err) {
      if (err instanceof ValidationError) return err.details ?? [{ field: FIELD, message: err.message }];
      if (err instanceof RangeError) return [{ field: FIELD, message: 'it is nested too deeply' }];
      throw err;
    }
  }
  return [];
}

function slotValue(s: Slot, parameters: Record<string, unknown>, mounts: VolumeMount[]): unknown {
  if (s.kind === 'mount') return mounts[s.index]?.[s.field];
  let v: unknown = Object.hasOwn(parameters, s.name) ? parameters[s.name] : undefined;
  for (const k of s.path) v = v && typeof v === 'object' && Object.hasOwn(v, k) ? (v as Record<string, unknown>)[k] : undefined;
  return v;
}

const asText = (v: unknown): string => (v === undefined || v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));
/** Compose interpolates `$NAME` and `${NAME}` in values; `$$` is a literal `$`. */
const literal = (s: string) => s.replaceAll('$', '$$$$');

const ESCAPES: Record<string, string> = { '\u0085': '\\N', '\u2028': '\\L', '\u2029': '\\P' };
const escapeRaw = (text: string) => text.replace(/[\u007f-\u009f\u2028\u2029\ufffe\uffff]/g, (c) => ESCAPES[c] ?? (c.charCodeAt(0) <= 0xff ? `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}` : `\\u${c.charCodeAt(0).toString(16)}`));

/**
 * The compose file of a deploy: the descriptor's compose text (checked at install) with every
 * placeholder filled structurally. A 400 when a value cannot be written (a lone surrogate) or when
 * the filled document breaks the compose policy (a parameter that became a host path, say).
 */
export function renderCompose(contents: string, parameters: Record<string, unknown>, mounts: VolumeMount[]): string {
  const e = expand(contents, mounts);
  const doc = parse(e.text, 'once its placeholders are set aside');
  const found = place(doc, e);
  if (found.issues.length) throw new ValidationError('The plugin\'s compose text cannot be rendered.', found.issues);
  const unwritable: FieldIssue[] = [];
  const text = (i: number) => {
    const s = asText(slotValue(e.slots[i], parameters, mounts));
    if (LONE_SURROGATE.test(s)) unwritable.push({ field: e.slots[i].kind === 'param' ? `parameters.${[(e.slots[i] as { name: string }).name, ...(e.slots[i] as { path: string[] }).path].join('.')}` : FIELD, message: 'holds a lone UTF-16 surrogate, which no YAML file can carry' });
    return literal(s);
  };
  for (const { node, indexes } of found.values) {
    const whole = node.type === 'PLAIN' && !node.tag && node.value === e.markerOf(indexes[0]);
    const v = whole ? slotValue(e.slots[indexes[0]], parameters, mounts) : undefined;
    node.tag = undefined;
    delete (node as { format?: string }).format;
    if (whole && (typeof v === 'number' || typeof v === 'boolean' || v === null || v === undefined)) {
      node.value = v ?? null;
      node.type = 'PLAIN';
    } else {
      node.value = whole ? text(indexes[0]) : (node.value as string).replace(e.marker, (_m, i: string) => text(Number(i)));
      node.type = 'QUOTE_DOUBLE';
    }
  }
  if (unwritable.length) throw new ValidationError('Some parameter values cannot be written into the compose file.', unwritable);
  const meant = toJS(doc, 'with its parameters');
  const policy = composeIssues(meant, new Set(mounts.map((m) => m.Source)), FIELD);
  if (policy.length) throw new ValidationError('The compose file these parameters give is refused.', policy.map((p) => ({ ...p, message: `${p.message} (once the parameters are filled in)` })));
  // Markers left are in comments: give them back their placeholder text (which has no line break).
  const out = escapeRaw(doc.toString({ lineWidth: 0, doubleQuotedMinMultiLineLength: Number.MAX_SAFE_INTEGER }).replace(e.marker, (_m, i: string) => e.slots[Number(i)].token));
  const back = YAML.parseDocument(out, { version: '1.1', merge: true, uniqueKeys: true });
  if (back.errors.length || !YAML.isDocument(back) || !sameValue(toJS(back, 'as written'), meant)) {
    throw new AppError(422, 'PLUGIN_RENDER_FAILED', 'The rendered compose file does not read back as the document meant; nothing was deployed.');
  }
  return out;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return Number.isNaN(a) && Number.isNaN(b);
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}
