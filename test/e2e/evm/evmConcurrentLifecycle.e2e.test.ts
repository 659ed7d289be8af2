// Concurrent lifecycle commands on one node (issue 36, item 6): `stop` and `start` sent together
// to a running anvil node, round after round. Whatever order they land in, the node ends running
// or stopped, never in error, and its recorded status agrees with whether its process runs.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { alive, api, killLeftoverNodes, pidOf, until } from './evmLifecycle.ts';

let s: TestServer;
let nodeId = 0;

test.before(async () => {
  s = await startServer();
  let r = await api(s, 'POST', '/networks', { name: 'race-net', type: 'evm', engine: 'process', genesis: { chain_id: 31_991, consensus: 'QBFT', block_time: 1 } });
  assert.is(r.status, 201, r.text);
  r = await api(s, 'POST', `/networks/${r.json.id}/start`);
  assert.is(r.status, 200, r.text);
  nodeId = r.json.nodes[0].id;
  assert.is(r.json.nodes[0].status, 'running', r.text);
});

test.after(async () => {
  await s?.stop();
  if (s) killLeftoverNodes(s.dataDir);
});

const settled = () => until('the node to settle', async () => {
  const n = (await api(s, 'GET', `/nodes/${nodeId}`)).json;
  return n.status !== 'starting' && n.status !== 'stopping' ? n : null;
});

test('stop and start sent together leave the recorded status in agreement with the process, round after round', async () => {
  const disagreements: string[] = [];
  const outcomes: Record<string, number> = {};
  for (let round = 1; round <= 12; round++) {
    const before = await settled();
    if (before.status !== 'running') {
      // A node left in error (counted below) is cleared by a stop, as an operator would.
      if (before.status === 'error') assert.is((await api(s, 'POST', `/nodes/${nodeId}/stop`)).status, 200);
      const r = await api(s, 'POST', `/nodes/${nodeId}/start`);
      assert.is(r.status, 200, r.text);
      assert.is(r.json.status, 'running', `round ${round}: the node starts again: ${r.text}`);
    }
    const answers = await Promise.all([api(s, 'POST', `/nodes/${nodeId}/stop`), api(s, 'POST', `/nodes/${nodeId}/start`)]);
    assert.equal(answers.map((a) => a.status), [200, 200], answers.map((a) => a.text).join(' | '));
    const after = await settled();
    const running = alive(pidOf(s, nodeId));
    outcomes[after.status] = (outcomes[after.status] ?? 0) + 1;
    if (after.status === 'error' || (after.status === 'running') !== running) {
      disagreements.push(`round ${round}: recorded ${after.status}${after.error ? ` (${after.error})` : ''}, process ${running ? 'running' : 'gone'}`);
    }
  }
  assert.equal(disagreements, [], `outcomes ${JSON.stringify(outcomes)}`);
});

test.run();
