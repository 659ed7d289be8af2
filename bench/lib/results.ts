// The benchmark results: one row per figure (metric, value, unit, target, met?), printed as a
// table and written to bench/results.json with the machine it ran on.
import os from 'node:os';
import { writeFileSync } from 'node:fs';

export interface Row {
  section: string;
  metric: string;
  value: number | null;
  unit: string;
  /** Human-readable target, e.g. ">= 2000" or "< 20"; empty when the figure is informational. */
  target?: string;
  /** true/false when a target applies; null when there is none or the figure was not measured. */
  met?: boolean | null;
  note?: string;
}

export interface Target {
  op: '>=' | '<';
  value: number;
}

export function row(section: string, metric: string, value: number | null, unit: string, target?: Target, note?: string): Row {
  const met = target && value !== null && Number.isFinite(value) ? (target.op === '>=' ? value >= target.value : value < target.value) : target ? null : undefined;
  return { section, metric, value, unit, ...(target ? { target: `${target.op} ${target.value}` } : {}), ...(met !== undefined ? { met } : {}), ...(note ? { note } : {}) };
}

export function machineInfo() {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    date: new Date().toISOString(),
    // The machine is shared: a high load average means other work ran beside the bench.
    loadAverage1m: Math.round(os.loadavg()[0] * 100) / 100,
  };
}

const fmt = (v: number | null) => (v === null ? 'n/a' : Number.isInteger(v) ? String(v) : v >= 100 ? v.toFixed(0) : v.toFixed(2));
const metText = (r: Row) => (r.met === undefined ? '' : r.met === null ? 'not measured' : r.met ? 'yes' : 'NO');

/** A Markdown table: readable in a terminal and pasteable into the README. */
export function markdownTable(rows: Row[]): string {
  const head = '| Metric | Value | Unit | Target | Met? |\n|---|---:|---|---|---|';
  const lines = rows.map((r) => `| ${r.metric}${r.note ? ` (${r.note})` : ''} | ${fmt(r.value)} | ${r.unit} | ${r.target ?? ''} | ${metText(r)} |`);
  return [head, ...lines].join('\n');
}

export function writeResults(file: string, data: unknown): void {
  writeFileSync(file, JSON.stringify(data, null, 2) + '\n');
}
