// The decider trio of one aggregate. `decide` and `evolve` are pure: time and ids arrive in
// the command, never from a clock or a random source.

/** `data` must be JSON-serializable; `object` (not an index signature) lets interfaces be used. */
export interface DomainEvent<T extends string = string, D extends object = object> {
  type: T;
  data: D;
}

export interface Decider<State, Command, Event extends DomainEvent> {
  initialState: () => State;
  evolve: (state: State, event: Event) => State;
  /** Returns the events to append, or throws an AppError (ValidationError, ConflictError, ...). */
  decide: (command: Command, state: State) => Event[];
}

export function assertNever(x: never): never {
  throw new Error(`unhandled case: ${JSON.stringify(x)}`);
}
