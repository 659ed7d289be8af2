// The request body parser of /api/v1: JSON only, bounded in size and in depth.
// - A body (Content-Length above 0, or any Transfer-Encoding) must be `application/json`
//   (charset utf-8 if one is named, no Content-Encoding): anything else is a 415 before a byte is
//   read, so a text/plain or a `+json` body can never reach a route as an empty object.
// - At most BODY_LIMIT bytes (413), then at most MAX_JSON_DEPTH levels of arrays and objects:
//   the depth is counted on the text before JSON.parse, so no recursive code (templates, plugin
//   parameters, validation) ever sees thousands of levels (400 JSON_TOO_DEEP).
// - Only an object or an array at the top (400 MALFORMED_JSON otherwise).
// - No body, or only whitespace: ctx.request.body stays undefined, and a route that declares a
//   body answers 400 BODY_REQUIRED (http/app.ts), never "an empty object".
// - Nothing is read before the caller is known (issue 36, item 5): this middleware only checks
//   the content type; the route that matches reads the body with readRequestBody once it has
//   authenticated the caller (http/app.ts). A request without credentials to a route that needs
//   them is answered 401 with its body unread, a request no route matches 404/405; either
//   answer closes the connection, so an unread body is never drained from a kept-alive one.
// - Public routes (the sign-in) read at most LNM_SIGN_IN_BODY_LIMIT bytes, and a caller without
//   credentials must send the whole body within LNM_UNAUTHENTICATED_BODY_SECONDS (408 and the
//   connection closed otherwise): docs/security.md.
// - A refusal of the content type is not thrown here but left in ctx.state.bodyRefusal: the
//   route that matches throws it once it knows who is calling (http/app.ts), so an
//   authenticated caller's refused body is audited like any other failed write; a request no
//   route matches is refused here.
import type Koa from 'koa';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { AppError } from '../domain/shared/errors.ts';
import { MAX_JSON_DEPTH } from '../domain/shared/valueDepth.ts';

/** Levels of nested arrays and objects a request body may have; documented in docs/api.md. */
export { MAX_JSON_DEPTH };

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** '1mb', '512kb', '100b' or a plain number of bytes. */
export function byteSize(limit: string | number): number {
  if (typeof limit === 'number') return limit;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?\s*$/i.exec(limit);
  if (!m) throw new Error(`not a size: ${limit}`);
  const unit = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 }[(m[2] ?? 'b').toLowerCase() as 'b'];
  return Math.floor(Number(m[1]) * unit);
}

function hasBody(req: IncomingMessage): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = Number(req.headers['content-length']);
  return Number.isFinite(length) && length > 0;
}

/** The deepest nesting of arrays and objects in a JSON text, stopping once it exceeds `max`. */
export function jsonDepthExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** Reads the body up to `limit` bytes, within `timeoutMs` if given; stops reading at the first refusal. */
function readText(req: IncomingMessage, limit: number, limitName: string, timeoutMs?: number): Promise<string> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(tooLarge(limitName));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (err: Error | null, text?: string) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onAborted);
      if (timer) clearTimeout(timer);
      // Stop reading; the connection is closed after the answer (jsonBody below).
      if (err) req.pause();
      if (err) reject(err);
      else resolve(text!);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) return done(tooLarge(limitName));
      chunks.push(chunk);
    };
    // Invalid UTF-8 becomes U+FFFD, which is storable text.
    const onEnd = () => done(null, Buffer.concat(chunks).toString('utf8'));
    const onError = (err: Error) => done(new AppError(400, 'BAD_REQUEST', `The request body could not be read: ${err.message}.`));
    const onAborted = () => done(new AppError(400, 'BAD_REQUEST', 'The client stopped sending the request body.'));
    const timer = timeoutMs
      ? setTimeout(() => done(new AppError(408, 'REQUEST_TIMEOUT', `The request body did not arrive within ${Math.round(timeoutMs / 100) / 10} s (a request without credentials must send its body at once: LNM_UNAUTHENTICATED_BODY_SECONDS).`)), timeoutMs)
      : null;
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onAborted);
  });
}

