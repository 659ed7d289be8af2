// HTTP for the health monitor's probes: a node is asked at every interval, so each node keeps
// one connection open (keep-alive agents) and a request costs a plain node:http call. The EVM
// contract queries use it too, with their own agents (adapters/evm/jsonRpc.ts keptJsonRpcCall). fetch
// (undici) costs the service several times the CPU per call (web streams, abort signals).
//   probeRequest(url, { method, headers, body, timeoutMs }) -> { status, text }
// A timeout rejects with an Error named TimeoutError; a refused connection with its code
// (ECONNREFUSED, ...). Messages never quote the URL (it can carry credentials).
import http from 'node:http';
import https from 'node:https';

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
