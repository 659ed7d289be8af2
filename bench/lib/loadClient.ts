// The load-generating second process (run with `node --import tsx`). Two modes:
//  - paced: an open loop at a fixed rate, one request every 1000/rate ms on a uniform schedule,
//    latency measured from the scheduled time, so a slow answer that delays the next send counts
//    against the server (no coordinated omission);
//  - closed: `connections` clients back to back for the duration.
// Prints one JSON line: { sent, ok, non2xx, errors, durationMs, requestsPerSec, latencyMs }.
// autocannon's fixed-rate mode sends each second's budget in a burst at the start of the second
// and back-fills latencies at a 1 ms interval, which overstates tail latency at modest rates.
import http from 'node:http';

interface Args {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
  mode: 'paced' | 'closed';
  rate?: number;
  connections: number;
  durationSec: number;
}

const args = JSON.parse(process.argv[2]) as Args;
const u = new URL(args.url);
if (u.hostname !== '127.0.0.1') throw new Error('loopback only');
const agent = new http.Agent({ keepAlive: true, maxSockets: args.connections });

function once(): Promise<number> {
  return new Promise((resolve) => {
    const req = http.request({ host: u.hostname, port: u.port, path: u.pathname + u.search, method: args.method, headers: { ...args.headers, ...(args.body ? { 'content-length': Buffer.byteLength(args.body) } : {}) }, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    req.setTimeout(10_000, () => req.destroy());
    if (args.body) req.write(args.body);
    req.end();
  });
}

const latencies: number[] = [];
// How late the client itself sent each paced request: a busy machine shows here first.
const lateness: number[] = [];
const slow: Array<[number, number]> = [];
let ok = 0;
let non2xx = 0;
let errors = 0;
const tally = (status: number) => (status === 0 ? errors++ : status >= 200 && status < 300 ? ok++ : non2xx++);
const nowMs = () => Number(process.hrtime.bigint()) / 1e6;

async function paced(): Promise<number> {
  const interval = 1000 / args.rate!;
  const total = Math.round(args.rate! * args.durationSec);
  const t0 = nowMs();
  const inflight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = t0 + i * interval;
    const wait = due - nowMs();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait - 0.5));
    while (nowMs() < due) {
      /* spin the last half millisecond for an even schedule */
    }
    lateness.push(nowMs() - due);
    inflight.push(once().then((s) => {
      tally(s);
      const l = nowMs() - due;
      if (s >= 200 && s < 300) latencies.push(l);
      // When the slow answers came (ms since start): bursts point at a stall, spread at contention.
      if (l > 20 && slow.length < 40) slow.push([Math.round(due - t0), Math.round(l)]);
    }));
  }
  await Promise.all(inflight);
  return total;
}

async function closed(): Promise<number> {
  const end = nowMs() + args.durationSec * 1000;
  let sent = 0;
  await Promise.all(Array.from({ length: args.connections }, async () => {
    while (nowMs() < end) {
      const t = nowMs();
      sent++;
      const s = await once();
      tally(s);
      if (s >= 200 && s < 300) latencies.push(nowMs() - t);
    }
  }));
  return sent;
}

const start = nowMs();
const sent = await (args.mode === 'paced' ? paced() : closed());
const durationMs = nowMs() - start;
const s = latencies.sort((a, b) => a - b);
const pct = (p: number) => (s.length ? s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] : NaN);
const r2 = (v: number) => Math.round(v * 100) / 100;
const late = lateness.sort((a, b) => a - b);
process.stdout.write(JSON.stringify({
  slow,
  clientLagP99Ms: late.length ? r2(late[Math.min(late.length - 1, Math.ceil(0.99 * late.length) - 1)]) : null,
  sent, ok, non2xx, errors, durationMs: r2(durationMs), requestsPerSec: r2((ok + non2xx) / (durationMs / 1000)),
  latencyMs: { p50: r2(pct(50)), p90: r2(pct(90)), p99: r2(pct(99)), max: r2(s[s.length - 1] ?? NaN), mean: r2(s.reduce((a, b) => a + b, 0) / (s.length || 1)) },
}) + '\n');
agent.destroy();
