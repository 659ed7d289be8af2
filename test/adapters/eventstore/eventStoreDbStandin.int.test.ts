// The EventStoreDB adapter through the real KurrentDB client (gRPC for appends and subscriptions,
// the native bridge for reads) against a stand-in server, since no EventStoreDB/KurrentDB server
// can run here. The stand-in speaks the server's v1 Streams gRPC API for the calls the adapter
// makes, and checks what the server checks: expected revisions (with the server's idempotent
// replay of a repeated append), required event metadata, stream-not-found on reads.
// eventStoreDbEventStore.int.test.ts runs the same contract against a real server.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import streamsGrpc from '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v1/streams_grpc_pb.js';
import streamsPb from '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v1/streams_pb.js';
import sharedPb from '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v1/shared_pb.js';
import { jsonEvent, KurrentDBClient, NO_STREAM, WrongExpectedVersionError as ClientWrongExpectedVersion } from '@kurrent/kurrentdb-client';
import { eventStoreContract } from './eventStoreContract.ts';
import { onGlobalTeardown } from '../../helpers/globalTeardown.ts';
import { DuplicateEventError, WrongExpectedVersionError } from '../../../domain/shared/errors.ts';
import type { NewEvent } from '../../../domain/shared/eventStore.ts';
import { eventStoreDbEventStore } from '../../../adapters/eventstore/eventStoreDbEventStore.ts';

const { ReadReq, ReadResp, AppendReq, AppendResp } = streamsPb;

interface StoredEvent {
  id: string;
  type: string;
  contentType: string;
  created: string;
  data: Uint8Array;
  metadata: Uint8Array;
  commit: number;
}

interface Standin {
  url: string;
  streams: Map<string, StoredEvent[]>;
  /** Ends every live subscription with UNAVAILABLE, as a server restart or leader change does. */
  dropSubscriptions(): void;
  /** Live subscriptions and plain reads served, per stream. */
  served(stream: string): { live: number; reads: number };
  stop(): Promise<void>;
}

