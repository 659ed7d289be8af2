// HTTP for the health monitor's probes: a node is asked at every interval, so each node keeps
// one connection open (keep-alive agents) and a request costs a plain node:http call. The EVM
// contract queries use it too, with their own agents (adapters/evm/jsonRpc.ts keptJsonRpcCall). fetch
// (undici) costs the service several times the CPU per call (web streams, abort signals).
//   probeRequest(url, { method, headers, body, timeoutMs }) -> { status, text }
// A timeout rejects with an Error named TimeoutError; a refused connection with its code
// (ECONNREFUSED, ...). Messages never quote the URL (it can carry credentials).
//
//   pipelinedGets(origin, paths, { timeoutMs, maxBytes }) -> [{ status, text }, ...]
// Plain-HTTP GETs of several paths of one endpoint written at once on one kept connection per
// endpoint (HTTP/1.1 pipelining: the answers come back in order), read by a small parser
// (Content-Length, chunked, or to the close). A Fabric node's probe asks /healthz and /metrics of
// its operations endpoint every interval: through node:http that is two ClientRequests, each
// about 0.25-0.5 ms of the service's CPU on this machine; written together here, both cost about
// 0.15 ms (bench/consortiumHealthProbes.ts). Nothing is cached: each call is a real request and
// each answer is read whole. A connection the endpoint closed while idle is replaced once (a
// fresh connection, the same requests); a refused connection, a timeout, an answer that is not
// HTTP or is larger than maxBytes reject and close the connection.
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';

export interface KeptAgents {
  http: http.Agent;
  https: https.Agent;
}

/** Keep-alive agents: at most maxSockets connections per host, idle ones kept for 60 s. */
export function keptAgents(maxSockets: number, maxFreeSockets: number): KeptAgents {
  return {
    http: new http.Agent({ keepAlive: true, maxSockets, maxFreeSockets, timeout: 60_000 }),
    https: new https.Agent({ keepAlive: true, maxSockets, maxFreeSockets, timeout: 60_000 }),
  };
}

const probeAgents = keptAgents(2, 1);

export interface ProbeRequest {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  timeoutMs: number;
  /** Default: the probes' own agents (two connections per host). */
  agents?: KeptAgents;
  /** An answer longer than this is not read further: rejects with an Error named TooLargeError. */
  maxBytes?: number;
}

export function probeRequest(url: string, opts: ProbeRequest): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const secure = u.protocol === 'https:';
    const headers = { ...(opts.headers ?? {}), ...(opts.body !== undefined ? { 'content-length': String(Buffer.byteLength(opts.body)) } : {}) };
    const agents = opts.agents ?? probeAgents;
    const req = (secure ? https : http).request(u, { method: opts.method ?? 'GET', agent: secure ? agents.https : agents.http, headers }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (opts.maxBytes !== undefined && size > opts.maxBytes) {
          req.destroy(Object.assign(new Error(`answer larger than ${opts.maxBytes} bytes`), { name: 'TooLargeError' }));
          return;
        }
        chunks.push(c);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    const timer = setTimeout(() => req.destroy(Object.assign(new Error(`no answer within ${opts.timeoutMs} ms`), { name: 'TimeoutError' })), opts.timeoutMs);
    req.on('close', () => clearTimeout(timer));
    req.on('error', reject);
    req.end(opts.body);
  });
}

interface Pending {
  resolve(answer: { status: number; text: string }): void;
  reject(err: Error): void;
}

interface KeptConnection {
  socket: net.Socket;
  /** Bytes read and not yet consumed by an answer. */
  buffer: Buffer;
  waiting: Pending[];
  maxBytes: number;
  closed: boolean;
}

const keptConnections = new Map<string, KeptConnection>();
const IDLE_MS = 60_000;
const MAX_HEAD_BYTES = 16 * 1024;
const DEFAULT_MAX_BYTES = 8 * 1024 * 1024;

const errorNamed = (name: string, message: string, code?: string) => Object.assign(new Error(message), { name }, code ? { code } : {});

