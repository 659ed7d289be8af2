// One operation at a time per node within one engine: a retried saga step must not spawn a
// second copy of a node while the first start is still checking ports.
export function keyedMutex(): <T>(key: string, work: () => Promise<T>) => Promise<T> {
  const tails = new Map<string, Promise<unknown>>();
  return async <T>(key: string, work: () => Promise<T>): Promise<T> => {
    const before = tails.get(key) ?? Promise.resolve();
    const mine = before.then(work, work);
    const settled = mine.then(
      () => undefined,
      () => undefined,
    );
    tails.set(key, settled);
    try {
      return await mine;
    } finally {
      if (tails.get(key) === settled) tails.delete(key);
    }
  };
}