async function startStandin(): Promise<Standin> {
  const streams = new Map<string, StoredEvent[]>();
  const appended = new EventEmitter();
  appended.setMaxListeners(0);
  const live = new Map<grpc.ServerWritableStream<streamsPb.ReadReq, streamsPb.ReadResp>, string>();
  const reads = new Map<string, number>();
  let commit = 0;
  const name = (id: sharedPb.StreamIdentifier | undefined) => Buffer.from(id?.getStreamName_asU8() ?? new Uint8Array()).toString('utf8');
  const uuid = (u: sharedPb.UUID | undefined) => (u?.getValueCase() === sharedPb.UUID.ValueCase.STRING ? u.getString() : '');

  function readEvent(stream: string, revision: number, e: StoredEvent): streamsPb.ReadResp {
    const rec = new ReadResp.ReadEvent.RecordedEvent();
    rec.setId(new sharedPb.UUID().setString(e.id));
    rec.setStreamIdentifier(new sharedPb.StreamIdentifier().setStreamName(Buffer.from(stream)));
    rec.setStreamRevision(String(revision));
    rec.setCommitPosition(String(e.commit));
    rec.setPreparePosition(String(e.commit));
    rec.getMetadataMap().set('type', e.type).set('content-type', e.contentType).set('created', e.created);
    rec.setCustomMetadata(e.metadata);
    rec.setData(e.data);
    const ev = new ReadResp.ReadEvent().setEvent(rec).setCommitPosition(String(e.commit));
    return new ReadResp().setEvent(ev);
  }

  function read(call: grpc.ServerWritableStream<streamsPb.ReadReq, streamsPb.ReadResp>) {
    const opts = call.request.getOptions();
    const so = opts?.getStream();
    if (!opts || !so || opts.getUuidOption()?.getContentCase() !== ReadReq.Options.UUIDOption.ContentCase.STRING) {
      call.destroy(Object.assign(new Error('the stand-in serves stream reads with string uuids only'), { code: grpc.status.UNIMPLEMENTED }));
      return;
    }
    const stream = name(so.getStreamIdentifier());
    const events = streams.get(stream) ?? [];
    const Rev = ReadReq.Options.StreamOptions.RevisionOptionCase;
    const revCase = so.getRevisionOptionCase();
    if (opts.getCountOptionCase() === ReadReq.Options.CountOptionCase.SUBSCRIPTION) {
      // Catch-up from after the given revision (or all, or nothing for END), then live.
      let next = revCase === Rev.START ? 0 : revCase === Rev.END ? events.length : Number(so.getRevision()) + 1;
      call.write(new ReadResp().setConfirmation(new ReadResp.SubscriptionConfirmation().setSubscriptionId(randomUUID())));
      const push = () => {
        const all = streams.get(stream) ?? [];
        while (next < all.length) call.write(readEvent(stream, next, all[next])), next++;
      };
      push();
      appended.on(stream, push);
      live.set(call, stream);
      const stop = () => {
        appended.off(stream, push);
        live.delete(call);
      };
      call.on('cancelled', stop);
      call.on('close', stop);
      call.on('error', stop);
      return;
    }
    reads.set(stream, (reads.get(stream) ?? 0) + 1);
    if (!streams.has(stream)) {
      call.write(new ReadResp().setStreamNotFound(new ReadResp.StreamNotFound().setStreamIdentifier(so.getStreamIdentifier())));
      call.end();
      return;
    }
    const count = Number(opts.getCount());
    const forwards = opts.getReadDirection() === ReadReq.Options.ReadDirection.FORWARDS;
    let r = revCase === Rev.START ? 0 : revCase === Rev.END ? events.length - 1 : Number(so.getRevision());
    if (!forwards) r = Math.min(r, events.length - 1);
    for (let sent = 0; sent < count && r >= 0 && r < events.length; sent++, r += forwards ? 1 : -1) call.write(readEvent(stream, r, events[r]));
    call.end();
  }

  function append(call: grpc.ServerReadableStream<streamsPb.AppendReq, streamsPb.AppendResp>, done: grpc.sendUnaryData<streamsPb.AppendResp>) {
    let options: streamsPb.AppendReq.Options | undefined;
    const proposed: StoredEvent[] = [];
    let invalid: string | null = null;
    call.on('data', (m: streamsPb.AppendReq) => {
      if (m.getContentCase() === AppendReq.ContentCase.OPTIONS) options = m.getOptions();
      else {
        const p = m.getProposedMessage()!;
        const md = p.getMetadataMap();
        const type = md.get('type');
        const contentType = md.get('content-type');
        if (!type || !contentType) invalid = 'Required metadata property is missing: type and content-type';
        proposed.push({ id: uuid(p.getId()), type: type ?? '', contentType: contentType ?? '', created: String(Date.now() * 10_000), data: p.getData_asU8(), metadata: p.getCustomMetadata_asU8(), commit: 0 });
      }
    });
    call.on('end', () => {
      if (!options) return done({ code: grpc.status.INVALID_ARGUMENT, details: 'append without options' });
      if (invalid) return done({ code: grpc.status.INVALID_ARGUMENT, details: invalid });
      const stream = name(options.getStreamIdentifier());
      const existing = streams.get(stream);
      const current = existing ? existing.length - 1 : -1;
      const Exp = AppendReq.Options.ExpectedStreamRevisionCase;
      const expCase = options.getExpectedStreamRevisionCase();
      const expected = expCase === Exp.REVISION ? Number(options.getRevision()) : expCase === Exp.NO_STREAM ? -1 : null;
      const success = (revision: number) =>
        done(null, new AppendResp().setSuccess(new AppendResp.Success().setCurrentRevision(String(revision)).setPosition(new AppendResp.Position().setCommitPosition(String(commit)).setPreparePosition(String(commit)))));
      // The server's idempotency: the same ids already written right after the expected revision
      // count as a retry of that write and succeed without writing again.
      if (expected !== null && existing && proposed.every((p, i) => existing[expected + 1 + i]?.id === p.id)) return success(expected + proposed.length);
      const ok = expCase === Exp.ANY || (expCase === Exp.STREAM_EXISTS ? current >= 0 : expected === current);
      if (!ok) {
        const wev = new AppendResp.WrongExpectedVersion();
        if (current >= 0) wev.setCurrentRevision(String(current));
        else wev.setCurrentNoStream(new sharedPb.Empty());
        if (expCase === Exp.REVISION) wev.setExpectedRevision(String(expected));
        else if (expCase === Exp.NO_STREAM) wev.setExpectedNoStream(new sharedPb.Empty());
        else wev.setExpectedStreamExists(new sharedPb.Empty());
        return done(null, new AppendResp().setWrongExpectedVersion(wev));
      }
      const list = existing ?? [];
      for (const p of proposed) list.push({ ...p, commit: ++commit });
      streams.set(stream, list);
      appended.emit(stream);
      success(list.length - 1);
    });
  }

  const server = new grpc.Server();
  server.addService(streamsGrpc.StreamsService, { read, append } as unknown as grpc.UntypedServiceImplementation);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    server.forceShutdown();
  };
  onGlobalTeardown(stop);
  const dropSubscriptions = () => {
    for (const call of [...live.keys()]) {
      live.delete(call);
      call.emit('error', Object.assign(new Error('server is restarting'), { code: grpc.status.UNAVAILABLE }));
    }
  };
  const served = (stream: string) => ({ live: [...live.values()].filter((s) => s === stream).length, reads: reads.get(stream) ?? 0 });
  return { url: `kurrentdb://127.0.0.1:${port}?tls=false`, streams, dropSubscriptions, served, stop };
}

