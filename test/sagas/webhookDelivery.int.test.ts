// The delivery worker on a real database, with the real outbound HTTP client and a real receiver
// on loopback: a delivery that cannot even be sent is a failed attempt like any other (issue 36).
// Before, the exception left the row pending, re-leased every 2 s for ever, and never counted
// toward disabling the webhook. The two cases: a custom header Node refuses (a webhook saved
// before headers were checked at creation) and a signing secret that no longer opens.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { freshDatabase } from '../helpers/postgres.ts';
import { startReceiver } from '../helpers/webhookReceiver.ts';
import { migrate } from '../../adapters/postgres/migrate.ts';
import { postgresEventStore } from '../../adapters/eventstore/postgresEventStore.ts';
import { createHttpOutbound } from '../../adapters/outbound/httpOutbound.ts';
import { createSecretBox } from '../../adapters/outbound/sealedSecrets.ts';
import { handleCommand } from '../../domain/shared/commandHandler.ts';
import { webhookStream, webhooks } from '../../domain/webhooks/webhooks.ts';
import pg from 'pg';
import { createWebhookDeliveryWorker } from '../../sagas/webhookDelivery.ts';

const KEK = 'webhook-delivery-int-key-encryption-key-0123456789';

test('a delivery that cannot be sent is retried, exhausted and counted until the webhook is disabled; nothing reaches the receiver', async () => {
  const db = await freshDatabase();
  await migrate(db.pool);
  const store = postgresEventStore(db.pool, { url: db.url });
  const receiver = await startReceiver();
  const secrets = createSecretBox(KEK, { iterations: 1000 });
  const hooks = [
    { id: 1, name: 'latin1-breaker', headers: { 'X-Team': 'caf\u00e9 \u20ac' } as Record<string, string>, sealedSecret: null as string | null, maxRetries: 1 },
    { id: 2, name: 'unopenable-secret', headers: {}, sealedSecret: 'not-a-sealed-value', maxRetries: 0 },
  ];
  const at = new Date().toISOString();
  for (const h of hooks) {
    await handleCommand(store, webhookStream(h.id), webhooks, {
      type: 'CreateWebhook', webhookId: h.id, name: h.name, url: `${receiver.url}/hook`, events: ['node.created'], customHeaders: h.headers, sealedHeaders: undefined,
      timeoutSeconds: 5, maxRetries: h.maxRetries, sealedSecret: h.sealedSecret, at,
    }, { metadata: { timestamp: at, actor: null }, newId: randomUUID });
    // The read model as the projector writes it (a webhook saved before sealing: headers in clear).
    await db.pool.query(
      `INSERT INTO webhooks (id, name, url, events, custom_headers, timeout_seconds, max_retries, sealed_secret, created_at, updated_at)
       VALUES ($1, $2, $3, '{node.created}', $4, 5, $5, $6, now(), now())`,
      [h.id, h.name, `${receiver.url}/hook`, JSON.stringify(h.headers), h.maxRetries, h.sealedSecret],
    );
    await db.pool.query(
      `INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_type, body, status, max_attempts, next_attempt_at, source_position)
       VALUES ($1, $2, $3, 'node.created', '{}', 'pending', $4, now(), 1)`,
      [randomUUID(), h.id, randomUUID(), h.maxRetries + 1],
    );
  }
  const worker = createWebhookDeliveryWorker({ pool: db.pool, store, outbound: createHttpOutbound({ allowPrivateTargets: true }), secrets, instanceId: 'int', failureThreshold: async () => 1, pollMs: 100 });
  await worker.start();
  try {
    const end = Date.now() + 15_000;
    let rows: any[] = [];
    while (Date.now() < end) {
      rows = (await db.pool.query('SELECT webhook_id, status, attempts, error FROM webhook_deliveries ORDER BY webhook_id')).rows;
      // The row turns exhausted first (marked outcome_pending), the webhook's events are appended after it: wait for both.
      const streams = await Promise.all(hooks.map((h) => store.readStream(webhookStream(h.id))));
      if (rows.every((r) => r.status === 'exhausted') && streams.every((s) => s.some((e) => e.type === 'WebhookDisabled'))) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(rows.map((r) => [r.webhook_id, r.status, r.attempts]), [[1, 'exhausted', 2], [2, 'exhausted', 1]], JSON.stringify(rows));
    assert.match(rows[0].error, /could not be sent.*X-Team/);
    assert.not.ok(rows[0].error.includes('caf\u00e9'), 'the header value is not in the error');
    assert.match(rows[1].error, /could not be sent/);
    const attempts = (await db.pool.query('SELECT d.webhook_id, count(*)::int AS n FROM webhook_delivery_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id GROUP BY d.webhook_id ORDER BY 1')).rows;
    assert.equal(attempts, [{ webhook_id: 1, n: 2 }, { webhook_id: 2, n: 1 }]);
    const runs = (await db.pool.query('SELECT webhook_id, consecutive_failures FROM webhook_failure_runs ORDER BY 1')).rows;
    assert.equal(runs, [{ webhook_id: 1, consecutive_failures: 1 }, { webhook_id: 2, consecutive_failures: 1 }]);
    for (const h of hooks) {
      const types = (await store.readStream(webhookStream(h.id))).map((e) => e.type);
      assert.equal(types, ['WebhookCreated', 'WebhookDeliveryExhausted', 'WebhookDisabled'], h.name);
    }
    assert.is(receiver.received.length, 0);
  } finally {
    await worker.stop();
    await receiver.close();
    await store.close();
    await db.close();
  }
});

// The crash point between an exhausted delivery's row and its events (issue: the row was finished
// first, so a crash there lost WebhookDeliveryExhausted and WebhookDisabled for good, the row
// never claimed again). The fault is real: the first worker's event store writes through
// PostgreSQL connections that refuse every write (default_transaction_read_only), so its append
// fails after the row is written; a second worker (the restart) must append the events exactly
// once without posting the delivery again, and a third start over the state a crash right after
// the append leaves appends nothing twice.
test('an exhausted delivery whose events could not be appended gets them after a restart, once, without being sent again', async () => {
  const db = await freshDatabase();
  await migrate(db.pool);
  const store = postgresEventStore(db.pool, { url: db.url });
  const readOnlyPool = new pg.Pool({ connectionString: db.url, max: 2, options: '-c default_transaction_read_only=on' });
  readOnlyPool.on('error', () => {});
  const refusingStore = postgresEventStore(readOnlyPool);
  const receiver = await startReceiver();
  receiver.respond = 503;
  const secrets = createSecretBox(KEK, { iterations: 1000 });
  const at = new Date().toISOString();
  await handleCommand(store, webhookStream(7), webhooks, {
    type: 'CreateWebhook', webhookId: 7, name: 'down-receiver', url: `${receiver.url}/hook`, events: ['node.created'], customHeaders: {}, sealedHeaders: null,
    timeoutSeconds: 5, maxRetries: 0, sealedSecret: null, at,
  }, { metadata: { timestamp: at, actor: null }, newId: randomUUID });
  await db.pool.query(
    `INSERT INTO webhooks (id, name, url, events, timeout_seconds, max_retries, created_at, updated_at) VALUES (7, 'down-receiver', $1, '{node.created}', 5, 0, now(), now())`,
    [`${receiver.url}/hook`],
  );
  const deliveryId = randomUUID();
  await db.pool.query(
    `INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_type, body, status, max_attempts, next_attempt_at, source_position)
     VALUES ($1, 7, $2, 'node.created', '{}', 'pending', 1, now(), 1)`,
    [deliveryId, randomUUID()],
  );
  const logs: string[] = [];
  const workerOn = (s: typeof store) => createWebhookDeliveryWorker({ pool: db.pool, store: s, outbound: createHttpOutbound({ allowPrivateTargets: true }), secrets, instanceId: 'int', failureThreshold: async () => 1, pollMs: 100, log: (m, x) => logs.push(`${m} ${JSON.stringify(x ?? {})}`) });
  const until = async (what: string, ok: () => Promise<boolean>) => {
    const end = Date.now() + 15_000;
    while (!(await ok())) {
      if (Date.now() > end) assert.unreachable(`${what} (log: ${logs.join(' | ')})`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const types = async () => (await store.readStream(webhookStream(7))).map((e) => e.type);
  const first = workerOn(refusingStore);
  const workers = [first];
  try {
    await first.start();
    await until('the first worker posts, and its append is refused', async () => receiver.received.length === 1 && logs.some((l) => /failed to run.*read-only/.test(l)));
    await first.stop();
    assert.equal(await types(), ['WebhookCreated'], 'nothing appended through the refusing store');

    const restarted = workerOn(store);
    workers.push(restarted);
    await restarted.start();
    await until('the restarted worker appends the events', async () => (await types()).includes('WebhookDisabled'));
    await until('the row is cleared', async () => !(await db.pool.query('SELECT outcome_pending FROM webhook_deliveries WHERE id = $1', [deliveryId])).rows[0].outcome_pending);
    await restarted.stop();
    assert.equal(await types(), ['WebhookCreated', 'WebhookDeliveryExhausted', 'WebhookDisabled']);
    const exhausted = (await store.readStream(webhookStream(7))).find((e) => e.type === 'WebhookDeliveryExhausted')!;
    assert.equal([exhausted.data.deliveryId, exhausted.data.attempts, exhausted.data.consecutiveFailures], [deliveryId, 1, 1]);
    assert.match(String(exhausted.data.lastError), /503/);
    assert.is(receiver.received.length, 1, 'the delivery is not sent again for its events');
    const row = (await db.pool.query('SELECT status, attempts, lease_until, next_attempt_at FROM webhook_deliveries WHERE id = $1', [deliveryId])).rows[0];
    assert.equal([row.status, row.attempts, row.lease_until, row.next_attempt_at], ['exhausted', 1, null, null]);
    assert.equal((await db.pool.query('SELECT count(*)::int AS n FROM webhook_delivery_attempts')).rows[0].n, 1);
    assert.equal((await db.pool.query('SELECT webhook_id, consecutive_failures FROM webhook_failure_runs')).rows, [{ webhook_id: 7, consecutive_failures: 1 }]);

    // What a crash right after the append (before the mark is cleared) leaves: appended again, refused as a duplicate.
    await db.pool.query('UPDATE webhook_deliveries SET outcome_pending = true WHERE id = $1', [deliveryId]);
    const third = workerOn(store);
    workers.push(third);
    await third.start();
    await until('the third worker clears the mark', async () => !(await db.pool.query('SELECT outcome_pending FROM webhook_deliveries WHERE id = $1', [deliveryId])).rows[0].outcome_pending);
    await third.stop();
    assert.equal(await types(), ['WebhookCreated', 'WebhookDeliveryExhausted', 'WebhookDisabled']);
    assert.is(receiver.received.length, 1);
    assert.equal((await db.pool.query('SELECT consecutive_failures FROM webhook_failure_runs WHERE webhook_id = 7')).rows[0].consecutive_failures, 1);
  } finally {
    for (const w of workers) await w.stop();
    await receiver.close();
    await refusingStore.close();
    await readOnlyPool.end().catch(() => {});
    await store.close();
    await db.close();
  }
});

test.run();
