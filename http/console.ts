// The web console (web/, built by Vite into web/dist) served at `/`: every GET or HEAD outside
// /api that names no file answers index.html (the console routes in the browser), hashed files
// under /assets/ are cached for a year as immutable, index.html is revalidated on every load.
// /api keeps its JSON 404s: this middleware never answers a path under /api.
import type Koa from 'koa';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

export const consoleDist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'web', 'dist');

const types: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};

// Scripts and styles only from this service; the logs WebSocket is same-origin ('self').
// `scriptHashes` lets a page's own inline scripts run (the Swagger UI page's start-up script).
const csp = (scriptHashes: readonly string[] = []) =>
  `default-src 'self'; script-src 'self'${scriptHashes.map((h) => ` '${h}'`).join('')}; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'`;

/** The headers of a page this service serves (the console's index.html, the Swagger UI page): its content policy, no framing, no sniffing. */
export function setPageSecurityHeaders(ctx: Koa.Context, scriptHashes: readonly string[] = []): void {
  ctx.set('Content-Security-Policy', csp(scriptHashes));
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'same-origin');
}

interface Cached {
  mtimeMs: number;
  raw: Buffer;
  gz: Buffer | null;
}

export function consoleMiddleware(dist = consoleDist): Koa.Middleware {
  const cache = new Map<string, Cached>();
  const load = (file: string): Cached | null => {
    let st;
    try {
      st = statSync(file);
    } catch {
      return null;
    }
    if (!st.isFile()) return null;
    const hit = cache.get(file);
    if (hit && hit.mtimeMs === st.mtimeMs) return hit;
    const raw = readFileSync(file);
    const compressible = /\.(js|css|html|svg|json|txt)$/.test(file) && raw.length > 1024;
    const entry = { mtimeMs: st.mtimeMs, raw, gz: compressible ? gzipSync(raw) : null };
    cache.set(file, entry);
    return entry;
  };
  return async (ctx, next) => {
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || ctx.path === '/api' || ctx.path.startsWith('/api/')) return next();
    let rel: string;
    try {
      rel = decodeURIComponent(ctx.path);
    } catch {
      return next();
    }
    const target = path.resolve(dist, '.' + path.posix.normalize('/' + rel));
    const inside = target === dist || target.startsWith(dist + path.sep);
    const hasExtension = /\.[A-Za-z0-9]+$/.test(rel);
    let file = inside && hasExtension ? target : path.join(dist, 'index.html');
    let entry = load(file);
    if (!entry && hasExtension) {
      // A missing asset is a 404, never index.html (a browser would run HTML as a script).
      ctx.status = 404;
      ctx.type = 'text/plain';
      ctx.body = 'Not found';
      return;
    }
    if (!entry) {
      ctx.status = 503;
      ctx.type = 'text/plain';
      ctx.body = 'The web console is not built. Run `npm run build:web` (npm install does it), then reload. The API is at /api/v1, its documentation at /api/swagger/.';
      return;
    }
    file = file.endsWith('index.html') ? path.join(dist, 'index.html') : file;
    const isIndex = file === path.join(dist, 'index.html');
    ctx.type = types[path.extname(file)] ?? 'application/octet-stream';
    ctx.set('X-Content-Type-Options', 'nosniff');
    if (isIndex) {
      ctx.set('Cache-Control', 'no-cache');
      setPageSecurityHeaders(ctx);
    } else if (rel.startsWith('/assets/')) {
      ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    } else {
      ctx.set('Cache-Control', 'public, max-age=3600');
    }
    ctx.vary('Accept-Encoding');
    if (entry.gz && ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
      ctx.set('Content-Encoding', 'gzip');
      ctx.body = entry.gz;
    } else {
      ctx.body = entry.raw;
    }
  };
}

/** Whether a built console is there to serve. */
export function consoleBuilt(dist = consoleDist): boolean {
  return existsSync(path.join(dist, 'index.html'));
}
