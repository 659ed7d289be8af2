// The one generic command handler: read the stream, fold evolve, decide, append with the
// expected version, retry only on a version conflict. It talks to the store only through the
// EventStore port, so it sits beside the deciders it runs.
import type { Decider, DomainEvent } from './decider.ts';
import type { EventMetadata, EventStore, JsonObject, RecordedEvent } from './eventStore.ts';
import { WrongExpectedVersionError } from './errors.ts';

export interface CommandResult<State> {
  state: State;
  /** Stream version after the command (unchanged when the decider emitted nothing). */
  version: number;
  /** Global position of the last appended event, or null when nothing was appended. */
  lastPosition: number | null;
  events: RecordedEvent[];
}

export interface HandleOptions {
  metadata: EventMetadata;
  /** Ids for the emitted events, one per event (the domain never generates ids). */
  newId: () => string;
  /** Optimistic check from the client (If-Match): the stream must be at this version. */
  expectedVersion?: number;
  /** Re-decisions after a version conflict (no expectedVersion): 64 unless said. */
  maxRetries?: number;
}

export async function handleCommand<State, Command, Event extends DomainEvent>(
  store: EventStore,
  streamId: string,
  decider: Decider<State, Command, Event>,
  command: Command,
  opts: HandleOptions,
): Promise<CommandResult<State>> {
  // A version conflict means another command was appended meanwhile: progress, never a livelock.
  // Re-deciding on the newer state merges disjoint changes (eight concurrent writers of one
  // stream each lose at most seven times); what the decider still refuses on it is a real conflict.
  const maxRetries = opts.maxRetries ?? 64;
  for (let attempt = 0; ; attempt++) {
    const past = await store.readStream(streamId);
    const version = past.length ? past[past.length - 1].version : 0;
    if (opts.expectedVersion !== undefined && opts.expectedVersion !== version) {
      throw new WrongExpectedVersionError(streamId, opts.expectedVersion, version);
    }
    let state = past.reduce((s, e) => decider.evolve(s, { type: e.type, data: e.data } as Event), decider.initialState());
    const emitted = decider.decide(command, state);
    if (emitted.length === 0) return { state, version, lastPosition: null, events: [] };
    try {
      const result = await store.append(
        streamId,
        version,
        emitted.map((e) => ({ id: opts.newId(), type: e.type, data: e.data as JsonObject })),
        opts.metadata,
      );
      state = emitted.reduce((s, e) => decider.evolve(s, e), state);
      return { state, version: result.nextVersion, lastPosition: result.lastPosition, events: result.events };
    } catch (err) {
      // A client-supplied expected version is not retried: the client must re-read.
      if (err instanceof WrongExpectedVersionError && opts.expectedVersion === undefined && attempt < maxRetries) continue;
      throw err;
    }
  }
}

/** Current state of a stream without deciding anything. */
export async function loadState<State, Event extends DomainEvent>(
  store: EventStore,
  streamId: string,
  decider: Pick<Decider<State, unknown, Event>, 'initialState' | 'evolve'>,
): Promise<{ state: State; version: number }> {
  const past = await store.readStream(streamId);
  const state = past.reduce((s, e) => decider.evolve(s, { type: e.type, data: e.data } as Event), decider.initialState());
  return { state, version: past.length ? past[past.length - 1].version : 0 };
}
