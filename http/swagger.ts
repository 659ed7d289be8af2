// /api/swagger/doc.json and the interactive UI at /api/swagger/, with swagger-ui-dist served
// from this service (koa2-swagger-ui would load it from a CDN, and there may be no internet).
import type Koa from 'koa';
import { koaSwagger } from 'koa2-swagger-ui';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { setPageSecurityHeaders } from './console.ts';

const require = createRequire(import.meta.url);
const distDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const ASSET_BASE = '/api/swagger/assets';
const assets: Record<string, { file: string; type: string }> = {
  'swagger-ui.min.css': { file: 'swagger-ui.css', type: 'text/css; charset=utf-8' },
  'swagger-ui-bundle.js': { file: 'swagger-ui-bundle.js', type: 'application/javascript; charset=utf-8' },
  'swagger-ui-standalone-preset.js': { file: 'swagger-ui-standalone-preset.js', type: 'application/javascript; charset=utf-8' },
};
const assetCache = new Map<string, Buffer>();

/** CSP hashes ('sha256-...') of a page's inline scripts, so that they alone may run. */
export function inlineScriptHashes(html: string): string[] {
  const out: string[] = [];
  for (const m of html.matchAll(/<script(\s[^>]*)?>([\s\S]*?)<\/script>/gi)) {
    if (/\ssrc\s*=/i.test(m[1] ?? '')) continue;
    out.push(`sha256-${createHash('sha256').update(m[2], 'utf8').digest('base64')}`);
  }
  return out;
}

export function swaggerMiddleware(doc: () => Record<string, unknown>): Koa.Middleware {
  const ui = koaSwagger({
    routePrefix: '/api/swagger',
    swaggerCdnUrl: ASSET_BASE,
    swaggerVersion: 'local',
    title: 'Ledger network manager API',
    swaggerOptions: { url: '/api/swagger/doc.json' },
  } as Parameters<typeof koaSwagger>[0]);
  return async (ctx, next) => {
    if (ctx.path === '/api/swagger/doc.json') {
      ctx.body = doc();
      return;
    }
    if (ctx.path.startsWith(ASSET_BASE + '/local/')) {
      const a = assets[ctx.path.slice(ASSET_BASE.length + '/local/'.length)];
      if (!a) return next();
      let buf = assetCache.get(a.file);
      if (!buf) {
        buf = readFileSync(path.join(distDir, a.file));
        assetCache.set(a.file, buf);
      }
      ctx.type = a.type;
      ctx.set('Cache-Control', 'public, max-age=86400');
      ctx.body = buf;
      return;
    }
    if (ctx.path === '/api/swagger') {
      ctx.redirect('/api/swagger/');
      return;
    }
    if (ctx.path === '/api/swagger/') {
      await (ui as unknown as Koa.Middleware)(Object.assign(ctx, { path: '/api/swagger' }), next);
      // The template also links web fonts from Google: drop it, the UI falls back to local fonts.
      if (typeof ctx.body === 'string') {
        ctx.body = ctx.body.replace(/<link[^>]+fonts\.googleapis\.com[^>]*>/g, '');
        // The console's content policy and framing refusal; its start-up script runs by its hash.
        setPageSecurityHeaders(ctx, inlineScriptHashes(ctx.body));
        ctx.set('Cache-Control', 'no-cache');
      }
      return;
    }
    return next();
  };
}
