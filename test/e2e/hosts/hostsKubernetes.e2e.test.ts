// A Kubernetes cluster registered as a node host (issue 39), against the cluster of
// test/k8s/cluster.sh up (a counted skip, saying why, without one), the service a child process:
// - registering it runs the cluster check and answers the version; the token never comes back
//   (answers, audit log, server log);
// - a missing namespace, a token without the engine's Role, a storage class that does not exist,
//   a token the API server does not accept: a 400 HOST_UNREACHABLE naming the field, nothing stored;
// - the periodic check sees the storage class go away (status not usable, naming it) and come back;
// - a node placed on the cluster while its storage class is gone: a 400 naming it, nothing recorded.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as k8s from '@kubernetes/client-node';
import { adminAuth, call, startServer, type TestServer } from '../../helpers/server.ts';
import { requires } from '../../helpers/requirements.ts';
import { kubernetesSkipReason, testCluster } from '../../helpers/kubernetes.ts';
import { until } from '../evm/evmLifecycle.ts';

const skipReason = await kubernetesSkipReason();
const t = requires(suite('node hosts: a Kubernetes cluster'), 'kubernetes', skipReason);
const cluster = testCluster();
const CHECK_CLASS = 'lnm-hostcheck';
let server: TestServer;
let hostId: number;
let storage: k8s.StorageV1Api;
const api = (method: string, p: string, body?: unknown) => call(server.api, method, p, { headers: adminAuth(), body });
const c = () => cluster!.connection;
const body = (over: Record<string, unknown> = {}, name = 'cluster-a') => ({
  name, kind: 'kubernetes', url: c().server, externalIp: c().nodeAddress,
  kubernetes: { caCertificate: c().caCertificate, token: c().token, namespace: c().namespace, storageClass: CHECK_CLASS, ...over },
});
const makeClass = () => storage.createStorageClass({ body: { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: CHECK_CLASS }, provisioner: 'kubernetes.io/no-provisioner' } });
const dropClass = () => storage.deleteStorageClass({ name: CHECK_CLASS }).catch(() => undefined);

t.before(async () => {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(process.env.LNM_TEST_K8S_KUBECONFIG ?? `${process.env.LNM_K8S_STATE ?? '/tmp/lnm-k8s'}/admin.kubeconfig`);
  storage = kc.makeApiClient(k8s.StorageV1Api);
  await dropClass();
  await makeClass();
  server = await startServer({ env: { KEY_ENCRYPTION_KEY: 'k8s-hosts-e2e-key-encryption-key-0123456789', LNM_HOST_CHECK_SECONDS: '1' } });
});

t.after(async () => {
  await server?.stop();
  if (storage) await dropClass();
});

t('registering a cluster checks it and never shows the token', async () => {
  const r = await api('POST', '/hosts', { ...body(), labels: { zone: 'k8s' } });
  assert.is(r.status, 201, r.text);
  hostId = r.json.id;
  assert.is(r.json.kind, 'kubernetes');
  assert.is(r.json.url, c().server);
  assert.is(r.json.externalIp, c().nodeAddress);
  assert.equal(r.json.kubernetes, { namespace: c().namespace, storageClass: CHECK_CLASS, hasToken: true });
  assert.is(r.json.status.reachable, true);
  assert.match(r.json.status.engineVersion, /^v1\.\d+/);
  assert.is(r.json.status.lastError, null);
  const got = await api('GET', `/hosts/${hostId}`);
  assert.is(got.status, 200);
  assert.is(got.json.kind, 'kubernetes');
  for (const text of [r.text, got.text, (await api('GET', '/hosts')).text]) assert.not.ok(text.includes(c().token!), 'the token is not in an answer');
});

