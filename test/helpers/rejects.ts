// The one way a test expects a rejection: the error is returned for further checks, and the test
// fails when the promise resolves, when the error is of another class, or when it fails `check`.
import * as assert from 'uvu/assert';

/**
 * The error `promise` (or the promise `promise()` returns) rejects with. Fails the test when it
 * resolves, when the error is not an instance of `cls`, or when it does not pass `check`: a text
 * or pattern its message must match, or a function that asserts on it.
 */
export async function rejects<E>(promise: Promise<unknown> | (() => Promise<unknown>), cls: abstract new (...args: never[]) => E, check?: string | RegExp | ((err: E) => void)): Promise<E> {
  let rejected = false;
  let caught: unknown;
  try {
    await (typeof promise === 'function' ? promise() : promise);
  } catch (err) {
    rejected = true;
    caught = err;
  }
  if (!rejected) assert.unreachable(`expected a ${cls.name}${check && typeof check !== 'function' ? ` matching ${check}` : ''}, and it resolved`);
  assert.instance(caught, cls, `expected a ${cls.name}, got ${(caught as Error)?.stack ?? String(caught)}`);
  if (typeof check === 'function') check(caught as E);
  else if (check !== undefined) assert.match((caught as Error).message, check);
  return caught as E;
}
