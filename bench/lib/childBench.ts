// Benchmarks written by others (bench/keys.ts, bench/evm.ts) run as child processes that print
// JSON; their figures join the table. A missing file is reported as "not measured yet".
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Row } from './results.ts';

export interface ChildBenchResult {
  file: string;
  status: 'measured' | 'not measured yet' | 'failed';
  rows: Row[];
  raw?: unknown;
  error?: string;
}

function parseJson(out: string): unknown {
  const t = out.trim();
  try {
    return JSON.parse(t);
  } catch {
    // Progress lines before the result: take the last line opening a JSON value that parses
    // through to the end (a pretty-printed object spans several lines).
    const lines = t.split('\n');
    for (let i = lines.length - 1; i >= 0; i--) {
      if (!/^\s*[[{]/.test(lines[i])) continue;
      try {
        return JSON.parse(lines.slice(i).join('\n'));
      } catch {
        /* keep looking */
      }
    }
  }
  throw new Error('no JSON on stdout');
}

/** The unit a key's name implies (toFirstBlockMs.p50 -> ms), nearest segment first. */
function unitOf(p: string): string {
  const units: Array<[RegExp, string]> = [[/Ms($|Per[A-Z])/, 'ms'], [/MiB$/, 'MiB'], [/KiB$/, 'KiB'], [/Percent/i, '%'], [/Seconds$/, 's'], [/PerSec(ond)?$/i, '/s']];
  for (const seg of p.split('.').reverse()) for (const [re, u] of units) if (re.test(seg)) return u;
  return '';
}

/** Rows given as {metric, value, unit, target?, met?} are kept; otherwise every numeric leaf becomes a row. */
function rowsOf(section: string, raw: unknown): Row[] {
  const list = Array.isArray(raw) ? raw : (raw as { rows?: unknown; results?: unknown })?.rows ?? (raw as { results?: unknown })?.results;
  if (Array.isArray(list) && list.every((r) => r && typeof r === 'object' && 'metric' in r && 'value' in r)) {
    return list.map((r: any) => ({ section, metric: String(r.metric), value: typeof r.value === 'number' ? r.value : null, unit: String(r.unit ?? ''), ...(r.target !== undefined ? { target: String(r.target) } : {}), ...(typeof r.met === 'boolean' ? { met: r.met } : {}), ...(typeof r.note === 'string' ? { note: r.note } : {}) }));
  }
  const rows: Row[] = [];
  const walk = (v: unknown, p: string) => {
    if (typeof v === 'number') rows.push({ section, metric: `${section}: ${p}`, value: v, unit: unitOf(p) });
    else if (v && typeof v === 'object' && !Array.isArray(v)) for (const [k, x] of Object.entries(v)) walk(x, p ? `${p}.${k}` : k);
  };
  walk(raw, '');
  return rows;
}

export async function runChildBench(file: string, section: string, timeoutMs: number): Promise<ChildBenchResult> {
  if (!existsSync(path.resolve(file))) {
    return { file, status: 'not measured yet', rows: [{ section, metric: `${section} (${file})`, value: null, unit: '', met: null, note: 'not measured yet: the file does not exist' }] };
  }
  const child = spawn(process.execPath, ['--import', 'tsx', path.resolve(file)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr.on('data', (b: Buffer) => (err += b.toString()));
  const killer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code: number | null = await new Promise((r) => child.once('exit', (c) => r(c)));
  clearTimeout(killer);
  try {
    if (code !== 0) throw new Error(`exited with ${code ?? 'a signal (timeout?)'}: ${err.trim().split('\n').slice(-3).join(' ')}`);
    const raw = parseJson(out);
    return { file, status: 'measured', rows: rowsOf(section, raw), raw };
  } catch (e) {
    const msg = (e as Error).message;
    return { file, status: 'failed', error: msg, rows: [{ section, metric: `${section} (${file})`, value: null, unit: '', met: null, note: `failed: ${msg.slice(0, 120)}` }] };
  }
}
