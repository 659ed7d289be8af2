// The Koa application: request ids and logs, one error shape, swagger, the JSON body's
// content-type check, then the route table under /api/v1, where each route authenticates the
// caller before it reads the body (size and depth limits: http/jsonBody.ts).
import Koa from 'koa';
import Router, { type RouterMiddleware } from '@koa/router';
import { randomUUID } from 'node:crypto';
import type { RouteDef } from './route.ts';
import type { AppDeps } from '../application/deps.ts';
import type { Identity } from '../application/identity.ts';
import { errorBody, errorMiddleware, retryAfterSeconds } from './errors.ts';
import type { Drain } from './drain.ts';
import { validate } from './validation.ts';
import { byteSize, jsonBody, readRequestBody, takeBodyRefusal, type BodyReading } from './jsonBody.ts';
import { buildOpenApi } from './openapi.ts';
import { swaggerMiddleware } from './swagger.ts';
import { consoleMiddleware } from './console.ts';
import { metricsOpenApiPaths, requestMetrics, serviceMetricsPaths } from './serviceMetrics.ts';
import type { AccessControl } from './accessControlPort.ts';
import { EditionRequiredError, UnauthenticatedError, AppError, ValidationError } from '../domain/shared/errors.ts';

const API_PREFIX = '/api/v1';
const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;
const editionRank = { community: 0, pro: 1, enterprise: 2 } as const;
/** Defaults of LNM_SIGN_IN_BODY_LIMIT and LNM_UNAUTHENTICATED_BODY_SECONDS (bin/config.ts). */
export const DEFAULT_SIGN_IN_BODY_LIMIT = '8kb';
export const DEFAULT_UNAUTHENTICATED_BODY_SECONDS = 5;

