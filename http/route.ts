// A route is declared once: method, path, permission, schemas and handler. The same
// declaration validates requests (http/validation.ts) and builds the OpenAPI document
// (http/openapi.ts), so the two cannot drift.
import type { Static, TSchema } from '@sinclair/typebox';
import type Koa from 'koa';
import type { AppDeps } from '../application/deps.ts';
import type { Identity } from '../application/identity.ts';

/** `PUBLIC` needs no credentials; otherwise a named permission of domain/users/permissions.ts. */
export type RoutePermission = 'PUBLIC' | string;

export interface ResponseSpec {
  description: string;
  schema?: TSchema;
  /** Defaults to application/json. */
  contentType?: string;
}

export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  identity: Identity | null;
  requestId: string;
  ctx: Koa.Context;
  deps: AppDeps;
}

export interface RouteResult {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface RouteDef<P extends TSchema = TSchema, Q extends TSchema = TSchema, B extends TSchema = TSchema> {
  method: 'get' | 'post' | 'put' | 'delete' | 'patch';
  /** Koa style, relative to /api/v1: '/nodes/:id'. */
  path: string;
  summary: string;
  description?: string;
  tags: string[];
  permission: RoutePermission;
  /** Feature gated by edition. */
  edition?: 'pro' | 'enterprise';
  /** Name of the feature for edition errors, e.g. "API keys". */
  feature?: string;
  params?: P;
  query?: Q;
  body?: B;
  responses: Record<number, ResponseSpec>;
  /** The handler takes over the raw response (file downloads, WebSocket upgrades). */
  raw?: boolean;
  handler(input: RouteInput<Static<P>, Static<Q>, Static<B>>): Promise<RouteResult | void>;
}

/** Keeps the generic types of each route while collecting them in one array. */
export function defineRoute<P extends TSchema, Q extends TSchema, B extends TSchema>(route: RouteDef<P, Q, B>): RouteDef {
  return route as unknown as RouteDef;
}