function closeConnection(key: string, c: KeptConnection, err: Error): void {
  if (c.closed) return;
  c.closed = true;
  if (keptConnections.get(key) === c) keptConnections.delete(key);
  c.socket.destroy();
  for (const w of c.waiting.splice(0)) w.reject(err);
}

/** One answer from the front of the buffer, or null when more bytes are needed; throws on what is not HTTP. */
function takeAnswer(c: KeptConnection, ended: boolean): { status: number; text: string; close: boolean } | null {
  const end = c.buffer.indexOf('\r\n\r\n');
  if (end < 0) {
    if (c.buffer.length > MAX_HEAD_BYTES) throw errorNamed('ProtocolError', 'answer headers too long');
    return null;
  }
  const head = c.buffer.subarray(0, end).toString('latin1');
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(head);
  if (!status) throw errorNamed('ProtocolError', 'the answer is not HTTP/1.1');
  const code = Number(status[1]);
  const length = /\r\ncontent-length:[ \t]*(\d+)[ \t]*(?:\r\n|$)/i.exec(head);
  const chunked = /\r\ntransfer-encoding:[^\r]*chunked/i.test(head);
  const bodyAt = end + 4;
  let body: Buffer;
  let next: number;
  if (code === 204 || code === 304 || (code >= 100 && code < 200)) {
    if (code < 200) {
      c.buffer = c.buffer.subarray(bodyAt);
      return takeAnswer(c, ended);
    }
    body = Buffer.alloc(0);
    next = bodyAt;
  } else if (chunked) {
    const parts: Buffer[] = [];
    let at = bodyAt;
    let size = 0;
    for (;;) {
      const lineEnd = c.buffer.indexOf('\r\n', at);
      if (lineEnd < 0) return null;
      const n = parseInt(c.buffer.subarray(at, lineEnd).toString('latin1').split(';')[0].trim(), 16);
      if (!Number.isFinite(n) || n < 0) throw errorNamed('ProtocolError', 'bad chunk size in the answer');
      if (n === 0) {
        // The last chunk, then trailers (none expected) up to an empty line.
        const trailerEnd = c.buffer.indexOf('\r\n\r\n', lineEnd);
        if (c.buffer.subarray(lineEnd, lineEnd + 4).toString('latin1') === '\r\n\r\n') next = lineEnd + 4;
        else if (trailerEnd >= 0) next = trailerEnd + 4;
        else return null;
        break;
      }
      size += n;
      if (size > c.maxBytes) throw errorNamed('TooLargeError', `answer larger than ${c.maxBytes} bytes`);
      if (c.buffer.length < lineEnd + 2 + n + 2) return null;
      parts.push(c.buffer.subarray(lineEnd + 2, lineEnd + 2 + n));
      at = lineEnd + 2 + n + 2;
    }
    body = Buffer.concat(parts);
  } else if (length) {
    const n = Number(length[1]);
    if (n > c.maxBytes) throw errorNamed('TooLargeError', `answer larger than ${c.maxBytes} bytes`);
    if (c.buffer.length < bodyAt + n) return null;
    body = c.buffer.subarray(bodyAt, bodyAt + n);
    next = bodyAt + n;
  } else {
    // Neither: the body runs to the close.
    if (c.buffer.length - bodyAt > c.maxBytes) throw errorNamed('TooLargeError', `answer larger than ${c.maxBytes} bytes`);
    if (!ended) return null;
    body = c.buffer.subarray(bodyAt);
    next = c.buffer.length;
  }
  const text = body.toString('utf8');
  c.buffer = c.buffer.subarray(next);
  return { status: code, text, close: /\r\nconnection:[ \t]*close/i.test(head) };
}

