// The host's view of a Kubernetes cluster shows the cluster check's findings (issue 39) as
// status.kubernetes, against the cluster of test/k8s/cluster.sh up (a counted skip, saying why,
// without one), the service a child process:
// - registered with the engine's full Role: the version, nodes 1/1 Ready, no missing permission;
// - registered with a ServiceAccount whose Role (made here) then loses a verb: the periodic check
//   records that verb missing (the cluster unusable: the engine uses every verb it checks), and
//   records nothing more while nothing changes; the verb given back, the view is clean again.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as k8s from '@kubernetes/client-node';
import { adminAuth, call, startServer, type TestServer } from '../../helpers/server.ts';
import { requires } from '../../helpers/requirements.ts';
import { adminKubeConfig, kubernetesSkipReason, testCluster } from '../../helpers/kubernetes.ts';
import { until } from '../evm/evmLifecycle.ts';
import { ENGINE_PERMISSIONS } from '../../../adapters/engines/kubernetesCluster.ts';

const skipReason = await kubernetesSkipReason();
const t = requires(suite('node hosts: the cluster check in the host\'s view'), 'kubernetes', skipReason);
const cluster = testCluster();
const PREFIX = `hostview${process.pid % 100000}-`;
const SA = `${PREFIX}engine`;
let server: TestServer;
let core: k8s.CoreV1Api;
let rbac: k8s.RbacAuthorizationV1Api;
const api = (method: string, p: string, body?: unknown) => call(server.api, method, p, { headers: adminAuth(), body });
const c = () => cluster!.connection;
const ns = () => c().namespace;
const body = (name: string, token: string) => ({
  name, kind: 'kubernetes', url: c().server, externalIp: c().nodeAddress,
  kubernetes: { caCertificate: c().caCertificate, token, namespace: ns(), storageClass: c().storageClass },
});
/** The engine's Role (kubernetesCluster.ts ENGINE_PERMISSIONS), less `without` (verb, resource). */
const rules = (without?: { verb: string; resource: string }): k8s.V1PolicyRule[] =>
  ENGINE_PERMISSIONS.map((p) => ({
    apiGroups: [p.group], resources: [p.subresource ? `${p.resource}/${p.subresource}` : p.resource],
    verbs: p.verbs.filter((v) => !(without && v === without.verb && without.resource === p.resource && !p.subresource)),
  }));
const setRole = (without?: { verb: string; resource: string }) =>
  rbac.replaceNamespacedRole({ name: SA, namespace: ns(), body: { metadata: { name: SA }, rules: rules(without) } });

t.before(async () => {
  const kc = adminKubeConfig();
  core = kc.makeApiClient(k8s.CoreV1Api);
  rbac = kc.makeApiClient(k8s.RbacAuthorizationV1Api);
  await core.createNamespacedServiceAccount({ namespace: ns(), body: { metadata: { name: SA } } });
  await rbac.createNamespacedRole({ namespace: ns(), body: { metadata: { name: SA }, rules: rules() } });
  await rbac.createNamespacedRoleBinding({ namespace: ns(), body: { metadata: { name: SA }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: SA }, subjects: [{ kind: 'ServiceAccount', name: SA, namespace: ns() }] } });
  server = await startServer({ env: { KEY_ENCRYPTION_KEY: 'k8s-hostview-e2e-key-encryption-key-0123456789', LNM_HOST_CHECK_SECONDS: '1', LNM_DOCKER_PREFIX: PREFIX } });
});

t.after(async () => {
  await server?.stop();
  if (!core) return;
  await rbac.deleteNamespacedRoleBinding({ name: SA, namespace: ns() }).catch(() => undefined);
  await rbac.deleteNamespacedRole({ name: SA, namespace: ns() }).catch(() => undefined);
  await core.deleteNamespacedServiceAccount({ name: SA, namespace: ns() }).catch(() => undefined);
});

/** The token Secret Kubernetes 1.20 makes for a service account. */
async function tokenOf(sa: string): Promise<string> {
  return until(`the token of ${sa}`, async () => {
    const secrets = await core.listNamespacedSecret({ namespace: ns() });
    const s = secrets.items.find((x) => x.type === 'kubernetes.io/service-account-token' && x.metadata?.annotations?.['kubernetes.io/service-account.name'] === sa);
    return s?.data?.token ? Buffer.from(s.data.token, 'base64').toString('utf8') : null;
  }, 20_000);
}

t('a cluster with the full Role shows its version, nodes 1/1 Ready and no missing permission', async () => {
  const r = await api('POST', '/hosts', body(`${PREFIX}full`, c().token!));
  assert.is(r.status, 201, r.text);
  const k = r.json.status.kubernetes;
  assert.match(k.version, /^v1\.\d+/);
  assert.is(k.version, r.json.status.engineVersion);
  assert.equal(k.nodes, { total: 1, ready: 1 });
  assert.equal(k.missingPermissions, []);
  assert.is(k.checkedAt, r.json.status.checkedAt);
  const listed = (await api('GET', '/hosts')).json.items.find((h: any) => h.id === r.json.id);
  assert.equal(listed.status.kubernetes, k);
  assert.is((await api('DELETE', `/hosts/${r.json.id}`)).status, 204);
});

t('a Role that loses a verb shows that verb missing, and clean again once it is given back', async () => {
  const token = await tokenOf(SA);
  const r = await api('POST', '/hosts', body(`${PREFIX}role`, token));
  assert.is(r.status, 201, r.text);
  const id = r.json.id;
  assert.equal(r.json.status.kubernetes.missingPermissions, []);
  await setRole({ verb: 'delete', resource: 'secrets' });
  const down = await until('the verb seen missing', async () => {
    const g = await api('GET', `/hosts/${id}`);
    return g.json.status.kubernetes?.missingPermissions.length ? g.json : null;
  }, 20_000);
  assert.equal(down.status.kubernetes.missingPermissions, [{ verb: 'delete', resource: 'secrets' }]);
  assert.equal(down.status.kubernetes.nodes, null, 'the service account may not list nodes: not needed, not counted');
  assert.match(down.status.kubernetes.version, /^v1\.\d+/);
  assert.is(down.status.reachable, false, 'the engine deletes secrets: without it the cluster is unusable');
  assert.match(down.status.lastError, /may not.*delete secrets/);
  // Nothing is recorded while nothing changes (the check runs every second): checkedAt stays.
  await new Promise((res) => setTimeout(res, 3000));
  const still = (await api('GET', `/hosts/${id}`)).json;
  assert.is(still.status.checkedAt, down.status.checkedAt, 'no new record while the findings stay the same');
  assert.is(still.status.kubernetes.checkedAt, down.status.checkedAt);
  await setRole();
  const up = await until('the verb seen back', async () => {
    const g = await api('GET', `/hosts/${id}`);
    return g.json.status.kubernetes?.missingPermissions.length === 0 ? g.json : null;
  }, 20_000);
  assert.is(up.status.reachable, true);
  assert.is(up.status.lastError, null);
  for (const text of [r.text, JSON.stringify(down), JSON.stringify(up)]) assert.not.ok(text.includes(token), 'the token is not in an answer');
  assert.is((await api('DELETE', `/hosts/${id}`)).status, 204);
});

t.run();
