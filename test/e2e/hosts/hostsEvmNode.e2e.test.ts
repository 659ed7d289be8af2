// An evm node placed on a node host, a second Docker Engine in a network namespace the test
// makes (tcp with --tlsverify, its own data root), with only lnm-anvil:local loaded into it:
// - POST /nodes with config.hostId starts the node under that engine, its files (genesis, the
//   anvil state built from it) uploaded through the engine into a volume, no shared filesystem;
//   its endpoints are at the host's address, where block 0 is the network's genesis and blocks come;
// - its logs come from that engine (the last lines, and followed live over the WebSocket); the host is refused deletion while the node is on it;
// - a node placed on an unknown host is a 400 naming it, with nothing recorded;
// - the host's engine stopped: the node is down (node.downtime), the host unreachable; the
//   engine back: the node runs again (node.recovery, restart policy unless-stopped) and mines on;
// - deleting the node removes its container and volume from the host.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { adminAuth, call, startServer, type TestServer } from '../../helpers/server.ts';
import { requires } from '../../helpers/requirements.ts';
import { secondHostMissing, startSecondDockerHost, type SecondDockerHost } from '../../helpers/secondDockerHost.ts';
import { execFileSync } from 'node:child_process';
import WebSocket from 'ws';
import { STORE_ABI, STORE_BYTECODE, until } from '../evm/evmLifecycle.ts';

const missing = secondHostMissing() ?? (() => {
  try {
    execFileSync('docker', ['image', 'inspect', 'lnm-anvil:local'], { stdio: 'ignore' });
    return undefined;
  } catch {
    return 'the image lnm-anvil:local is not on the main Docker Engine (.ci/docker.sh builds it)';
  }
})();
const t = requires(suite('node hosts: an evm node on a second Docker Engine'), 'docker-host', missing);
let host: SecondDockerHost;
let server: TestServer;
let hostId: number;
let networkId: number;
let node: any;
const api = (method: string, p: string, body?: unknown) => call(server.api, method, p, { headers: adminAuth(), body });
const events = async (_s: TestServer, nodeId: number) => (await api('GET', `/nodes/${nodeId}/events?limit=500`)).json.items as Array<{ event: string }>;
const rpc = async (url: string, method: string, params: unknown[] = []) => {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), signal: AbortSignal.timeout(3000) });
  return ((await r.json()) as { result: any }).result;
};

t.before(async () => {
  host = await startSecondDockerHost({ images: ['lnm-anvil:local'] });
  server = await startServer({ env: { KEY_ENCRYPTION_KEY: 'hosts-evm-e2e-key-encryption-key-0123456', LNM_HOST_CHECK_SECONDS: '1', LNM_NODE_ENGINE: 'process' } });
  assert.is((await api('POST', '/settings', { nodeHealthCheckIntervalSeconds: 1, nodeDowntimeThreshold: 2 })).status, 200);
  const h = await api('POST', '/hosts', { name: 'second', url: host.url, tls: host.pki, labels: { zone: 'b' } });
  assert.is(h.status, 201, h.text);
  hostId = h.json.id;
  const n = await api('POST', '/networks', { name: 'hosted', type: 'evm', validatorBalance: '1000000000000000000000', genesis: { chain_id: 42777, consensus: 'QBFT', block_time: 1 } });
  assert.is(n.status, 201, n.text);
  networkId = n.json.id;
});

t.after(async () => {
  if (node) await api('DELETE', `/nodes/${node.id}`).catch(() => undefined);
  await server?.stop();
  await host?.remove();
});

t('a node placed on an unknown host is a 400 naming it, and nothing is recorded', async () => {
  const r = await api('POST', '/nodes', { name: 'nowhere', platform: 'EVM', nodeType: 'EVM_FULLNODE', networkId, config: { hostId: 999 } });
  assert.is(r.status, 400, r.text);
  assert.is(r.json.code, 'UNKNOWN_HOST');
  assert.is(r.json.details[0].field, 'config.hostId');
  const process = await api('POST', '/nodes', { name: 'nowhere', platform: 'EVM', nodeType: 'EVM_FULLNODE', networkId, config: { hostId, engine: 'process' } });
  assert.is(process.status, 400, process.text);
  const noLabel = await api('POST', '/nodes', { name: 'nowhere', platform: 'EVM', nodeType: 'EVM_FULLNODE', networkId, config: { hostLabels: { zone: 'z' } } });
  assert.is(noLabel.status, 409, noLabel.text);
  assert.is(noLabel.json.code, 'NO_HOST_FITS');
  assert.is((await api('GET', '/nodes')).json.total, 0);
});

