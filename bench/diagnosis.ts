// Where the time goes when a target is missed: figures that explain the main table, not
// targets of their own (commit cost of an append, batch size, verify split into fetch and hash,
// scrypt cost, the two queries behind the audit listing).
import pg from 'pg';
import { randomUUID } from 'node:crypto';
import { postgresEventStore } from '../adapters/eventstore/postgresEventStore.ts';
import { GENESIS_HASH, verifyRun } from '../domain/shared/eventChain.ts';
import type { RecordedEvent } from '../domain/shared/eventStore.ts';
import { createPasswordHasher } from '../adapters/security/passwordHasher.ts';
import { freshMigratedDatabase } from './lib/cluster.ts';
import { msSince, now, round, summarize } from './lib/stats.ts';

const meta = () => ({ timestamp: new Date().toISOString(), requestId: randomUUID(), actor: { userId: 1, username: 'admin', kind: 'session' } });
const ev = (i: number) => ({ id: randomUUID(), type: 'BenchNodeConfigured', data: { nodeId: i, name: `peer${i}.org1`, after: { port: 7051 } } });

/** Appends per second on one stream with `perAppend` events per call; optionally without waiting for the WAL flush. */
export async function appendVariant(durationMs: number, perAppend: number, synchronousCommit: boolean): Promise<number> {
  const db = await freshMigratedDatabase(synchronousCommit ? 'batch' : 'nosync');
  const pool = synchronousCommit ? db.pool : new pg.Pool({ connectionString: db.url, max: 4, options: '-c synchronous_commit=off' });
  const store = postgresEventStore(pool);
  try {
    const stream = `node-${randomUUID()}`;
    let version = 0;
    const t0 = now();
    const end = Date.now() + durationMs;
    while (Date.now() < end) {
      const r = await store.append(stream, version, Array.from({ length: perAppend }, (_, j) => ev(version + j)), meta());
      version = r.nextVersion;
    }
    return round(version / (msSince(t0) / 1000), 0);
  } finally {
    await store.close();
    if (!synchronousCommit) await pool.end();
  }
}

/**
 * verify()'s work split in two: reading and decoding the rows (batch-bounded ranges, as verify()
 * reads since 2dd543e) and recomputing the hashes in JS.
 */
export async function verifySplit(pool: pg.Pool): Promise<{ fetchMs: number; hashMs: number; events: number }> {
  let fetchMs = 0;
  let hashMs = 0;
  let prev = GENESIS_HASH;
  let next = 1;
  let events = 0;
  for (;;) {
    let t = now();
    const res = await pool.query('SELECT position, stream_id, version, id, type, data, metadata, prev_hash, hash FROM events WHERE position >= $1 AND position <= $2 ORDER BY position', [next, next + 4999]);
    fetchMs += msSince(t);
    if (res.rows.length === 0) break;
    const batch: RecordedEvent[] = res.rows.map((r) => ({ position: Number(r.position), streamId: r.stream_id, version: r.version, id: r.id, type: r.type, data: r.data, metadata: r.metadata, prevHash: r.prev_hash, hash: r.hash }));
    t = now();
    const v = verifyRun(prev, batch, next);
    hashMs += msSince(t);
    if (!v.ok) throw new Error(`chain broken at ${v.position}`);
    prev = v.lastHash;
    next = batch[batch.length - 1].position + 1;
    events += batch.length;
  }
  return { fetchMs: round(fetchMs, 0), hashMs: round(hashMs, 0), events };
}

/** One scrypt derivation with the server's parameters (what an uncached login or Basic request costs). */
export async function scryptCost(): Promise<number> {
  const h = createPasswordHasher();
  const encoded = await h.hash('a-password-for-the-bench');
  const times: number[] = [];
  for (let i = 0; i < 6; i++) {
    const t = now();
    await h.verify('a-password-for-the-bench', encoded);
    times.push(msSince(t));
  }
  return summarize(times.slice(1)).p50;
}

/** The two statements listAuditLog runs for the filtered listing, timed one after the other. */
export async function auditQuerySplit(pool: pg.Pool, action: string, start: string, end: string): Promise<{ pageP50: number; countP50: number; pageP99: number; countP99: number; countAfterVacuumP50: number; plan: string }> {
  const where = 'WHERE ts >= $1 AND ts <= $2 AND action = $3';
  const args = [start, end, action];
  const page: number[] = [];
  const count: number[] = [];
  for (let i = 0; i < 40; i++) {
    let t = now();
    await pool.query(`SELECT * FROM audit_log ${where} ORDER BY ts DESC, id DESC LIMIT 50 OFFSET 0`, args);
    page.push(msSince(t));
    t = now();
    await pool.query(`SELECT count(*) FROM audit_log ${where}`, args);
    count.push(msSince(t));
  }
  const plan = await pool.query(`EXPLAIN (ANALYZE, BUFFERS) SELECT count(*) FROM audit_log ${where}`, args);
  // Freshly written rows are not yet all-visible, so the index-only scan still visits the heap
  // for every row; autovacuum fixes that later. Measured once more after a VACUUM to show it.
  await pool.query('VACUUM (ANALYZE) audit_log');
  const after: number[] = [];
  for (let i = 0; i < 20; i++) {
    const t = now();
    await pool.query(`SELECT count(*) FROM audit_log ${where}`, args);
    after.push(msSince(t));
  }
  const p = summarize(page);
  const c = summarize(count);
  return { pageP50: p.p50, pageP99: p.p99, countP50: c.p50, countP99: c.p99, countAfterVacuumP50: summarize(after).p50, plan: plan.rows.map((r) => r['QUERY PLAN']).join('\n') };
}

/**
 * The plans PostgreSQL picks right now for one batch over the second half of the log: the
 * open-ended range verify() used before 2dd543e (position >= from AND position <= head, LIMIT),
 * and the batch-bounded range it uses now. An index scan is cheap; a bitmap scan with a sort
 * re-reads and sorts everything up to the head for every batch.
 */
export async function verifyBatchPlans(pool: pg.Pool, head: number): Promise<{ openEnded: string; bounded: string; openEndedPlan: string }> {
  const from = Math.max(1, Math.floor(head / 2));
  const cols = 'position, stream_id, version, id, type, data, metadata, prev_hash, hash';
  const explain = async (sql: string, args: unknown[]) => (await pool.query(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, args)).rows.map((x) => x['QUERY PLAN'] as string).join('\n');
  const summary = (plan: string) => (/Sort Method: external/.test(plan) ? 'bitmap scan + external sort' : /Sort/.test(plan) ? 'scan + in-memory sort' : /Index Scan/.test(plan) ? 'index scan' : 'other');
  const open = await explain(`SELECT ${cols} FROM events WHERE position >= $1 AND position <= $2 ORDER BY position LIMIT 5000`, [from, head]);
  const bounded = await explain(`SELECT ${cols} FROM events WHERE position BETWEEN $1 AND $2 ORDER BY position`, [from, Math.min(head, from + 4999)]);
  return { openEnded: summary(open), bounded: summary(bounded), openEndedPlan: open };
}