const standin = await startStandin();
const meta = () => ({ timestamp: new Date().toISOString(), requestId: randomUUID() });
const ev = (type: string, data: Record<string, number | string> = {}): NewEvent => ({ id: randomUUID(), type, data });

eventStoreContract('eventstoredb through the KurrentDB client, against a stand-in server', async () => {
  const store = eventStoreDbEventStore(standin.url, { logStream: `lnm-log-${randomUUID()}`, pollIntervalMs: 200 });
  return { store, cleanup: () => store.close() };
});

test('the stand-in refuses a stale expected revision and replays a repeated append, as the server does', async () => {
  const client = KurrentDBClient.connectionString(standin.url);
  const stream = `check-${randomUUID()}`;
  const e = jsonEvent({ id: randomUUID(), type: 'A', data: { a: 1 } });
  await client.appendToStream(stream, e, { streamState: NO_STREAM });
  // The same event id at the same expected state: success, nothing written twice.
  await client.appendToStream(stream, e, { streamState: NO_STREAM });
  assert.is(standin.streams.get(stream)?.length, 1);
  await client.appendToStream(stream, jsonEvent({ id: randomUUID(), type: 'B', data: {} }), { streamState: NO_STREAM }).then(
    () => assert.unreachable('stale expected state accepted'),
    (err) => assert.instance(err, ClientWrongExpectedVersion),
  );
  await client.dispose();
});

test('two service processes (two clients) sharing the log: one winner per version, duplicates caught, one gapless chain', async () => {
  const logStream = `lnm-log-${randomUUID()}`;
  const a = eventStoreDbEventStore(standin.url, { logStream });
  const b = eventStoreDbEventStore(standin.url, { logStream });
  try {
    await a.append('net-1', 0, [ev('Opened')], meta());
    const results = await Promise.allSettled([a.append('net-1', 1, [ev('ByA')], meta()), b.append('net-1', 1, [ev('ByB')], meta())]);
    const lost = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
    assert.is(lost.length, 1);
    assert.instance(lost[0].reason, WrongExpectedVersionError);
    const once = ev('Once');
    await a.append('s-once', 0, [once], meta());
    await b.append('s-other', 0, [once], meta()).then(
      () => assert.unreachable('duplicate accepted'),
      (err) => assert.instance(err, DuplicateEventError),
    );
    await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).append(`s-${i}`, 0, [ev('X'), ev('Y')], meta())));
    const all = await b.readAll(0, 100);
    assert.equal(all.map((e) => e.position), Array.from({ length: 23 }, (_, i) => i + 1));
    assert.equal((await b.readStream('net-1')).map((e) => e.version), [1, 2]);
    const v = await a.verify(1);
    assert.ok(v.ok, JSON.stringify(v.firstMismatch));
    assert.is(v.checked, 23);
    // the server ids are not the application ids (so the server's replay cannot hide a duplicate)
    const ids = new Set(standin.streams.get(logStream)!.map((e) => e.id));
    assert.not.ok(all.some((e) => ids.has(e.id)));
  } finally {
    await a.close();
    await b.close();
  }
});