t('POST /nodes placed by host labels runs the node under that host\'s engine, its files uploaded through it', async () => {
  const r = await api('POST', '/nodes', { name: 'hosted-validator', platform: 'EVM', nodeType: 'EVM_FULLNODE', networkId, config: { hostLabels: { zone: 'b' } } });
  assert.is(r.status, 201, r.text);
  node = r.json;
  assert.is(node.status, 'running', r.text);
  assert.is(node.host_id, hostId);
  assert.is(node.engine, 'docker');
  assert.match(node.endpoints.rpc_http, new RegExp(`^http://${host.address.replace(/\./g, '\\.')}:\\d+$`));
  // The container and its files volume are on the second engine, not on the main one.
  assert.match(host.docker(['ps', '--filter', `label=lnm.node=node-${node.id}`, '--format', '{{.Names}} {{.Status}}']), new RegExp(`lnm-node-${node.id} Up`));
  assert.match(host.docker(['volume', 'ls', '--format', '{{.Name}}']), new RegExp(`lnm-node-${node.id}-files`));
  // Block 0 is the network's genesis (the state built from it was uploaded with it); blocks come.
  const network = (await api('GET', `/networks/evm/${networkId}`)).json;
  assert.is((await rpc(node.endpoints.rpc_http, 'eth_getBlockByNumber', ['0x0', false])).hash, network.genesis_block_hash);
  const first = Number(await rpc(node.endpoints.rpc_http, 'eth_blockNumber'));
  await until('blocks on the second host', async () => Number(await rpc(node.endpoints.rpc_http, 'eth_blockNumber')) >= first + 2, 15_000);
  const logs = await api('GET', `/nodes/${node.id}/logs?tail=20`);
  assert.is(logs.status, 200, logs.text);
  assert.ok(logs.json.lines.length > 0, logs.text);
  // Followed live over the WebSocket: the engine's log stream of the container on the host.
  const ws = new WebSocket(`${server.api.replace('http', 'ws')}/nodes/${node.id}/logs`, { headers: adminAuth() });
  const received: string[] = [];
  ws.on('message', (m) => received.push(m.toString()));
  await new Promise<void>((res, rej) => (ws.once('open', () => res()), ws.once('error', rej)));
  try {
    const d = await api('POST', '/sc/evm/deploy', { networkId, bytecode: STORE_BYTECODE, abi: STORE_ABI, args: ['7'] });
    assert.is(d.status, 200, d.text);
    assert.ok(await until('a followed log line about the transaction', async () => received.find((l) => /transaction|eth_sendRawTransaction/i.test(l)), 20_000));
  } finally {
    ws.close();
  }
  const h = await until('the host check to count the node', async () => {
    const got = (await api('GET', `/hosts/${hostId}`)).json;
    return got.status.runningNodes === 1 ? got : null;
  }, 10_000);
  assert.is(h.status.reachable, true);
  assert.is((await api('DELETE', `/hosts/${hostId}`)).status, 409, 'a host with nodes is kept');
});

t('the host going away marks its node down; its return brings the node back', async () => {
  await host.stop();
  const down = await until('node.downtime', async () => (await events(server, node.id)).find((e: any) => e.event === 'node.downtime'), 30_000);
  assert.ok(down);
  assert.is((await api('GET', `/nodes/${node.id}`)).json.status, 'down');
  await until('the host seen unreachable', async () => (await api('GET', `/hosts/${hostId}`)).json.status.reachable === false, 10_000);
  await host.start();
  await until('node.recovery', async () => (await events(server, node.id)).find((e: any) => e.event === 'node.recovery'), 60_000);
  assert.is((await api('GET', `/nodes/${node.id}`)).json.status, 'running');
  const height = Number(await rpc(node.endpoints.rpc_http, 'eth_blockNumber'));
  await until('blocks again after the return', async () => Number(await rpc(node.endpoints.rpc_http, 'eth_blockNumber')) >= height + 2, 15_000);
  assert.is((await api('GET', `/hosts/${hostId}`)).json.status.reachable, true);
});

t('deleting the node removes its container and volume from the host', async () => {
  const r = await api('DELETE', `/nodes/${node.id}`);
  assert.ok(r.status === 204 || r.status === 200, r.text);
  await until('the container gone', async () => !host.docker(['ps', '-a', '--format', '{{.Names}}']).includes(`lnm-node-${node.id}`), 20_000);
  assert.not.match(host.docker(['volume', 'ls', '--format', '{{.Name}}']), new RegExp(`lnm-node-${node.id}-files`));
  node = null;
  assert.is((await api('DELETE', `/hosts/${hostId}`)).status, 204);
});

t.run();
