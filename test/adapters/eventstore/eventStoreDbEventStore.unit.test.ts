import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer } from 'node:net';
import { randomUUID } from 'node:crypto';
import { UnavailableError } from '../../../domain/shared/errors.ts';
import { eventStoreDbEventStore } from '../../../adapters/eventstore/eventStoreDbEventStore.ts';

/** A loopback port with nothing listening on it: the server is down. */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

test('with the server down, ping, reads and appends fail with a 503 that names neither the address nor the password', async () => {
  const port = await closedPort();
  const store = eventStoreDbEventStore(`kurrentdb://admin:s3cret-pw@127.0.0.1:${port}?tls=false`, { logStream: `lnm-log-${randomUUID()}` });
  assert.is(store.kind, 'eventstoredb');
  const attempts: Array<[string, () => Promise<unknown>]> = [
    ['ping', () => store.ping()],
    ['headPosition', () => store.headPosition()],
    ['readAll', () => store.readAll(0, 10)],
    ['append', () => store.append('s', 0, [{ id: randomUUID(), type: 'A', data: {} }], { timestamp: new Date().toISOString() })],
  ];
  for (const [name, call] of attempts) {
    try {
      await call();
      assert.unreachable(`${name} succeeded without a server`);
    } catch (err) {
      assert.instance(err, UnavailableError, name);
      assert.is((err as UnavailableError).status, 503);
      const text = (err as Error).message + JSON.stringify((err as UnavailableError).extra);
      assert.not.match(text, /s3cret-pw|admin|127\.0\.0\.1|:\d{4,5}/, name);
    }
  }
  await store.close();
});

test.run();