test('an event changed on the server behind the service is caught by verify, which names its position', async () => {
  const logStream = `lnm-log-${randomUUID()}`;
  const store = eventStoreDbEventStore(standin.url, { logStream });
  try {
    for (let i = 0; i < 6; i++) await store.append(`acct-${i % 2}`, 'any', [ev('Deposited', { amount: i })], meta());
    assert.ok((await store.verify(1)).ok);
    standin.streams.get(logStream)![3].data = Buffer.from(JSON.stringify({ amount: 1_000_000 }));
    const v = await store.verify(1);
    assert.is(v.firstMismatch?.position, 4);
    assert.is(v.firstMismatch?.reason, 'hash_mismatch');
    assert.ok((await store.verify(1, 3)).ok);
  } finally {
    await store.close();
  }
});

test('a subscription is woken by another process appending through the server', async () => {
  const logStream = `lnm-log-${randomUUID()}`;
  const reader = eventStoreDbEventStore(standin.url, { logStream, pollIntervalMs: 60_000 });
  const writer = eventStoreDbEventStore(standin.url, { logStream });
  const seen: string[] = [];
  let resolveDone!: () => void;
  const done = new Promise<void>((r) => (resolveDone = r));
  const sub = reader.subscribe(0, async (batch) => {
    for (const e of batch) seen.push(e.type);
    if (seen.length >= 3) resolveDone();
  });
  try {
    await writer.append('x', 0, [ev('One')], meta());
    await writer.append('x', 1, [ev('Two'), ev('Three')], meta());
    // polling is a minute apart: only the server subscription can deliver within the timeout
    await Promise.race([done, new Promise((_, rej) => setTimeout(() => rej(new Error('subscription was not woken')), 10_000).unref())]);
    assert.equal(seen, ['One', 'Two', 'Three']);
  } finally {
    await sub.close();
    await reader.close();
    await writer.close();
  }
});

test('after the server drops its subscriptions, subscribers are woken again once it is reopened', async () => {
  const logStream = `lnm-log-${randomUUID()}`;
  const reader = eventStoreDbEventStore(standin.url, { logStream, pollIntervalMs: 60_000, resubscribeMs: 50 });
  const writer = eventStoreDbEventStore(standin.url, { logStream });
  const seen: string[] = [];
  let woken!: () => void;
  let delivered = new Promise<void>((r) => (woken = r));
  const sub = reader.subscribe(0, async (batch) => {
    for (const e of batch) seen.push(e.type);
    woken();
  });
  const servedBecomes = async (want: { live: number; reads: number }) => {
    for (let i = 0; i < 1000 && (standin.served(logStream).live !== want.live || standin.served(logStream).reads < want.reads); i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(standin.served(logStream).live, want.live);
  };
  const deliveredWithin10s = (what: string) =>
    Promise.race([delivered, new Promise((_, rej) => setTimeout(() => rej(new Error(what)), 10_000).unref())]);
  try {
    // The reader has read the (empty) log and its server subscription is live: it now sleeps
    // until woken, since its next poll is a minute away.
    await servedBecomes({ live: 1, reads: 1 });
    standin.dropSubscriptions();
    await writer.append('x', 0, [ev('After')], meta());
    await deliveredWithin10s('not woken after the drop');
    assert.equal(seen, ['After']);
    // and the reopened subscription keeps waking it
    await servedBecomes({ live: 1, reads: 0 });
    delivered = new Promise<void>((r) => (woken = r));
    await writer.append('x', 1, [ev('Again')], meta());
    await deliveredWithin10s('not woken by the reopened subscription');
    assert.equal(seen, ['After', 'Again']);
  } finally {
    await sub.close();
    await reader.close();
    await writer.close();
  }
});

test.after(() => standin.stop());
test.run();
