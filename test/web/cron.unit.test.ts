import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cronInWords, nextCronRuns } from '../../web/src/components/cron.ts';
import { nextCronRun } from '../../adapters/backups/cronSchedule.ts';

test('a six-field expression in words, UTC', () => {
  assert.is(cronInWords('0 30 2 * * *'), 'At 02:30 (UTC)');
  assert.is(cronInWords('0 0 */6 * * 1-5'), 'On the hour, every 6 hours, Monday through Friday (UTC)');
  assert.is(cronInWords('not a cron'), null);
  assert.is(cronInWords(''), null);
});

test('the next runs, in order, the same as the service\'s scheduler computes', () => {
  const after = new Date('2026-11-26T16:00:00Z');
  const runs = nextCronRuns('0 30 2 * * *', 3, after);
  assert.equal(runs.map((d) => d.toISOString()), ['2026-11-27T02:30:00.000Z', '2026-11-28T02:30:00.000Z', '2026-11-29T02:30:00.000Z']);
  for (const expr of ['0 */15 * * * *', '0 0 3 1 * *', '30 5 4 * * 0']) {
    let from = after;
    for (const r of nextCronRuns(expr, 3, after)) {
      assert.is(r.toISOString(), nextCronRun(expr, from).toISOString(), expr);
      from = r;
    }
  }
  assert.equal(nextCronRuns('61 * * * * *', 3, after), []);
});

test.run();
