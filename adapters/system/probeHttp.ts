// HTTP for the health monitor's probes: a node is asked at every interval, so each node keeps
// one connection open (keep-alive agents) and a request costs a plain node:http call. fetch
// (undici) costs the service several times the CPU per call (web streams, abort signals).
//   probeRequest(url, { method, headers, body, timeoutMs }) -> { status, text }
// A timeout rejects with an Error named TimeoutError; a refused connection with its code
// (ECONNREFUSED, ...). Messages never quote the URL (it can carry credentials).
import http from 'node:http';
import https from 'node:https';

const agents = {
  http: new http.Agent({ keepAlive: true, maxSockets: 2, maxFreeSockets: 1, timeout: 60_000 }),
  https: new https.Agent({ keepAlive: true, maxSockets: 2, maxFreeSockets: 1, timeout: 60_000 }),
};

export interface ProbeRequest {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  timeoutMs: number;
}

export function probeRequest(url: string, opts: ProbeRequest): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const secure = u.protocol === 'https:';
    const headers = { ...(opts.headers ?? {}), ...(opts.body !== undefined ? { 'content-length': String(Buffer.byteLength(opts.body)) } : {}) };
    const req = (secure ? https : http).request(u, { method: opts.method ?? 'GET', agent: secure ? agents.https : agents.http, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    const timer = setTimeout(() => req.destroy(Object.assign(new Error(`no answer within ${opts.timeoutMs} ms`), { name: 'TimeoutError' })), opts.timeoutMs);
    req.on('close', () => clearTimeout(timer));
    req.on('error', reject);
    req.end(opts.body);
  });
}
