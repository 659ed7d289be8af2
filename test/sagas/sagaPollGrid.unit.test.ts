// The shared timer poll keeps to a grid of the wall clock (sagas/sagaRunner.ts): each wait is
// computed from the clock, so a tick that ran late does not push the later ones back, as a
// repeating setInterval did (its next period starts at the late tick: the 500-node health bench's
// spacing regression, docs/benchmarks.md). The spacing itself is measured by the bench, not here.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { untilNextPoll } from '../../sagas/sagaRunner.ts';

test('a poll that ran late waits only until the next multiple of the period', () => {
  const period = 250;
  for (const late of [0, 1, 40, 125, 180]) {
    const now = 40 * period + late;
    const wait = untilNextPoll(now, period);
    assert.is((now + wait) % period, 0, `late by ${late} ms: the next poll is on the grid`);
    assert.ok(wait >= period / 4 && wait <= period + period / 4, `late by ${late} ms: waits ${wait} ms`);
  }
});

test('a tick within a quarter period of the next grid point skips to the one after (no two polls back to back)', () => {
  assert.is(untilNextPoll(1_000 * 250 + 240, 250), 260);
  assert.is(untilNextPoll(1_000 * 250 + 10, 250), 240);
});

test('a run of late ticks stays on the grid: the phase never drifts', () => {
  const period = 200;
  let now = 7;
  for (let i = 0; i < 50; i++) {
    now += untilNextPoll(now, period) + (i % 3) * 9; // each tick runs 0, 9 or 18 ms late
    assert.ok(now % period <= 18, `tick ${i} at phase ${now % period}`);
  }
});

test.run();
