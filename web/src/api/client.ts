// The typed API client: openapi-fetch over the paths generated from the service's own OpenAPI
// document (schema.d.ts, by web/scripts/openapi.ts). Same origin, the session cookie rides along.
// Every call also says it comes from the console's own script (X-Requested-With): the service
// refuses a state change made with the session cookie from another origin, and this header is
// what shows a request without Origin (docs/security.md, cross-site requests) is not one.
import createClient from 'openapi-fetch';
import type { paths } from './schema';

export type { paths };

/** Sent on every API call of the console. */
export const CONSOLE_HEADERS = { 'x-requested-with': 'lnm-console' } as const;

export const api = createClient<paths>({ baseUrl: '', credentials: 'same-origin', headers: CONSOLE_HEADERS });

/** The JSON body of a path's 200 (or 201) answer. */
export type Json<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends { responses: infer R }
  ? R extends { 200: { content: { 'application/json': infer J } } }
    ? J
    : R extends { 201: { content: { 'application/json': infer J } } }
      ? J
      : never
  : never;

/** The service's one error shape (http/errors.ts), with the HTTP status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Array<{ field: string; message: string }> = [],
    readonly retryAfter: number | null = null,
    /** Extra facts the API gives with some errors (e.g. the organizations whose signatures are missing). */
    readonly context: Record<string, unknown> = {},
  ) {
    super(message);
  }

  static from(response: Response, body: unknown): ApiError {
    const b = (body && typeof body === 'object' ? body : {}) as { code?: string; message?: string; details?: Array<{ field: string; message: string }>; context?: Record<string, unknown> };
    const retry = Number(response.headers.get('retry-after'));
    return new ApiError(response.status, b.code ?? `HTTP_${response.status}`, b.message ?? (response.statusText || `HTTP ${response.status}`), b.details ?? [], Number.isFinite(retry) && retry > 0 ? retry : null, b.context && typeof b.context === 'object' ? b.context : {});
  }
}

/** The data of a successful call, or an ApiError. */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const r = await call;
  if (!r.response.ok) throw ApiError.from(r.response, r.error);
  return r.data as T;
}

/** For the few routes whose answers the OpenAPI document leaves untyped (node events). */
export async function getJson<T>(url: string): Promise<T> {
  const r = await fetch(url, { credentials: 'same-origin', headers: { ...CONSOLE_HEADERS, accept: 'application/json' } });
  const body = await r.json().catch(() => null);
  if (!r.ok) throw ApiError.from(r, body);
  return body as T;
}
