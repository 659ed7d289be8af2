// A Kubernetes cluster registered with a client certificate, and its nodes exposed by hostPort
// or LoadBalancer (issue 39 item 1), against the cluster of test/k8s/cluster.sh up (a counted
// skip, saying why, without one or without a client certificate in its admin kubeconfig), the
// service a child process, names prefixed per run (LNM_DOCKER_PREFIX), the cluster being shared:
// - registration with the cluster's admin client certificate and key: 201, reachable; the key is
//   in no answer, audit entry or server log line; a certificate that does not parse, a key that
//   is not the certificate's, a certificate the API server does not accept: a 400 naming the field;
// - exposure hostPort, with the cluster's own image name, pull policy and pull secret: an anvil
//   node on a port outside the NodePort range runs under those credentials, its pod binds the port
//   on the cluster node and answers at the node address, the pod spec carries the image settings;
// - exposure LoadBalancer (no load-balancer controller on the test cluster): the node's Service is
//   of type LoadBalancer with the node's port as its NodePort, the node answers through that
//   NodePort while the start waits, and the start fails saying no load balancer answered, leaving
//   nothing on the cluster; with the operator's loadBalancerAddress the node runs and is reached
//   there. The address a balancer writes into status.loadBalancer.ingress: the test writes one (an
//   extra address on the cluster's bridge, no load-balancer controller running here) while the
//   start waits; the node runs once the start has checked it answers there.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as k8s from '@kubernetes/client-node';
import { execFileSync } from 'node:child_process';
import { adminAuth, call, startServer, type TestServer } from '../../helpers/server.ts';
import { requires } from '../../helpers/requirements.ts';
import { adminClientCertificate, adminKubeConfig, kubernetesSkipReason, testCluster } from '../../helpers/kubernetes.ts';
import { selfSignedCertificate } from '../../helpers/mail.ts';
import { until } from '../evm/evmLifecycle.ts';

const certificate = adminClientCertificate();
const skipReason = (await kubernetesSkipReason()) ?? (certificate ? undefined : 'the test cluster\'s admin kubeconfig has no client certificate (test/k8s/cluster.sh makes one)');
const t = requires(suite('kubernetes: client-certificate credentials, hostPort and LoadBalancer exposure'), 'kubernetes', skipReason);
const cluster = testCluster();
const c = () => cluster!.connection;
const PREFIX = `k8sexpose${process.pid % 10000}-`;
// hostPort: any port (here outside the NodePort range); LoadBalancer: node ports.
const HOST_PORT = 18500 + (process.pid % 400);
const LB_PORT = 32400 + 2 * (process.pid % 170);
const IMAGE = 'docker.io/library/lnm-anvil:local';
const PULL_SECRET = 'k8sexpose-regcred';
let server: TestServer;
const CHAIN_ID = 42781;
let core: k8s.CoreV1Api;
let apps: k8s.AppsV1Api;
const api = (method: string, p: string, body?: unknown) => call(server.api, method, p, { headers: adminAuth(), body });
const name = (id: number) => `${PREFIX}node-${id}`;
const ns = () => c().namespace;
const there = (p: Promise<unknown>) => p.then(() => true, () => false);
const anyObject = async (id: number) =>
  (await Promise.all([
    there(apps.readNamespacedStatefulSet({ name: name(id), namespace: ns() })),
    there(core.readNamespacedService({ name: name(id), namespace: ns() })),
    there(core.readNamespacedSecret({ name: `${name(id)}-keys`, namespace: ns() })),
    there(core.readNamespacedConfigMap({ name: `${name(id)}-config`, namespace: ns() })),
    there(core.readNamespacedPersistentVolumeClaim({ name: `${name(id)}-data`, namespace: ns() })),
  ])).some(Boolean);
