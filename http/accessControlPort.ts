// The port through which the app asks who is calling and whether they may: kept apart from
// app.ts so the middlewares that need it (service metrics, node log sockets) do not import the app.
import type Koa from 'koa';
import type { AppDeps } from '../application/deps.ts';
import type { Identity } from '../application/identity.ts';
import type { RouteDef } from './route.ts';

/** Authentication and authorization, supplied by http/auth (identity issue) or left out. */
export interface AccessControl {
  /** Resolve credentials to an identity; null when none were sent. Throws UnauthenticatedError on bad ones. */
  authenticate(ctx: Koa.Context, deps: AppDeps): Promise<Identity | null>;
  /** Throws ForbiddenError (and records the denial) when the identity lacks the permission. */
  authorize(identity: Identity, route: RouteDef, ctx: Koa.Context, deps: AppDeps): Promise<void>;
  /** Called after every request (audit of failures, sessions). */
  after?(ctx: Koa.Context, route: RouteDef, deps: AppDeps): Promise<void>;
}
