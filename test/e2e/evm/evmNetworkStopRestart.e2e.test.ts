// POST /networks/{networkId}/stop and /restart through the real server, on a besu network of the
// stand-in (test/standins: no real besu runs here) with two validators and a bootnode: the stop
// records NetworkStopped (audited, the nodes in start order) and stops the nodes in reverse
// dependency order (validators, then the bootnode), each one stopped; the restart records
// NetworkRestarted, stops them the same way and starts them in order (the bootnode first), each
// running after. A network without nodes is a 409, an unknown one a 404, a bad id a 400, a VIEWER
// a 403; none of them records a network event.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { call } from '../../helpers/server.ts';
import { onGlobalTeardown } from '../../helpers/globalTeardown.ts';
import { installBesu } from '../../standins/besuStandinInstall.ts';
import { api, killLeftoverNodes } from './evmLifecycle.ts';

const VIEWER = { username: 'netops-viewer', password: 'netops-viewer-password-1' };
let s: TestServer;
let networkId = 0;
let bootnodeId = 0;
let validatorIds: number[] = [];

interface AuditEntry { id: number; action: string; resource_type: string; resource_id: string | null; details: Record<string, unknown> | null }

/** Audit entries of a resource type and action, oldest first, after a given id. */
async function audited(resourceType: string, action: string, afterId = 0): Promise<AuditEntry[]> {
  const r = await api(s, 'GET', `/audit-logs?resource_type=${resourceType}&action=${action}&limit=500`);
  assert.is(r.status, 200, r.text);
  return (r.json.items as AuditEntry[]).filter((e) => Number(e.id) > afterId).sort((a, b) => Number(a.id) - Number(b.id));
}

async function lastAuditId(): Promise<number> {
  const r = await api(s, 'GET', '/audit-logs?limit=1');
  return Number(r.json.items[0]?.id ?? 0);
}

test.before(async () => {
  const besu = installBesu({ real: null });
  onGlobalTeardown(() => besu.remove());
  s = await startServer({ env: { PATH: `${besu.binDir}:${process.env.PATH ?? ''}` } });
  let r = await api(s, 'POST', '/networks', { name: 'ops-qbft', type: 'evm', client: 'besu', validatorCount: 2, genesis: { chain_id: 43400, consensus: 'QBFT', block_time: 2 } });
  assert.is(r.status, 201, r.text);
  networkId = r.json.id;
  r = await api(s, 'POST', `/networks/${networkId}/start`);
  assert.is(r.status, 200, r.text);
  validatorIds = r.json.nodes.map((n: { id: number }) => n.id);
  r = await api(s, 'POST', `/networks/${networkId}/nodes`, { name: 'ops-boot', type: 'bootnode' });
  assert.is(r.status, 201, r.text);
  bootnodeId = r.json.id;
  assert.is(r.json.status, 'running', r.text);
  r = await api(s, 'POST', '/users', { ...VIEWER, role: 'VIEWER' });
  assert.is(r.status, 201, r.text);
});

test.after(async () => {
  await s?.stop();
  if (s) killLeftoverNodes(s.dataDir);
});

test('stop: NetworkStopped audited with the start order; nodes stopped in reverse dependency order', async () => {
  const before = await lastAuditId();
  const r = await api(s, 'POST', `/networks/${networkId}/stop`);
  assert.is(r.status, 200, r.text);
  assert.is(r.json.network.id, networkId);
  const order = [bootnodeId, ...validatorIds];
  assert.equal(r.json.nodes.map((n: { id: number }) => n.id), order, 'nodes in start order: the bootnode first');
  assert.ok(r.json.nodes.every((n: { status: string }) => n.status === 'stopped'), r.text);
  assert.is(r.json.network.status, 'stopped');
  const net = await audited('network', 'STOP', before);
  assert.is(net.length, 1, JSON.stringify(net));
  assert.is(net[0].resource_id, String(networkId));
  assert.equal(net[0].details, { platform: 'evm', nodeIds: order });
  const stops = await audited('node', 'STOP', before);
  assert.equal(stops.map((e) => Number(e.resource_id)), [...order].reverse(), 'stopped backwards: validators, then the bootnode');
  const nodes = (await api(s, 'GET', `/networks/evm/${networkId}/nodes`)).json.items as Array<{ status: string }>;
  assert.ok(nodes.every((n) => n.status === 'stopped'), JSON.stringify(nodes));
});

test('restart: NetworkRestarted audited; stopped backwards, started in order, all running', async () => {
  let r = await api(s, 'POST', `/networks/${networkId}/start`);
  assert.is(r.status, 200, r.text);
  const before = await lastAuditId();
  r = await api(s, 'POST', `/networks/${networkId}/restart`);
  assert.is(r.status, 200, r.text);
  const order = [bootnodeId, ...validatorIds];
  assert.equal(r.json.nodes.map((n: { id: number }) => n.id), order);
  assert.ok(r.json.nodes.every((n: { status: string }) => n.status === 'running'), r.text);
  const net = await audited('network', 'RESTART', before);
  assert.is(net.length, 1, JSON.stringify(net));
  assert.equal(net[0].details, { platform: 'evm', nodeIds: order });
  assert.equal((await audited('node', 'STOP', before)).map((e) => Number(e.resource_id)), [...order].reverse());
  assert.equal((await audited('node', 'START', before)).map((e) => Number(e.resource_id)), order, 'started in order: the bootnode first');
});

test('refusals: no nodes 409, unknown 404, bad id 400, a VIEWER 403; no network event recorded', async () => {
  const empty = await api(s, 'POST', '/networks', { name: 'ops-empty', type: 'evm', client: 'besu', validatorCount: 1, genesis: { chain_id: 43401, consensus: 'QBFT' } });
  assert.is(empty.status, 201, empty.text);
  const before = await lastAuditId();
  for (const action of ['stop', 'restart']) {
    let r = await api(s, 'POST', `/networks/${empty.json.id}/${action}`);
    assert.is(r.status, 409, r.text);
    assert.is(r.json.code, 'NO_NODES');
    r = await api(s, 'POST', `/networks/987654/${action}`);
    assert.is(r.status, 404, r.text);
    r = await api(s, 'POST', `/networks/abc/${action}`);
    assert.is(r.status, 400, r.text);
    r = await call(s.api, 'POST', `/networks/${networkId}/${action}`, { headers: { authorization: 'Basic ' + Buffer.from(`${VIEWER.username}:${VIEWER.password}`).toString('base64') } });
    assert.is(r.status, 403, r.text);
  }
  assert.equal(await audited('network', 'STOP', before), []);
  assert.equal(await audited('network', 'RESTART', before), []);
  const nodes = (await api(s, 'GET', `/networks/evm/${networkId}/nodes`)).json.items as Array<{ status: string }>;
  assert.ok(nodes.every((n) => n.status === 'running'), 'the VIEWER stopped nothing');
});

test.run();
