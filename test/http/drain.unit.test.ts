// Graceful shutdown of the HTTP side: once draining, a new request is a 503 in the one error
// shape with Retry-After, while a request already in flight runs to its end and idle() waits
// for it (and says so when the grace period runs out first).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import Koa from 'koa';
import type { AddressInfo } from 'node:net';
import { createDrain } from '../../http/drain.ts';
import { errorMiddleware } from '../../http/errors.ts';

function appWith(drain: ReturnType<typeof createDrain>, gate: Promise<void>) {
  const app = new Koa();
  app.use(async (ctx, next) => {
    ctx.state.requestId = 'req-1';
    await next();
  });
  app.use(errorMiddleware({ error: () => undefined }));
  app.use(drain.middleware);
  app.use(async (ctx) => {
    if (ctx.path === '/slow') await gate;
    ctx.body = { ok: true };
  });
  return app;
}

test('a request in flight finishes after draining starts; a new one is a retryable 503; idle() waits for the first', async () => {
  const drain = createDrain();
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  const server = appWith(drain, gate).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const slow = fetch(`${base}/slow`);
    while (drain.inFlight() === 0) await new Promise((r) => setTimeout(r, 5));
    drain.start();
    const refused = await fetch(`${base}/fast`);
    assert.is(refused.status, 503);
    assert.is(refused.headers.get('retry-after'), '5');
    const body = (await refused.json()) as { code: string; message: string; requestId: string };
    assert.is(body.code, 'UNAVAILABLE');
    assert.match(body.message, 'shutting down');
    assert.is(body.requestId, 'req-1');

    assert.is(await drain.idle(50), false, 'the slow request still runs');
    const idle = drain.idle(5_000);
    open();
    assert.is((await slow).status, 200, 'the request in flight got its answer');
    assert.is(await idle, true);
    assert.is(drain.inFlight(), 0);
  } finally {
    server.close();
  }
});

test('idle() resolves at once when nothing is in flight', async () => {
  assert.is(await createDrain().idle(1), true);
});

test.run();
