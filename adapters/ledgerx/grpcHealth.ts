// The gRPC health check (grpc.health.v1.Health/Check) that `committer healthcheck` calls: an
// empty HealthCheckRequest (all services), SERVING is status 1. The two messages are tiny, so they
// are encoded by hand rather than from a .proto.
//
// The health monitor asks a committer service at every interval, so each target keeps one client
// (one HTTP/2 connection) across probes, as adapters/system/probeHttp.ts keeps keep-alive
// connections: a new connection per probe cost the service about 2 ms of CPU, a call on a kept
// one a fraction of that. The bound on a probe stays the caller's timeout: every call has its
// deadline, retries are off, and the call does not wait for a connection (no waitForReady), so a
// dead or hung service is reported down by the deadline. A failed call drops the client, so the
// next probe connects afresh rather than waiting out grpc-js's reconnect backoff. A client is
// closed after IDLE_MS without a probe, and by closeGrpcHealth (the node stopped or removed).
import { credentials, Client, Metadata } from '@grpc/grpc-js';

const SERVING = 1;
const IDLE_MS = 60_000;

interface Kept { client: Client; idle: NodeJS.Timeout }
const kept = new Map<string, Kept>();

function clientFor(address: string): Client {
  let entry = kept.get(address);
  if (!entry) {
    const client = new Client(address, credentials.createInsecure(), { 'grpc.enable_retries': 0 });
    const idle = setTimeout(() => drop(address, client), IDLE_MS);
    idle.unref();
    entry = { client, idle };
    kept.set(address, entry);
  } else {
    entry.idle.refresh();
  }
  return entry.client;
}

/** Closes the kept client of `address` if it is still `client` (or any, without one). */
function drop(address: string, client?: Client): void {
  const entry = kept.get(address);
  if (!entry || (client && entry.client !== client)) return;
  clearTimeout(entry.idle);
  kept.delete(address);
  entry.client.close();
}

/** Closes the connection kept for `address` (the service stopped or removed). */
export function closeGrpcHealth(address: string): void {
  drop(address);
}

/** Clients kept open now (for tests and the bench). */
export function keptGrpcHealthClients(): number {
  return kept.size;
}

export async function grpcHealthCheck(address: string, timeoutMs: number): Promise<void> {
  const client = clientFor(address);
  const status = await new Promise<number>((resolve, reject) => {
    client.makeUnaryRequest<Buffer, Buffer>(
      '/grpc.health.v1.Health/Check', (b) => b, (b) => b, Buffer.alloc(0), new Metadata(), { deadline: Date.now() + timeoutMs },
      (err, res) => {
        if (err) {
          drop(address, client);
          return reject(new Error(`gRPC health check of ${address} failed: ${err.details || err.message}`));
        }
        // HealthCheckResponse { status = 1 (varint) }; absent field = 0 (UNKNOWN).
        resolve(res && res.length >= 2 && res[0] === 0x08 ? res[1] : 0);
      },
    );
  });
  if (status !== SERVING) throw new Error(`gRPC health check of ${address} answered status ${status}, not SERVING`);
}
