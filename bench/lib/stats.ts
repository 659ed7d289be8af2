// Small statistics helpers for the benchmarks: percentiles by nearest rank, over milliseconds.

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

export interface LatencySummary {
  samples: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

export function summarize(samplesMs: number[]): LatencySummary {
  const s = [...samplesMs].sort((a, b) => a - b);
  const mean = s.reduce((a, b) => a + b, 0) / (s.length || 1);
  return { samples: s.length, p50: round(percentile(s, 50)), p90: round(percentile(s, 90)), p99: round(percentile(s, 99)), max: round(s[s.length - 1] ?? NaN), mean: round(mean) };
}

export const round = (v: number, digits = 2) => (Number.isFinite(v) ? Math.round(v * 10 ** digits) / 10 ** digits : v);

/** Milliseconds since `t0` (a process.hrtime.bigint() reading). */
export const msSince = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;

export const now = () => process.hrtime.bigint();
