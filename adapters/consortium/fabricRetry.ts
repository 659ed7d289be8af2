// Fabric answers SERVICE_UNAVAILABLE while a channel has no raft leader (right after the orderers
// join, during an election): the same request a moment later goes through. A user would expect the
// service to wait that out rather than fail a quick start on it, so deliver and broadcast retry such
// answers, with a growing pause, for a bounded time; what still fails then is a 503 with Retry-After.
import { common } from '@hyperledger/fabric-protos';
import { FabricUnavailableError } from '../../domain/consortium/consortiumChannelPorts.ts';

/** Fabric statuses that mean "try again", by common.Status code. */
export const retryableStatuses: ReadonlySet<number> = new Set([common.Status.SERVICE_UNAVAILABLE]);

export interface RetryOptions {
  /** How long to keep trying, from the first attempt (default 30 s). */
  withinMs?: number;
  /** First pause; doubled up to 2 s. */
  firstPauseMs?: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

/** Runs `attempt` again while it fails with FabricUnavailableError and time is left; rethrows anything else at once. */
export async function retryWhileUnavailable<T>(attempt: () => Promise<T>, opts: RetryOptions = {}): Promise<T> {
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const until = now() + (opts.withinMs ?? 30_000);
  let pause = opts.firstPauseMs ?? 250;
  for (;;) {
    try {
      return await attempt();
    } catch (err) {
      if (!(err instanceof FabricUnavailableError) || now() + pause > until) throw err;
      await sleep(pause);
      pause = Math.min(pause * 2, 2_000);
    }
  }
}
