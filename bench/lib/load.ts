// Load from a second process: autocannon's command line as a child, its --json result parsed.
// Loopback only, always bounded by a duration.
import { spawn } from 'node:child_process';
import path from 'node:path';

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  durationSec: number;
  /** Requests per second over all connections; omitted = as fast as the server answers. */
  rate?: number;
}

export interface LoadResult {
  requestsPerSec: number;
  total: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number; mean: number };
  /** Paced mode: p99 of how late the load client sent its requests (machine contention). */
  clientLagP99Ms?: number | null;
  /** Paced mode: [ms since start, latency ms] of the first answers slower than 20 ms. */
  slow?: Array<[number, number]>;
}

export async function runLoad(o: LoadOptions): Promise<LoadResult> {
  if (!/^http:\/\/127\.0\.0\.1:/.test(o.url)) throw new Error('load is for loopback only');
  const args = ['-j', '-n', '-c', String(o.connections), '-d', String(o.durationSec), '-m', o.method ?? 'GET'];
  if (o.rate) args.push('-R', String(o.rate));
  for (const [k, v] of Object.entries(o.headers ?? {})) args.push('-H', `${k}=${v}`);
  if (o.body !== undefined) args.push('-b', o.body);
  args.push(o.url);
  const bin = path.resolve('node_modules/autocannon/autocannon.js');
  const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr.on('data', (b: Buffer) => (err += b.toString()));
  const killer = setTimeout(() => child.kill('SIGKILL'), (o.durationSec + 30) * 1000);
  const code: number | null = await new Promise((r) => child.once('exit', (c) => r(c)));
  clearTimeout(killer);
  if (code !== 0) throw new Error(`autocannon exited with ${code}: ${err.slice(-1000)}`);
  const j = JSON.parse(out.trim().split('\n').pop()!);
  return {
    requestsPerSec: j.requests.average,
    total: j.requests.total,
    non2xx: j.non2xx,
    errors: j.errors,
    timeouts: j.timeouts,
    latencyMs: { p50: j.latency.p50, p90: j.latency.p90, p99: j.latency.p99, max: j.latency.max, mean: j.latency.average },
  };
}

export interface PacedOptions {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** paced: `rate` requests/s on a uniform schedule; closed: `connections` clients back to back. */
  mode: 'paced' | 'closed';
  rate?: number;
  connections: number;
  durationSec: number;
}

/** Runs bench/lib/loadClient.ts in a second process and returns its figures (latency to 0.01 ms). */
export async function runPaced(o: PacedOptions): Promise<LoadResult> {
  if (!/^http:\/\/127\.0\.0\.1:/.test(o.url)) throw new Error('load is for loopback only');
  const script = path.resolve('bench/lib/loadClient.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', script, JSON.stringify({ method: 'GET', headers: {}, ...o })], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr.on('data', (b: Buffer) => (err += b.toString()));
  const killer = setTimeout(() => child.kill('SIGKILL'), (o.durationSec + 30) * 1000);
  const code: number | null = await new Promise((r) => child.once('exit', (c) => r(c)));
  clearTimeout(killer);
  if (code !== 0) throw new Error(`load client exited with ${code}: ${err.slice(-1000)}`);
  const j = JSON.parse(out.trim().split('\n').pop()!);
  return { requestsPerSec: j.requestsPerSec, total: j.sent, non2xx: j.non2xx, errors: j.errors, timeouts: 0, latencyMs: j.latencyMs, clientLagP99Ms: j.clientLagP99Ms, slow: j.slow };
}