t('a cluster that cannot take nodes is a 400 naming the field, and nothing is recorded', async () => {
  const cases: Array<[string, Record<string, unknown>, string, RegExp]> = [
    ['missing namespace', { namespace: 'lnm-no-such-ns' }, 'kubernetes.namespace', /lnm-no-such-ns does not exist/],
    ['token without the Role', { token: cluster!.tokenWithoutRole }, 'kubernetes.token', /may not.*create apps\/statefulsets/],
    ['missing storage class', { storageClass: 'lnm-no-such-class' }, 'kubernetes.storageClass', /lnm-no-such-class does not exist/],
    ['token not accepted', { token: 'not-a-token' }, 'kubernetes.token', /does not accept the credentials/],
  ];
  for (const [name, over, field, reason] of cases) {
    const r = await api('POST', '/hosts', body(over, `bad-${name.replace(/ /g, '-')}`));
    assert.is(r.status, 400, `${name}: ${r.text}`);
    assert.is(r.json.code, 'HOST_UNREACHABLE', name);
    assert.ok(r.json.details.some((d: any) => d.field === field), `${name}: ${field} in ${JSON.stringify(r.json.details)}`);
    assert.match(r.json.message, reason, name);
    assert.not.ok(r.text.includes(c().token!) || r.text.includes(cluster!.tokenWithoutRole), `${name}: no token in the error`);
  }
  for (const token of ['sëcret-token-not-a-header', 'secret\nX-Injected: 1']) {
    const r = await api('POST', '/hosts', body({ token }, 'bad-token-chars'));
    assert.is(r.status, 400, r.text);
    assert.ok(r.json.details.some((d: any) => d.field.startsWith('kubernetes.token')), r.text);
    assert.not.ok(r.text.includes('sëcret') || r.text.includes('X-Injected'), `the token is not echoed: ${r.text}`);
  }
  const foreignCa = await api('POST', '/hosts', body({ caCertificate: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n' }, 'bad-ca'));
  assert.is(foreignCa.status, 400, foreignCa.text);
  assert.is(foreignCa.json.details[0].field, 'kubernetes.caCertificate', foreignCa.text);
  const unreachable = await api('POST', '/hosts', { ...body({}, 'bad-server'), url: 'https://127.0.0.1:1' });
  assert.is(unreachable.status, 400, unreachable.text);
  assert.is(unreachable.json.details[0].field, 'url');
  assert.is((await api('POST', '/hosts', { ...body({}, 'bad-scheme'), url: 'tcp://10.213.0.1:6443' })).json.details[0].field, 'url');
  assert.is((await api('POST', '/hosts', { ...body({}, 'bad-tls'), tls: { caCertificate: 'x', clientCertificate: 'y', clientKey: 'z' } })).status, 400);
  assert.is((await api('POST', '/hosts', { name: 'no-settings', kind: 'kubernetes', url: c().server })).json.details[0].field, 'kubernetes');
  assert.is((await api('POST', '/hosts', { name: 'docker-no-tls', url: 'tcp://10.0.0.1:2376' })).json.details[0].field, 'tls');
  assert.is((await api('GET', '/hosts')).json.total, 1, 'only the good cluster is recorded');
  const audit = await api('GET', '/audit-logs?limit=200');
  assert.is(audit.json.items.filter((e: any) => e.resource_type === 'node_host').length, 1, 'one audit entry: the registration');
  assert.not.ok(audit.text.includes(c().token!), 'the token is not in the audit log');
  assert.not.ok(server.output().includes(c().token!), 'the token is not in the server log');
});

t('the periodic check sees the storage class go away and come back', async () => {
  await dropClass();
  const down = await until('the cluster seen unusable', async () => {
    const r = await api('GET', `/hosts/${hostId}`);
    return r.json.status.reachable === false ? r.json : null;
  }, 20_000);
  assert.match(down.status.lastError, new RegExp(`storage class ${CHECK_CLASS} does not exist`));
  await makeClass();
  const up = await until('the cluster seen usable again', async () => {
    const r = await api('GET', `/hosts/${hostId}`);
    return r.json.status.reachable === true ? r.json : null;
  }, 20_000);
  assert.is(up.status.lastError, null);
});

t('a node on a cluster whose storage class is gone is a 400 naming it, nothing recorded; the host is removed', async () => {
  const net = await api('POST', '/networks', { name: 'k8s-evm', type: 'evm', validatorBalance: '1000000000000000000000', genesis: { chain_id: 42778, consensus: 'QBFT', block_time: 1 } });
  assert.is(net.status, 201, net.text);
  await dropClass();
  const node = await api('POST', '/nodes', { name: 'on-cluster', platform: 'EVM', nodeType: 'EVM_FULLNODE', networkId: net.json.id, config: { hostId } });
  assert.is(node.status, 400, node.text);
  assert.is(node.json.code, 'HOST_UNREACHABLE');
  assert.ok(node.json.details.some((d: any) => d.field === 'host.kubernetes.storageClass'), node.text);
  assert.match(node.json.message, new RegExp(`storage class ${CHECK_CLASS} does not exist`));
  assert.is((await api('GET', '/nodes')).json.total, 0);
  await makeClass();
  assert.is((await api('DELETE', `/hosts/${hostId}`)).status, 204);
  assert.is((await api('GET', `/hosts/${hostId}`)).status, 404);
});

t.run();
