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
import { nodeHealthSaga } from '../../sagas/nodeHealth.ts';

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

test.run();
