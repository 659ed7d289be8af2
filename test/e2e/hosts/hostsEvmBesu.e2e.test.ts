// A besu network with a validator on each of two hosts: one under this machine's Docker Engine,
// one on a node host (a second Docker Engine in a network namespace the test makes, tcp with
// --tlsverify, only the besu image loaded into it). No besu image can be pulled here, so both run
// the besu stand-in (test/standins/besuStandinImage.ts): it checks besu's options and proves its
// peers' node keys in a handshake of its own, but it produces no blocks and speaks no devp2p. What
// this proves is the wiring across hosts:
// - the node here, given config.externalIp (the address the other host reaches this machine at),
//   listens on every interface and advertises that address in its enode;
// - the node on the host is reached at the host's address; each is told the other's enode;
// - the two validators find each other across the hosts (each sees the other's address as its
//   peer's remote address), and the chain reports both genesis validators;
// - config.externalIp that is not an IPv4 address, or given with a node host, is a 400 with
//   nothing recorded.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import Docker from 'dockerode';
import { adminAuth, call, startServer, type TestServer } from '../../helpers/server.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { dockerSkipReason } from '../../helpers/dockerAvailability.ts';
import { secondHostMissing, startSecondDockerHost, type SecondDockerHost } from '../../helpers/secondDockerHost.ts';
import { ensureBesuStandinImage } from '../../standins/besuStandinImage.ts';
import { until } from '../evm/evmLifecycle.ts';

const docker = new Docker();
const t = requiresAll(suite('node hosts: a besu validator on each of two hosts'), ['docker', await dockerSkipReason()], ['docker-host', secondHostMissing()]);
let host: SecondDockerHost;
let server: TestServer;
let hostId: number;
let networkId: number;
let here: any;
let there: any;
const api = (method: string, p: string, body?: unknown) => call(server.api, method, p, { headers: adminAuth(), body });
const rpc = async (url: string, method: string, params: unknown[] = []) => {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), signal: AbortSignal.timeout(3000) });
  return ((await r.json()) as { result: any }).result;
};

/** The node once running; until then a throw saying its status and error, which a time-out reports. */
const running = async (id: number) => {
  const r = (await api('GET', `/nodes/${id}`)).json;
  if (r?.status !== 'running') throw new Error(`node ${id} is ${r?.status}${r?.error ? `: ${r.error}` : ''}`);
  return r;
};

t.before(async () => {
  const image = await ensureBesuStandinImage();
  host = await startSecondDockerHost({ images: [image] });
  server = await startServer({ env: { KEY_ENCRYPTION_KEY: 'hosts-besu-e2e-key-encryption-key-01234567', LNM_HOST_CHECK_SECONDS: '1', LNM_NODE_ENGINE: 'docker', LNM_IMAGE_BESU: image } });
  const h = await api('POST', '/hosts', { name: 'second', url: host.url, tls: host.pki });
  assert.is(h.status, 201, h.text);
  hostId = h.json.id;
  const n = await api('POST', '/networks/evm', { name: 'two-hosts', validatorCount: 2, genesis: { chain_id: 43277, consensus: 'QBFT', block_time: 2 } });
  assert.is(n.status, 201, n.text);
  assert.is(n.json.client, 'besu', n.text);
  networkId = n.json.id;
});

t.after(async () => {
  for (const n of [here, there]) if (n) await api('DELETE', `/nodes/${n.id}`).catch(() => undefined);
  if (server) for (const c of await docker.listContainers({ all: true, filters: { label: [`lnm.data-dir=${server.dataDir}`] } })) await docker.getContainer(c.Id).remove({ force: true }).catch(() => undefined);
  await server?.stop();
  await host?.remove();
});

