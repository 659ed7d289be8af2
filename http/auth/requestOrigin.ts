// Cross-site request refusal for cookie sessions (issue 36). The session cookie is SameSite=Lax,
// which a page on another port of the same host (the same site) still gets it sent from; a
// bodiless POST needs no CORS preflight, and a WebSocket handshake none at all. So a request
// authenticated by the cookie that changes state (any method but GET, HEAD, OPTIONS) or opens a
// WebSocket must come from this service's own origin:
// - an Origin header must be the origin the request was addressed to (scheme and Host) or one of
//   LNM_ALLOWED_ORIGINS (`Origin: null` never is);
// - without Origin, a browser's Sec-Fetch-Site must be `same-origin` (or `none`: typed by the user);
// - with neither (a client that is not a browser), the request must carry `X-Requested-With`,
//   a header no other site can make a browser send without a CORS preflight this service never
//   answers. The console sends it on every call.
// HTTP Basic, API keys and bearer tokens are not sent by a browser on its own: not checked.
import type Koa from 'koa';

/** The header a non-browser client using a session cookie sends on state-changing requests. */
export const CSRF_HEADER = 'X-Requested-With';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether a request would change state or open a WebSocket (what the origin check covers). */
export function needsSameOrigin(ctx: Koa.Context): boolean {
  return !SAFE_METHODS.has(ctx.method) || ctx.get('upgrade').toLowerCase() === 'websocket';
}

/** Why the request is refused as cross-site, or null when it may go on. */
export function crossOriginReason(ctx: Koa.Context, allowedOrigins: readonly string[] = []): string | null {
  const origin = ctx.get('origin').trim().toLowerCase();
  if (origin) {
    const own = `${ctx.protocol}://${ctx.host}`.toLowerCase();
    if (origin === own || allowedOrigins.includes(origin)) return null;
    return `its Origin ${origin.slice(0, 200)} is neither this service's origin nor one of LNM_ALLOWED_ORIGINS`;
  }
  const site = ctx.get('sec-fetch-site').trim().toLowerCase();
  if (site) return site === 'same-origin' || site === 'none' ? null : `the browser says it comes from another site (Sec-Fetch-Site: ${site.slice(0, 40)})`;
  if (ctx.get(CSRF_HEADER).trim()) return null;
  return `it carries no Origin, no Sec-Fetch-Site and no ${CSRF_HEADER} header`;
}
