// The event store with a hook around every append of this process: `around` is given the stream
// and the append itself and returns its result, so a cache can be closed before the write and
// reopened once what depends on it (a projection) has caught up, before the caller goes on.
import type { AppendResult, EventStore } from '../../domain/shared/eventStore.ts';

export function observedEventStore(store: EventStore, around: (streamId: string, append: () => Promise<AppendResult>) => Promise<AppendResult>): EventStore {
  return {
    ...store,
    kind: store.kind,
    append(streamId, expectedVersion, events, metadata) {
      return around(streamId, () => store.append(streamId, expectedVersion, events, metadata));
    },
  };
}
