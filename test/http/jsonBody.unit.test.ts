import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { byteSize, jsonDepthExceeds, MAX_JSON_DEPTH } from '../../http/jsonBody.ts';

const nest = (n: number) => '['.repeat(n) + ']'.repeat(n);

test('the depth of a JSON text is counted before parsing: brackets inside strings and escapes do not count', () => {
  assert.is(MAX_JSON_DEPTH, 64);
  assert.not.ok(jsonDepthExceeds(nest(64), 64));
  assert.ok(jsonDepthExceeds(nest(65), 64));
  assert.ok(jsonDepthExceeds('{"a":'.repeat(65) + '1' + '}'.repeat(65), 64));
  assert.not.ok(jsonDepthExceeds(JSON.stringify({ s: '[[[[[[[[[['.repeat(20) }), 64));
  assert.not.ok(jsonDepthExceeds(JSON.stringify({ s: '\\"[[[[' + '['.repeat(100) }), 64));
  assert.not.ok(jsonDepthExceeds('[{"a":[1,{"b":"]]]]"}]}]', 4));
  assert.ok(jsonDepthExceeds('[{"a":[1,{"b":[[]]}]}]', 5));
  // Half a megabyte of brackets: answered without recursion.
  assert.ok(jsonDepthExceeds(nest(250_000), 64));
});

test('body sizes read as BODY_LIMIT writes them', () => {
  assert.is(byteSize('1mb'), 1024 * 1024);
  assert.is(byteSize('512kb'), 512 * 1024);
  assert.is(byteSize('100'), 100);
  assert.is(byteSize(7), 7);
  assert.throws(() => byteSize('lots'));
});

test.run();
