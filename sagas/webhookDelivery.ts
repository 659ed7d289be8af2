// The webhook delivery worker: sends the rows the fan-out saga queued. It claims due rows with a
// lease (FOR UPDATE SKIP LOCKED), posts them with up to `concurrency` in flight, and records each
// attempt. A failure (anything but a 2xx within the timeout) is retried after 1 s, 2 s, 4 s, ...
// up to the webhook's maxRetries; then the delivery is `exhausted` (WebhookDeliveryExhausted),
// kept for replay, and counts toward the run of consecutive failures that disables the webhook
// (setting webhookFailureThreshold). The first success ends the run.
//
// Why a table of its own rather than saga_timers: a retry is a row's next_attempt_at, so one
// indexed query finds every due delivery and a burst of thousands is claimed in batches, where
// saga timers fire one by one. It is as durable: rows survive a crash, and leases left by a
// killed process are released at start, so an interrupted delivery is sent again (at-least-once,
// with the same envelope id).
//
// An exhausted delivery has two records that cannot share a transaction (the event store may be
// EventStoreDB): its row and its events (WebhookDeliveryExhausted, maybe WebhookDisabled). The
// row goes first, in one transaction with its attempt and the webhook's failure run, marked
// `outcome_pending` with the count its events carry; the events follow (deterministic ids), then
// the mark is cleared. A row still marked (a crash, a refused append) is claimed again, after its
// lease or at the next start, and its events appended without sending it again: none lost, and
// an append that had landed before the crash is a duplicate the store refuses, not a second one.
import type pg from 'pg';
import type { EventStore } from '../domain/shared/eventStore.ts';
import { handleCommand } from '../domain/shared/commandHandler.ts';
import { DuplicateEventError } from '../domain/shared/errors.ts';
import { WEBHOOK_HEADERS_CONTEXT, webhookStream, webhooks } from '../domain/webhooks/webhooks.ts';
import { deliveryHeaders, retryDelayMs } from '../domain/webhooks/delivery.ts';
import type { OutboundHttp, OutboundResult, SecretBox } from '../domain/webhooks/ports.ts';
import { sagaEventId } from './sagaRunner.ts';

export const WEBHOOK_SECRET_CONTEXT = 'webhook_secret';
const LEASE_SECONDS = 90; // above the longest timeout (60 s)
/** Finished deliveries (succeeded, cancelled) are kept this long for the listing, then pruned; exhausted ones stay for replay. */
export const DELIVERY_RETENTION_DAYS = 30;

export interface WebhookDeliveryWorker {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** New rows were queued: look now instead of at the next poll. */
  wake(): void;
}

export interface WebhookDeliveryOptions {
  pool: pg.Pool;
  store: EventStore;
  outbound: OutboundHttp;
  secrets: SecretBox;
  instanceId: string;
  failureThreshold: () => Promise<number>;
  log?: (msg: string, extra?: Record<string, unknown>) => void;
  clock?: () => Date;
  pollMs?: number;
  concurrency?: number;
}

interface Claimed {
  id: string;
  webhook_id: number;
  event_id: string;
  event_type: string;
  body: string;
  attempts: number;
  max_attempts: number;
  status: string;
  /** Exhausted, its events not yet appended (see above). */
  outcome_pending: boolean;
  consecutive_failures: number | null;
  error: string | null;
}

