// Webhook fan-out: every domain event that has a public name (domain/webhooks/eventCatalog.ts)
// becomes one delivery row per enabled webhook subscribed to it, in one INSERT, before the saga's
// checkpoint moves past the event. The delivery id is derived from (event, webhook), so handling
// an event again after a crash inserts nothing new. The delivery worker sends the rows.
import type pg from 'pg';
import { catalogEntryOfDomainEvent, deliverableDomainEvents, publicData } from '../domain/webhooks/eventCatalog.ts';
import { envelopeOf } from '../domain/webhooks/delivery.ts';
import type { Saga } from './saga.ts';
import { sagaEventId } from './sagaRunner.ts';

export const WEBHOOK_FANOUT = 'webhook-fanout';

export function webhookFanoutSaga(opts: { pool: pg.Pool; instance: { id: string; version: string }; wake: () => void }): Saga {
  const saga: Saga = {
    name: WEBHOOK_FANOUT,
    handles: deliverableDomainEvents,
    // Webhooks receive what happens after they exist; a first start does not replay history.
    startAt: 'head',
    async handle(e, ctx) {
      await saga.handleBatch!([e], ctx);
    },
    // A batch at once: one query for the subscribers of every type in it, one INSERT for all its
    // deliveries (ids derived from event and webhook, so a batch handled twice inserts nothing new).
    async handleBatch(events) {
      const entries = events.map((e) => ({ e, entry: catalogEntryOfDomainEvent(e.type)! })).filter((x) => x.entry);
      if (!entries.length) return;
      const hooks = await opts.pool.query('SELECT id, max_retries, events FROM webhooks WHERE enabled AND events && $1::text[]', [[...new Set(entries.map((x) => x.entry.name))]]);
      if (hooks.rowCount === 0) return;
      const rows = { id: [] as string[], webhook: [] as number[], attempts: [] as number[], eventId: [] as string[], type: [] as string[], body: [] as string[], position: [] as number[] };
      for (const { e, entry } of entries) {
        const subscribers = hooks.rows.filter((h) => (h.events as string[]).includes(entry.name));
        if (!subscribers.length) continue;
        const body = JSON.stringify(envelopeOf(entry, e.id, e.metadata.timestamp, opts.instance, publicData(entry, e.data)));
        for (const h of subscribers) {
          rows.id.push(sagaEventId(WEBHOOK_FANOUT, e.id, h.id));
          rows.webhook.push(h.id);
          rows.attempts.push(h.max_retries + 1);
          rows.eventId.push(e.id);
          rows.type.push(entry.name);
          rows.body.push(body);
          rows.position.push(e.position);
        }
      }
      if (!rows.id.length) return;
      await opts.pool.query(
        `INSERT INTO webhook_deliveries (id, webhook_id, max_attempts, event_id, event_type, body, source_position, status, next_attempt_at)
         SELECT d.id, d.webhook_id, d.max_attempts, d.event_id, d.event_type, d.body, d.source_position, 'pending', now()
           FROM unnest($1::uuid[], $2::int[], $3::int[], $4::uuid[], $5::text[], $6::text[], $7::bigint[]) AS d(id, webhook_id, max_attempts, event_id, event_type, body, source_position)
         ON CONFLICT (id) DO NOTHING`,
        [rows.id, rows.webhook, rows.attempts, rows.eventId, rows.type, rows.body, rows.position],
      );
      opts.wake();
    },
  };
  return saga;
}
