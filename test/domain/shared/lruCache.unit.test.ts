// The explorer's bounded cache (domain/shared/lruCache.ts): least recently used out first, bounded
// by entries and by summed size; a value above the size bound alone is not kept.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { lruCache } from '../../../domain/shared/lruCache.ts';

test('past the entry bound the least recently used goes; a get makes an entry recent', () => {
  const c = lruCache<number>({ maxEntries: 2, maxSize: 1000 });
  c.set('a', 1, 1);
  c.set('b', 2, 1);
  assert.is(c.get('a'), 1);
  c.set('c', 3, 1);
  assert.is(c.get('b'), undefined, 'b was least recently used');
  assert.equal([c.get('a'), c.get('c'), c.entries], [1, 3, 2]);
});

test('past the size bound entries go until the sum fits; a value above the bound is not kept', () => {
  const c = lruCache<string>({ maxEntries: 100, maxSize: 10 });
  c.set('a', 'x', 4);
  c.set('b', 'y', 4);
  c.set('c', 'z', 4);
  assert.equal([c.get('a'), c.get('b'), c.get('c'), c.size], [undefined, 'y', 'z', 8]);
  c.set('huge', 'w', 11);
  assert.equal([c.get('huge'), c.entries, c.size], [undefined, 2, 8]);
  c.set('b', 'y2', 2);
  assert.equal([c.get('b'), c.size], ['y2', 6], 'a replaced value counts once');
});

test.run();
