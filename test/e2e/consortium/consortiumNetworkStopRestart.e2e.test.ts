// POST /networks/{networkId}/stop and /restart on a consortium network of real Fabric 2.5 nodes
// (a counted skip without the programs): one raft orderer and a peer of each of two
// organizations, joined to a channel. Stop records NetworkStopped and stops the peers before the
// orderer (reverse start order: orderers first); the channel's nodes all stop. Restart records
// NetworkRestarted and brings them back in order, with the ledger kept: the peers report the
// channel at the height they had, and the channel still orders (an anchor peer update commits
// a new config block).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { fabricMissing } from '../../helpers/fabric.ts';
import { requires } from '../../helpers/requirements.ts';
import { apiOf, consortiumEnv, removeConsortiumNodes, twoOrganizationChannel, until } from './consortiumApi.ts';

const t = requires(suite('consortium network stop and restart (real Fabric 2.5)'), 'fabric', fabricMissing);
let server: TestServer;
const api = apiOf(() => server);
let setup: Awaited<ReturnType<typeof twoOrganizationChannel>>;

interface AuditEntry { id: number; resource_id: string | null; details: Record<string, unknown> | null }
async function audited(resourceType: string, action: string, afterId: number): Promise<AuditEntry[]> {
  const r = await api('GET', `/audit-logs?resource_type=${resourceType}&action=${action}&limit=500`);
  assert.is(r.status, 200, r.text);
  return (r.json.items as AuditEntry[]).filter((e) => Number(e.id) > afterId).sort((a, b) => Number(a.id) - Number(b.id));
}
const lastAuditId = async () => Number((await api('GET', '/audit-logs?limit=1')).json.items[0]?.id ?? 0);
const height = async () => {
  const r = await api('GET', `/networks/consortium/${setup.network.id}/info`);
  return r.status === 200 ? Number(r.json.height) : null;
};

t.before(async () => {
  server = await startServer({ env: consortiumEnv() });
  setup = await twoOrganizationChannel(api, 'opsnet', 'opschannel');
});
t.after(async () => {
  if (!server) return;
  await removeConsortiumNodes(api, server.dataDir);
  await server.stop();
});

t('stop: NetworkStopped audited, the peers stopped before the orderer, every node stopped', async () => {
  const before = await lastAuditId();
  const r = await api('POST', `/networks/${setup.network.id}/stop`);
  assert.is(r.status, 200, r.text);
  const ids = r.json.nodes.map((n: { id: number }) => n.id);
  assert.is(ids[0], setup.orderer.id, `the orderer first in start order: ${r.text}`);
  assert.ok(r.json.nodes.every((n: { status: string }) => n.status === 'stopped'), r.text);
  const net = await audited('network', 'STOP', before);
  assert.is(net.length, 1, JSON.stringify(net));
  assert.equal(net[0].details, { platform: 'consortium', nodeIds: ids });
  const stops = (await audited('node', 'STOP', before)).map((e) => Number(e.resource_id));
  assert.is(stops[stops.length - 1], setup.orderer.id, `the orderer stopped last: ${stops.join(',')}`);
  for (const id of ids) assert.is((await api('GET', `/nodes/${id}`)).json.status, 'stopped', `node ${id}`);
});

t('restart: NetworkRestarted audited, every node running, the ledger kept and the channel ordering', async () => {
  let r = await api('POST', `/networks/${setup.network.id}/start`);
  assert.is(r.status, 200, r.text);
  const kept = await until('the channel height from a peer', height, 90_000, 1000);
  const before = await lastAuditId();
  r = await api('POST', `/networks/${setup.network.id}/restart`);
  assert.is(r.status, 200, r.text);
  assert.ok(r.json.nodes.every((n: { status: string }) => n.status === 'running'), r.text);
  assert.is((await audited('network', 'RESTART', before)).length, 1);
  const starts = (await audited('node', 'START', before)).map((e) => Number(e.resource_id));
  assert.is(starts[0], setup.orderer.id, `the orderer started first: ${starts.join(',')}`);
  const after = await until('the channel height after the restart', height, 90_000, 1000);
  assert.ok(after >= kept, `height ${after} after the restart, ${kept} before: the ledger is kept`);
  // The orderer orders again: an anchor peer update commits a config block (retried while raft elects its leader).
  await until('an anchor peer update after the restart', async () => {
    const a = await api('POST', `/networks/consortium/${setup.network.id}/anchor-peers`, { organizationId: 'Org2MSP', anchorPeers: [{ host: '127.0.0.1', port: setup.peer2.config.port }, { host: 'localhost', port: setup.peer2.config.port }] });
    return a.status === 200 ? a : null;
  }, 90_000, 1000);
  await until('the new config block at a peer', async () => ((await height()) ?? 0) > after, 60_000, 1000);
});

t.run();
