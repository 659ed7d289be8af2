// A cache of values read from the projections (the read model), for hot read paths that would
// otherwise make the same look-ups on every request (a chaincode's route to its peer, a network's
// reader). It is emptied whenever the projector applies an event of a stream the values depend on
// (`relevant`: by its stream or its type), by this server or by another one on the same database: every server's projector
// applies (or skips, when another server applied it first) every event, and tells its listeners
// once the tables hold it, before anyone waiting for that position goes on. So a request made
// after a change has been projected never sees a value from before it, and a load that overlaps
// an invalidation is not kept. Without a projector that reports applied events nothing is kept.
// Another server's change: its projector notifies the position it committed (the shared
// checkpoint, projections/projector.ts); from the moment this server hears it until its projector
// has read those events and told this cache, the cache answers from the tables (behind()).
import type { Projector } from '../projections/projector.ts';

export interface ProjectedCache {
  /** The value under `key`, loaded once by `load` and kept until a relevant event is projected; a rejected load is not kept. */
  get<T>(key: string, load: () => Promise<T>): Promise<T>;
  /** Stops listening to the projector and forgets everything. */
  close(): void;
  /** Values kept now (for tests and metrics). */
  size(): number;
}

const MAX_ENTRIES = 1_000;

/** Whether an applied event may change a cached value. */
export type Relevant = (event: { streamId: string; type: string }) => boolean;

export function projectedCache(projector: Pick<Projector, 'onApplied' | 'behind' | 'fresh'>, relevant: Relevant): ProjectedCache {
  const entries = new Map<string, Promise<unknown>>();
  let generation = 0;
  const forget = () => {
    generation++;
    entries.clear();
  };
  const unsubscribe = projector.onApplied?.((batch) => {
    if (batch === null || batch.some(relevant)) forget();
  });
  let closed = !unsubscribe;
  function lookup<T>(key: string, load: () => Promise<T>): Promise<T> {
    // Another instance committed a change this projector has not told of yet: answer from the tables.
    if (closed || projector.behind?.()) return load();
    const hit = entries.get(key) as Promise<T> | undefined;
    if (hit) return hit;
    if (entries.size >= MAX_ENTRIES) entries.clear();
    const at = generation;
    const loading = load();
    entries.set(key, loading);
    loading.then(
      () => {
        if (generation !== at && entries.get(key) === loading) entries.delete(key);
      },
      () => {
        if (entries.get(key) === loading) entries.delete(key);
      },
    );
    return loading;
  }
  return {
    get<T>(key: string, load: () => Promise<T>): Promise<T> {
      if (closed) return load();
      // With other instances on the database: first make sure every change they acknowledged has
      // been heard (one shared round trip on the listening connection); alone, at once.
      const fresh = projector.fresh?.() ?? true;
      return fresh === true ? lookup(key, load) : fresh.then((ok) => (ok ? lookup(key, load) : load()));
    },
    close() {
      closed = true;
      unsubscribe?.();
      forget();
    },
    size: () => entries.size,
  };
}

/** One cache per projector (one per server), made on first use. */
export function projectedCacheOf(owner: Map<Pick<Projector, 'onApplied'>, ProjectedCache> | WeakMap<Pick<Projector, 'onApplied'>, ProjectedCache>, projector: Pick<Projector, 'onApplied' | 'behind' | 'fresh'>, relevant: Relevant): ProjectedCache {
  let c = owner.get(projector);
  if (!c) owner.set(projector, (c = projectedCache(projector, relevant)));
  return c;
}
