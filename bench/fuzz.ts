// The OpenAPI fuzzer's longer run (issue 20): the same fuzzer as test/e2e/fuzz (every operation,
// every role, refused then generated inputs) with more inputs per operation and a fresh seed each
// run, printed so a failure reproduces in the test: FUZZ_SEED=<seed> FUZZ_REFUSED_RUNS=<n>
// FUZZ_GENERATED_RUNS=<n> npx tsx test/uvuEntry.ts fuzz/openapiFuzz.
// `npx tsx bench/fuzz.ts` (FUZZ_SEED, FUZZ_BENCH_REFUSED_RUNS default 24, FUZZ_BENCH_GENERATED_RUNS default 90).
// Prints one JSON object; progress on stderr.
import { adminAuth, startServer } from '../test/helpers/server.ts';
import { fuzzServer } from '../test/e2e/fuzz/openapiFuzz.ts';
import { benchLog, closeBenchServer, runBench } from './lib/nodeBench.ts';

const log = benchLog('fuzz');
const seed = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const refusedRuns = Number(process.env.FUZZ_BENCH_REFUSED_RUNS ?? 24);
const generatedRuns = Number(process.env.FUZZ_BENCH_GENERATED_RUNS ?? 90);

async function main(): Promise<Record<string, unknown>> {
  const s = await startServer();
  try {
    const t0 = Date.now();
    log(`seed ${seed}, ${refusedRuns} refused and ${generatedRuns} generated inputs per operation`);
    const r = await fuzzServer(s, adminAuth(), { seed, refusedRuns, generatedRuns, crossOriginRuns: 6, headerRuns: 4, pairRounds: 32, slowMs: 2_000, log });
    const seconds = Math.round((Date.now() - t0) / 1000);
    // 5xx that are failures (the documented 503 of a feature this server lacks is not one).
    const serverErrors = r.stats.failures.filter((f) => / -> (5\d\d|0) in /.test(f)).length;
    const slow = r.stats.failures.filter((f) => f.includes('slower than')).length;
    for (const f of r.stats.failures.slice(0, 20)) log(`failure: ${f}`);
    const logged5xx = (s.output().match(/"status":(50[0-24-9]|5[1-9]\d)/g) ?? []).length;
    return {
      rows: [
        { metric: `Fuzz: operations of the OpenAPI document (seed ${seed})`, value: r.stats.operations, unit: 'operations' },
        { metric: 'Fuzz: requests sent (all roles, refused and generated inputs)', value: r.stats.requests, unit: 'requests', note: `${seconds} s` },
        { metric: 'Fuzz: answers of 5xx or no answer', value: Math.max(serverErrors, logged5xx), unit: 'answers', target: '== 0', met: serverErrors === 0 && logged5xx === 0 },
        { metric: 'Fuzz: answers slower than 2 s', value: slow, unit: 'answers', target: '== 0', met: slow === 0 },
        { metric: 'Fuzz: all failures (5xx, slow, wrong error body, a refused input accepted)', value: r.stats.failures.length, unit: 'failures', target: '== 0', met: r.stats.failures.length === 0 },
        { metric: 'Fuzz: something stored from refused requests', value: r.stats.stored ? 1 : 0, unit: '', target: '== 0', met: !r.stats.stored },
        { metric: 'Fuzz: healthy and audit chain valid after', value: r.health.status === 200 && r.verify.json?.valid ? 1 : 0, unit: '', target: '== 1', met: r.health.status === 200 && Boolean(r.verify.json?.valid) },
        { metric: 'Fuzz: operations answering the documented 503 of a feature this server lacks (informational)', value: r.stats.unavailable.length, unit: 'operations' },
        { metric: 'Fuzz: answer time, p99', value: r.stats.p99Ms, unit: 'ms' },
        { metric: 'Fuzz: answer time, max', value: r.stats.maxMs, unit: 'ms', note: r.stats.slowest.slice(0, 120) },
      ],
      seed,
      statuses: r.stats.statuses,
      byRole: r.stats.byRole,
      operationsAccepted: r.stats.operationsAccepted,
      failures: r.stats.failures.slice(0, 50),
      stored: r.stats.stored,
      unavailable: r.stats.unavailable,
    };
  } finally {
    await closeBenchServer(s);
  }
}

runBench(log, main);