t('config.externalIp that is not an IPv4 address, or given with a node host, is a 400 and nothing is recorded', async () => {
  for (const [config, field] of [
    [{ externalIp: 'not-an-address' }, 'config.externalIp'],
    [{ externalIp: '0.0.0.0' }, 'config.externalIp'],
    [{ externalIp: host.gateway, hostId: 0 }, 'config.hostId'],
    [{ externalIp: host.gateway, hostId }, 'config.externalIp'],
  ] as const) {
    const r = await api('POST', '/nodes', { name: 'bad', platform: 'EVM', nodeType: 'EVM_FULLNODE', networkId, config });
    assert.is(r.status, 400, `${JSON.stringify(config)}: ${r.text}`);
    assert.ok(r.json.details?.some((d: { field: string }) => d.field === field), `${JSON.stringify(config)}: ${r.text}`);
  }
  assert.is((await api('GET', '/nodes')).json.total, 0);
});

t('a validator here with an external address and one on the host start; each advertises where the other reaches it', async () => {
  const a = await api('POST', '/nodes', { name: 'validator-here', platform: 'EVM', nodeType: 'EVM_FULLNODE', networkId, config: { externalIp: host.gateway } });
  assert.is(a.status, 201, a.text);
  here = a.json;
  const b = await api('POST', '/nodes', { name: 'validator-there', platform: 'EVM', nodeType: 'EVM_FULLNODE', networkId, config: { hostId } });
  assert.is(b.status, 201, b.text);
  there = b.json;
  for (const n of [here, there]) assert.is(n.role, 'validator', JSON.stringify(n));
  assert.is(here.host_id, null);
  assert.is(there.host_id, hostId);
  here = await until('the node here running', () => running(here.id), 90_000);
  there = await until('the node on the host running', () => running(there.id), 90_000);
  assert.match(here.enode, new RegExp(`@${host.gateway.replace(/\./g, '\\.')}:${here.config?.p2pPort ?? '\\d+'}$`));
  assert.match(there.enode, new RegExp(`@${host.address.replace(/\./g, '\\.')}:\\d+$`));
  assert.match(here.endpoints.rpc_http, new RegExp(`^http://${host.gateway.replace(/\./g, '\\.')}:\\d+$`));
  assert.match(there.endpoints.rpc_http, new RegExp(`^http://${host.address.replace(/\./g, '\\.')}:\\d+$`));
  // The container of the node on the host is on that host's engine only.
  assert.match(host.docker(['ps', '--filter', `label=lnm.node=node-${there.id}`, '--format', '{{.Names}}']), new RegExp(`lnm-node-${there.id}`));
  assert.not.ok((await docker.listContainers({ filters: { label: [`lnm.node=node-${there.id}`] } })).length, 'not on the main engine');
});

t('the two validators peer across the hosts, and the chain reports both genesis validators', async () => {
  const peersOf = async (n: any) => (await rpc(n.endpoints.rpc_http, 'admin_peers')) as Array<{ id: string; network: { remoteAddress: string } }>;
  const idOf = (n: any) => '0x' + /^enode:\/\/([0-9a-f]+)@/.exec(n.enode)![1];
  const seenHere = await until('the node here peered with the one on the host', async () => (await peersOf(here)).find((p) => p.id === idOf(there)), 45_000);
  const seenThere = await until('the node on the host peered with the one here', async () => (await peersOf(there)).find((p) => p.id === idOf(here)), 45_000);
  // Each connection crosses the hosts: the peer's address is the other side of the namespace's link.
  assert.match(seenHere.network.remoteAddress, new RegExp(`^${host.address.replace(/\./g, '\\.')}:`));
  assert.match(seenThere.network.remoteAddress, new RegExp(`^${host.gateway.replace(/\./g, '\\.')}:`));
  for (const n of [here, there]) await until(`peer count of node ${n.id}`, async () => ((await api('GET', `/nodes/${n.id}`)).json.peer_count ?? 0) >= 1, 20_000);
  const v = (await api('GET', `/networks/${networkId}/validators`)).json;
  assert.is(v.source, 'chain');
  assert.equal(v.validators.map((x: { address: string }) => x.address.toLowerCase()).sort(), [here.validator_address, there.validator_address].map((a: string) => a.toLowerCase()).sort());
});

t.run();
