import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { freshDatabase } from '../../helpers/postgres.ts';
import { watchSlowQueries, type SlowQuery } from '../../../adapters/postgres/slowQueryWatch.ts';

// A budget far above what a trivial query takes even on a loaded machine, and sleeps far above the budget.
test('a query slower than the budget is reported once a minute per statement, failed slow ones too, fast ones never, results untouched', async () => {
  const db = await freshDatabase();
  const reports: SlowQuery[] = [];
  let clock = 0;
  const unwatch = watchSlowQueries(db.pool, { budgetMs: () => 1000, onSlow: (q) => reports.push(q), now: () => clock });
  const r = await db.pool.query('SELECT 41 + 1 AS answer');
  assert.is(r.rows[0].answer, 42);
  await db.pool.query({ text: 'SELECT pg_sleep($1)', values: [1.2] });
  await db.pool.query({ text: 'SELECT   pg_sleep($1)', values: [1.2] });
  await new Promise((res) => setImmediate(res));
  assert.is(reports.length, 1, 'the same statement within a minute is one report');
  assert.is(reports[0].query, 'SELECT pg_sleep($1)');
  assert.ok(reports[0].durationMs >= 1150 && reports[0].budgetMs === 1000, JSON.stringify(reports[0]));
  clock += 61_000;
  await db.pool.query({ text: 'SELECT pg_sleep($1)', values: [1.2] });
  await db.pool.query('SELECT (SELECT count(*) FROM pg_sleep(1.2)) / 0').then(() => assert.unreachable('division by zero'), () => {});
  await new Promise((res) => setImmediate(res));
  assert.equal(reports.map((x) => x.query), ['SELECT pg_sleep($1)', 'SELECT pg_sleep($1)', 'SELECT (SELECT count(*) FROM pg_sleep(1.2)) / 0']);
  unwatch();
  await db.pool.query('SELECT pg_sleep(1.2)');
  await new Promise((res) => setImmediate(res));
  assert.is(reports.length, 3);
  await db.close();
});

test.run();
