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
  return {
    name: WEBHOOK_FANOUT,
    handles: deliverableDomainEvents,
    // Webhooks receive what happens after they exist; a first start does not replay history.
    startAt: 'head',
    async handle(e) {
      const entry = catalogEntryOfDomainEvent(e.type);
      if (!entry) return;
      const hooks = await opts.pool.query('SELECT id, max_retries FROM webhooks WHERE enabled AND $1 = ANY(events)', [entry.name]);
      if (hooks.rowCount === 0) return;
      const body = JSON.stringify(envelopeOf(entry, e.id, e.metadata.timestamp, opts.instance, publicData(entry, e.data)));
      const ids = hooks.rows.map((h) => sagaEventId(WEBHOOK_FANOUT, e.id, h.id));
      await opts.pool.query(
        `INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_type, body, status, max_attempts, next_attempt_at, source_position)
         SELECT d.id, d.webhook_id, $3, $4, $5, 'pending', d.max_attempts, now(), $6
           FROM unnest($1::uuid[], $2::int[], $7::int[]) AS d(id, webhook_id, max_attempts)
         ON CONFLICT (id) DO NOTHING`,
        [ids, hooks.rows.map((h) => h.id), e.id, entry.name, body, e.position, hooks.rows.map((h) => h.max_retries + 1)],
      );
      opts.wake();
    },
  };
}
