import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { nodeAggregate, type NodeCommand, type NodeEvent, type NodeState } from '../../../domain/nodes/node.ts';

const at = '2026-01-01T00:00:00.000Z';
const create: NodeCommand = {
  type: 'CreateNode', nodeId: 7, name: 'v1', platform: 'EVM', nodeType: 'EVM_FULLNODE', role: 'validator', networkId: 1, client: 'anvil', engine: 'process',
  config: { p2pPort: 30303, rpcHttpPort: 8545, rpcWsPort: null, metricsPort: null, isBootnode: false }, validatorAddress: '0x0000000000000000000000000000000000000001', resources: null, at,
};

function run(commands: NodeCommand[]): { state: NodeState; events: NodeEvent[] } {
  let state = nodeAggregate.initialState();
  const events: NodeEvent[] = [];
  for (const c of commands) for (const e of nodeAggregate.decide(c, state)) (events.push(e), (state = nodeAggregate.evolve(state, e)));
  return { state, events };
}

test('a node is running only after the engine reported it started', () => {
  const { state, events } = run([create, { type: 'StartNode', nodeId: 7, at }]);
  assert.is(state.status, 'starting');
  assert.equal(events.map((e) => e.type), ['NodeCreated', 'NodeStartRequested']);
  const failed = run([create, { type: 'StartNode', nodeId: 7, at }, { type: 'RecordNodeStartFailed', nodeId: 7, reason: 'port taken', failure: 'port-in-use', at }]);
  assert.is(failed.state.status, 'error');
  assert.is(failed.events.at(-1)!.type, 'NodeStartFailed');
});

test('a late start outcome after a stop request is ignored', () => {
  const { state, events } = run([create, { type: 'StartNode', nodeId: 7, at }, { type: 'StopNode', nodeId: 7, at }, { type: 'RecordNodeStarted', nodeId: 7, pid: 1, containerId: null, startedAt: at, at }]);
  assert.is(state.status, 'stopping');
  assert.not.ok(events.some((e) => e.type === 'NodeStarted'));
});

test('downtime is raised once, and recovery follows a restart of the downed node', () => {
  const started: NodeCommand[] = [create, { type: 'StartNode', nodeId: 7, at }, { type: 'RecordNodeStarted', nodeId: 7, pid: 1, containerId: null, startedAt: at, at }];
  const down: NodeCommand = { type: 'RecordNodeDown', nodeId: 7, lastHealthyAt: at, consecutiveFailures: 2, reason: 'exited', at };
  const { state, events } = run([...started, down, down, { type: 'StartNode', nodeId: 7, restart: true, at }, { type: 'RecordNodeStarted', nodeId: 7, pid: 2, containerId: null, startedAt: at, at }, { type: 'RecordNodeRecovered', nodeId: 7, at }]);
  assert.is(events.filter((e) => e.type === 'NodeDowntime').length, 1);
  assert.equal(events.at(-1)!.data, { nodeId: 7, nodeName: 'v1', nodeType: 'EVM_FULLNODE', downSince: at, at });
  assert.is(state.status, 'running');
  assert.is(state.downSince, null);
});

test('a healthy node that never went down records no recovery', () => {
  const { events } = run([create, { type: 'StartNode', nodeId: 7, at }, { type: 'RecordNodeStarted', nodeId: 7, pid: 1, containerId: null, startedAt: at, at }, { type: 'RecordNodeRecovered', nodeId: 7, at }]);
  assert.not.ok(events.some((e) => e.type === 'NodeRecovered'));
});

test('the configuration of a running node cannot change', () => {
  const running = run([create, { type: 'StartNode', nodeId: 7, at }, { type: 'RecordNodeStarted', nodeId: 7, pid: 1, containerId: null, startedAt: at, at }]).state;
  assert.throws(() => nodeAggregate.decide({ type: 'UpdateNodeConfig', nodeId: 7, config: { rpcHttpPort: 9000 }, at }, running), /stop it before/);
});

test('commands on a deleted node are a not-found', () => {
  const { state } = run([create, { type: 'DeleteNode', nodeId: 7, at }]);
  assert.throws(() => nodeAggregate.decide({ type: 'StartNode', nodeId: 7, at }, state), /was not found/);
});


test('a start asked before a stop was carried out, or after a failure, stops what still runs first', () => {
  const running: NodeCommand[] = [create, { type: 'StartNode', nodeId: 7, at }, { type: 'RecordNodeStarted', nodeId: 7, pid: 1, containerId: null, startedAt: at, at }];
  const racing = run([...running, { type: 'StopNode', nodeId: 7, at }, { type: 'StartNode', nodeId: 7, at }]);
  const start = racing.events.at(-1)!;
  assert.is(start.type, 'NodeStartRequested');
  assert.equal((start.data as { stopFirst?: boolean }).stopFirst, true);
  assert.equal((start.data as { restart: boolean }).restart, false, 'still a start in the audit log');
  // The stop's outcome, recorded late, does not undo the start.
  const late = run([...running, { type: 'StopNode', nodeId: 7, at }, { type: 'StartNode', nodeId: 7, at }, { type: 'RecordNodeStopped', nodeId: 7, at }]);
  assert.is(late.state.status, 'starting');
  const afterFailure = run([create, { type: 'StartNode', nodeId: 7, at }, { type: 'RecordNodeStartFailed', nodeId: 7, reason: 'port taken', failure: 'port-in-use', at }, { type: 'StartNode', nodeId: 7, at }]);
  assert.equal((afterFailure.events.at(-1)!.data as { stopFirst?: boolean }).stopFirst, true);
  const plain = run([...running, { type: 'StopNode', nodeId: 7, at }, { type: 'RecordNodeStopped', nodeId: 7, at }, { type: 'StartNode', nodeId: 7, at }]);
  assert.is((plain.events.at(-1)!.data as { stopFirst?: boolean }).stopFirst, undefined, 'a stopped node just starts');
});

test.run();
