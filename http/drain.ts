// Graceful shutdown of the HTTP side: once draining starts, a request that arrives is refused with
// a retryable 503 (the one error shape, Retry-After, Connection: close) while the requests already
// in flight run to their end; `idle()` tells when the last one has. Only then may the caller stop
// the sagas and close the database pool, so no acknowledged write is cut off half way and no
// handler finds the pool gone under it.
import type Koa from 'koa';
import { UnavailableError } from '../domain/shared/errors.ts';

export interface Drain {
  middleware: Koa.Middleware;
  /** Refuse new requests from now on. */
  start(): void;
  /** Resolves true when no request is in flight, false when `timeoutMs` passed first. */
  idle(timeoutMs: number): Promise<boolean>;
  inFlight(): number;
}

export function createDrain(): Drain {
  let draining = false;
  let inFlight = 0;
  let waiters: Array<() => void> = [];
  const settle = () => {
    if (inFlight > 0) return;
    const ready = waiters;
    waiters = [];
    for (const w of ready) w();
  };
  return {
    async middleware(ctx, next) {
      // Every request counts until its answer has left (the response's 'close'), the refused ones
      // too: closing the connections while an answer is still being written turns it into a reset.
      inFlight++;
      ctx.res.once('close', () => {
        inFlight--;
        settle();
      });
      if (draining) {
        // Read what the client sent before answering: closing a socket with unread request bytes
        // makes the kernel reset it, and the client would see a reset instead of this 503.
        await drainRequestBody(ctx.req);
        ctx.set('Connection', 'close');
        ctx.set('Retry-After', '5');
        throw new UnavailableError('The service is shutting down; retry in a few seconds (or against another instance).');
      }
      await next();
    },
    start() {
      draining = true;
    },
    idle(timeoutMs) {
      if (inFlight === 0) return Promise.resolve(true);
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          waiters = waiters.filter((w) => w !== done);
          resolve(false);
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          resolve(true);
        };
        waiters.push(done);
      });
    },
    inFlight: () => inFlight,
  };
}

/** Consumes (and discards) a request body, for at most 2 s. */
function drainRequestBody(req: Koa.Context['req']): Promise<void> {
  if (req.readableEnded) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(done, 2_000);
    req.once('end', done);
    req.once('error', done);
    req.resume();
  });
}
