// One real, cheap process per managed node for the probe benches (bench/healthProbes.ts,
// bench/instances.ts): bench/lib/tinyRpcNode.c compiled as `besu` (see healthProbes.ts for why),
// and the probe gaps read from node_observations.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type pg from 'pg';

export function tinyBesu(): { binDir: string; remove(): void } {
  const binDir = mkdtempSync(path.join(tmpdir(), 'lnm-bench-tinyrpc-'));
  execFileSync('cc', ['-O2', '-o', path.join(binDir, 'besu'), path.join(import.meta.dirname, 'tinyRpcNode.c')]);
  chmodSync(path.join(binDir, 'besu'), 0o755);
  return { binDir, remove: () => rmSync(binDir, { recursive: true, force: true }) };
}

/** Every probe of the window, from node_observations sampled 4 times a second: gaps between a node's successive probes. */
export async function probeGaps(pool: pg.Pool, windowMs: number): Promise<{ gapsMs: number[]; probes: number }> {
  const last = new Map<string, number>();
  const gaps: number[] = [];
  let probes = 0;
  const until = Date.now() + windowMs;
  let first = true;
  while (Date.now() < until) {
    const rows = (await pool.query(`SELECT node_id, extract(epoch FROM observed_at) * 1000 AS at FROM node_observations`)).rows as { node_id: string; at: string }[];
    for (const r of rows) {
      const at = Number(r.at);
      const prev = last.get(r.node_id);
      if (prev !== undefined && at > prev) {
        gaps.push(at - prev);
        probes++;
      }
      last.set(r.node_id, at);
    }
    if (first) first = false;
    await new Promise((r) => setTimeout(r, 250));
  }
  return { gapsMs: gaps, probes };
}

