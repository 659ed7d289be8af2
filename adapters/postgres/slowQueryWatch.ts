// Times every query that goes through the pool (pool.query; statements inside explicit
// transactions run on checked-out clients and are not timed) and reports those slower than the
// budget, at most once a minute per statement text, so a slow statement run in a loop is one
// report, not thousands. The report runs after the query, detached from it.
import type pg from 'pg';

export interface SlowQuery {
  query: string;
  durationMs: number;
  budgetMs: number;
}

export function watchSlowQueries(pool: pg.Pool, opts: { budgetMs: () => number; onSlow: (q: SlowQuery) => void; quietMs?: number; now?: () => number }): () => void {
  const original = pool.query;
  const quietMs = opts.quietMs ?? 60_000;
  const now = opts.now ?? (() => Date.now());
  const lastReported = new Map<string, number>();
  const check = (config: unknown, started: number) => {
    const durationMs = Math.round(performance.now() - started);
    const budgetMs = opts.budgetMs();
    if (durationMs < budgetMs) return;
    const text = typeof config === 'string' ? config : String((config as { text?: string })?.text ?? '');
    const query = text.replace(/\s+/g, ' ').trim().slice(0, 300);
    const last = lastReported.get(query);
    if (last !== undefined && now() - last < quietMs) return;
    lastReported.set(query, now());
    if (lastReported.size > 1000) lastReported.clear();
    setImmediate(() => opts.onSlow({ query, durationMs, budgetMs }));
  };
  pool.query = function timedQuery(this: pg.Pool, ...args: unknown[]) {
    const started = performance.now();
    const result = (original as (...a: unknown[]) => unknown).apply(this, args);
    if (result && typeof (result as Promise<unknown>).then === 'function') (result as Promise<unknown>).then(() => check(args[0], started), () => check(args[0], started));
    return result;
  } as typeof pool.query;
  return () => {
    pool.query = original;
  };
}
