import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isStorableText, storable, unstorablePath } from '../../../domain/shared/storableText.ts';

test('NUL and lone surrogates are unstorable; pairs, U+FFFD and ordinary text are storable', () => {
  for (const s of ['\u0000', 'a\u0000b', '\uD800', 'x\uDBFFy', '\uDC00', 'a\uDFFF', '\uDC00\uD800']) assert.not.ok(isStorableText(s), JSON.stringify(s));
  for (const s of ['', 'plain', '\uD83D\uDE00', 'é中\uFFFD', '\u0001\u007f', '\\u0000']) assert.ok(isStorableText(s), JSON.stringify(s));
});

test('the first unstorable value or key is found at any depth, without recursion', () => {
  assert.is(unstorablePath({ a: 'ok', b: [1, { c: 'x\u0000' }] }), 'b.1.c');
  assert.is(unstorablePath({ ['k\uD800']: 1 }), 'k\uFFFD');
  assert.is(unstorablePath('\uDC00'), '');
  assert.is(unstorablePath({ a: ['fine', 2, null, true] }), null);
  let deep: unknown = 'bad\u0000';
  for (let i = 0; i < 100_000; i++) deep = [deep];
  assert.is(unstorablePath(deep)?.split('.').length, 100_000);
});

test('storable() replaces each unstorable character with U+FFFD in values and keys, and keeps __proto__ a key', () => {
  assert.equal(storable({ ua: 'x\u0000y', list: ['\uD800'], n: 1, nil: null }), { ua: 'x\uFFFDy', list: ['\uFFFD'], n: 1, nil: null });
  const out = storable(JSON.parse('{"__proto__": {"a": "\\u0000"}}')) as Record<string, unknown>;
  assert.equal(Object.keys(out), ['__proto__']);
  assert.is(JSON.stringify(out), '{"__proto__":{"a":"\uFFFD"}}');
  assert.is(storable('\uD83D\uDE00'), '\uD83D\uDE00');
});

test.run();
