// fetch + JSON with sensible defaults, for the end-to-end tests and the bench alike (no side
// effects on import, so the bench can use it without the test helpers' database).
//
// An http: URL goes through node:http, not fetch: fetch (undici) gives up on an answer whose
// headers take over 300 s ("fetch failed", HeadersTimeoutError), and some calls are that long on
// a loaded machine (a consensus migration with its rollback, a rolling upgrade): the test must wait
// for the service's own answer, as curl does. Redirects are followed as fetch follows them.
import http from 'node:http';

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

function viaNodeHttp(url: string, method: string, headers: Record<string, string>, body: string | undefined, redirectsLeft = 20, retried = false): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers: body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        const location = res.headers.location;
        if ([301, 302, 303, 307, 308].includes(status) && location && redirectsLeft > 0) {
          // As fetch: 303 (and 301/302 of a POST) go on as a GET without a body; 307/308 repeat the request.
          const asGet = status === 303 || ((status === 301 || status === 302) && method === 'POST');
          const { 'content-type': _type, ...rest } = headers;
          resolve(viaNodeHttp(new URL(location, url).href, asGet ? 'GET' : method, asGet ? rest : headers, asGet ? undefined : body, redirectsLeft - 1));
          return;
        }
        const h = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (Array.isArray(value)) for (const v of value) h.append(name, v);
          else if (value !== undefined) h.set(name, value);
        }
        resolve({ status, headers: h, text: Buffer.concat(chunks).toString('utf8') });
      });
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      // A kept-alive connection the server closed while idle, as this request went out on it: the
      // server never read it (Node's documented case, req.reusedSocket); sent again on a new one.
      if (req.reusedSocket && err.code === 'ECONNRESET' && !retried) resolve(viaNodeHttp(url, method, headers, body, redirectsLeft, true));
      else reject(err);
    });
    req.end(body);
  });
}

export async function call(base: string, method: string, path: string, opts: { body?: unknown; headers?: Record<string, string>; raw?: string } = {}) {
  const headers = { ...(opts.body !== undefined || opts.raw !== undefined ? { 'content-type': 'application/json' } : {}), ...opts.headers };
  const body = opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
  let answer: Answer;
  if ((base + path).startsWith('http:')) answer = await viaNodeHttp(base + path, method, headers, body);
  else {
    const r = await fetch(base + path, { method, headers, body });
    answer = { status: r.status, headers: r.headers, text: await r.text() };
  }
  const { status, text } = answer;
  let json: any = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  return { status, headers: answer.headers, json, text };
}
