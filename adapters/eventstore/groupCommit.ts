// Group commit: requests that arrive while a commit is in flight wait in a queue and are
// written together by the next commit, so N concurrent writers share one transaction and one
// WAL flush instead of queueing N of them behind the chain lock. With nothing in flight a
// request is committed at once (a lone writer waits for nobody). One commit in flight at a time:
// the chain lock would serialize a second one anyway.

/** The outcome of one request inside a committed batch: its result, or the error for it alone. */
export type Outcome<R> = { ok: true; value: R } | { ok: false; error: unknown };

export interface GroupCommitOptions<Q, R> {
  /**
   * Writes a batch and reports one outcome per request, in order. It resolves only once the
   * batch is durable; if it throws, every request in the batch fails with that error.
   */
  commit(batch: Q[]): Promise<Array<Outcome<R>>>;
  /** How much of a batch a request takes (events, for appends); a batch holds up to maxWeight. */
  weight(request: Q): number;
  maxWeight: number;
}

export interface GroupCommit<Q, R> {
  submit(request: Q): Promise<R>;
  /** Requests waiting or in flight (for tests and diagnosis). */
  pending(): number;
}

interface Waiting<Q, R> {
  request: Q;
  resolve(value: R): void;
  reject(error: unknown): void;
}

export function groupCommit<Q, R>(opts: GroupCommitOptions<Q, R>): GroupCommit<Q, R> {
  let queue: Array<Waiting<Q, R>> = [];
  let inFlight = 0;
  let draining = false;

  function takeBatch(): Array<Waiting<Q, R>> {
    let weight = 0;
    let n = 0;
    // Always at least one, even if it alone is heavier than maxWeight.
    while (n < queue.length && (n === 0 || weight + opts.weight(queue[n].request) <= opts.maxWeight)) {
      weight += opts.weight(queue[n].request);
      n++;
    }
    const batch = queue.slice(0, n);
    queue = queue.slice(n);
    return batch;
  }

  async function drain(): Promise<void> {
    draining = true;
    try {
      while (queue.length > 0) {
        const batch = takeBatch();
        inFlight = batch.length;
        let outcomes: Array<Outcome<R>>;
        try {
          outcomes = await opts.commit(batch.map((w) => w.request));
          if (outcomes.length !== batch.length) throw new Error(`group commit: ${outcomes.length} outcomes for ${batch.length} requests`);
        } catch (error) {
          outcomes = batch.map(() => ({ ok: false, error }));
        }
        inFlight = 0;
        batch.forEach((w, i) => {
          const o = outcomes[i];
          if (o.ok) w.resolve(o.value);
          else w.reject(o.error);
        });
      }
    } finally {
      draining = false;
    }
  }

  return {
    submit(request) {
      return new Promise<R>((resolve, reject) => {
        queue.push({ request, resolve, reject });
        if (!draining) void drain();
      });
    },
    pending: () => queue.length + inFlight,
  };
}
