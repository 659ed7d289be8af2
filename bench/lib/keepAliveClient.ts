// The HTTP client the benches time the service with when they compare it against a bare client:
// node:http over one kept-alive connection, the way curl in a loop, a Go or Java SDK or any
// long-lived integration calls it. Node's global fetch (undici, used by the tests' `call`) adds
// its own WHATWG layers per call: about 0.4 ms on this machine, which is the client's cost, not the
// service's. The benches that use this also time one loop through fetch in the same run and
// report it beside the figure (`serviceViaFetch`), so what a fetch caller sees is not hidden.
//   keepAliveClient(base, headers) -> (method, path, body?) => { status, json, text }
import http from 'node:http';

export type KeepAliveCall = (method: string, path: string, body?: unknown) => Promise<{ status: number; json: any; text: string }>;

export function keepAliveClient(base: string, headers: Record<string, string>): KeepAliveCall & { close(): void } {
  const u = new URL(base);
  if (u.protocol !== 'http:') throw new Error(`keepAliveClient speaks plain HTTP to a local server, not ${u.protocol}`);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  const prefix = u.pathname.replace(/\/$/, '');
  const call = (method: string, path: string, body?: unknown) => new Promise<{ status: number; json: any; text: string }>((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = http.request({
      host: u.hostname, port: u.port, path: prefix + path, method, agent,
      headers: { ...headers, ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}) },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: any = null;
        try {
          json = text ? JSON.parse(text) : null;
        } catch {
          json = null;
        }
        resolve({ status: res.statusCode ?? 0, json, text });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
  return Object.assign(call, { close: () => agent.destroy() });
}
