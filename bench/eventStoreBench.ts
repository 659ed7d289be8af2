// Event store figures, measured in-process on adapters/eventstore/postgresEventStore.ts:
// append rate with the hash chain (one stream, 50 streams), write-to-read-model visibility
// through the real projector, and verify() speed.
import { randomUUID } from 'node:crypto';
import { postgresEventStore } from '../adapters/eventstore/postgresEventStore.ts';
import { createProjector } from '../projections/projector.ts';
import { allProjections } from '../projections/index.ts';
import type { EventMetadata, EventStore } from '../domain/shared/eventStore.ts';
import { freshMigratedDatabase } from './lib/cluster.ts';
import { msSince, now, round, summarize, type LatencySummary } from './lib/stats.ts';

const meta = (): EventMetadata => ({
  timestamp: new Date().toISOString(),
  requestId: randomUUID(),
  ip: '127.0.0.1',
  userAgent: 'lnm-bench',
  actor: { userId: 1, username: 'admin', kind: 'session' },
});

/** A realistic small event: a node configuration change. */
const nodeEvent = (i: number) => ({ id: randomUUID(), type: 'BenchNodeConfigured', data: { nodeId: i, name: `peer${i}.org1`, after: { port: 7051 + (i % 100), mode: 'service', env: { CORE_PEER_GOSSIP_USELEADERELECTION: 'true' } } } });

async function appendLoop(store: EventStore, stream: string, deadline: number, latencies?: number[]): Promise<number> {
  let version = 0;
  while (Date.now() < deadline) {
    const t0 = now();
    const r = await store.append(stream, version, [nodeEvent(version)], meta());
    latencies?.push(msSince(t0));
    version = r.nextVersion;
  }
  return version;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Three rounds of each, alternating, reported as the median round: the disk is shared with
 * other work on this machine and one round's figure can be several times another's.
 */
export interface AppendRates {
  oneStream: number;
  fiftyStreams: number;
  oneStreamRounds: number[];
  fiftyStreamsRounds: number[];
  /** Latency of each append (call to acknowledgement), over all rounds. */
  oneStreamLatency: LatencySummary;
  fiftyStreamsLatency: LatencySummary;
}

export async function appendRates(roundMs: number, rounds = 3): Promise<AppendRates> {
  const db = await freshMigratedDatabase('append');
  const store = postgresEventStore(db.pool);
  try {
    // Warm the connections and plan cache.
    await appendLoop(store, `warmup-${randomUUID()}`, Date.now() + 300);
    const oneRounds: number[] = [];
    const fiftyRounds: number[] = [];
    const oneLatency: number[] = [];
    const fiftyLatency: number[] = [];
    for (let r = 0; r < rounds; r++) {
      let t0 = now();
      const one = await appendLoop(store, `node-${randomUUID()}`, Date.now() + roundMs, oneLatency);
      oneRounds.push(round(one / (msSince(t0) / 1000), 0));
      t0 = now();
      const deadline = Date.now() + roundMs;
      const counts = await Promise.all(Array.from({ length: 50 }, (_, i) => appendLoop(store, `node-${i}-${randomUUID()}`, deadline, fiftyLatency)));
      fiftyRounds.push(round(counts.reduce((a, b) => a + b, 0) / (msSince(t0) / 1000), 0));
    }
    return {
      oneStream: median(oneRounds),
      fiftyStreams: median(fiftyRounds),
      oneStreamRounds: oneRounds,
      fiftyStreamsRounds: fiftyRounds,
      oneStreamLatency: summarize(oneLatency),
      fiftyStreamsLatency: summarize(fiftyLatency),
    };
  } finally {
    await store.close();
  }
}

/** Append one event, then wait until every projection (the audit log among them) has applied it. */
export async function projectionVisibility(samples: number): Promise<LatencySummary> {
  const db = await freshMigratedDatabase('visibility');
  const store = postgresEventStore(db.pool, { url: db.url });
  const projector = createProjector({ pool: db.pool, store, projections: allProjections });
  await projector.start();
  try {
    const times: number[] = [];
    for (let i = 0; i < samples + 20; i++) {
      const t0 = now();
      const r = await store.append(`bench-probe-${i}`, 0, [nodeEvent(i)], meta());
      await projector.waitFor(r.lastPosition, 5_000);
      if (i >= 20) times.push(msSince(t0)); // the first 20 warm up
    }
    const check = await db.pool.query('SELECT count(*)::int AS n FROM audit_log');
    if (check.rows[0].n < samples) throw new Error(`only ${check.rows[0].n} audit entries are visible after ${samples} probes`);
    return summarize(times);
  } finally {
    await projector.stop();
    await store.close();
  }
}

/**
 * The same with several writers at once (as with concurrent HTTP requests): each appends, waits
 * for its own event to be projected, and goes again.
 */
export async function projectionVisibilityConcurrent(writers: number, perWriter: number): Promise<LatencySummary> {
  const db = await freshMigratedDatabase('visibility_concurrent');
  const store = postgresEventStore(db.pool, { url: db.url });
  const projector = createProjector({ pool: db.pool, store, projections: allProjections });
  await projector.start();
  try {
    const times: number[] = [];
    await Promise.all(Array.from({ length: writers }, async (_, w) => {
      for (let i = 0; i < perWriter; i++) {
        const t0 = now();
        const r = await store.append(`bench-probe-${w}-${i}`, 0, [nodeEvent(i)], meta());
        await projector.waitFor(r.lastPosition, 5_000);
        times.push(msSince(t0));
      }
    }));
    return summarize(times);
  } finally {
    await projector.stop();
    await store.close();
  }
}

/**
 * verify() over the whole log, three times in a row: the median run is reported, the first one
 * too (it also opens the pool's extra connections and warms the caches).
 */
export async function verifyRate(store: EventStore, expected: number): Promise<{ eventsPerSec: number; events: number; ms: number; firstRunMs: number; runsMs: number[] }> {
  const runsMs: number[] = [];
  let events = 0;
  for (let i = 0; i < 3; i++) {
    const t0 = now();
    const v = await store.verify(1);
    runsMs.push(round(msSince(t0), 0));
    if (!v.ok) throw new Error(`verify failed at ${v.firstMismatch?.position}: ${v.firstMismatch?.reason}`);
    if (v.checked < expected) throw new Error(`verify checked ${v.checked} events, expected at least ${expected}`);
    events = v.checked;
  }
  const ms = median(runsMs);
  return { eventsPerSec: round(events / (ms / 1000), 0), events, ms, firstRunMs: runsMs[0], runsMs };
}
