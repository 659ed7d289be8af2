// A one-validator evm network on anvil with the process engine, end to end through the API of
// the real server (child process).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { alive, api, killLeftoverNodes, pidOf, runEvmLifecycle, until } from './evmLifecycle.ts';

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

test('nodes keep running while the service restarts, and their health is watched again after it', async () => {
  let r = await api(s, 'POST', '/networks', { name: 'e2e-restart', type: 'evm', genesis: { chain_id: 31997, consensus: 'QBFT', block_time: 1 } });
  assert.is(r.status, 201, r.text);
  const networkId = r.json.id;
  r = await api(s, 'POST', `/networks/${networkId}/start`);
  const node = r.json.nodes[0];
  assert.is(node.status, 'running', r.text);
  const pid = pidOf(s, node.id)!;

  await s.stop();
  assert.ok(alive(pid), 'the node outlives the service');
  s = await startServer({ dataDir: s.dataDir, databaseUrl: s.databaseUrl! });

  const before = (await api(s, 'GET', `/nodes/${node.id}`)).json;
  assert.is(before.status, 'running');
  assert.is(pidOf(s, node.id), pid);
  await until('block_height to keep growing', async () => (await api(s, 'GET', `/nodes/${node.id}`)).json.block_height > before.block_height);
  // The health monitor's durable timer survived the restart: an outside kill is still seen.
  process.kill(pid, 'SIGKILL');
  await until('node.downtime after the restart', async () => (await api(s, 'GET', `/nodes/${node.id}/events?limit=500`)).json.items.some((e: { event: string }) => e.event === 'node.downtime'), 30_000);
  r = await api(s, 'DELETE', `/networks/evm/${networkId}`);
  assert.is(r.status, 204);
});

test.run();
