import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { depthExceeds, MAX_JSON_DEPTH } from '../../../domain/shared/valueDepth.ts';

const nest = (n: number) => {
  let v: unknown = 1;
  for (let i = 0; i < n; i++) v = i % 2 ? { a: v } : [v];
  return v;
};

test('the nesting of a parsed value is measured without recursion, scalars at any depth not counted', () => {
  assert.is(MAX_JSON_DEPTH, 64);
  assert.not.ok(depthExceeds(1, 0));
  assert.not.ok(depthExceeds(nest(64), 64));
  assert.ok(depthExceeds(nest(65), 64));
  assert.ok(depthExceeds(nest(200_000), 64));
  assert.not.ok(depthExceeds({ a: [1, 2, { b: 'x' }], c: null }, 3));
  assert.ok(depthExceeds({ a: [1, 2, { b: [] }] }, 3));
});

test.run();
