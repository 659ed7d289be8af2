// The contract every event store adapter must pass. Each adapter's test file calls
// eventStoreContract() with a factory for a fresh, empty store.
import { suite } from 'uvu';
import { requires, type Dependency } from '../../helpers/requirements.ts';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import type { EventStore, NewEvent, RecordedEvent } from '../../../domain/shared/eventStore.ts';
import { DuplicateEventError, WrongExpectedVersionError } from '../../../domain/shared/errors.ts';

export interface ContractTarget {
  store: EventStore;
  cleanup(): Promise<void>;
}

const meta = () => ({ timestamp: new Date().toISOString(), requestId: randomUUID() });
const ev = (type: string, data: Record<string, string | number | boolean> = {}): NewEvent => ({ id: randomUUID(), type, data });
const stream = (p = 'thing') => `${p}-${randomUUID()}`;

/** `missing`: why this store cannot be had here; its tests are then counted skips (helpers/requirements.ts). */
export function eventStoreContract(name: string, make: () => Promise<ContractTarget>, missing?: [Dependency, string | undefined]): void {
  const base = suite<{ target?: ContractTarget }>(`event store contract: ${name}`, {});
  const t = missing ? requires(base, missing[0], missing[1]) : base;
  t.before(async (ctx) => {
    ctx.target = await make();
  });
  t.after(async (ctx) => {
    await ctx.target?.cleanup();
  });

  t('appending to a new stream with expected version 0 gives versions 1..n and increasing positions', async ({ target }) => {
    const s = stream();
    const r = await target!.store.append(s, 0, [ev('A', { n: 1 }), ev('B', { n: 2 })], meta());
    assert.is(r.nextVersion, 2);
    assert.is(r.events[0].version, 1);
    assert.is(r.events[1].position, r.events[0].position + 1);
    const read = await target!.store.readStream(s);
    assert.equal(read.map((e) => [e.type, e.version, e.data.n]), [['A', 1, 1], ['B', 2, 2]]);
  });

  t('a wrong expected version is a typed conflict that names the actual version, and appends nothing', async ({ target }) => {
    const s = stream();
    await target!.store.append(s, 0, [ev('A')], meta());
    try {
      await target!.store.append(s, 0, [ev('B')], meta());
      assert.unreachable('should have thrown');
    } catch (err) {
      assert.instance(err, WrongExpectedVersionError);
      assert.is((err as WrongExpectedVersionError).actual, 1);
    }
    assert.is((await target!.store.readStream(s)).length, 1);
  });

  t('concurrent appends at the same expected version: exactly one wins, the others conflict, nothing lost or duplicated', async ({ target }) => {
    const s = stream();
    await target!.store.append(s, 0, [ev('Opened')], meta());
    const attempts = Array.from({ length: 12 }, (_, i) => target!.store.append(s, 1, [ev('Changed', { by: i })], meta()));
    const results = await Promise.allSettled(attempts);
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
    assert.is(won.length, 1);
    assert.is(lost.length, 11);
    for (const l of lost) assert.instance(l.reason, WrongExpectedVersionError);
    const read = await target!.store.readStream(s);
    assert.is(read.length, 2);
    assert.is(read[1].data.by, ((won[0] as PromiseFulfilledResult<{ events: RecordedEvent[] }>).value.events[0].data.by));
  });

  t("expected version 'any' appends whatever the stream's version", async ({ target }) => {
    const s = stream();
    await target!.store.append(s, 'any', [ev('A')], meta());
    const r = await target!.store.append(s, 'any', [ev('B')], meta());
    assert.is(r.nextVersion, 2);
  });

  t('global positions are gapless and in commit order across concurrently written streams', async ({ target }) => {
    const store = target!.store;
    const start = await store.headPosition();
    await Promise.all(Array.from({ length: 20 }, () => store.append(stream('p'), 0, [ev('X'), ev('Y')], meta())));
    const all = await store.readAll(start, 1000);
    assert.is(all.length, 40);
    all.forEach((e, i) => assert.is(e.position, start + i + 1));
  });

  t('the same event id cannot be appended twice (idempotent retries are detected)', async ({ target }) => {
    const e = ev('Once');
    await target!.store.append(stream(), 0, [e], meta());
    try {
      await target!.store.append(stream(), 0, [e], meta());
      assert.unreachable('should have thrown');
    } catch (err) {
      assert.instance(err, DuplicateEventError);
    }
  });

  t('the hash chain over everything appended so far verifies', async ({ target }) => {
    const v = await target!.store.verify(1);
    assert.ok(v.ok, JSON.stringify(v.firstMismatch));
    assert.ok(v.checked > 40);
    const mid = await target!.store.verify(10, 20);
    assert.ok(mid.ok);
    assert.is(mid.checked, 11);
  });

  t('a subscription delivers past events from its checkpoint, then new ones, in order', async ({ target }) => {
    const store = target!.store;
    const from = await store.headPosition();
    const s = stream();
    await store.append(s, 0, [ev('One')], meta());
    const seen: number[] = [];
    let resolveDone!: () => void;
    const done = new Promise<void>((r) => (resolveDone = r));
    const sub = store.subscribe(from, async (batch) => {
      for (const e of batch) {
        if (e.streamId !== s) continue;
        seen.push(e.version);
        if (seen.length === 3) resolveDone();
      }
    });
    await store.append(s, 1, [ev('Two'), ev('Three')], meta());
    await Promise.race([done, new Promise((_, rej) => setTimeout(() => rej(new Error('subscription did not deliver')), 10_000))]);
    await sub.close();
    assert.equal(seen, [1, 2, 3]);
  });

  t.run();
}
