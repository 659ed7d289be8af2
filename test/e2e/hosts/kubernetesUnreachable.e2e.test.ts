// A registered Kubernetes cluster that stops answering (issue 39 item 5), against the cluster of
// test/k8s/cluster.sh up (a counted skip, saying why, without one), the service a child process.
// The cluster is registered through a TCP proxy of this test (its API server's certificate names
// 127.0.0.1), which the test closes: the service loses the API server, the shared cluster runs on.
// - the node's read is `unreachable` (not stopped), naming the cluster and why; start, stop,
//   restart and delete are a 503 HOST_UNREACHABLE saying why, and nothing is recorded (no
//   node.stopped, the pod still serves its chain);
// - the proxy back: the node reads running again, and stop and delete work.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import net from 'node:net';
import { adminAuth, call, startServer, type TestServer } from '../../helpers/server.ts';
import { requires } from '../../helpers/requirements.ts';
import { serviceImage, serviceImageSkipReason, testCluster } from '../../helpers/kubernetes.ts';
import { until } from '../evm/evmLifecycle.ts';

// Each anvil pod first runs the state file cleanup in the service's image (anvilStateFile.ts): that image must be on the cluster too.
const skipReason = await serviceImageSkipReason();
const t = requires(suite('kubernetes: a cluster that stops answering'), 'kubernetes', skipReason);
const cluster = testCluster();
const c = () => cluster!.connection;
const PREFIX = `k8su${process.pid % 100000}-`;
const PORT = 30000 + ((process.pid * 17 + 1200) % 2400);
let server: TestServer;
let hostId: number;
let node: any;
const api = (method: string, p: string, body?: unknown) => call(server.api, method, p, { headers: adminAuth(), body });
const events = async (nodeId: number) => (await api('GET', `/nodes/${nodeId}/events?limit=500`)).json.items as Array<{ event: string }>;
const height = async () => {
  const r = await fetch(`http://${c().nodeAddress}:${PORT}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }), signal: AbortSignal.timeout(3000) });
  return Number(((await r.json()) as { result: string }).result);
};

/** A TCP proxy to the API server on a fixed local port, closed and opened again by the test. */
function apiProxy() {
  const target = new URL(c().server);
  const sockets = new Set<net.Socket>();
  let listener: net.Server | null = null;
  let port = 0;
  const open = () =>
    new Promise<void>((resolve, reject) => {
      listener = net.createServer((inbound) => {
        const outbound = net.connect(Number(target.port || 443), target.hostname);
        for (const s of [inbound, outbound]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => undefined);
        }
        inbound.pipe(outbound).pipe(inbound);
      });
      listener.once('error', reject);
      listener.listen(port, '127.0.0.1', () => {
        port = (listener!.address() as net.AddressInfo).port;
        resolve();
      });
    });
  const close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      if (!listener) return resolve();
      listener.close(() => resolve());
      listener = null;
    });
  return { open, close, url: () => `https://127.0.0.1:${port}` };
}
// Made in before (it reads the cluster's address): without a cluster the file only counts its skips.
let proxy: ReturnType<typeof apiProxy>;

t.before(async () => {
  proxy = apiProxy();
  await proxy.open();
  server = await startServer({ env: { KEY_ENCRYPTION_KEY: 'k8s-unreachable-e2e-key-encryption-key-0123', LNM_HOST_CHECK_SECONDS: '1', LNM_DOCKER_PREFIX: PREFIX, LNM_NODE_ENGINE: 'process', LNM_IMAGE_SERVICE: serviceImage } });
  const h = await api('POST', '/hosts', { name: 'proxied', kind: 'kubernetes', url: proxy.url(), externalIp: c().nodeAddress, kubernetes: { caCertificate: c().caCertificate, token: c().token, namespace: c().namespace, storageClass: c().storageClass } });
  assert.is(h.status, 201, h.text);
  hostId = h.json.id;
  const n = await api('POST', '/networks', { name: 'behind-proxy', type: 'evm', validatorBalance: '1000000000000000000000', genesis: { chain_id: 42780, consensus: 'QBFT', block_time: 1 } });
  assert.is(n.status, 201, n.text);
  const r = await api('POST', '/nodes', { name: 'proxied-validator', platform: 'EVM', nodeType: 'EVM_FULLNODE', networkId: n.json.id, config: { hostId, rpcHttpPort: PORT, p2pPort: PORT + 1 } });
  assert.is(r.status, 201, r.text);
  node = r.json;
  await until('the node running', async () => {
    const got = (await api('GET', `/nodes/${node.id}`)).json;
    assert.not.equal(got.status, 'error', JSON.stringify(got));
    return got.status === 'running';
  }, 180_000);
});

t.after(async () => {
  await proxy.open().catch(() => undefined);
  if (node) {
    await until('the cluster seen again', async () => (await api('GET', `/hosts/${hostId}`)).json.status.reachable === true, 20_000).catch(() => undefined);
    await api('DELETE', `/nodes/${node.id}`).catch(() => undefined);
    await until('the node gone', async () => (await api('GET', `/nodes/${node.id}`)).status === 404, 90_000).catch(() => undefined);
  }
  await server?.stop();
  await proxy.close();
});

t('the cluster unreachable: the node reads unreachable, and operations on it are a 503 saying why', async () => {
  await proxy.close();
  await until('the cluster seen unreachable', async () => (await api('GET', `/hosts/${hostId}`)).json.status.reachable === false, 20_000);
  const read = (await api('GET', `/nodes/${node.id}`)).json;
  assert.is(read.status, 'unreachable');
  assert.match(read.error, /cluster proxied does not answer/);
  assert.is((await api('GET', '/nodes')).json.items.find((n: any) => n.id === node.id).status, 'unreachable', 'lists say so too');
  for (const [method, p] of [['POST', `/nodes/${node.id}/stop`], ['POST', `/nodes/${node.id}/restart`], ['POST', `/nodes/${node.id}/start`], ['DELETE', `/nodes/${node.id}`]] as const) {
    const r = await api(method, p);
    assert.is(r.status, 503, `${method} ${p}: ${r.text}`);
    assert.is(r.json.code, 'HOST_UNREACHABLE', r.text);
    assert.match(r.json.message, /Kubernetes cluster proxied, which does not answer/);
    assert.not.ok(r.text.includes(c().token!), 'no token in the error');
  }
  assert.not.ok((await events(node.id)).some((e) => e.event === 'node.stopped' || e.event === 'node.deleted'), 'nothing recorded');
  assert.ok((await height()) > 0, 'the pod still serves its chain');
});

t('the cluster back: the node reads running, and stop and delete work', async () => {
  await proxy.open();
  await until('the cluster seen again', async () => (await api('GET', `/hosts/${hostId}`)).json.status.reachable === true, 20_000);
  assert.is((await api('GET', `/nodes/${node.id}`)).json.status, 'running');
  const stop = await api('POST', `/nodes/${node.id}/stop`);
  assert.ok(stop.status < 300, stop.text);
  await until('the node stopped', async () => (await api('GET', `/nodes/${node.id}`)).json.status === 'stopped', 60_000);
  assert.ok([200, 204].includes((await api('DELETE', `/nodes/${node.id}`)).status));
  await until('the node gone', async () => (await api('GET', `/nodes/${node.id}`)).status === 404, 90_000);
  node = null;
});

t.run();
