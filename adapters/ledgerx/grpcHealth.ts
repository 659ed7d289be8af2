// The gRPC health check (grpc.health.v1.Health/Check) that `committer healthcheck` calls: an
// empty HealthCheckRequest (all services), SERVING is status 1. The two messages are tiny, so they
// are encoded by hand rather than from a .proto.
import { credentials, Client, Metadata } from '@grpc/grpc-js';

const SERVING = 1;

export async function grpcHealthCheck(address: string, timeoutMs: number): Promise<void> {
  const client = new Client(address, credentials.createInsecure());
  try {
    const status = await new Promise<number>((resolve, reject) => {
      client.makeUnaryRequest<Buffer, Buffer>(
        '/grpc.health.v1.Health/Check', (b) => b, (b) => b, Buffer.alloc(0), new Metadata(), { deadline: Date.now() + timeoutMs },
        (err, res) => {
          if (err) return reject(new Error(`gRPC health check of ${address} failed: ${err.details || err.message}`));
          // HealthCheckResponse { status = 1 (varint) }; absent field = 0 (UNKNOWN).
          resolve(res && res.length >= 2 && res[0] === 0x08 ? res[1] : 0);
        },
      );
    });
    if (status !== SERVING) throw new Error(`gRPC health check of ${address} answered status ${status}, not SERVING`);
  } finally {
    client.close();
  }
}
