// The subscription loop both event store adapters share: read batches after the checkpoint,
// hand them over in order, then sleep until an append is signalled on `wake` or the poll
// interval passes. An append signalled while the handler runs is remembered, so it is never
// left waiting for the next poll. sharedReads: the subscriptions of one store that ask for the
// same events at the same moment share one read.
import type { EventEmitter } from 'node:events';
import type { RecordedEvent, Subscription } from '../../domain/shared/eventStore.ts';

export interface BatchSubscriptionOptions {
  fromCheckpoint: number;
  readAll: (fromPosition: number, limit: number) => Promise<RecordedEvent[]>;
  handler: (batch: RecordedEvent[]) => Promise<void>;
  onError?: (err: unknown) => void;
  /** Emits 'append' whenever new events may be there (local appends, server notifications). */
  wake: EventEmitter;
  pollMs: number;
  /** Runs once before the first read (e.g. open the notification channel). */
  start?: () => Promise<void> | void;
  batchSize?: number;
}

export function batchSubscription(o: BatchSubscriptionOptions): Subscription {
  const size = o.batchSize ?? 500;
  let active = true;
  let checkpoint = o.fromCheckpoint;
  let wakeUp: (() => void) | null = null;
  let pending = false;
  const onAppend = () => {
    pending = true;
    wakeUp?.();
  };
  o.wake.on('append', onAppend);
  const loop = (async () => {
    await o.start?.();
    while (active) {
      let batch: RecordedEvent[] = [];
      pending = false;
      try {
        batch = await o.readAll(checkpoint, size);
        if (batch.length > 0 && active) {
          await o.handler(batch);
          checkpoint = batch[batch.length - 1].position;
        }
      } catch (err) {
        if (!active) return;
        active = false;
        o.onError?.(err);
        return;
      }
      if (batch.length < size && active && !pending) {
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, o.pollMs);
          wakeUp = () => {
            clearTimeout(t);
            resolve();
          };
        });
        wakeUp = null;
      }
    }
  })();
  return {
    async close() {
      active = false;
      o.wake.off('append', onAppend);
      wakeUp?.();
      await loop;
    },
  };
}

/**
 * A store's readAll for its subscriptions, where the reads asked in the same turn of the event loop
 * for the same range share one query. Every subscription of a store wakes on the same append and
 * asks for the events after the same checkpoint (the server has some forty: the node lifecycle and
 * health sagas of each of the 16 node shards, the other sagas, the projector), so one append cost
 * some forty identical queries, each decoded on its own: about 3,700 reads for the 60 appends of a
 * consortium quick start. The shared query is sent after the turn in which it was first asked, so
 * it never began before any of its callers asked (an append signalled before a call is in what it
 * reads); each caller gets its own array, the events in it are shared (no subscriber changes one).
 */
export function sharedReads(readAll: (fromPosition: number, limit: number) => Promise<RecordedEvent[]>): (fromPosition: number, limit: number) => Promise<RecordedEvent[]> {
  const asked = new Map<string, Promise<RecordedEvent[]>>();
  return (fromPosition, limit) => {
    const key = `${fromPosition}:${limit}`;
    let read = asked.get(key);
    if (!read) {
      read = new Promise<RecordedEvent[]>((resolve, reject) => {
        setImmediate(() => {
          asked.delete(key);
          readAll(fromPosition, limit).then(resolve, reject);
        });
      });
      asked.set(key, read);
    }
    return read.then((events) => events.slice());
  };
}
