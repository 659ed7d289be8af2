// The committer services' gRPC health probe (adapters/ledgerx/grpcHealth.ts) against a real
// grpc-js server serving grpc.health.v1.Health/Check: SERVING is up, anything else down; one kept
// connection serves many probes (the server sees one peer); a killed server is down by the
// probe's deadline, and the same target is up again once a server is back on its port; a server
// that accepts the connection and never answers is down by the deadline too.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import net from 'node:net';
import { Server, ServerCredentials, type ServiceDefinition, type sendUnaryData, type ServerUnaryCall } from '@grpc/grpc-js';
import { closeGrpcHealth, grpcHealthCheck, keptGrpcHealthClients } from '../../../adapters/ledgerx/grpcHealth.ts';

const test = suite('ledgerX committer gRPC health probe: one kept connection per target, down by the deadline');

const identity = (b: Buffer) => b;
const healthService: ServiceDefinition = {
  Check: { path: '/grpc.health.v1.Health/Check', requestStream: false, responseStream: false, requestSerialize: identity, requestDeserialize: identity, responseSerialize: identity, responseDeserialize: identity },
};

interface HealthServer { server: Server; port: number; peers: string[]; calls: number; status: number }

/** A grpc-js server answering Check with `state.status` (1 SERVING, 2 NOT_SERVING), noting each caller's address. */
async function startHealthServer(port = 0, status = 1): Promise<HealthServer> {
  const server = new Server();
  const state: HealthServer = { server, port: 0, peers: [], calls: 0, status };
  server.addService(healthService, {
    Check: (call: ServerUnaryCall<Buffer, Buffer>, cb: sendUnaryData<Buffer>) => {
      state.calls++;
      state.peers.push(call.getPeer());
      cb(null, Buffer.from([0x08, state.status]));
    },
  });
  state.port = await new Promise<number>((resolve, reject) => server.bindAsync(`127.0.0.1:${port}`, ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))));
  return state;
}

const down = async (address: string, timeoutMs: number): Promise<{ message: string; ms: number }> => {
  const t0 = Date.now();
  try {
    await grpcHealthCheck(address, timeoutMs);
  } catch (err) {
    return { message: (err as Error).message, ms: Date.now() - t0 };
  }
  throw new Error(`${address} was reported up`);
};

test('SERVING is up, NOT_SERVING is down; the status can change on the same connection', async () => {
  const h = await startHealthServer();
  const address = `127.0.0.1:${h.port}`;
  try {
    await grpcHealthCheck(address, 2000);
    h.status = 2;
    const d = await down(address, 2000);
    assert.match(d.message, /status 2, not SERVING/);
    h.status = 1;
    await grpcHealthCheck(address, 2000);
    assert.is(new Set(h.peers).size, 1, `one connection, seen from ${[...new Set(h.peers)].join(', ')}`);
  } finally {
    closeGrpcHealth(address);
    h.server.forceShutdown();
  }
});

test('N probes of one target use one connection; closeGrpcHealth closes it and the next probe opens another', async () => {
  const h = await startHealthServer();
  const address = `127.0.0.1:${h.port}`;
  try {
    for (let i = 0; i < 50; i++) await grpcHealthCheck(address, 2000);
    assert.is(h.calls, 50);
    assert.is(new Set(h.peers).size, 1, `50 probes came from ${new Set(h.peers).size} connections`);
    assert.is(keptGrpcHealthClients(), 1);
    closeGrpcHealth(address);
    assert.is(keptGrpcHealthClients(), 0);
    await grpcHealthCheck(address, 2000);
    assert.is(new Set(h.peers).size, 2);
  } finally {
    closeGrpcHealth(address);
    h.server.forceShutdown();
  }
});

test('a killed server is down within the deadline, and the same target is up again when a server is back on its port', async () => {
  let h = await startHealthServer();
  const port = h.port;
  const address = `127.0.0.1:${port}`;
  try {
    for (let i = 0; i < 5; i++) await grpcHealthCheck(address, 2000);
    h.server.forceShutdown();
    // Every probe while it is gone: down, and by the deadline (not after grpc-js's backoff).
    for (let i = 0; i < 3; i++) {
      const d = await down(address, 1000);
      assert.ok(d.ms < 1000 + 500, `down after ${d.ms} ms (deadline 1000 ms)`);
      assert.match(d.message, /gRPC health check of 127\.0\.0\.1:\d+ failed/);
    }
    h = await startHealthServer(port);
    await grpcHealthCheck(address, 2000);
    for (let i = 0; i < 5; i++) await grpcHealthCheck(address, 2000);
    assert.is(new Set(h.peers).size, 1, 'the probes after the restart share one new connection');
  } finally {
    closeGrpcHealth(address);
    h.server.forceShutdown();
  }
});

test('a gRPC server without the health service (UNIMPLEMENTED) is down, saying the status', async () => {
  const server = new Server();
  const port = await new Promise<number>((resolve, reject) => server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))));
  const address = `127.0.0.1:${port}`;
  try {
    const d = await down(address, 2000);
    assert.match(d.message, /grpc-status 12/);
  } finally {
    closeGrpcHealth(address);
    server.forceShutdown();
  }
});

test('a server that accepts the connection and never answers is down by the deadline', async () => {
  const sockets: net.Socket[] = [];
  const silent = net.createServer((s) => sockets.push(s));
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  const address = `127.0.0.1:${(silent.address() as net.AddressInfo).port}`;
  try {
    const d = await down(address, 500);
    assert.ok(d.ms >= 450 && d.ms < 500 + 500, `down after ${d.ms} ms (deadline 500 ms)`);
    assert.is(keptGrpcHealthClients(), 0, 'the failed client is not kept');
  } finally {
    closeGrpcHealth(address);
    for (const s of sockets) s.destroy();
    await new Promise((r) => silent.close(r));
  }
});

test.run();
