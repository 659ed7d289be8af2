// A least-recently-used cache bounded by entry count and by size (the caller's measure of each
// value, e.g. its JSON length): putting past either bound drops the least recently used entries.
// A value larger than the size bound alone is not kept. Pure: no clock, no I/O.
export interface LruCache<V> {
  get(key: string): V | undefined;
  set(key: string, value: V, size: number): void;
  readonly entries: number;
  readonly size: number;
}

export function lruCache<V>(opts: { maxEntries: number; maxSize: number }): LruCache<V> {
  const map = new Map<string, { value: V; size: number }>();
  let total = 0;
  return {
    get(key) {
      const hit = map.get(key);
      if (!hit) return undefined;
      map.delete(key);
      map.set(key, hit);
      return hit.value;
    },
    set(key, value, size) {
      const old = map.get(key);
      if (old) {
        map.delete(key);
        total -= old.size;
      }
      if (size > opts.maxSize) return;
      map.set(key, { value, size });
      total += size;
      while (map.size > opts.maxEntries || total > opts.maxSize) {
        const [oldest, entry] = map.entries().next().value as [string, { size: number }];
        map.delete(oldest);
        total -= entry.size;
      }
    },
    get entries() {
      return map.size;
    },
    get size() {
      return total;
    },
  };
}
