// The subscription loop both event store adapters share: read batches after the checkpoint,
// hand them over in order, then sleep until an append is signalled on `wake` or the poll
// interval passes. An append signalled while the handler runs is remembered, so it is never
// left waiting for the next poll.
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