export function createApp(deps: AppDeps, routes: RouteDef[], access?: AccessControl, drain?: Drain): Koa {
  const app = new Koa({ proxy: false });
  const router = new Router({ prefix: API_PREFIX });
  let openApi: Record<string, unknown> | null = null;
  const doc = () => {
    if (openApi) return openApi;
    const built = buildOpenApi(routes, {
      version: deps.config.version,
      edition: deps.config.edition,
      defaultPageSize: deps.config.defaultPageSize,
      maxPageSize: deps.config.maxPageSize,
      bodyLimit: deps.config.bodyLimit,
    });
    // The service's own metrics live outside /api/v1, where Prometheus expects them.
    return (openApi = deps.metrics ? { ...built, paths: { ...(built.paths as object), ...metricsOpenApiPaths() } } : built);
  };

  if (deps.metrics) app.use(requestMetrics(deps));
  app.use(async (ctx, next) => {
    const given = ctx.get('x-request-id');
    ctx.state.requestId = REQUEST_ID.test(given) ? given : randomUUID();
    ctx.state.startedAt = deps.clock().toISOString();
    ctx.set('X-Request-Id', ctx.state.requestId);
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const line = { requestId: ctx.state.requestId, method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(ms * 10) / 10, userId: (ctx.state.identity as Identity | undefined)?.userId ?? null, code: ctx.state.error?.code };
      // Written right after the answer has gone out (Koa writes it once this chain settles), so
      // the log line (a synchronous write) is not part of the request's latency.
      setImmediate(() => deps.log.info(line, 'request'));
    }
  });
  app.use(errorMiddleware(deps.log));
  // While shutting down: refuse new requests (503), let those in flight finish (bin/server.ts close()).
  if (drain) app.use(drain.middleware);
  app.use(serviceMetricsPaths(deps, access));
  app.use(swaggerMiddleware(doc));
  app.use(consoleMiddleware());
  // JSON bodies only (415 otherwise); read by the route once the caller is known: http/jsonBody.ts.
  // An authenticated caller's body: up to BODY_LIMIT. A public route's (the sign-in): up to
  // LNM_SIGN_IN_BODY_LIMIT, and without credentials within LNM_UNAUTHENTICATED_BODY_SECONDS
  // (also how long a connection answered with its body unread lingers before it is closed).
  const authenticatedReading: BodyReading = { limit: byteSize(deps.config.bodyLimit), limitName: 'BODY_LIMIT' };
  const publicLimit = Math.min(byteSize(deps.config.signInBodyLimit ?? DEFAULT_SIGN_IN_BODY_LIMIT), authenticatedReading.limit);
  const publicTimeoutMs = (deps.config.unauthenticatedBodySeconds ?? DEFAULT_UNAUTHENTICATED_BODY_SECONDS) * 1000;
  app.use(jsonBody({ lingerMs: publicTimeoutMs }));
  const publicReading = (identity: Identity | null): BodyReading => ({ limit: publicLimit, limitName: 'LNM_SIGN_IN_BODY_LIMIT', ...(identity ? {} : { timeoutMs: publicTimeoutMs }) });

  // Routes also grouped by method and first path segment (`POST sc`, `GET networks`): koa-router
  // tests every route's pattern on every request, so a request is first matched against the few
  // routes of its group, in the order of the full table. What its group does not answer (no such
  // route, another method: 404, 405, OPTIONS) falls through to the full router as before. A
  // method with a route whose first segment is a parameter is not grouped (it could match any).
  const groups = new Map<string, Router>();
  const ungrouped = new Set<string>();
  for (const route of routes) {
    const handler: RouterMiddleware = async (ctx) => {
      let identity: Identity | null = null;
      try {
        if (route.permission !== 'PUBLIC') {
          if (!access) throw new AppError(500, 'NO_ACCESS_CONTROL', 'authentication is not configured', { expose: false });
          const refusal = takeBodyRefusal(ctx);
          identity = await access.authenticate(ctx, deps);
          // A body of another content type is answered as before with or without credentials;
          // with them it is a failed write, audited (after hook).
          if (refusal) {
            ctx.state.identity = identity ?? undefined;
            throw refusal;
          }
          // Without credentials the body is never read (and the connection closed: jsonBody).
          if (!identity) throw new UnauthenticatedError();
          ctx.state.identity = identity;
          await access.authorize(identity, route, ctx, deps);
          await readRequestBody(ctx, authenticatedReading);
        } else {
          if (access) {
            identity = await access.authenticate(ctx, deps).catch(() => null);
            ctx.state.identity = identity ?? undefined;
          }
          // A content-type refusal is thrown below, the body unread.
          if (ctx.state.bodyRefusal === undefined) await readRequestBody(ctx, publicReading(identity));
        }
        const refused = takeBodyRefusal(ctx);
        if (refused) throw refused;
        if (route.edition && editionRank[deps.config.edition] < editionRank[route.edition]) {
          throw new EditionRequiredError(route.feature ?? route.summary, route.edition, deps.config.edition);
        }
        const params = route.params ? validate(route.params, { ...ctx.params }, 'path') : ctx.params;
        const query = route.query ? validate(route.query, { ...ctx.query }, 'query') : {};
        const raw = (ctx.request as unknown as { body?: unknown }).body;
        // A route that declares a body needs one: no body is a 400, never an empty object
        // (an empty PUT /settings must not reset every setting).
        if (route.body && raw === undefined) {
          throw new ValidationError('The request body is required: send a JSON object (Content-Type: application/json).', [{ field: 'body', message: 'is required' }], 'BODY_REQUIRED');
        }
        const body = route.body ? validate(route.body, raw, 'body') : undefined;
        ctx.state.route = route;
        const result = await route.handler({ params, query, body, identity, requestId: ctx.state.requestId, ctx, deps } as never);
        if (!route.raw) {
          const r = result ?? {};
          for (const [k, v] of Object.entries(r.headers ?? {})) ctx.set(k, v);
          ctx.status = r.status ?? (r.body === undefined ? 204 : 200);
          if (r.body !== undefined) ctx.body = r.body;
        }
      } catch (err) {
        // Turned into the error body here (not only in errorMiddleware) so that the
        // after-hook (audit) sees the final status.
        const { status, body } = errorBody(err, ctx.state.requestId);
        // Every 503 says when to retry, whichever layer answers it (errorMiddleware does the same).
        if (status === 503) ctx.set('Retry-After', String(retryAfterSeconds(err)));
        if (status >= 500) deps.log.error({ err: { message: (err as Error)?.message, stack: (err as Error)?.stack }, requestId: ctx.state.requestId }, 'request failed');
        ctx.status = status;
        ctx.body = body;
        ctx.state.error = body;
        ctx.state.thrown = err;
      }
      if (access?.after) await access.after(ctx, route, deps).catch((err) => deps.log.error({ err: (err as Error).message }, 'after-request hook failed'));
    };
    router[route.method](route.path, handler);
    const method = route.method.toUpperCase();
    const first = route.path.split('/')[1] ?? '';
    if (!/^[A-Za-z0-9._~-]+$/.test(first)) ungrouped.add(method);
    const key = `${method} ${first.toLowerCase()}`;
    let group = groups.get(key);
    if (!group) groups.set(key, (group = new Router({ prefix: API_PREFIX })));
    group[route.method](route.path, handler);
  }
  const grouped = new Map([...groups].filter(([key]) => !ungrouped.has(key.split(' ')[0])).map(([key, group]) => [key, group.routes() as unknown as Koa.Middleware]));
  app.use((ctx, next) => {
    const path = ctx.path;
    if (!path.startsWith(API_PREFIX + '/')) return next();
    const end = path.indexOf('/', API_PREFIX.length + 1);
    const first = path.slice(API_PREFIX.length + 1, end < 0 ? undefined : end).toLowerCase();
    // HEAD is answered by the GET routes, as koa-router does.
    const dispatch = grouped.get(`${ctx.method === 'HEAD' ? 'GET' : ctx.method} ${first}`);
    return dispatch ? dispatch(ctx, next) : next();
  });
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
