// Cleanups that run once after every suite (shared embedded PostgreSQL, child servers).
const cleanups: Array<() => Promise<void> | void> = [];

export function onGlobalTeardown(fn: () => Promise<void> | void): void {
  cleanups.push(fn);
}

export async function runGlobalTeardown(): Promise<void> {
  while (cleanups.length) {
    const fn = cleanups.pop()!;
    try {
      await fn();
    } catch (err) {
      console.error('teardown failed:', err);
    }
  }
}
