// The placeholders of a plugin's compose text, Go-template style as SPEC's descriptors write them:
//   {{ .parameters.<field>[.<sub>...] }}     a deploy parameter (objects and arrays as JSON)
//   {{ range .volumeMounts }} ... {{ end }}  once per volume mount, with {{ .Source }},
//                                            {{ .Target }} and {{ if .ReadOnly }}...{{ end }}
// Anything else between {{ }} is refused when the descriptor is installed, never at deploy.
import type { FieldIssue } from '../shared/errors.ts';

export interface VolumeMount {
  Source: string;
  Target: string;
  ReadOnly: boolean;
}

const TOKEN = /\{\{-?\s*(.*?)\s*-?\}\}/g;
const PARAM = /^\.parameters\.([A-Za-z_][A-Za-z0-9_]*)((?:\.[A-Za-z_][A-Za-z0-9_]*)*)$/;
const IN_RANGE = new Set(['.Source', '.Target', 'if .ReadOnly', 'end']);

export function placeholderIssues(contents: string, parameterNames: string[]): FieldIssue[] {
  const issues: FieldIssue[] = [];
  let depth = 0; // inside range .volumeMounts (1) and its if (2)
  for (const m of contents.matchAll(TOKEN)) {
    const t = m[1];
    const p = PARAM.exec(t);
    if (p && depth === 0) {
      if (!parameterNames.includes(p[1])) issues.push({ field: 'spec.dockerCompose.contents', message: `{{ ${t} }} names a parameter that spec.parameters does not declare` });
    } else if (t === 'range .volumeMounts' && depth === 0) depth = 1;
    else if (depth > 0 && IN_RANGE.has(t)) {
      if (t === 'if .ReadOnly') depth = depth === 1 ? 2 : -99;
      else if (t === 'end') depth -= 1;
    } else issues.push({ field: 'spec.dockerCompose.contents', message: `unknown placeholder {{ ${t} }}: use .parameters.<field> or range .volumeMounts (.Source, .Target, if .ReadOnly)` });
    if (depth < 0) {
      issues.push({ field: 'spec.dockerCompose.contents', message: 'unbalanced {{ if }}/{{ end }}' });
      depth = 0;
    }
  }
  if (depth !== 0) issues.push({ field: 'spec.dockerCompose.contents', message: '{{ range .volumeMounts }} is not closed by {{ end }}' });
  return issues;
}

function valueAt(parameters: Record<string, unknown>, name: string, path: string): string {
  // Own properties only: {{ .constructor }} or a parameter named toString is not Object.prototype's.
  let v: unknown = Object.hasOwn(parameters, name) ? parameters[name] : undefined;
  for (const k of path.split('.').filter(Boolean)) v = v && typeof v === 'object' && Object.hasOwn(v, k) ? (v as Record<string, unknown>)[k] : undefined;
  if (v === undefined || v === null) return '';
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
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

function mountText(body: string, v: VolumeMount): string {
  return body
    .replace(/\{\{-?\s*if \.ReadOnly\s*-?\}\}([\s\S]*?)\{\{-?\s*end\s*-?\}\}/g, (_x, inner: string) => (v.ReadOnly ? inner : ''))
    .replace(/\{\{-?\s*\.Source\s*-?\}\}/g, v.Source)
    .replace(/\{\{-?\s*\.Target\s*-?\}\}/g, v.Target);
}

/** The compose text with every placeholder filled (the descriptor was checked at install). */
export function renderCompose(contents: string, parameters: Record<string, unknown>, mounts: VolumeMount[]): string {
  let text = '';
  let rest = contents;
  const start = /\{\{-?\s*range \.volumeMounts\s*-?\}\}/;
  for (let m = start.exec(rest); m; m = start.exec(rest)) {
    const block = rangeBlock(rest, m.index + m[0].length);
    text += rest.slice(0, m.index) + mounts.map((v) => mountText(block.body, v)).join('');
    rest = rest.slice(block.end);
  }
  text += rest;
  return text.replace(TOKEN, (whole, t: string) => {
    const p = PARAM.exec(t);
    return p ? valueAt(parameters, p[1], p[2]) : whole;
  });
}
