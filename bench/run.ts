// `npm run bench`: measures the platform on this machine and prints a table (metric, value,
// unit, target, met?); writes bench/results.json. Timing lives here, never in tests.
// Everything runs on loopback with bounded durations; about 20 minutes in all (the health-probe
// bench alone starts 500 managed nodes).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type pg from 'pg';
import os from 'node:os';
import path from 'node:path';
import { postgresEventStore } from '../adapters/eventstore/postgresEventStore.ts';
import type { EventStore } from '../domain/shared/eventStore.ts';
import { appendRates, projectionVisibility, projectionVisibilityConcurrent, verifyRate } from './eventStoreBench.ts';
import { auditLoad, auditQueryPath, authLatency, credentials, httpVisibility, loginRate, seedUsers, uncachedLogins, usersLoad } from './httpBench.ts';
import { appendVariant, auditQuerySplit, scryptCost, verifyBatchPlans, verifySplit } from './diagnosis.ts';
import { freshMigratedDatabase } from './lib/cluster.ts';
import { seedAuditHistory } from './lib/auditSeed.ts';
import { onCleanup, runCleanups } from './lib/cleanup.ts';
import { runChildBench } from './lib/childBench.ts';
import { spawnServer } from './lib/serverProcess.ts';
import { machineInfo, markdownTable, row, writeResults, type Row } from './lib/results.ts';
import { round } from './lib/stats.ts';
import { webhookBench } from './webhooks.ts';
import { consoleBench, chromiumMissing, median as medianOf } from './consoleBench.ts';

const rows: Row[] = [];
const details: Record<string, unknown> = {};
const failures: Record<string, string> = {};
const log = (m: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${m}\n`);

const loadAverages: Record<string, number> = {};

// `npm run bench -- --only=eventstore` runs only the event store's parts (appends, and verify
// over a log seeded without the HTTP server) and replaces only their rows in bench/results.json.
// `--only=health` (500 managed nodes probed), `--only=chaincode` (query and invoke against the
// bare gateway, and the quick-start figures), `--only=evmcall` (EVM contract query and invoke
// against bare ethers on the same anvil) and `--only=hotpaths` (all four) do the same for those
// child benches; `--only=ledgerx` runs bench/ledgerx.ts (real Fabric-X: LNM_FABRIC_X_BIN);
// `--only=instances` runs bench/instances.ts (1, 2 and 3 instances behind nginx, failover, nodes
// watched by one instance: up to 1000 managed nodes, so up to ~40 minutes); `--only=geth` runs
// bench/evmGeth.ts (a 3-sealer geth Clique network and an anvil chain from nothing to a contract
// call, same run: LNM_GETH_BIN, else PATH; the geth rows say why where it is absent); `--only=bft`
// runs bench/consortiumBft.ts (BFT against raft on one Fabric 3.1 release: quick start, config
// update round trip, commits per second; LNM_FABRIC_RELEASES or LNM_FABRIC_BIN) and
// bench/consortiumHealthProbes.ts (the service's CPU per probe of 32 real Fabric nodes, and of as
// many EVM nodes in the same run); `--only=fabrichealth` runs that last one alone;
// `--only=kubernetes` runs bench/kubernetesStart.ts (anvil start to running on the test cluster
// against the docker engine, same run; CPU per node watched on a cluster at a 10 s interval;
// rows skipped, saying why, without the cluster of test/k8s/cluster.sh up).
const PARTIAL_RUNS = ['eventstore', 'health', 'chaincode', 'evmcall', 'hotpaths', 'ledgerx', 'instances', 'geth', 'bft', 'fabrichealth', 'kubernetes'] as const;
const only = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length) ?? null;
if (only !== null && !(PARTIAL_RUNS as readonly string[]).includes(only)) {
  process.stderr.write(`unknown --only=${only}; the partial runs are ${PARTIAL_RUNS.map((p) => `--only=${p}`).join(', ')}\n`);
  process.exit(2);
}

/** The child benches of a partial run, as [file, section, timeout]. */
const CHILD_BENCHES = {
  health: ['bench/healthProbes.ts', 'health probes', 1_800_000],
  chaincode: ['bench/consortiumChaincode.ts', 'chaincode', 900_000],
  quickstart: ['bench/quickStart.ts', 'quick start', 600_000],
  ledgerx: ['bench/ledgerx.ts', 'ledgerx', 900_000],
  evmcall: ['bench/evmContractCall.ts', 'evm contract calls', 300_000],
  instances: ['bench/instances.ts', 'instances', 2_700_000],
  geth: ['bench/evmGeth.ts', 'evm geth', 600_000],
  bft: ['bench/consortiumBft.ts', 'consortium bft', 900_000],
  fabricHealth: ['bench/consortiumHealthProbes.ts', 'consortium health probes', 600_000],
  kubernetes: ['bench/kubernetesStart.ts', 'kubernetes', 900_000],
} as const;
const childrenOf = (o: string) =>
  o === 'hotpaths' ? [CHILD_BENCHES.health, CHILD_BENCHES.chaincode, CHILD_BENCHES.quickstart, CHILD_BENCHES.evmcall] : o === 'health' ? [CHILD_BENCHES.health] : o === 'chaincode' ? [CHILD_BENCHES.chaincode, CHILD_BENCHES.quickstart] : o === 'evmcall' ? [CHILD_BENCHES.evmcall] : o === 'ledgerx' ? [CHILD_BENCHES.ledgerx] : o === 'instances' ? [CHILD_BENCHES.instances] : o === 'geth' ? [CHILD_BENCHES.geth] : o === 'bft' ? [CHILD_BENCHES.bft, CHILD_BENCHES.fabricHealth] : o === 'fabrichealth' ? [CHILD_BENCHES.fabricHealth] : o === 'kubernetes' ? [CHILD_BENCHES.kubernetes] : [];

async function section(name: string, fn: () => Promise<void>): Promise<void> {
  loadAverages[name] = round(os.loadavg()[0], 2);
  log(`${name} ... (load average ${loadAverages[name]})`);
  const t = Date.now();
  try {
    await fn();
    log(`${name} done in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  } catch (err) {
    failures[name] = (err as Error).message;
    rows.push({ section: name, metric: `${name}: FAILED`, value: null, unit: '', met: null, note: (err as Error).message.split('\n')[0].slice(0, 160) });
    log(`${name} FAILED: ${(err as Error).stack}`);
  }
}

