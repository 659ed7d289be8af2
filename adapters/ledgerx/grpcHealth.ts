// The gRPC health check (grpc.health.v1.Health/Check) that `committer healthcheck` calls: an
// empty HealthCheckRequest (all services), SERVING is status 1. The two messages are tiny, so they
// are encoded by hand rather than from a .proto, and so is gRPC's framing over HTTP/2 (a 5-byte
// prefix per message, the status in the grpc-status trailer).
//
// The health monitor asks a committer service at every interval, so each target keeps one HTTP/2
// session (one connection) across probes, as adapters/system/probeHttp.ts keeps keep-alive
// connections: a new connection per probe cost the service about 2 ms of CPU, and a grpc-js
// client's call about 600 µs; a stream on a kept node:http2 session costs a fraction of that. The
// bound on a probe stays the caller's timeout: every call has its deadline and is never retried,
// so a dead or hung service is reported down by the deadline. A failed call drops the session, so
// the next probe connects afresh. A session is closed after IDLE_MS without a probe, and by
// closeGrpcHealth (the node stopped or removed).
import http2 from 'node:http2';

const SERVING = 1;
const IDLE_MS = 60_000;
const EMPTY_REQUEST = Buffer.from([0, 0, 0, 0, 0]);

interface Kept { session: http2.ClientHttp2Session; idle: NodeJS.Timeout }
const kept = new Map<string, Kept>();

function sessionFor(address: string): http2.ClientHttp2Session {
  let entry = kept.get(address);
  if (entry && (entry.session.closed || entry.session.destroyed)) {
    drop(address, entry.session);
    entry = undefined;
  }
  if (!entry) {
    const session = http2.connect(`http://${address}`);
    session.on('error', () => drop(address, session));
    session.on('close', () => drop(address, session));
    // The server going away (grpc-go's connection age or idle limits): new probes get a new
    // session; a probe in flight on this one finishes.
    session.on('goaway', () => drop(address, session, true));
    session.unref();
    const idle = setTimeout(() => drop(address, session, true), IDLE_MS);
    idle.unref();
    entry = { session, idle };
    kept.set(address, entry);
  } else {
    entry.idle.refresh();
  }
  return entry.session;
}

/** Forgets and closes the kept session of `address` if it is still `session` (or any, without
 * one): at once, or `graceful`ly (the streams in flight finish first). */
function drop(address: string, session?: http2.ClientHttp2Session, graceful = false): void {
  const entry = kept.get(address);
  if (!entry || (session && entry.session !== session)) return;
  clearTimeout(entry.idle);
  kept.delete(address);
  if (graceful) entry.session.close();
  else entry.session.destroy();
}

/** Closes the connection kept for `address` (the service stopped or removed). */
export function closeGrpcHealth(address: string): void {
  drop(address, undefined, true);
}

/** Connections kept open now (for tests and the bench). */
export function keptGrpcHealthClients(): number {
  return kept.size;
}

export async function grpcHealthCheck(address: string, timeoutMs: number): Promise<void> {
  const session = sessionFor(address);
  const fail = (why: string) => new Error(`gRPC health check of ${address} failed: ${why}`);
  const status = await new Promise<number>((resolve, reject) => {
    let settled = false;
    const done = (err: Error | null, value = 0) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) {
        drop(address, session);
        reject(err);
      } else resolve(value);
    };
    const timer = setTimeout(() => {
      done(fail(`no answer within ${timeoutMs} ms`));
      req.close(http2.constants.NGHTTP2_CANCEL);
    }, timeoutMs);
    const req = session.request({ ':method': 'POST', ':path': '/grpc.health.v1.Health/Check', 'content-type': 'application/grpc', te: 'trailers', 'grpc-timeout': `${Math.min(Math.max(1, Math.ceil(timeoutMs)), 99_999_999)}m` });
    const chunks: Buffer[] = [];
    let headers: http2.IncomingHttpHeaders = {};
    let trailers: http2.IncomingHttpHeaders = {};
    req.on('response', (h) => { headers = h; });
    req.on('trailers', (t) => { trailers = t; });
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('error', (err: NodeJS.ErrnoException) => done(fail(err.code ?? err.message)));
    req.on('close', () => {
      const grpcStatus = trailers['grpc-status'] ?? headers['grpc-status'];
      if (Number(headers[':status']) !== 200 || grpcStatus === undefined) return done(fail(req.rstCode ? `stream reset (${req.rstCode})` : `HTTP ${headers[':status'] ?? 'no answer'}`));
      if (grpcStatus !== '0') return done(fail(`grpc-status ${grpcStatus} ${String(trailers['grpc-message'] ?? headers['grpc-message'] ?? '')}`.trim()));
      // One message: flag, 4-byte length, HealthCheckResponse { status = 1 (varint) }; absent field = 0 (UNKNOWN).
      const body = Buffer.concat(chunks);
      const msg = body.subarray(5, 5 + (body.length >= 5 ? body.readUInt32BE(1) : 0));
      done(null, msg.length >= 2 && msg[0] === 0x08 ? msg[1] : 0);
    });
    req.end(EMPTY_REQUEST);
  });
  if (status !== SERVING) throw new Error(`gRPC health check of ${address} answered status ${status}, not SERVING`);
}
