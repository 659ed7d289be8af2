// The health monitor keeps a node's state between probes instead of reading its stream for each:
// the stream is read again after any event of the node (its own downtime and recovery included),
// and a changed configuration is what the next probe uses. Real PostgreSQL event store and saga
// runner; the node is a local HTTP server the probe asks (its port is the node's rpcHttpPort).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { freshDatabase, type FreshDatabase } from '../helpers/postgres.ts';
import { migrate } from '../../adapters/postgres/migrate.ts';
import { postgresEventStore } from '../../adapters/eventstore/postgresEventStore.ts';
import { handleCommand } from '../../domain/shared/commandHandler.ts';
import type { EventStore } from '../../domain/shared/eventStore.ts';
import { nodeAggregate, nodeStream, type NodeCommand } from '../../domain/nodes/node.ts';
import type { NodeOperationsFor } from '../../domain/nodes/nodeOperations.ts';
import { createSagaRunner } from '../../sagas/sagaRunner.ts';
import { nodeHealthSaga, type HealthSettings } from '../../sagas/nodeHealth.ts';
import { postgresNodeObservations } from '../../adapters/postgres/nodeObservations.ts';
import type { NodeObservations, ProbeOutcome } from '../../domain/nodes/nodeObservations.ts';

let db: FreshDatabase;
let store: EventStore;

test.before(async () => {
  db = await freshDatabase();
  await migrate(db.pool);
  store = postgresEventStore(db.pool, { url: db.url, pollIntervalMs: 50 });
});

test.after(async () => {
  await store?.close();
  await db?.close();
});