function tempDir(prefix: string): string {
  const d = mkdtempSync(path.join(os.tmpdir(), prefix));
  onCleanup(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

// 1. Appends with the hash chain.
async function appendSection(): Promise<void> {
  await section('appends', async () => {
    const r = await appendRates(2_000);
    details.appends = r;
    rows.push(row('appends', 'Appends, one stream, sequential with expected versions (median of 3 rounds of 2 s)', r.oneStream, 'events/s', { op: '>=', value: 2000 }, `rounds ${r.oneStreamRounds.join(', ')}`));
    rows.push(row('appends', 'Appends, 50 concurrent streams, group commit (median of 3 rounds of 2 s, alternating with the one-stream rounds)', r.fiftyStreams, 'events/s', { op: '>=', value: 5000 }, `rounds ${r.fiftyStreamsRounds.join(', ')}`));
    rows.push(row('appends', 'Appends, 50 concurrent streams / one stream sequential, same run', round(r.fiftyStreams / r.oneStream, 2), 'x', { op: '>=', value: 2.5 }));
    rows.push(row('appends', 'Append latency, one stream sequential, p50', r.oneStreamLatency.p50, 'ms', undefined, `p99 ${r.oneStreamLatency.p99} ms`));
    rows.push(row('appends', 'Append latency under load (50 concurrent writers), p50', r.fiftyStreamsLatency.p50, 'ms'));
    rows.push(row('appends', 'Append latency under load (50 concurrent writers), p99', r.fiftyStreamsLatency.p99, 'ms', undefined, `max ${r.fiftyStreamsLatency.max} ms`));
    // Why a lone append costs what it does: its own transaction and its own WAL flush.
    const batched = await appendVariant(3_000, 10, true);
    const nosync = await appendVariant(3_000, 1, false);
    const flushMs = round(1000 / r.oneStream - 1000 / nosync, 2);
    details.appendDiagnosis = { tenEventsPerAppend: batched, oneEventSynchronousCommitOff: nosync, walFlushWaitPerCommitMs: flushMs };
    rows.push(row('diagnosis', 'Appends, one stream, 10 events per append (same commit cost shared)', batched, 'events/s'));
    rows.push(row('diagnosis', 'Appends, one stream, synchronous_commit=off (no WAL flush wait; diagnosis only)', nosync, 'events/s'));
    rows.push(row('diagnosis', 'WAL flush wait per append commit (derived: 1/rate with - 1/rate without)', flushMs, 'ms'));
  });
}

/** verify() over the whole log of `pool`, and where its time would go on the old path. */
async function verifyFigures(pool: pg.Pool, store: EventStore): Promise<void> {
  const plans = await verifyBatchPlans(pool, await store.headPosition());
  const v = await verifyRate(store, 100_000);
  details.verify = { ...v, batchPlans: plans };
  rows.push(row('verify', `store.verify() over ${v.events} events (sha256 in PostgreSQL over stored bodies, columns proven by the body constraint; median of 3 runs)`, v.eventsPerSec, 'events/s', { op: '>=', value: 200000 }, `runs ${v.runsMs.join(', ')} ms`));
  const split = await verifySplit(pool);
  details.verifySplit = split;
  rows.push(row('diagnosis', `old verify path, for comparison: reading and decoding ${split.events} rows (bounded ranges)`, split.fetchMs, 'ms'));
  rows.push(row('diagnosis', 'old verify path, for comparison: canonical JSON + SHA-256 in JS', split.hashMs, 'ms', undefined, `${round(split.events / ((split.fetchMs + split.hashMs) / 1000), 0)} events/s in all`));
}

/** The event store's rows: what a partial run measures again (older runs' names included). */
const isEventStoreRow = (r: Row) =>
  r.section === 'appends' || r.section === 'verify' || r.section === 'verify (store)' || /^(Appends|Append latency|WAL flush|verify|store\.verify|old verify)/.test(r.metric);

/** The rows a partial run replaces. */
const isPartialRow = (r: Row) => (only === 'eventstore' ? isEventStoreRow(r) : childrenOf(only ?? '').some(([, section]) => r.section === section));

/** A partial run keeps the other rows of the last full run, and puts its own where the old ones were. */
function mergeWithLastResults(file: string): { rows: Row[]; details: Record<string, unknown>; loadAverages: Record<string, number> } {
  let last: { rows?: Row[]; details?: Record<string, unknown>; loadAverageAtSectionStart?: Record<string, number> };
  try {
    last = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return { rows, details, loadAverages };
  }
  const lastRows = last.rows ?? [];
  const at = lastRows.findIndex(isPartialRow);
  const others = lastRows.filter((r) => !isPartialRow(r));
  const cut = at < 0 ? others.length : lastRows.slice(0, at).filter((r) => !isPartialRow(r)).length;
  // The other sections' load averages stay with their rows.
  return { rows: [...others.slice(0, cut), ...rows, ...others.slice(cut)], details: { ...(last.details ?? {}), ...details }, loadAverages: { ...(last.loadAverageAtSectionStart ?? {}), ...loadAverages } };
}

async function eventStoreOnly(): Promise<void> {
  await appendSection();
  await section('verify (store)', async () => {
    const db = await freshMigratedDatabase('verify');
    const store = postgresEventStore(db.pool);
    try {
      const seed = await seedAuditHistory(store, 100_000);
      details.verifySeed = { appended: await store.headPosition(), appendMs: seed.ms };
      await db.pool.query('VACUUM (ANALYZE) events');
      await verifyFigures(db.pool, store);
      // The path verify takes without the constraint's proof (migration 1140): each body parsed
      // and compared with its columns. On this fresh database only, at the end.
      await db.pool.query('ALTER TABLE events DROP CONSTRAINT events_body_matches_columns');
      const compared = await verifyRate(store, 100_000);
      details.verifyComparingColumns = compared;
      rows.push(row('diagnosis', 'store.verify() without the body constraint (each body parsed and compared with its columns; median of 3 runs)', compared.eventsPerSec, 'events/s', undefined, `runs ${compared.runsMs.join(', ')} ms`));
    } finally {
      await store.close();
    }
  });
}

async function main() {
  const started = Date.now();
  const machine = machineInfo();
  log(`${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB, node ${machine.node}, load average ${machine.loadAverage1m}`);
  if (only === 'eventstore') {
    await eventStoreOnly();
    return finish(started, machine);
  }
  if (only) {
    for (const [file, name, timeoutMs] of childrenOf(only)) await section(name, () => childSection(file, name, timeoutMs));
    return finish(started, machine);
  }

  // 5. Cold and warm start first, while nothing else runs.
  await section('startup', async () => {
    const dataDir = tempDir('lnm-bench-data-');
    const cold = await spawnServer({ dataDir, logLevel: 'info' });
    await cold.stop();
    const warm = await spawnServer({ dataDir, logLevel: 'info' });
    await warm.stop();
    // Where start-up time goes: ms from spawn to each log line (the first one comes after tsx has loaded the code).
    details.startup = { coldMs: round(cold.startMs, 0), warmMs: round(warm.startMs, 0), coldPhases: cold.phases, warmPhases: warm.phases };
    rows.push(row('startup', 'Cold start: spawn to first 200 from /health (fresh DATA_DIR, initdb included)', round(cold.startMs / 1000, 2), 's'));
    rows.push(row('startup', 'Warm start: second start on the same DATA_DIR', round(warm.startMs / 1000, 2), 's', { op: '<', value: 5 }));
    // The same warm start the way a user starts it: npm start, the server compiled at install (bin/start.mjs).
    const npm = await spawnServer({ dataDir, logLevel: 'info', npmStart: true });
    await npm.stop();
    details.startup = { ...(details.startup as object), npmStartWarmMs: round(npm.startMs, 0), npmStartPhases: npm.phases };
    rows.push(row('startup', 'npm start: spawn of `npm start` to first 200 from /health (same DATA_DIR, warm)', round(npm.startMs / 1000, 2), 's', { op: '<', value: 5 }));
  });

  await appendSection();

  // 2a. Write to read model, in-process.
  await section('visibility (store)', async () => {
    const v = await projectionVisibility(300);
    details.visibilityStore = v;
    rows.push(row('visibility', 'Write to read model, store.append + projector.waitFor, median', v.p50, 'ms', { op: '<', value: 20 }));
    rows.push(row('visibility', 'Write to read model, store.append + projector.waitFor, p99', v.p99, 'ms'));
    const c = await projectionVisibilityConcurrent(8, 40);
    details.visibilityStoreConcurrent = c;
    rows.push(row('visibility', 'Write to read model, 8 concurrent writers, median', c.p50, 'ms', { op: '<', value: 20 }));
    rows.push(row('visibility', 'Write to read model, 8 concurrent writers, p99', c.p99, 'ms', undefined, `max ${c.max} ms`));
  });

  // The HTTP benchmarks share one server on a fresh database of the bench cluster.
  const db = await freshMigratedDatabase('http');
  const server = await spawnServer({ dataDir: tempDir('lnm-bench-http-'), databaseUrl: db.url });
  const creds = await credentials(server);
  await seedUsers(server, creds, 20);

  // 2b. Write to visibility over HTTP.
  await section('visibility (HTTP)', async () => {
    const v = await httpVisibility(server, creds, 200);
    details.visibilityHttp = v;
    rows.push(row('visibility', 'Write to visibility over HTTP, POST /api-keys then GET it, median', v.writeThenRead.p50, 'ms', { op: '<', value: 20 }));
    rows.push(row('visibility', 'Write to visibility over HTTP, POST /api-keys then GET it, p99', v.writeThenRead.p99, 'ms'));
    rows.push(row('visibility', 'POST /api-keys alone (waits for its projection), median', v.write.p50, 'ms'));
  });

  // 3. GET /users under load from autocannon.
  await section('GET /users load', async () => {
    const r = await usersLoad(server, creds);
    details.usersLoad = r;
    rows.push(row('http', 'GET /api/v1/users at 200 req/s, paced (session cookie, up to 10 connections), p50', r.fixed.latencyMs.p50, 'ms'));
    rows.push(row('http', 'GET /api/v1/users at 200 req/s, paced, p99 (median of 3 rounds of 8 s)', r.fixed.latencyMs.p99, 'ms', { op: '<', value: 25 }, `rounds ${r.fixedRounds.map((x) => x.latencyMs.p99).join(', ')} ms; load client's own send lag p99 ${r.fixedRounds.map((x) => x.clientLagP99Ms).join(', ')} ms`));
    rows.push(row('http', 'GET /api/v1/users at 200 req/s, paced, achieved rate', round(r.fixed.requestsPerSec, 0), 'req/s', undefined, `${r.fixed.non2xx} non-2xx, ${r.fixed.errors} errors`));
    rows.push(row('http', 'GET /api/v1/users, autocannon -R 200 (bursts each second), p99', r.autocannonFixed.latencyMs.p99, 'ms', undefined, `p50 ${r.autocannonFixed.latencyMs.p50} ms; whole ms`));
    rows.push(row('http', 'GET /api/v1/users max rate (10 connections)', round(r.max.requestsPerSec, 0), 'req/s', undefined, `p50 ${r.max.latencyMs.p50} ms, p99 ${r.max.latencyMs.p99} ms, ${r.max.non2xx} non-2xx`));
  });

  // 6. Identity.
  await section('identity', async () => {
    const auth = await authLatency(server, creds, 4);
    details.authLatency = auth;
    for (const [k, label] of [['basic', 'HTTP Basic'], ['cookie', 'session cookie'], ['apiKey', 'API key (Bearer)']] as const) {
      rows.push(row('identity', `GET /api/v1/users with ${label}, one connection, p50`, auth[k].latencyMs.p50, 'ms'));
      rows.push(row('identity', `GET /api/v1/users with ${label}, one connection, p99`, auth[k].latencyMs.p99, 'ms', undefined, `${round(auth[k].requestsPerSec, 0)} req/s`));
    }
    const login = await loginRate(server, 5);
    details.loginRate = login;
    rows.push(row('identity', 'POST /api/v1/auth/login, same user again (verified-password cache hit), 4 connections', round(login.requestsPerSec, 1), 'logins/s', undefined, `p50 ${login.latencyMs.p50} ms, p99 ${login.latencyMs.p99} ms, ${login.non2xx} non-2xx`));
    const cold = await uncachedLogins(server, 20);
    details.uncachedLogins = cold;
    rows.push(row('identity', 'POST /api/v1/auth/login, 20 different users (scrypt N=2^15, r=8 each), 2 at a time', round(cold.perSec, 1), 'logins/s', undefined, `p50 ${cold.latency.p50} ms`));
    const scrypt = await scryptCost();
    details.scryptMs = scrypt;
    rows.push(row('identity', 'One scrypt derivation (N=2^15, r=8, p=1), in-process', scrypt, 'ms'));
  });

  // 6 (audit) and 4: 100,000 audit entries through the real store; the server's projector builds
  // the audit log; then the filtered listing under load, and verify() over the whole chain.
  await section('audit + verify', async () => {
    const store = postgresEventStore(db.pool);
    const headBefore = await store.headPosition();
    const seed = await seedAuditHistory(store, 100_000);
    const head = await store.headPosition();
    const t0 = Date.now();
    for (;;) {
      const r = await db.pool.query(`SELECT position FROM projection_checkpoints WHERE name = 'audit_log'`);
      if (Number(r.rows[0]?.position ?? 0) >= head) break;
      if (Date.now() - t0 > 180_000) throw new Error('the audit log did not catch up within 180 s');
      await new Promise((res) => setTimeout(res, 200));
    }
    const catchUpMs = Date.now() - t0; // from the end of seeding
    const entries = Number((await db.pool.query('SELECT count(*) AS n FROM audit_log')).rows[0].n);
    details.auditSeed = { appended: head - headBefore, appendMs: seed.ms, projectionCatchUpMs: catchUpMs, auditEntries: entries };
    rows.push(row('audit', 'Seeding: 100,000 events appended in batches of 25', round((head - headBefore) / (seed.ms / 1000), 0), 'events/s'));
    rows.push(row('audit', 'Projection catch-up after seeding (server projector, all read models)', round((head - headBefore) / (Math.max(1, catchUpMs) / 1000), 0), 'events/s', undefined, `${round(catchUpMs / 1000, 1)} s after the last append`));
    const a = await auditLoad(server, creds, 8);
    details.auditLoad = { query: auditQueryPath(), matching: a.total, entries, ...a.result };
    rows.push(row('audit', `GET /api/v1/audit-logs?action=LOGIN&start_date&end_date over ${entries} entries (${a.total} match), 50 req/s, p50`, a.result.latencyMs.p50, 'ms'));
    rows.push(row('audit', 'GET /api/v1/audit-logs filtered, 50 req/s, p99', a.result.latencyMs.p99, 'ms', { op: '<', value: 50 }, `${a.result.non2xx} non-2xx; load client's send lag p99 ${a.result.clientLagP99Ms} ms`));
    const day = 86_400_000;
    const q = await auditQuerySplit(db.pool, 'LOGIN', new Date(Date.now() - 40 * day).toISOString().slice(0, 10) + 'T00:00:00.000Z', new Date(Date.now() - 10 * day).toISOString().slice(0, 10) + 'T23:59:59.999Z');
    details.auditQuerySplit = q;
    rows.push(row('diagnosis', 'Audit listing SQL: page query (ORDER BY ts DESC LIMIT 50), p50', q.pageP50, 'ms', undefined, `p99 ${q.pageP99} ms`));
    rows.push(row('diagnosis', 'Audit listing SQL: count(*) of the filter, p50', q.countP50, 'ms', undefined, `p99 ${q.countP99} ms`));
    rows.push(row('diagnosis', 'Audit listing SQL: count(*) after VACUUM (ANALYZE) audit_log, p50', q.countAfterVacuumP50, 'ms'));
    await verifyFigures(db.pool, store);
    await store.close();
  });

  // The web console in Chromium, against this server (its audit log now large).
  await section('console', async () => {
    const missing = chromiumMissing();
    if (missing) throw new Error(`${missing}: apt-get install chromium`);
    const c = await consoleBench(server, creds.cookie);
    details.console = c;
    rows.push(row('console', 'Console first page: JavaScript loaded to draw the dashboard, gzipped', c.firstPageJsGzipKb, 'KB', { op: '<', value: 300 }, `${c.firstPageJsFiles} files; the whole bundle ${c.bundleJsGzipKb} KB gzipped in ${c.bundleJsFiles} files (code split per area)`));
    rows.push(row('console', 'Console: navigation to the dashboard drawn (data loaded), first load', c.dashboardColdMs, 'ms'));
    rows.push(row('console', 'Console: navigation to the dashboard drawn, cached assets, median of 5', medianOf(c.dashboardWarmMs), 'ms', { op: '<', value: 1000 }, `runs ${c.dashboardWarmMs.join(', ')} ms`));
    rows.push(row('console', 'Console: navigation to the node list drawn with 1,000 nodes (answered in the browser), median of 5', medianOf(c.nodes1000Ms), 'ms', { op: '<', value: 1000 }, `runs ${c.nodes1000Ms.join(', ')} ms`));
    rows.push(row('console', `Console: navigation to the audit table's first page drawn over ${c.auditEntries} entries (server paging), median of 5`, medianOf(c.auditFirstPageMs), 'ms', { op: '<', value: 1000 }, `runs ${c.auditFirstPageMs.join(', ')} ms`));
    rows.push(row('console', `Console: navigation to the audit table's last page drawn over ${c.auditEntries} entries, median of 5`, medianOf(c.auditLastPageMs), 'ms', { op: '<', value: 1000 }, `runs ${c.auditLastPageMs.join(', ')} ms`));
  });
  await server.stop();

  await section('webhooks', async () => {
    const w = await webhookBench();
    details.webhooks = w;
    rows.push(row('webhooks', 'Webhook deliveries to one local receiver (burst of 3000 events, signed, from append to last arrival)', w.oneReceiver.perSecond, 'deliveries/s', { op: '>=', value: 1000 }));
    rows.push(row('webhooks', 'Webhook fan-out: each event to 100 webhooks (30 events one after another)', w.fanOut.perSecond, 'deliveries/s', { op: '>=', value: 1000 }));
    rows.push(row('webhooks', 'Webhook fan-out: append to the 100th arrival, p99', w.fanOut.eventToLastDeliveryMs.p99, 'ms'));
    rows.push(row('webhooks', 'Webhook latency: domain event appended to arrival at the receiver, p50', w.latency.p50, 'ms'));
    rows.push(row('webhooks', 'Webhook latency: domain event appended to arrival at the receiver, p99', w.latency.p99, 'ms'));
  });

  // Figures from the key and EVM benchmarks, when those exist, and the OpenAPI fuzzer's long run.
  await section('children', async () => {
    for (const [file, name, timeoutMs] of [['bench/keys.ts', 'keys', 150_000], ['bench/evm.ts', 'evm', 150_000], CHILD_BENCHES.evmcall, CHILD_BENCHES.geth, ['bench/consortium.ts', 'consortium', 150_000], CHILD_BENCHES.chaincode, CHILD_BENCHES.quickstart, CHILD_BENCHES.bft, CHILD_BENCHES.fabricHealth, ['bench/backups.ts', 'backups', 150_000], CHILD_BENCHES.health, CHILD_BENCHES.ledgerx, CHILD_BENCHES.instances, CHILD_BENCHES.kubernetes, ['bench/fuzz.ts', 'fuzz', 900_000]] as const) {
      await childSection(file, name, timeoutMs);
    }
  });

  return finish(started, machine);
}

/** A child bench's rows into the table, its whole output into details. */
async function childSection(file: string, name: string, timeoutMs: number): Promise<void> {
  const r = await runChildBench(file, name, timeoutMs);
  details[name] = { status: r.status, ...(r.error ? { error: r.error } : {}), ...(r.raw !== undefined ? { result: r.raw } : {}) };
  if (r.status === 'failed') failures[name] = r.error ?? 'failed';
  rows.push(...r.rows);
}

function finish(started: number, machine: ReturnType<typeof machineInfo>): number {
  const table = markdownTable(rows);
  process.stdout.write(`\n${table}\n\n`);
  const durationSec = round((Date.now() - started) / 1000, 0);
  const file = path.resolve('bench/results.json');
  const out = only ? mergeWithLastResults(file) : { rows, details, loadAverages };
  writeResults(file, { machine: { ...machine, loadAverage1mAtEnd: round(os.loadavg()[0], 2) }, durationSec, ...(only ? { partialRun: `--only=${only}: the other rows are from the last full run` } : {}), loadAverageAtSectionStart: out.loadAverages, rows: out.rows, details: out.details, failures });
  log(`wrote bench/results.json (${durationSec} s in all${only ? `, --only=${only}` : ''})`);
  return Object.keys(failures).length ? 1 : 0;
}

let code = 1;
process.once('SIGINT', () => void runCleanups().then(() => process.exit(130)));
main()
  .then((c) => (code = c))
  .catch((err) => log(`bench failed: ${(err as Error).stack}`))
  .finally(async () => {
    await runCleanups();
    process.exit(code);
  });
