// A one-validator evm network on anvil with the process engine, end to end through the API of
// the real server (child process).
import { test } from 'uvu';
import { startServer, type TestServer } from '../helpers/server.ts';
import { alive, killLeftoverNodes, pidOf, runEvmLifecycle } from './evm/evmLifecycle.ts';

let s: TestServer;

test.before(async () => {
  s = await startServer();
});

test.after(async () => {
  await s?.stop();
  // Nodes outlive the service by design; none of this test's may outlive the test.
  if (s) killLeftoverNodes(s.dataDir);
});

test('a one-validator anvil network runs through its whole lifecycle with the process engine', async () => {
  await runEvmLifecycle(s, {
    engine: 'process',
    name: 'e2e-process',
    chainId: 31999,
    async killNode(srv, nodeId) {
      process.kill(pidOf(srv, nodeId)!, 'SIGKILL');
    },
    async nodeGone(srv, nodeId) {
      return !alive(pidOf(srv, nodeId));
    },
  });
});

test.run();
