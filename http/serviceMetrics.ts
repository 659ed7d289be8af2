// The service's own metrics over HTTP, outside /api/v1 (Prometheus scrapes a plain path):
//   requestMetrics        times every request, labelled by the declared route (never the raw URL)
//   serviceMetricsPaths   GET /metrics and GET /metrics/nodes/{id}; who may read them is the
//                         metricsAccess setting (authenticated by default; loopback lets this
//                         host's loopback scrape without credentials); the managed Prometheus
//                         presents its own scrape token
//                         A browser's navigation to /metrics (Accept preferring text/html:
//                         the console's Metrics page reloaded or bookmarked) goes on to the
//                         console; scrapers (Prometheus, curl, no Accept) get the exposition
//   metricsOpenApiPaths   their entries in the OpenAPI document
import type Koa from 'koa';
import type { AccessControl } from './accessControlPort.ts';
import type { AppDeps } from '../application/deps.ts';
import type { RouteDef } from './route.ts';
import { AppError, NotFoundError, UnauthenticatedError, ValidationError } from '../domain/shared/errors.ts';

export const SERVICE_METRICS_PATH = '/metrics';
const NODE_EXPORT = /^\/metrics\/nodes\/([^/]+)$/;

export function requestMetrics(deps: AppDeps): Koa.Middleware {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const matched = (ctx as unknown as { _matchedRoute?: string })._matchedRoute;
      const route = ctx.state.metricsRoute ?? (typeof matched === 'string' ? matched : 'unmatched');
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const { method, status } = ctx;
      // Counted right after the answer has gone out (Koa writes it once this chain settles).
      setImmediate(() => deps.metrics?.observeRequest(route, method, status, seconds));
    }
  };
}

const metricsRoute: RouteDef = {
  method: 'get', path: SERVICE_METRICS_PATH, summary: "The service's own metrics", tags: ['metrics'], permission: 'METRICS_READ', responses: {},
  async handler() {},
};

export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const a = address.startsWith('::ffff:') ? address.slice(7) : address;
  return a === '::1' || /^127\.\d+\.\d+\.\d+$/.test(a);
}

async function admit(ctx: Koa.Context, deps: AppDeps, access: AccessControl | undefined): Promise<void> {
  const { general } = await deps.security.settings();
  if (general.metricsAccess === 'loopback' && isLoopback(ctx.socket.remoteAddress)) return;
  const auth = ctx.get('authorization');
  if (/^bearer\s/i.test(auth) && (await deps.metricsStack?.scrapeTokenMatches(auth.slice(7).trim()))) return;
  if (!access) throw new AppError(500, 'NO_ACCESS_CONTROL', 'authentication is not configured', { expose: false });
  const identity = await access.authenticate(ctx, deps);
  if (!identity) throw new UnauthenticatedError();
  ctx.state.identity = identity;
  await access.authorize(identity, metricsRoute, ctx, deps);
}

/**
 * Whether a GET of /metrics is a browser opening a page rather than a scraper: its Accept prefers
 * text/html over the exposition types. Prometheus sends `application/openmetrics-text, text/plain;
 * q=0.5, *\/*;q=0.1`, curl `*\/*`, many clients nothing: all of those get the exposition (the
 * first type listed wins a tie).
 */
export function wantsConsole(ctx: Pick<Koa.Context, 'method' | 'accepts'>): boolean {
  if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return false;
  return ctx.accepts('text/plain', 'application/openmetrics-text', 'text/html') === 'text/html';
}

export function serviceMetricsPaths(deps: AppDeps, access: AccessControl | undefined): Koa.Middleware {
  return async (ctx, next) => {
    const exported = NODE_EXPORT.exec(ctx.path);
    if (ctx.path !== SERVICE_METRICS_PATH && !exported) return next();
    // The console's Metrics page shares the path: a browser reloading it gets the console.
    if (!exported && wantsConsole(ctx)) return next();
    ctx.state.metricsRoute = exported ? '/metrics/nodes/:id' : SERVICE_METRICS_PATH;
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') throw new AppError(405, 'METHOD_NOT_ALLOWED', `${ctx.method} is not allowed on ${ctx.path}; use GET.`);
    if (!deps.metrics) throw new AppError(503, 'UNAVAILABLE', 'Metrics are not enabled on this server.');
    await admit(ctx, deps, access);
    if (!exported) {
      const { contentType, body } = await deps.metrics.render();
      ctx.type = contentType;
      ctx.body = body;
      return;
    }
    const id = Number(exported[1]);
    if (!/^[1-9]\d{0,15}$/.test(exported[1]) || !Number.isSafeInteger(id)) throw new ValidationError('The node id must be a positive integer.', [{ field: 'id', message: 'must be a positive integer' }]);
    if (!deps.metricsStack) throw new AppError(503, 'UNAVAILABLE', 'Node metrics are not enabled on this server.');
    const exportedNode = await deps.metricsStack.exportNode(id);
    if (exportedNode === null) throw new NotFoundError('Node', id);
    // A node that does not answer is a failed scrape (Prometheus's up = 0, with this reason).
    if (!exportedNode.ok) throw new AppError(503, 'NODE_UNREACHABLE', `Node ${id} did not answer: ${exportedNode.reason}`);
    ctx.type = 'text/plain; version=0.0.4; charset=utf-8';
    ctx.body = exportedNode.text;
  };
}

const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } } });

export function metricsOpenApiPaths(): Record<string, Record<string, unknown>> {
  const access = 'Access: the `metricsAccess` setting. `authenticated` (default): the API\'s credentials with permission `METRICS_READ`, or the managed Prometheus\'s scrape token as a Bearer token. `loopback`: also any client connecting from 127.0.0.1 or ::1, without credentials.';
  const common = { '400': errorResponse('Bad input'), '401': errorResponse('Missing or invalid credentials'), '403': errorResponse('The identity lacks METRICS_READ'), '500': errorResponse('Internal error') };
  return {
    [SERVICE_METRICS_PATH]: {
      get: {
        summary: "The service's own metrics in Prometheus exposition format",
        description: `HTTP requests by declared route, method and status; event store appends and their latency; projection and saga lag in events; nodes by platform and status; node health checks and probe durations; process figures. ${access} A request whose Accept prefers text/html (a browser opening the console's Metrics page, which shares this path) gets the web console instead; Prometheus's Accept, */* and no Accept get the exposition.`,
        tags: ['metrics'], operationId: 'getServiceMetrics', 'x-permission': 'METRICS_READ',
        responses: { '200': { description: 'exposition text', content: { 'text/plain': { schema: { type: 'string' } } } }, ...common },
      },
    },
    '/metrics/nodes/{id}': {
      get: {
        summary: "A node's figures in exposition format, for nodes that export none themselves (anvil)",
        description: `The service asks the node (its JSON-RPC) at scrape time: lnm_node_up, lnm_node_block_height, lnm_node_peer_count. The managed Prometheus scrapes it for every such node. ${access}`,
        tags: ['metrics'], operationId: 'getNodeExportedMetrics', 'x-permission': 'METRICS_READ',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } }],
        responses: { '200': { description: 'exposition text', content: { 'text/plain': { schema: { type: 'string' } } } }, ...common, '404': errorResponse('No such node') },
      },
    },
  };
}
