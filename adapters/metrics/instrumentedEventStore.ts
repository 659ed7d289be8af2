// The event store, with every append counted and timed for the service's own metrics.
import type { EventStore } from '../../domain/shared/eventStore.ts';
import type { ServiceMetrics } from '../../domain/metrics/serviceMetrics.ts';

export function instrumentedEventStore(store: EventStore, metrics: ServiceMetrics): EventStore {
  return {
    ...store,
    kind: store.kind,
    async append(streamId, expectedVersion, events, metadata) {
      const started = process.hrtime.bigint();
      try {
        const result = await store.append(streamId, expectedVersion, events, metadata);
        metrics.observeAppend(events.length, Number(process.hrtime.bigint() - started) / 1e9, true);
        return result;
      } catch (err) {
        metrics.observeAppend(events.length, Number(process.hrtime.bigint() - started) / 1e9, false);
        throw err;
      }
    },
  };
}
