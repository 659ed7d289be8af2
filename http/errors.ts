// One error body for every error: { status, code, message, details?, context?, requestId }.
import type Koa from 'koa';
import { Type } from '@sinclair/typebox';
import { STATUS_CODES } from 'node:http';
import { randomUUID } from 'node:crypto';
import { AppError } from '../domain/shared/errors.ts';

export const ErrorBody = Type.Object(
  {
    status: Type.Integer({ description: 'HTTP status code' }),
    code: Type.String({ description: 'machine-readable error code, e.g. VALIDATION_FAILED, NOT_FOUND, CONFLICT' }),
    message: Type.String({ description: 'what went wrong and what to do about it' }),
    details: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }), { description: 'field-level problems of a validation error' })),
    context: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'extra facts, e.g. what still uses a resource' })),
    requestId: Type.String({ description: 'quote it when reporting a problem; also in the X-Request-Id header' }),
  },
  { $id: 'ErrorBody' },
);

export interface ErrorLogger {
  error(obj: Record<string, unknown>, msg: string): void;
}

/** Converts a thrown error into the error body; unknown errors become a 500 that says nothing internal. */
export function errorBody(err: unknown, requestId: string): { status: number; body: Record<string, unknown> } {
  if (err instanceof AppError) {
    return {
      status: err.status,
      body: {
        status: err.status,
        code: err.code,
        message: err.expose ? err.message : 'The server could not complete the request.',
        ...(err.details ? { details: err.details } : {}),
        ...(err.extra && err.expose ? { context: err.extra } : {}),
        requestId,
      },
    };
  }
  const e = err as { status?: number; statusCode?: number; type?: string; expose?: boolean; message?: string; code?: unknown; severity?: unknown };
  // The SQL parameter layer's last word on input: PostgreSQL refusing a value (class 22, data
  // exception: a number out of range, text it cannot store, a malformed literal) is bad input that
  // validation should have caught (http/validation.ts). Say so as a 400, never a 500.
  if (typeof e.code === 'string' && /^22[0-9A-Z]{3}$/.test(e.code) && typeof e.severity === 'string') {
    return { status: 400, body: { status: 400, code: 'UNSTORABLE_VALUE', message: 'The request contains a value the database cannot store (out of range, or a character such as NUL).', requestId } };
  }
  const status = e.status ?? e.statusCode;
  // Errors from Koa itself and the HTTP parser (bad encodings, aborted requests).
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const code =
      status === 413 ? 'PAYLOAD_TOO_LARGE' :
      status === 415 ? 'UNSUPPORTED_MEDIA_TYPE' :
      e.type === 'entity.parse.failed' ? 'MALFORMED_JSON' : 'BAD_REQUEST';
    const message =
      code === 'PAYLOAD_TOO_LARGE' ? 'The request body is larger than the server accepts (see BODY_LIMIT).' :
      code === 'MALFORMED_JSON' ? 'The request body is not valid JSON.' :
      e.expose && e.message ? e.message : 'The request could not be understood.';
    return { status, body: { status, code, message, requestId } };
  }
  return { status: 500, body: { status: 500, code: 'INTERNAL', message: 'The server could not complete the request. Quote the request id when reporting it.', requestId } };
}

export function errorMiddleware(log: ErrorLogger): Koa.Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        ctx.status = 404;
        ctx.body = { status: 404, code: 'ROUTE_NOT_FOUND', message: `No route ${ctx.method} ${ctx.path}. See /api/swagger/doc.json.`, requestId: ctx.state.requestId };
      } else if ((ctx.status === 405 || ctx.status === 501) && ctx.body === undefined) {
        // 501 is the router's answer to a method it implements nowhere (PROPFIND, say): a client's
        // mistake like any other method a path does not take, so a 405, not a 5xx.
        ctx.status = 405;
        ctx.body = { status: 405, code: 'METHOD_NOT_ALLOWED', message: `${ctx.method} is not allowed on ${ctx.path}.`, requestId: ctx.state.requestId };
      }
    } catch (err) {
      const { status, body } = errorBody(err, ctx.state.requestId);
      // Every 503 is worth retrying (a node electing a leader, read models catching up, a shutdown):
      // say when, on every path, so clients need no per-route knowledge.
      if (status === 503) ctx.set('Retry-After', String(retryAfterSeconds(err)));
      if (status >= 500) log.error({ err: { message: (err as Error)?.message, stack: (err as Error)?.stack }, requestId: ctx.state.requestId }, 'request failed');
      ctx.status = status;
      ctx.body = body;
      ctx.state.error = body;
    }
  };
}

/** The error's own retryAfterSeconds (context), else 5. */
export function retryAfterSeconds(err: unknown): number {
  const given = err instanceof AppError ? Number(err.extra?.retryAfterSeconds) : NaN;
  return Number.isInteger(given) && given > 0 ? given : 5;
}

/**
 * Requests Node's HTTP parser refuses before Koa sees them (headers or a URL over the size limit,
 * a malformed request line, a request that timed out) get the one error body too, not Node's
 * bare status line. For the server's 'clientError' event.
 */
export function clientErrorHandler(err: Error & { code?: string }, socket: import('node:stream').Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const code = status === 431 ? 'HEADERS_TOO_LARGE' : status === 408 ? 'REQUEST_TIMEOUT' : 'BAD_REQUEST';
  const message =
    status === 431 ? 'The request line or headers are larger than the server accepts (16 KiB).' :
    status === 408 ? 'The request was not received in time.' : 'The request is not valid HTTP.';
  const requestId = randomUUID();
  const body = JSON.stringify({ status, code, message, requestId });
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`);
}