const until = async (what: string, cond: () => Promise<boolean> | boolean, ms = 15_000) => {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`${what}: not in time`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

/** A node's endpoint: counts the requests it gets, answers 200 or (healthy = false) 503. */
async function endpoint() {
  const e = { hits: 0, healthy: true, port: 0, server: http.createServer((_req, res) => {
    e.hits++;
    res.writeHead(e.healthy ? 200 : 503).end('{}');
  }) };
  await new Promise<void>((r) => e.server.listen(0, '127.0.0.1', r));
  e.port = (e.server.address() as AddressInfo).port;
  return e;
}

test('a node\'s state is read once between its events; its downtime, recovery and a changed port are seen by the next probe', async () => {
  const a = await endpoint();
  const b = await endpoint();
  const nodeId = 41;
  const reads: string[] = [];
  const counted: EventStore = { ...store, readStream: (id, from) => (reads.push(id), store.readStream(id, from)) };
  const operationsFor: NodeOperationsFor = async (node) => ({
    start: async () => ({ pid: null, containerId: null, startedAt: new Date().toISOString() }),
    stop: async () => {},
    remove: async () => {},
    status: async () => ({ state: 'running' }),
    probe: async (timeoutMs) => {
      const r = await fetch(`http://127.0.0.1:${(node.config as { rpcHttpPort: number }).rpcHttpPort}/`, { signal: AbortSignal.timeout(timeoutMs) });
      if (!r.ok) throw new Error(`answered ${r.status}`);
      return { blockHeight: 1, peerCount: 0 };
    },
  });
  const saga = nodeHealthSaga(counted, operationsFor, async () => ({ intervalSeconds: 0.1, threshold: 2 }));
  const at = () => new Date().toISOString();
  const run = (c: NodeCommand) => handleCommand(store, nodeStream(nodeId), nodeAggregate, c, { metadata: { timestamp: at() }, newId: randomUUID });
  const types = async () => (await store.readStream(nodeStream(nodeId))).map((e) => e.type);
  await run({
    type: 'CreateNode', nodeId, name: 'n41', platform: 'EVM', nodeType: 'EVM_FULLNODE', role: 'fullnode', networkId: 1, client: 'besu', engine: 'process',
    config: { p2pPort: 30303, rpcHttpPort: a.port, rpcWsPort: null, metricsPort: null, isBootnode: false }, validatorAddress: null, resources: null, at: at(),
  });
  await run({ type: 'StartNode', nodeId, at: at() });
  await run({ type: 'RecordNodeStarted', nodeId, pid: null, containerId: null, startedAt: at(), at: at() });
  const runner = createSagaRunner({ pool: db.pool, store, sagas: [saga], timerPollMs: 20 });
  await runner.start();
  try {
    await until('eight probes', () => a.hits >= 8);
    const nodeReads = () => reads.filter((s) => s === nodeStream(nodeId)).length;
    assert.ok(nodeReads() <= 2, `the node's stream read ${nodeReads()} times for ${a.hits} probes (once, and once more if a probe overlapped the start)`);

    // Down after two failed probes, then recovered: each read again after the saga recorded it.
    a.healthy = false;
    await until('node.downtime', async () => (await types()).includes('NodeDowntime'));
    a.healthy = true;
    await until('node.recovery', async () => (await types()).includes('NodeRecovered'));
    const recovered = a.hits;
    await until('probes after the recovery', () => a.hits >= recovered + 3);

    // Stopped, its port changed, started again: the probes go to the new port.
    await run({ type: 'StopNode', nodeId, at: at() });
    await run({ type: 'RecordNodeStopped', nodeId, at: at() });
    await run({ type: 'UpdateNodeConfig', nodeId, config: { rpcHttpPort: b.port }, at: at() });
    await run({ type: 'StartNode', nodeId, at: at() });
    await run({ type: 'RecordNodeStarted', nodeId, pid: null, containerId: null, startedAt: at(), at: at() });
    await until('probes at the new port', () => b.hits >= 1);
    const aAfter = a.hits;
    await until('more probes at the new port', () => b.hits >= 6);
    assert.is(a.hits, aAfter, 'no probe went to the old port once the new one was asked');
    assert.ok(nodeReads() < (a.hits + b.hits) / 2, `${nodeReads()} stream reads for ${a.hits + b.hits} probes`);
  } finally {
    await runner.stop();
    a.server.close();
    b.server.close();
  }
});

/** A node created and started on `port` (its rpcHttpPort), through the node's own commands. */
async function startedNode(nodeId: number, port: number) {
  const at = () => new Date().toISOString();
  const run = (c: NodeCommand) => handleCommand(store, nodeStream(nodeId), nodeAggregate, c, { metadata: { timestamp: at() }, newId: randomUUID });
  await run({
    type: 'CreateNode', nodeId, name: `n${nodeId}`, platform: 'EVM', nodeType: 'EVM_FULLNODE', role: 'fullnode', networkId: 1, client: 'besu', engine: 'process',
    config: { p2pPort: 30303, rpcHttpPort: port, rpcWsPort: null, metricsPort: null, isBootnode: false }, validatorAddress: null, resources: null, at: at(),
  });
  await run({ type: 'StartNode', nodeId, at: at() });
  await run({ type: 'RecordNodeStarted', nodeId, pid: null, containerId: null, startedAt: at(), at: at() });
}

/**
 * Probes every 100 ms of a node whose figures cost a request of their own (as a Fabric node's
 * /metrics): each reading a new block height. What was asked and what the observation cache got.
 */
async function probesWith(settings: HealthSettings, nodeId: number, probes: number) {
  const e = await endpoint();
  const asked: Array<{ readings: boolean }> = [];
  let height = 0;
  // Only this node (an earlier test's node may still have its timer in the table).
  const operationsFor: NodeOperationsFor = async (node) => node.nodeId !== nodeId ? null : ({
    start: async () => ({ pid: null, containerId: null, startedAt: new Date().toISOString() }),
    stop: async () => {},
    remove: async () => {},
    status: async () => ({ state: 'running' }),
    probe: async (timeoutMs, opts) => {
      const readings = opts?.readings !== false;
      asked.push({ readings });
      const r = await fetch(`http://127.0.0.1:${(node.config as { rpcHttpPort: number }).rpcHttpPort}/${readings ? 'metrics' : 'healthz'}`, { signal: AbortSignal.timeout(timeoutMs) });
      if (!r.ok) throw new Error(`answered ${r.status}`);
      return readings ? { blockHeight: ++height, peerCount: 3 } : { blockHeight: null, peerCount: null };
    },
  });
  const cache = postgresNodeObservations(db.pool, { gatherMs: 0 });
  const recorded: ProbeOutcome[] = [];
  const observations: NodeObservations = { ...cache, record: async (o) => (o.nodeId === nodeId && recorded.push(o), cache.record(o)) };
  await startedNode(nodeId, e.port);
  const runner = createSagaRunner({ pool: db.pool, store, sagas: [nodeHealthSaga(store, operationsFor, async () => settings, observations)], timerPollMs: 20 });
  await runner.start();
  try {
    await until(`${probes} probes`, () => recorded.length >= probes, 30_000);
  } finally {
    await runner.stop();
    e.server.close();
  }
  return { asked, recorded, latest: (await cache.latest([nodeId])).get(nodeId)! };
}

test('the ledger figures are read at most every readingSeconds: the probes between ask for health alone and record the last reading', async () => {
  const { asked, recorded, latest } = await probesWith({ intervalSeconds: 0.1, threshold: 2, readingSeconds: 0.5 }, 51, 20);
  const reads = asked.filter((a) => a.readings).length;
  // 20 probes 100 ms apart span about 2 s: a reading every 0.5 s is 4 or 5 of them (give or take the timers' spacing), the first probe one.
  assert.ok(asked[0].readings, 'the first probe after the start reads the figures');
  assert.ok(reads >= 3 && reads <= 8, `${reads} of ${asked.length} probes read the ledger figures (readingSeconds 0.5, interval 0.1 s)`);
  // Every probe recorded figures: those between readings the last reading's.
  let last = 0;
  recorded.forEach((o, i) => {
    assert.is(o.status, 'healthy');
    assert.ok(o.blockHeight !== null && o.blockHeight >= last, `probe ${i} recorded block height ${o.blockHeight} after ${last}`);
    assert.is(o.peerCount, 3, `probe ${i} recorded the last reading's peer count`);
    last = o.blockHeight!;
  });
  assert.is(last, reads, 'the figures recorded are those of the last reading');
  assert.is(latest.blockHeight, reads);
});

test('without readingSeconds every probe reads the figures', async () => {
  const { asked, recorded } = await probesWith({ intervalSeconds: 0.1, threshold: 2 }, 52, 8);
  assert.ok(asked.every((a) => a.readings), `${asked.filter((a) => !a.readings).length} probes skipped the figures`);
  assert.equal(recorded.map((o) => o.blockHeight), recorded.map((_, i) => i + 1));
});

test.run();
