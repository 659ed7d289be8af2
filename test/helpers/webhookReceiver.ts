// A real HTTP receiver on loopback for webhook tests: it keeps every request (raw body,
// headers), verifies X-Webhook-Signature in constant time over the raw bytes when given a
// secret, answers with a chosen status, and can go down (port closed) and come back on the
// same port.
import http from 'node:http';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
  json: any;
  /** null when no secret was configured; otherwise whether both signature headers matched. */
  signatureValid: boolean | null;
  at: number;
}

export interface Receiver {
  url: string;
  port: number;
  received: ReceivedRequest[];
  /** Status to answer with (default 200), or a function of the request. */
  respond: number | ((r: ReceivedRequest) => number);
  delayMs: number;
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export function verifySignature(secret: string, raw: Buffer, header: string | undefined, prefix = ''): boolean {
  if (!header || !header.startsWith(prefix)) return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(raw).digest('hex'), 'utf8');
  const given = Buffer.from(header.slice(prefix.length), 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export async function startReceiver(opts: { secret?: string; signatureHeader?: string; port?: number } = {}): Promise<Receiver> {
  const sockets = new Set<import('node:net').Socket>();
  let server: http.Server | null = null;
  const r: Receiver = {
    url: '',
    port: opts.port ?? 0,
    received: [],
    respond: 200,
    delayMs: 0,
    async down() {
      if (!server) return;
      const s = server;
      server = null;
      for (const sock of sockets) sock.destroy();
      await new Promise<void>((res) => s.close(() => res()));
    },
    async up() {
      if (server) return;
      server = http.createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const raw = Buffer.concat(chunks);
          let json: any = null;
          try {
            json = JSON.parse(raw.toString('utf8'));
          } catch {
            json = null;
          }
          let signatureValid: boolean | null = null;
          if (opts.secret) {
            if (opts.signatureHeader) signatureValid = verifySignature(opts.secret, raw, req.headers[opts.signatureHeader] as string | undefined, 'sha256=');
            else signatureValid = verifySignature(opts.secret, raw, req.headers['x-webhook-signature'] as string | undefined) && verifySignature(opts.secret, raw, req.headers['x-webhook-signature-256'] as string | undefined, 'sha256=');
          }
          const rec: ReceivedRequest = { path: req.url ?? '/', headers: req.headers, raw, json, signatureValid, at: Date.now() };
          r.received.push(rec);
          const status = typeof r.respond === 'function' ? r.respond(rec) : r.respond;
          setTimeout(() => {
            res.writeHead(status, { 'content-type': 'text/plain' });
            res.end(status < 300 ? 'ok' : `receiver says ${status}`);
          }, r.delayMs);
        });
      });
      server.keepAliveTimeout = 1000;
      server.on('connection', (s) => {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
      });
      await new Promise<void>((res) => server!.listen(r.port, '127.0.0.1', () => res()));
      r.port = (server.address() as AddressInfo).port;
      r.url = `http://127.0.0.1:${r.port}`;
    },
    async close() {
      await r.down();
    },
  };
  await r.up();
  return r;
}