export function createWebhookDeliveryWorker(o: WebhookDeliveryOptions): WebhookDeliveryWorker {
  const { pool, log = () => {}, clock = () => new Date() } = o;
  const concurrency = o.concurrency ?? 64;
  let inFlight = 0;
  let stopped = true;
  let pumping = false;
  let again = false;
  let poll: NodeJS.Timeout | null = null;
  let prune: NodeJS.Timeout | null = null;

  async function pruneFinished(): Promise<void> {
    await pool.query(
      `WITH gone AS (DELETE FROM webhook_deliveries WHERE status IN ('succeeded', 'cancelled') AND completed_at < now() - make_interval(days => $1) RETURNING id)
       DELETE FROM webhook_delivery_attempts WHERE delivery_id IN (SELECT id FROM gone)`,
      [DELIVERY_RETENTION_DAYS],
    ).catch((err: Error) => log('pruning old webhook deliveries failed', { error: err.message }));
  }
  const idle: Array<() => void> = [];

  async function claim(n: number): Promise<Claimed[]> {
    const r = await pool.query(
      // Two index scans (due rows, rows whose events are pending), not one OR over the whole table.
      `WITH events_due AS (
         SELECT id FROM webhook_deliveries
          WHERE outcome_pending AND (lease_until IS NULL OR lease_until < now())
          LIMIT $1 FOR UPDATE SKIP LOCKED),
       sends_due AS (
         SELECT id FROM webhook_deliveries
          WHERE next_attempt_at <= now() AND (lease_until IS NULL OR lease_until < now())
          ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED),
       due AS ((SELECT id FROM events_due) UNION (SELECT id FROM sends_due) LIMIT $1)
       UPDATE webhook_deliveries d SET lease_until = now() + make_interval(secs => ${LEASE_SECONDS}) FROM due WHERE d.id = due.id
       RETURNING d.id, d.webhook_id, d.event_id, d.event_type, d.body, d.attempts, d.max_attempts, d.status, d.outcome_pending, d.consecutive_failures, d.error`,
      [n],
    );
    return r.rows;
  }

  // Outcomes are written in batches: while one write runs, the next ones queue up and go in
  // the following statement (the row, its attempt, and on success the end of the webhook's
  // failure run). A delivery counts as done only once its batch is written.
  type Outcome = { d: Claimed; status: string; attempt: number; code: number | null; ms: number | null; error: string | null; excerpt: string | null; nextInMs: number | null; attempted: boolean };
  const pending: Array<{ o: Outcome; done: (err?: unknown) => void }> = [];
  let writing = false;

  async function writeOutcomes(): Promise<void> {
    if (writing) return;
    writing = true;
    try {
      while (pending.length) {
        const batch = pending.splice(0, 500);
        const col = <K extends keyof Outcome>(k: K) => batch.map((b) => b.o[k]);
        try {
          await pool.query(
            `WITH input AS (
               SELECT * FROM unnest($1::uuid[], $2::text[], $3::int[], $4::int[], $5::int[], $6::text[], $7::text[], $8::int[], $9::bool[], $10::int[])
                 AS i(id, status, attempts, code, ms, error, excerpt, next_ms, attempted, webhook_id)),
             upd AS (
               UPDATE webhook_deliveries d SET status = i.status, attempts = i.attempts, response_code = i.code, response_time_ms = i.ms, error = i.error, response_excerpt = i.excerpt,
                      next_attempt_at = CASE WHEN i.next_ms IS NULL THEN NULL ELSE now() + make_interval(secs => i.next_ms / 1000.0) END,
                      lease_until = NULL, updated_at = now(), completed_at = CASE WHEN i.next_ms IS NULL THEN now() ELSE NULL END
                 FROM input i WHERE d.id = i.id RETURNING d.id),
             run_ended AS (DELETE FROM webhook_failure_runs WHERE webhook_id IN (SELECT webhook_id FROM input WHERE status = 'succeeded'))
             INSERT INTO webhook_delivery_attempts (delivery_id, attempt, response_code, response_time_ms, error)
             SELECT i.id, i.attempts, i.code, i.ms, i.error FROM input i WHERE i.attempted ON CONFLICT DO NOTHING`,
            [batch.map((b) => b.o.d.id), col('status'), col('attempt'), col('code'), col('ms'), col('error'), col('excerpt'), col('nextInMs'), col('attempted'), batch.map((b) => b.o.d.webhook_id)],
          );
          for (const b of batch) b.done();
        } catch (err) {
          for (const b of batch) b.done(err);
        }
      }
    } finally {
      writing = false;
    }
  }

  function finish(d: Claimed, status: string, set: { code: number | null; ms: number | null; error: string | null; excerpt: string | null; nextInMs: number | null; attempted: boolean }): Promise<void> {
    return new Promise((resolve, reject) => {
      pending.push({ o: { d, status, attempt: d.attempts + (set.attempted ? 1 : 0), ...set }, done: (err) => (err ? reject(err) : resolve()) });
      void writeOutcomes();
    });
  }

  async function record(webhookId: number, cmd: Parameters<typeof webhooks.decide>[0], source: string) {
    let n = 0;
    try {
      await handleCommand(o.store, webhookStream(webhookId), webhooks, cmd, {
        metadata: { timestamp: clock().toISOString(), actor: null, causationId: source },
        newId: () => sagaEventId('webhook-delivery', source, n++),
        // Many deliveries of one webhook can exhaust at once, all appending to its stream.
        maxRetries: 100,
      });
    } catch (err) {
      // The same outcome recorded before a crash: nothing more to do.
      if (!(err instanceof DuplicateEventError)) throw err;
    }
  }

  async function deliver(d: Claimed, hook: Record<string, any> | undefined): Promise<void> {
    if (d.outcome_pending) {
      // Exhausted before, its events not appended: append them, never send it again for that.
      await recordExhausted(d);
      if (d.status === 'exhausted') return;
      // Replayed since: it is sent again below.
    }
    if (!hook || !hook.enabled) {
      await finish(d, 'cancelled', { code: null, ms: null, error: hook ? 'the webhook is disabled (replay once it is enabled)' : 'the webhook was deleted', excerpt: null, nextInMs: null, attempted: false });
      return;
    }
    const attempt = d.attempts + 1;
    // A delivery that cannot be sent (a secret that no longer opens, a header saved before
    // headers were checked that Node refuses) is a failed attempt like any other: retried, then
    // exhausted and counted toward disabling the webhook, never left to be re-leased for ever.
    let r: OutboundResult;
    try {
      const secret = hook.sealed_secret ? await o.secrets.open(hook.sealed_secret, WEBHOOK_SECRET_CONTEXT) : null;
      // Sealed header values; a webhook saved before they were sealed has them in custom_headers.
      const customHeaders = hook.sealed_headers ? (JSON.parse(await o.secrets.open(hook.sealed_headers, WEBHOOK_HEADERS_CONTEXT)) as Record<string, string>) : hook.custom_headers;
      const headers = deliveryHeaders({ body: d.body, secret, event: d.event_type, envelopeId: d.event_id, deliveryId: d.id, attempt, instanceId: o.instanceId, customHeaders });
      r = await o.outbound.post({ url: hook.url, headers, body: d.body, timeoutMs: hook.timeout_seconds * 1000 });
    } catch (err) {
      r = { ok: false, statusCode: null, durationMs: 0, error: `the delivery could not be sent: ${(err as Error).message}`, excerpt: null };
    }
    if (r.ok) {
      await finish(d, 'succeeded', { code: r.statusCode, ms: r.durationMs, error: null, excerpt: r.excerpt, nextInMs: null, attempted: true });
      return;
    }
    if (attempt < d.max_attempts) {
      await finish(d, 'retrying', { code: r.statusCode, ms: r.durationMs, error: r.error, excerpt: r.excerpt, nextInMs: retryDelayMs(attempt), attempted: true });
      return;
    }
    const failures = await exhaust(d, attempt, r);
    if (failures === null) return; // no longer this worker's to finish
    await recordExhausted({ ...d, attempts: attempt, error: r.error, consecutive_failures: failures });
  }

  // The row, its attempt and the webhook's failure run in one transaction, the row marked
  // outcome_pending (and still leased) until its events are appended. Null: the row was no
  // longer pending or retrying (nothing written).
  async function exhaust(d: Claimed, attempt: number, r: OutboundResult): Promise<number | null> {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const row = await client.query(
        `UPDATE webhook_deliveries SET status = 'exhausted', attempts = $2, response_code = $3, response_time_ms = $4, error = $5, response_excerpt = $6,
                next_attempt_at = NULL, updated_at = now(), completed_at = now(), outcome_pending = true
          WHERE id = $1 AND status IN ('pending', 'retrying')`,
        [d.id, attempt, r.statusCode, r.durationMs, r.error, r.excerpt],
      );
      if (row.rowCount === 0) {
        await client.query('ROLLBACK');
        return null;
      }
      const run = await client.query(
        `INSERT INTO webhook_failure_runs (webhook_id, consecutive_failures, last_error) VALUES ($1, 1, $2)
         ON CONFLICT (webhook_id) DO UPDATE SET consecutive_failures = webhook_failure_runs.consecutive_failures + 1, last_error = $2
         RETURNING consecutive_failures`,
        [d.webhook_id, r.error],
      );
      const failures = Number(run.rows[0].consecutive_failures);
      await client.query('UPDATE webhook_deliveries SET consecutive_failures = $2 WHERE id = $1', [d.id, failures]);
      await client.query(
        'INSERT INTO webhook_delivery_attempts (delivery_id, attempt, response_code, response_time_ms, error) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING',
        [d.id, attempt, r.statusCode, r.durationMs, r.error],
      );
      await client.query('COMMIT');
      return failures;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  }

  // The events of an exhausted row (from the row: a crash may have come between), then the mark
  // cleared. Their ids derive from the delivery and attempt, so appending them again is a no-op.
  async function recordExhausted(x: Pick<Claimed, 'id' | 'webhook_id' | 'event_id' | 'event_type' | 'attempts' | 'error' | 'consecutive_failures'>): Promise<void> {
    const failures = Number(x.consecutive_failures ?? 1);
    const lastError = x.error ?? 'failed';
    const at = clock().toISOString();
    await record(x.webhook_id, { type: 'RecordDeliveryExhausted', webhookId: x.webhook_id, deliveryId: x.id, eventId: x.event_id, eventType: x.event_type, attempts: x.attempts, lastError, consecutiveFailures: failures, at }, `${x.id}#${x.attempts}`);
    if (failures >= (await o.failureThreshold())) {
      log('webhook disabled after consecutive failed deliveries', { webhookId: x.webhook_id, failures });
      await record(x.webhook_id, { type: 'DisableWebhook', webhookId: x.webhook_id, consecutiveFailures: failures, lastError, at }, `${x.id}#${x.attempts}#disable`);
    }
    // Released only if still exhausted: a replay queued meanwhile keeps the lease its sender holds.
    await pool.query(`UPDATE webhook_deliveries SET outcome_pending = false, lease_until = CASE WHEN status = 'exhausted' THEN NULL ELSE lease_until END WHERE id = $1`, [x.id]);
  }

  async function pump(): Promise<void> {
    if (stopped) return;
    if (pumping) {
      again = true;
      return;
    }
    pumping = true;
    try {
      do {
        again = false;
        while (!stopped && inFlight < concurrency) {
          const rows = await claim(concurrency - inFlight);
          if (rows.length === 0) break;
          // The webhooks of the whole claim in one query, read now: a webhook disabled or deleted since the event is not posted to.
          const hooks = new Map((await pool.query('SELECT * FROM webhooks WHERE id = ANY($1::int[])', [[...new Set(rows.map((r) => r.webhook_id))]])).rows.map((h) => [h.id as number, h]));
          for (const d of rows) {
            inFlight++;
            void deliver(d, hooks.get(d.webhook_id))
              .catch(async (err: Error) => {
                // Left leased: after the lease it is due again. Free it sooner so a passing fault (database) retries.
                log('webhook delivery failed to run; it is retried', { deliveryId: d.id, error: err.message });
                await pool.query('UPDATE webhook_deliveries SET lease_until = now() + interval \'2 seconds\' WHERE id = $1', [d.id]).catch(() => {});
              })
              .finally(() => {
                inFlight--;
                if (inFlight === 0) idle.splice(0).forEach((f) => f());
                void pump();
              });
          }
        }
      } while (again && !stopped);
    } catch (err) {
      log('claiming webhook deliveries failed', { error: (err as Error).message });
    } finally {
      pumping = false;
    }
  }

  return {
    async start() {
      // One delivery worker per database: leases still held belong to a previous life of this server.
      await pool.query('UPDATE webhook_deliveries SET lease_until = NULL WHERE lease_until IS NOT NULL');
      stopped = false;
      poll = setInterval(() => void pump(), o.pollMs ?? 200);
      poll.unref();
      prune = setInterval(() => void pruneFinished(), 3600_000);
      prune.unref();
      void pruneFinished();
      void pump();
    },
    async stop() {
      stopped = true;
      if (poll) clearInterval(poll);
      if (prune) clearInterval(prune);
      // In-flight posts may finish (at most a few seconds); an unfinished one is sent again after a restart.
      if (inFlight > 0) await Promise.race([new Promise<void>((r) => idle.push(r)), new Promise((r) => setTimeout(r, 5000).unref())]);
    },
    wake() {
      void pump();
    },
  };
}
