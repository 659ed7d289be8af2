// What the child benches that run the real server with managed nodes share: their progress
// log, closing the server without leaving a node behind, and the one-JSON-object output that
// bench/run.ts reads.
import type { TestServer } from '../../test/helpers/server.ts';
import { runGlobalTeardown } from '../../test/helpers/globalTeardown.ts';
import { killLeftoverNodes } from '../../test/e2e/evm/evmLifecycle.ts';

export const benchLog = (name: string) => (m: string) => process.stderr.write(`[bench ${name}] ${m}\n`);

/** Stops the server, then any node process still running in its data directory. */
export async function closeBenchServer(s: TestServer): Promise<void> {
  await s.stop();
  killLeftoverNodes(s.dataDir);
  await runGlobalTeardown();
}

/** Runs a bench: its result as JSON on stdout, a failure on stderr with exit code 1. */
export function runBench(log: (m: string) => void, main: () => Promise<Record<string, unknown>>): void {
  main().then(
    (out) => process.stdout.write(JSON.stringify(out, null, 2) + '\n'),
    (err) => {
      log(`failed: ${(err as Error).stack}`);
      process.exitCode = 1;
    },
  );
}