const tooLarge = (limitName: string) => new AppError(413, 'PAYLOAD_TOO_LARGE', `The request body is larger than the server accepts (see ${limitName}).`);
const malformed = (why: string) => new AppError(400, 'MALFORMED_JSON', `The request body is not valid JSON: ${why}.`);

/** The body refusal the matched route throws after authentication (and removes), if any. */
export function takeBodyRefusal(ctx: Koa.Context): AppError | undefined {
  const refusal = ctx.state.bodyRefusal as AppError | undefined;
  ctx.state.bodyRefusal = undefined;
  return refusal;
}

/** How the matched route reads its body (http/app.ts): the size limit and its setting's name, and for callers without credentials a time bound. */
export interface BodyReading {
  limit: number;
  limitName: string;
  timeoutMs?: number;
}

export function jsonBody(opts: { lingerMs: number }): Koa.Middleware {
  return async (ctx, next) => {
    if (!ctx.path.startsWith('/api/v1') || !BODY_METHODS.has(ctx.method) || !hasBody(ctx.req)) return next();
    try {
      checkType(ctx);
      ctx.state.bodyUnread = true;
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      ctx.state.bodyRefusal = err;
    }
    try {
      await next();
      // No route took it (no route matches): refused here, as before any route existed.
      const left = takeBodyRefusal(ctx);
      if (left) throw left;
    } finally {
      // Answered without reading the whole body (no credentials, no route, a refusal): the
      // connection is closed after the answer rather than the rest drained from it.
      if (ctx.state.bodyUnread || ctx.state.bodyRefusal !== undefined || ctx.state.bodyCutOff) {
        ctx.set('Connection', 'close');
        lingerOnClose(ctx.req.socket, opts.lingerMs);
      }
    }
  };
}

/**
 * How a connection answered with its body unread is closed: the answer, then a half-close (FIN),
 * then whatever the client still sends is read and dropped until it closes its side or `ms` pass.
 * Node would close at once (destroySoon after the answer), and closing a socket with unread
 * bytes makes the kernel send a reset, on which a client that has not yet read the answer (a
 * busy one) loses it. Bounded in time, as nginx's lingering_time: the bytes are never kept.
 */
function lingerOnClose(socket: Socket, ms: number): void {
  socket.destroySoon = function lingeringClose(this: Socket) {
    const timer = setTimeout(() => this.destroy(), ms);
    timer.unref();
    this.once('close', () => clearTimeout(timer));
    this.once('end', () => this.destroy());
    this.end();
    // The request is dumped by the server once answered: resuming the socket reads and drops.
    this.resume();
  };
}

function checkType(ctx: Koa.Context): void {
  const type = ctx.request.type; // media type without parameters, lower case
  const charset = (ctx.request.charset || 'utf-8').toLowerCase();
  const encoding = (ctx.get('content-encoding') || 'identity').toLowerCase();
  if (type !== 'application/json' || (charset !== 'utf-8' && charset !== 'utf8') || encoding !== 'identity') {
    throw new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send the request body as application/json (UTF-8, not compressed).');
  }
}

/**
 * Reads and parses the body the content-type check let through, once the route knows who is
 * calling; ctx.request.body stays undefined without one. A refusal is thrown (413, 408, 400).
 */
export async function readRequestBody(ctx: Koa.Context, reading: BodyReading): Promise<void> {
  if (!ctx.state.bodyUnread) return;
  ctx.state.bodyUnread = false;
  let text: string;
  try {
    text = await readText(ctx.req, reading.limit, reading.limitName, reading.timeoutMs);
  } catch (err) {
    ctx.state.bodyCutOff = true;
    throw err;
  }
  if (text.trim() === '') return;
  if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) {
    throw new AppError(400, 'JSON_TOO_DEEP', `The request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep.`);
  }
  const first = text.trimStart()[0];
  if (first !== '{' && first !== '[') throw malformed('the body must be an object or an array');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw malformed('it does not parse');
  }
  (ctx.request as unknown as { body?: unknown }).body = parsed;
}
