// Everything the bench starts (PostgreSQL clusters, server processes, temp dirs) registers a
// cleanup here; run.ts runs them in reverse order at the end, on failure and on Ctrl-C.
const cleanups: Array<() => Promise<void> | void> = [];

export function onCleanup(fn: () => Promise<void> | void): void {
  cleanups.push(fn);
}

export async function runCleanups(): Promise<void> {
  while (cleanups.length) {
    const fn = cleanups.pop()!;
    try {
      await fn();
    } catch {
      /* keep cleaning up the rest */
    }
  }
}
