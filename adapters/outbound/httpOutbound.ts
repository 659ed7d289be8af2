// The outbound HTTP POST of webhooks and notifications: node:http(s) with keep-alive agents (a
// burst of deliveries to one receiver reuses connections), a deadline over the whole exchange,
// the private-target guard in the DNS lookup, and at most EXCERPT characters of the response
// kept. Every outcome is returned as a value.
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { OutboundHttp, OutboundRequest, OutboundResult } from '../../domain/webhooks/ports.ts';
import { guardedLookup, isPrivateAddress, schemeRefusal, targetRefusal } from './targetGuard.ts';

const EXCERPT = 500;

export function createHttpOutbound(opts: { allowPrivateTargets: boolean; maxSockets?: number }): OutboundHttp {
  const lookup = guardedLookup(opts.allowPrivateTargets);
  const httpAgent = new http.Agent({ keepAlive: true, maxSockets: opts.maxSockets ?? 64 });
  const httpsAgent = new https.Agent({ keepAlive: true, maxSockets: opts.maxSockets ?? 64 });

  return {
    refusal: (url) => targetRefusal(url, opts.allowPrivateTargets),
    post(req: OutboundRequest): Promise<OutboundResult> {
      const started = performance.now();
      const done = (r: Omit<OutboundResult, 'durationMs'>): OutboundResult => ({ ...r, durationMs: Math.round(performance.now() - started) });
      const scheme = schemeRefusal(req.url);
      if (scheme) return Promise.resolve(done({ ok: false, statusCode: null, error: scheme, excerpt: null }));
      const u = new URL(req.url);
      const literal = u.hostname.replace(/^\[|\]$/g, '');
      // A literal address skips DNS, so the guard checks it here.
      if (!opts.allowPrivateTargets && isIP(literal) && isPrivateAddress(literal)) {
        return Promise.resolve(done({ ok: false, statusCode: null, error: `${literal} is a private address; refused`, excerpt: null }));
      }
      const mod = u.protocol === 'https:' ? https : http;
      return new Promise((resolve) => {
        let settled = false;
        const finish = (r: Omit<OutboundResult, 'durationMs'>) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve(done(r));
        };
        let request: http.ClientRequest;
        try {
          request = mod.request(u, {
            method: 'POST',
            agent: u.protocol === 'https:' ? httpsAgent : httpAgent,
            lookup,
            headers: { ...req.headers, 'content-length': String(Buffer.byteLength(req.body)) },
          }, onResponse);
        } catch (err) {
          // A request Node will not even build (a header it refuses: ERR_INVALID_CHAR,
          // ERR_INVALID_HTTP_TOKEN) is a failed attempt like any other, not an exception.
          const e = err as NodeJS.ErrnoException;
          resolve(done({ ok: false, statusCode: null, error: `the request could not be sent: ${e.code ? `${e.code}: ` : ''}${e.message}`, excerpt: null }));
          return;
        }
        function onResponse(res: http.IncomingMessage) {
          let excerpt = '';
          const code = res.statusCode ?? 0;
          const ok = code >= 200 && code < 300;
          const answered = () => finish({ ok, statusCode: code, error: ok ? null : `HTTP ${code}${res.statusMessage ? ' ' + res.statusMessage : ''}`, excerpt: excerpt || null });
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            excerpt += chunk.slice(0, EXCERPT - excerpt.length);
            // The rest of a long body is not read: the status is known, and more is never kept.
            if (excerpt.length >= EXCERPT) {
              answered();
              res.destroy();
            }
          });
          res.on('end', answered);
          res.on('error', (err) => finish({ ok: false, statusCode: res.statusCode ?? null, error: err.message, excerpt: excerpt || null }));
        }
        const timer = setTimeout(() => {
          request.destroy(new Error(`no answer within ${req.timeoutMs / 1000} s`));
        }, req.timeoutMs);
        request.on('error', (err: NodeJS.ErrnoException) => finish({ ok: false, statusCode: null, error: err.code && !err.message.includes(err.code) ? `${err.code}: ${err.message}` : err.message, excerpt: null }));
        request.end(req.body);
      });
    },
  };
}