const rpc = async (port: number, method: string, address = c().nodeAddress) => {
  const r = await fetch(`http://${address}:${port}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }), signal: AbortSignal.timeout(3000) });
  return ((await r.json()) as { result: any }).result;
};
const withCertificate = (over: Record<string, unknown> = {}) => ({ caCertificate: c().caCertificate, clientCertificate: certificate!.certificate, clientKey: certificate!.key, namespace: ns(), storageClass: c().storageClass, ...over });
const register = (hostName: string, kubernetes: Record<string, unknown>) => api('POST', '/hosts', { name: hostName, kind: 'kubernetes', url: c().server, externalIp: c().nodeAddress, kubernetes });
// anvil is a single-node chain: a network per node.
const createNode = async (nodeName: string, hostId: number, port: number, chainId: number) => {
  const n = await api('POST', '/networks', { name: `net-${nodeName}`, type: 'evm', validatorBalance: '1000000000000000000000', genesis: { chain_id: chainId, consensus: 'QBFT', block_time: 1 } });
  assert.is(n.status, 201, n.text);
  return api('POST', '/nodes', { name: nodeName, platform: 'EVM', nodeType: 'EVM_FULLNODE', networkId: n.json.id, config: { hostId, rpcHttpPort: port, p2pPort: port + 1 } });
};
const keyLines = () => certificate!.key.split('\n').filter((l) => l.length > 20);

t.before(async () => {
  const kc = adminKubeConfig();
  core = kc.makeApiClient(k8s.CoreV1Api);
  apps = kc.makeApiClient(k8s.AppsV1Api);
  server = await startServer({ env: { KEY_ENCRYPTION_KEY: 'k8s-expose-e2e-key-encryption-key-0123456789', LNM_HOST_CHECK_SECONDS: '2', LNM_DOCKER_PREFIX: PREFIX, LNM_NODE_ENGINE: 'process' } });
});

t.after(async () => {
  if (!server) return;
  const left = ((await api('GET', '/nodes').catch(() => null))?.json?.items ?? []) as Array<{ id: number }>;
  for (const n of left) await api('DELETE', `/nodes/${n.id}?deleteVolume=true`).catch(() => undefined);
  for (const n of left) await until('the node\'s objects gone', async () => !(await anyObject(n.id)), 90_000).catch(() => undefined);
  await server.stop();
});

let certHost: number;

t('a cluster registered with a client certificate: checked, the key never shown; bad PEMs and a foreign certificate named', async () => {
  const stranger = selfSignedCertificate('127.0.0.1');
  const cases: Array<[string, Record<string, unknown>, string, RegExp]> = [
    ['certificate not a PEM', { clientCertificate: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n' }, 'kubernetes.clientCertificate', /clientCertificate is not a PEM certificate/],
    ['key not a PEM', { clientKey: 'not a key' }, 'kubernetes.clientKey', /clientKey is not a PEM private key/],
    ['key of another certificate', { clientKey: stranger.key }, 'kubernetes.clientKey', /clientKey does not belong to the client certificate/],
    ['certificate the API server does not accept', { clientCertificate: stranger.cert, clientKey: stranger.key }, 'kubernetes.clientCertificate', /does not accept the credentials/],
    ['a token as well', { token: c().token }, 'kubernetes.token', /not both/],
    ['key without certificate', { clientCertificate: undefined }, 'kubernetes.clientCertificate', /needs .*clientCertificate/],
  ];
  for (const [what, over, field, reason] of cases) {
    const r = await register(`bad-${what.replace(/ /g, '-')}`, withCertificate(over));
    assert.is(r.status, 400, `${what}: ${r.text}`);
    assert.ok(r.json.details.some((d: any) => d.field === field), `${what}: ${field} in ${JSON.stringify(r.json.details)}`);
    assert.match(r.json.message, reason, what);
    for (const line of [...keyLines(), ...stranger.key.split('\n').filter((l) => l.length > 20)]) assert.not.ok(r.text.includes(line), `${what}: no key in the error`);
  }
  assert.is((await api('GET', '/hosts')).json.total, 0, 'nothing recorded');

  const r = await register('cert-hostport', withCertificate({ exposure: 'hostPort', images: { anvil: IMAGE }, imagePullPolicy: 'IfNotPresent', imagePullSecret: PULL_SECRET }));
  assert.is(r.status, 201, r.text);
  certHost = r.json.id;
  assert.is(r.json.status.reachable, true, r.text);
  assert.match(r.json.status.engineVersion, /^v1\.\d+/);
  assert.is(r.json.kubernetes.hasToken, false);
  assert.is(r.json.kubernetes.exposure, 'hostPort');
  assert.equal(r.json.kubernetes.images, { anvil: IMAGE });
  assert.is(r.json.tls.hasClientKey, true);
  assert.is(r.json.tls.clientCertificate, certificate!.certificate, 'the certificate is public');
  const audit = await api('GET', '/audit-logs?limit=200');
  assert.is(audit.json.items.filter((e: any) => e.resource_type === 'node_host').length, 1, 'the registration audited');
  const texts = [r.text, (await api('GET', `/hosts/${certHost}`)).text, (await api('GET', '/hosts')).text, audit.text, server.output()];
  for (const text of texts) for (const line of keyLines()) assert.not.ok(text.includes(line), 'the client key is in no answer, audit entry or log line');
});

t('hostPort: an anvil node on a port outside the NodePort range runs with the certificate, reached at the node address, with the cluster\'s image settings', async () => {
  const r = await createNode('on-host-port', certHost, HOST_PORT, CHAIN_ID);
  assert.is(r.status, 201, r.text);
  const id = r.json.id;
  const running = await until('the node running', async () => {
    const got = (await api('GET', `/nodes/${id}`)).json;
    assert.not.equal(got.status, 'error', JSON.stringify(got));
    return got.status === 'running' ? got : null;
  }, 180_000);
  assert.is(running.host_id, certHost);
  const pod = (await apps.readNamespacedStatefulSet({ name: name(id), namespace: ns() })).spec!.template.spec!;
  const container = pod.containers[0]!;
  assert.equal(container.ports?.map((p) => [p.containerPort, p.hostPort]), [[HOST_PORT, HOST_PORT]]);
  assert.is(container.image, IMAGE, 'the cluster\'s own image name');
  assert.is(container.imagePullPolicy, 'IfNotPresent');
  assert.equal(pod.imagePullSecrets?.map((s) => s.name), [PULL_SECRET]);
  const svc = await core.readNamespacedService({ name: name(id), namespace: ns() });
  assert.is(svc.spec!.type, 'ClusterIP', 'no NodePort with hostPort exposure');
  assert.is(Number(await rpc(HOST_PORT, 'eth_chainId')), CHAIN_ID, 'the node answers on its host port at the node address');
  const first = Number(await rpc(HOST_PORT, 'eth_blockNumber'));
  await until('blocks', async () => Number(await rpc(HOST_PORT, 'eth_blockNumber')) >= first + 2, 20_000);
  assert.is((await api('DELETE', `/nodes/${id}?deleteVolume=true`)).status, 204);
  await until('its objects gone', async () => !(await anyObject(id)), 90_000);
});

t('LoadBalancer without a balancer: the Service and its NodePort made, the node reached through it, the start fails saying no load balancer answered, nothing left', async () => {
  const h = await register('balanced', { caCertificate: c().caCertificate, token: c().token, namespace: ns(), storageClass: c().storageClass, exposure: 'LoadBalancer', loadBalancerTimeoutSeconds: 90 });
  assert.is(h.status, 201, h.text);
  const r = await createNode('behind-balancer', h.json.id, LB_PORT, CHAIN_ID + 1);
  assert.is(r.status, 201, r.text);
  const id = r.json.id;
  // While the start waits for the balancer: the Service is there, of type LoadBalancer, and the node answers through its NodePort.
  const svc = await until('the Service', async () => {
    const got = (await api('GET', `/nodes/${id}`)).json;
    assert.not.equal(got.status, 'error', JSON.stringify(got));
    return core.readNamespacedService({ name: name(id), namespace: ns() }).catch(() => null);
  }, 120_000);
  assert.is(svc.spec!.type, 'LoadBalancer');
  assert.equal(svc.spec!.ports!.map((p) => [p.port, p.nodePort]), [[LB_PORT, LB_PORT]]);
  assert.is(Number(await until('the node through its NodePort', () => rpc(LB_PORT, 'eth_chainId').catch(() => null), 120_000)), CHAIN_ID + 1);
  assert.equal(svc.status?.loadBalancer?.ingress ?? [], [], 'no balancer on the test cluster');
  const failed = await until('the start failed', async () => {
    const got = (await api('GET', `/nodes/${id}`)).json;
    return got.status === 'error' ? got : null;
  }, 120_000);
  assert.match(failed.error, /no load balancer answered/);
  assert.match(failed.error, /status\.loadBalancer\.ingress within 90 s/);
  await until('nothing left on the cluster', async () => !(await anyObject(id)), 90_000);
  assert.is((await api('DELETE', `/nodes/${id}`)).status, 204);
});

t('LoadBalancer with the operator\'s address: the node runs, reached at that address through its balanced port', async () => {
  // The test cluster's node stands in for the operator's balancer: the node ports are the same.
  const h = await register('balanced-at', { caCertificate: c().caCertificate, token: c().token, namespace: ns(), storageClass: c().storageClass, exposure: 'LoadBalancer', loadBalancerAddress: c().nodeAddress });
  assert.is(h.status, 201, h.text);
  assert.is(h.json.kubernetes.loadBalancerAddress, c().nodeAddress);
  const r = await createNode('at-given-address', h.json.id, LB_PORT + 2, CHAIN_ID + 2);
  assert.is(r.status, 201, r.text);
  const id = r.json.id;
  await until('the node running', async () => {
    const got = (await api('GET', `/nodes/${id}`)).json;
    assert.not.equal(got.status, 'error', JSON.stringify(got));
    return got.status === 'running' ? got : null;
  }, 180_000);
  assert.is((await core.readNamespacedService({ name: name(id), namespace: ns() })).spec!.type, 'LoadBalancer');
  assert.is(Number(await rpc(LB_PORT + 2, 'eth_chainId', c().nodeAddress)), CHAIN_ID + 2);
  assert.is((await api('DELETE', `/nodes/${id}?deleteVolume=true`)).status, 204);
  await until('its objects gone', async () => !(await anyObject(id)), 90_000);
});

t('LoadBalancer whose address the balancer writes: the start waits for status.loadBalancer.ingress, then checks the node answers at that address, and runs', async () => {
  // The test cluster has no load-balancer controller: this test does what one does, writing an
  // address into the Service's status once the Service exists. The address is an extra one on the
  // cluster's bridge (outside the pod network), so the only way to it is this ingress: kube-proxy
  // routes it to the node's pod as a real balancer's traffic arriving at the node would be.
  const bridge = process.env.LNM_K8S_BRIDGE ?? 'lnmk8s0';
  const ingressIp = '10.214.77.1';
  const h = await register('balanced-ingress', { caCertificate: c().caCertificate, token: c().token, namespace: ns(), storageClass: c().storageClass, exposure: 'LoadBalancer', loadBalancerTimeoutSeconds: 180 });
  assert.is(h.status, 201, h.text);
  const port = LB_PORT + 4;
  const r = await createNode('behind-ingress', h.json.id, port, CHAIN_ID + 3);
  assert.is(r.status, 201, r.text);
  const id = r.json.id;
  execFileSync('ip', ['addr', 'add', `${ingressIp}/32`, 'dev', bridge]);
  try {
    const svc = await until('the Service', () => core.readNamespacedService({ name: name(id), namespace: ns() }).catch(() => null), 120_000);
    assert.is(svc.spec!.type, 'LoadBalancer');
    // Before the balancer answers, the start waits: the node is not running, whatever its pod does.
    await until('the pod Ready (the start still waiting for the ingress)', async () => {
      const pod = await core.readNamespacedPod({ name: `${name(id)}-0`, namespace: ns() }).catch(() => null);
      return pod?.status?.conditions?.some((cond) => cond.type === 'Ready' && cond.status === 'True') ? true : null;
    }, 180_000);
    assert.is.not((await api('GET', `/nodes/${id}`)).json.status, 'running', 'not running before the balancer wrote an address');
    const now = await core.readNamespacedService({ name: name(id), namespace: ns() });
    now.status = { loadBalancer: { ingress: [{ ip: ingressIp }] } };
    await core.replaceNamespacedServiceStatus({ name: name(id), namespace: ns(), body: now });
    const running = await until('the node running', async () => {
      const got = (await api('GET', `/nodes/${id}`)).json;
      assert.not.equal(got.status, 'error', JSON.stringify(got));
      return got.status === 'running' ? got : null;
    }, 180_000);
    assert.is(running.status, 'running');
    assert.is(Number(await rpc(port, 'eth_chainId', ingressIp)), CHAIN_ID + 3, 'the node answers at the balancer\'s address');
    assert.is((await api('DELETE', `/nodes/${id}?deleteVolume=true`)).status, 204);
    await until('its objects gone', async () => !(await anyObject(id)), 90_000);
  } finally {
    execFileSync('ip', ['addr', 'del', `${ingressIp}/32`, 'dev', bridge]);
  }
});

t.run();
