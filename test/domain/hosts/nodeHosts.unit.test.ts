import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { labelIssues, nodeHosts, type NodeHostCommand, type NodeHostEvent, type NodeHostObservation, type NodeHostState } from '../../../domain/hosts/nodeHosts.ts';

const at = '2026-11-26T00:00:00.000Z';
const up: NodeHostObservation = { reachable: true, engineVersion: '20.10.24', runningNodes: 0, reason: null };
const down: NodeHostObservation = { reachable: false, engineVersion: null, runningNodes: null, reason: 'connection refused' };
const register: NodeHostCommand = {
  type: 'RegisterNodeHost', hostId: 1, name: 'rack-2', labels: { zone: 'b' }, capacity: { maxNodes: null }, sealedSecrets: 'sealed', observation: up, at,
  address: { url: 'tcp://10.0.0.2:2376', externalIp: '10.0.0.2', caCertificate: 'ca', clientCertificate: 'cert' },
};

function run(commands: NodeHostCommand[]): { state: NodeHostState; events: NodeHostEvent[] } {
  let state = nodeHosts.initialState();
  const events: NodeHostEvent[] = [];
  for (const c of commands) {
    for (const e of nodeHosts.decide(c, state)) {
      events.push(e);
      state = nodeHosts.evolve(state, e);
    }
  }
  return { state, events };
}

test('a check is recorded only when what it sees changes', () => {
  const check = (observation: NodeHostObservation): NodeHostCommand => ({ type: 'RecordNodeHostCheck', hostId: 1, observation, at });
  const { events } = run([register, check(up), check(down), check(down), check(up), check({ ...up, runningNodes: 2 })]);
  assert.equal(events.map((e) => e.type), ['NodeHostRegistered', 'NodeHostObserved', 'NodeHostObserved', 'NodeHostObserved']);
});

test('a cluster check is recorded when its findings change, not when they come back in another key order', () => {
  const check = (observation: NodeHostObservation): NodeHostCommand => ({ type: 'RecordNodeHostCheck', hostId: 1, observation, at });
  const full = { ...up, kubernetes: { version: 'v1.20.2', nodes: { total: 1, ready: 1 }, missingPermissions: [] } };
  const lacking = { ...up, reachable: true, kubernetes: { version: 'v1.20.2', nodes: null, missingPermissions: [{ verb: 'delete', resource: 'secrets' }] } };
  // As the stored event gives it back (jsonb orders keys its own way).
  const lackingReordered = { ...up, kubernetes: { nodes: null, version: 'v1.20.2', missingPermissions: [{ resource: 'secrets', verb: 'delete' }] } } as NodeHostObservation;
  const { events } = run([register, check(full), check(lacking), check(lackingReordered), check({ ...full, kubernetes: { ...full.kubernetes, nodes: { total: 1, ready: 0 } } })]);
  assert.equal(events.map((e) => e.type), ['NodeHostRegistered', 'NodeHostObserved', 'NodeHostObserved', 'NodeHostObserved']);
  assert.equal((events[2] as any).data.observation.kubernetes.missingPermissions, [{ verb: 'delete', resource: 'secrets' }]);
});

test('a host with nodes is not deleted; a deleted host takes no checks', () => {
  assert.throws(() => run([register, { type: 'DeleteNodeHost', hostId: 1, nodesOnHost: 2, at }]), /still has 2 node/);
  const { state, events } = run([register, { type: 'DeleteNodeHost', hostId: 1, nodesOnHost: 0, at }, { type: 'RecordNodeHostCheck', hostId: 1, observation: down, at }]);
  assert.is(state.status, 'deleted');
  assert.is(events.length, 2);
  assert.throws(() => run([register, register]), /exists already/);
});

test('label keys are checked', () => {
  assert.equal(labelIssues({ zone: 'a', 'topology.kubernetes.io/zone': 'b' }), []);
  assert.is(labelIssues({ 'bad key': 'x', '': 'y' }).length, 2);
});

test.run();
