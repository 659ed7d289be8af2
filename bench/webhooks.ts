// Webhook delivery figures, in-process against the bench's embedded PostgreSQL and a real HTTP
// receiver on loopback: the same fan-out saga, saga runner, delivery worker and outbound HTTP
// adapter the server wires, with signed deliveries.
//   - deliveries per second to one receiver (a burst of events, one webhook)
//   - fan-out of each event to 100 webhooks (deliveries per second)
//   - time from the domain event's append to the receiver (p50, p99), events one at a time
// Standalone: npx tsx bench/webhooks.ts
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { postgresEventStore } from '../adapters/eventstore/postgresEventStore.ts';
import { createSagaRunner } from '../sagas/sagaRunner.ts';
import { webhookFanoutSaga } from '../sagas/webhookFanout.ts';
import { createWebhookDeliveryWorker, WEBHOOK_SECRET_CONTEXT } from '../sagas/webhookDelivery.ts';
import { createHttpOutbound } from '../adapters/outbound/httpOutbound.ts';
import { createSecretBox } from '../adapters/outbound/sealedSecrets.ts';
import { freshMigratedDatabase } from './lib/cluster.ts';
import { runCleanups } from './lib/cleanup.ts';
import { round, summarize, type LatencySummary } from './lib/stats.ts';

export interface WebhookBench {
  oneReceiver: { events: number; seconds: number; perSecond: number };
  fanOut: { events: number; webhooks: number; deliveries: number; seconds: number; perSecond: number; eventToLastDeliveryMs: LatencySummary };
  latency: LatencySummary;
}

const EVENT = 'UserRoleChanged';

async function setup(webhookCount: number) {
  const db = await freshMigratedDatabase('webhooks');
  const store = postgresEventStore(db.pool, { url: db.url });
  const received: Array<{ id: string; at: number; path: string }> = [];
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push({ id: String(req.headers['x-webhook-id']), at: performance.now(), path: req.url ?? '/' });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const secrets = createSecretBox('bench-key-encryption-key-0123456789', { iterations: 10_000 });
  const sealed = await secrets.seal('bench-signing-secret', WEBHOOK_SECRET_CONTEXT);
  for (let i = 1; i <= webhookCount; i++) {
    await db.pool.query(
      `INSERT INTO webhooks (id, name, url, events, custom_headers, timeout_seconds, max_retries, sealed_secret, enabled, created_at, updated_at)
       VALUES ($1, $2, $3, $4, '{}', 10, 3, $5, true, now(), now())`,
      [i, `bench-${i}`, `${url}/h${i}`, ['security.user.role_changed'], sealed],
    );
  }
  const worker = createWebhookDeliveryWorker({ pool: db.pool, store, outbound: createHttpOutbound({ allowPrivateTargets: true }), secrets, instanceId: 'bench', failureThreshold: async () => 10 });
  const runner = createSagaRunner({ pool: db.pool, store, sagas: [webhookFanoutSaga({ pool: db.pool, instance: { id: 'bench', version: '0' }, wake: () => worker.wake() })] });
  await runner.start();
  await worker.start();
  const emit = async (n: number) => {
    const events = Array.from({ length: n }, () => ({ id: randomUUID(), type: EVENT, data: { userId: 1, username: 'u', from: 'VIEWER', to: 'OPERATOR', at: new Date().toISOString() } }));
    await store.append(`users-bench-${randomUUID()}`, 'any', events, { timestamp: new Date().toISOString(), actor: null });
    return events.map((e) => e.id);
  };
  const until = async (cond: () => boolean, ms = 120_000) => {
    const end = Date.now() + ms;
    while (!cond()) {
      if (Date.now() > end) throw new Error(`webhook bench: not delivered in time (${received.length} received)`);
      await new Promise((r) => setTimeout(r, 2));
    }
  };
  const close = async () => {
    await worker.stop();
    await runner.stop();
    await store.close();
    await new Promise<void>((r) => receiver.close(() => r()));
  };
  return { emit, until, received, close };
}

export async function webhookBench(opts: { burst?: number; fanOutEvents?: number; latencySamples?: number } = {}): Promise<WebhookBench> {
  const burst = opts.burst ?? 3000;
  const fanOutEvents = opts.fanOutEvents ?? 30;
  const samples = opts.latencySamples ?? 200;

  // One receiver: a burst appended in batches of 100, timed from the first append to the last delivery.
  const one = await setup(1);
  const t0 = performance.now();
  for (let i = 0; i < burst; i += 100) await one.emit(Math.min(100, burst - i));
  await one.until(() => one.received.length >= burst);
  const oneSeconds = (performance.now() - t0) / 1000;
  if (new Set(one.received.map((r) => r.id)).size !== burst) throw new Error('webhook bench: an event was not delivered');

  // Latency: events one at a time, each timed from its append to its arrival.
  const latencies: number[] = [];
  for (let i = 0; i < samples; i++) {
    const before = one.received.length;
    const t = performance.now();
    await one.emit(1);
    await one.until(() => one.received.length > before);
    latencies.push(one.received[one.received.length - 1].at - t);
  }
  await one.close();

  // Fan-out: each event to 100 webhooks, events one after another.
  const fan = await setup(100);
  const spans: number[] = [];
  const f0 = performance.now();
  for (let i = 0; i < fanOutEvents; i++) {
    const t = performance.now();
    const [id] = await fan.emit(1);
    await fan.until(() => fan.received.filter((r) => r.id === id).length >= 100);
    spans.push(Math.max(...fan.received.filter((r) => r.id === id).map((r) => r.at)) - t);
  }
  const fanSeconds = (performance.now() - f0) / 1000;
  await fan.close();

  return {
    oneReceiver: { events: burst, seconds: round(oneSeconds, 2), perSecond: round(burst / oneSeconds, 0) },
    fanOut: { events: fanOutEvents, webhooks: 100, deliveries: fanOutEvents * 100, seconds: round(fanSeconds, 2), perSecond: round((fanOutEvents * 100) / fanSeconds, 0), eventToLastDeliveryMs: summarize(spans) },
    latency: summarize(latencies),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    console.log(JSON.stringify(await webhookBench(), null, 2));
  } finally {
    await runCleanups();
  }
}