function connectionTo(key: string, host: string, port: number, maxBytes: number): KeptConnection {
  const kept = keptConnections.get(key);
  if (kept && !kept.closed && !kept.socket.destroyed) {
    kept.maxBytes = maxBytes;
    return kept;
  }
  const socket = net.connect({ host, port });
  socket.setNoDelay(true);
  const c: KeptConnection = { socket, buffer: Buffer.alloc(0), waiting: [], maxBytes, closed: false };
  keptConnections.set(key, c);
  const drain = (ended: boolean) => {
    try {
      while (c.waiting.length) {
        const answer = takeAnswer(c, ended);
        if (!answer) break;
        c.waiting.shift()!.resolve({ status: answer.status, text: answer.text });
        if (answer.close) {
          closeConnection(key, c, errorNamed('Error', 'the endpoint closed the connection', 'ECONNRESET'));
          return;
        }
      }
      if (c.waiting.length === 0 && c.buffer.length) throw errorNamed('ProtocolError', 'the endpoint sent bytes nobody asked for');
    } catch (err) {
      closeConnection(key, c, err as Error);
      return;
    }
    if (c.waiting.length === 0) socket.setTimeout(IDLE_MS);
  };
  socket.on('data', (d: Buffer) => {
    c.buffer = c.buffer.length ? Buffer.concat([c.buffer, d]) : d;
    drain(false);
  });
  socket.on('end', () => {
    drain(true);
    closeConnection(key, c, errorNamed('Error', 'the endpoint closed the connection before answering', 'ECONNRESET'));
  });
  socket.on('timeout', () => {
    if (c.waiting.length === 0) closeConnection(key, c, errorNamed('Error', 'idle', 'ECONNRESET'));
  });
  socket.on('error', (err) => closeConnection(key, c, err));
  socket.on('close', () => closeConnection(key, c, errorNamed('Error', 'the connection closed before the answer', 'ECONNRESET')));
  socket.unref();
  return c;
}

function sendGets(key: string, host: string, port: number, paths: string[], opts: { timeoutMs: number; maxBytes: number }): { fresh: boolean; answers: Promise<Array<{ status: number; text: string }>> } {
  const existing = keptConnections.get(key);
  const fresh = !existing || existing.closed || existing.socket.destroyed;
  const c = connectionTo(key, host, port, opts.maxBytes);
  c.socket.setTimeout(0);
  const answers = Promise.all(paths.map(() => new Promise<{ status: number; text: string }>((resolve, reject) => c.waiting.push({ resolve, reject }))));
  const timer = setTimeout(() => closeConnection(key, c, errorNamed('TimeoutError', `no answer within ${opts.timeoutMs} ms`)), opts.timeoutMs);
  const hostHeader = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  c.socket.write(paths.map((p) => `GET ${p} HTTP/1.1\r\nHost: ${hostHeader}\r\nAccept: */*\r\n\r\n`).join(''));
  return { fresh, answers: answers.finally(() => clearTimeout(timer)) };
}

/** GETs of `paths` (each starting with /) of an http:// origin, written together on the endpoint's kept connection; answers in order. */
export async function pipelinedGets(origin: string, paths: string[], opts: { timeoutMs: number; maxBytes?: number }): Promise<Array<{ status: number; text: string }>> {
  const u = new URL(origin);
  if (u.protocol !== 'http:') throw new Error('pipelinedGets: plain http only');
  if (paths.some((p) => !p.startsWith('/') || /[\s\r\n]/.test(p))) throw new Error('pipelinedGets: a path starts with / and holds no white space');
  const host = u.hostname.replace(/^\[|\]$/g, '');
  const port = Number(u.port || 80);
  const key = `${host}:${port}`;
  const o = { timeoutMs: opts.timeoutMs, maxBytes: opts.maxBytes ?? DEFAULT_MAX_BYTES };
  const first = sendGets(key, host, port, paths, o);
  try {
    return await first.answers;
  } catch (err) {
    // A kept connection the endpoint had closed while idle: once more on a fresh one.
    const e = err as Error & { code?: string };
    if (first.fresh || e.name === 'TimeoutError' || e.name === 'TooLargeError' || e.name === 'ProtocolError' || !['ECONNRESET', 'EPIPE'].includes(e.code ?? '')) throw err;
    return sendGets(key, host, port, paths, o).answers;
  }
}
