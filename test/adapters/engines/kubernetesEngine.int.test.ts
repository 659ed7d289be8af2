// The kubernetes engine and the cluster check on a real cluster (test/k8s/cluster.sh up: a
// single-node Kubernetes 1.20.2 from Debian's source package). A counted skip without one.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as k8s from '@kubernetes/client-node';
import { readFileSync } from 'node:fs';
import { createKubernetesEngine, type KubernetesNodeEngine } from '../../../adapters/engines/kubernetesEngine.ts';
import { probeKubernetesCluster } from '../../../adapters/engines/kubernetesCluster.ts';
import { NodeStartFailedError, type NodeLaunchSpec } from '../../../domain/nodes/nodeEngine.ts';
import { ValidationError } from '../../../domain/shared/errors.ts';
import { deleteNodePod, k8sAnvilImage, kubernetesSkipReason, testCluster } from '../../helpers/kubernetes.ts';
import { requires } from '../../helpers/requirements.ts';
import { eventually } from './fixtures.ts';

const skipReason = await kubernetesSkipReason();
const cluster = testCluster();
const conn = cluster?.connection;
// Unique per run, in the NodePort range: several runs may share the cluster.
const base = 30000 + ((process.pid * 7) % 2500);
const key = (name: string) => `t${process.pid}-${name}`;
const PRIVATE_KEY = '0x' + 'ab'.repeat(32);

function anvil(name: string, port: number, image = k8sAnvilImage): NodeLaunchSpec {
  return {
    nodeKey: key(name),
    displayName: `anvil ${key(name)}`,
    // The chain's state on the node's volume: dumped every second and on exit, loaded at start.
    docker: { image, args: ['--host', '0.0.0.0', '--port', String(port), '--block-time', '1', '--state', '{nodeDir}/state.json', '--state-interval', '1'] },
    files: [
      { path: 'config/node.toml', content: `port = ${port}\n` },
      { path: 'keys/validator.key', content: PRIVATE_KEY, secret: true },
    ],
    ports: [port],
  };
}

async function rpc(port: number, method: string): Promise<string> {
  const res = await fetch(`http://${conn!.nodeAddress}:${port}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }) });
  return ((await res.json()) as { result: string }).result;
}
const blockOf = async (port: number) => Number.parseInt(await rpc(port, 'eth_blockNumber'), 16);
const blockOrUndefined = (port: number) => blockOf(port).catch(() => undefined);

function admin() {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(process.env.LNM_TEST_K8S_KUBECONFIG ?? `${process.env.LNM_K8S_STATE ?? '/tmp/lnm-k8s'}/admin.kubeconfig`);
  return { core: kc.makeApiClient(k8s.CoreV1Api), apps: kc.makeApiClient(k8s.AppsV1Api) };
}

/** The connection with the admin's client certificate instead of the engine's token. */
function asAdmin() {
  const pki = `${process.env.LNM_K8S_STATE ?? '/tmp/lnm-k8s'}/pki`;
  return { ...conn!, token: undefined, clientCertificate: readFileSync(`${pki}/admin.crt`, 'utf8'), clientKey: readFileSync(`${pki}/admin.key`, 'utf8') };
}

/** Which of the node's objects are in the cluster. */
async function objectsOf(engine: KubernetesNodeEngine, nodeKey: string): Promise<string[]> {
  const n = engine.objectNames(nodeKey);
  const { core, apps } = admin();
  const namespace = conn!.namespace;
  const there = async (what: string, p: Promise<unknown>) => p.then(() => what, () => null);
  return (
    await Promise.all([
      there('statefulset', apps.readNamespacedStatefulSet({ name: n.statefulSet, namespace })),
      there('service', core.readNamespacedService({ name: n.service, namespace })),
      there('secret', core.readNamespacedSecret({ name: n.secret, namespace })),
      there('configmap', core.readNamespacedConfigMap({ name: n.configMap, namespace })),
      there('claim', core.readNamespacedPersistentVolumeClaim({ name: n.claim, namespace })),
    ])
  ).filter((x): x is string => x !== null);
}

const test = suite<{ engine: KubernetesNodeEngine; made: string[] }>('kubernetes engine on a real cluster', { engine: undefined as unknown as KubernetesNodeEngine, made: [] });
const live = requires(test, 'kubernetes', skipReason);

live.before(async (ctx) => {
  ctx.engine = createKubernetesEngine({ cluster: conn!, dataDir: '/var/lib/lnm', readyTimeoutMs: 90_000 });
});

live.after(async (ctx) => {
  for (const k of ctx.made) await ctx.engine.remove(k, { deleteVolume: true }).catch(() => undefined);
});

live('the cluster check: reachable, its version, its node Ready, every permission the engine uses granted', async () => {
  const seen = await probeKubernetesCluster(conn!);
  assert.is(seen.reachable, true);
  assert.match(seen.version ?? '', /^v1\.\d+/);
  assert.equal(seen.nodes, { ready: 1, total: 1 });
  assert.equal(seen.missingPermissions, []);
  assert.equal(seen.problems, []);
});

live('the cluster check names what is missing: permissions of a token without the Role, a namespace, a storage class; never the token', async () => {
  const nobody = await probeKubernetesCluster({ ...conn!, token: cluster!.tokenWithoutRole });
  assert.ok(nobody.missingPermissions.includes('create apps/statefulsets'), nobody.missingPermissions.join(', '));
  assert.ok(nobody.missingPermissions.includes('get pods/log'));
  assert.equal(nobody.problems.map((p) => p.field), ['namespace', 'credentials']);
  assert.match(nobody.problems[0]!.message, 'or the credentials may do nothing in it');
  assert.not.match(JSON.stringify(nobody), cluster!.tokenWithoutRole);
  // As the cluster's admin (a client certificate), whom RBAC lets through to the namespace check.
  const elsewhere = await probeKubernetesCluster({ ...asAdmin(), namespace: 'lnm-absent-ns', storageClass: 'lnm-absent-class' });
  assert.equal(elsewhere.missingPermissions, []);
  assert.equal(elsewhere.problems.map((p) => p.field), ['namespace', 'storageClass']);
  assert.match(elsewhere.reason ?? '', 'lnm-absent-ns');
  assert.match(elsewhere.reason ?? '', 'lnm-absent-class');
});

test('a cluster that does not answer: the check, available() and status say why, start is a 503', async () => {
  const gone = { name: 'gone', server: 'https://127.0.0.1:1', caCertificate: 'x', token: 'secret-token-value', namespace: 'x', storageClass: 'x', nodeAddress: '127.0.0.1' };
  const seen = await probeKubernetesCluster(gone);
  assert.is(seen.reachable, false);
  assert.is(seen.problems[0]?.field, 'server');
  const engine = createKubernetesEngine({ cluster: gone, dataDir: '/var/lib/lnm', requestTimeoutMs: 3000 });
  const availability = await engine.available();
  assert.is(availability.ok, false);
  const status = await engine.status('node-1');
  assert.is(status.state, 'unknown');
  assert.match(status.reason ?? '', 'cluster gone');
  try {
    await engine.start(anvil('gone', 30001));
    assert.unreachable('start succeeded');
  } catch (err) {
    assert.instance(err, NodeStartFailedError);
    assert.is((err as NodeStartFailedError).status, 503);
    assert.not.match((err as Error).message, 'secret-token-value');
  }
});

live('an anvil node on the cluster produces blocks at the NodePort; its objects are labelled; logs are redacted', async ({ engine, made }) => {
  const spec = anvil('a', base);
  made.push(spec.nodeKey);
  await engine.prepare(spec);
  const started = await engine.start(spec);
  assert.ok(started.containerId);
  const first = await eventually('a block', () => blockOrUndefined(base).then((b) => (b && b >= 2 ? b : undefined)), 20_000);
  assert.ok(first >= 2);
  assert.equal((await objectsOf(engine, spec.nodeKey)).sort(), ['claim', 'configmap', 'secret', 'service', 'statefulset']);
  const { apps } = admin();
  const sts = await apps.readNamespacedStatefulSet({ name: engine.objectNames(spec.nodeKey).statefulSet, namespace: conn!.namespace });
  assert.is(sts.metadata?.labels?.['lnm.node'], spec.nodeKey);
  assert.is(sts.spec?.replicas, 1);
  assert.is((await engine.status(spec.nodeKey)).state, 'running');
  const lines = await engine.logs(spec.nodeKey, { tail: 200 });
  assert.ok(lines.some((l) => /Listening on/.test(l)), lines.slice(-5).join('\n'));
  assert.not.ok(lines.some((l) => /\b(0x)?[0-9a-f]{64}\b/.test(l) && /^\s*\(\d+\)/.test(l)), 'a private key in the logs');
  // Followed lines arrive as the node writes them.
  const followed: string[] = [];
  const follower = await engine.followLogs(spec.nodeKey, (l) => followed.push(l));
  await eventually('a followed line', () => (followed.length ? true : undefined), 15_000);
  follower.close();
  // Starting it again is refused: it runs.
  try {
    await engine.start(spec);
    assert.unreachable('second start');
  } catch (err) {
    assert.is((err as NodeStartFailedError).failure, 'already-running');
  }
});

live('its pod deleted: not running, Kubernetes makes it again (no start through the engine), the chain goes on from its volume', async ({ engine }) => {
  const nodeKey = key('a');
  const before = await blockOf(base);
  const uid = (await engine.status(nodeKey)).containerId;
  const { apps } = admin();
  const generation = (await apps.readNamespacedStatefulSet({ name: engine.objectNames(nodeKey).statefulSet, namespace: conn!.namespace })).metadata?.generation;
  await deleteNodePod(engine.objectNames(nodeKey).statefulSet, conn!.namespace);
  const down = await eventually('the node not running', async () => {
    const s = await engine.status(nodeKey);
    return s.state !== 'running' ? s : undefined;
  }, 20_000);
  assert.is(down.state, 'exited');
  const back = await eventually('the node running again', async () => {
    const s = await engine.status(nodeKey);
    return s.state === 'running' && s.containerId !== uid ? s : undefined;
  }, 90_000);
  assert.is(back.state, 'running');
  // The same StatefulSet (not a second one, not a new spec): the cluster restarted the pod.
  assert.is((await apps.readNamespacedStatefulSet({ name: engine.objectNames(nodeKey).statefulSet, namespace: conn!.namespace })).metadata?.generation, generation);
  const after = await eventually('blocks at the NodePort again', () => blockOrUndefined(base).then((b) => (b !== undefined && b > before ? b : undefined)), 30_000);
  assert.ok(after > before, `block ${after} after ${before}`);
});

live('stop scales to 0 and keeps the volume; start brings the chain back where it was', async ({ engine }) => {
  const nodeKey = key('a');
  const before = await blockOf(base);
  await engine.stop(nodeKey);
  assert.is((await engine.status(nodeKey)).state, 'stopped');
  assert.ok((await objectsOf(engine, nodeKey)).includes('claim'));
  await engine.start(anvil('a', base));
  const after = await eventually('blocks again', () => blockOrUndefined(base), 30_000);
  assert.ok(after >= before, `block ${after} after a stop at ${before}: the ledger was lost`);
});

live('delete removes what the engine made, the volume only when asked', async ({ engine }) => {
  const nodeKey = key('a');
  await engine.remove(nodeKey);
  assert.equal(await objectsOf(engine, nodeKey), ['claim']);
  await engine.remove(nodeKey, { deleteVolume: true });
  assert.equal(await objectsOf(engine, nodeKey), []);
});

live('a start that fails (image not on the cluster) is refused with the reason and leaves nothing in the cluster', async ({ engine, made }) => {
  const spec = anvil('noimage', base + 1, 'lnm-absent-image:local');
  made.push(spec.nodeKey);
  try {
    await engine.start(spec);
    assert.unreachable('start succeeded');
  } catch (err) {
    assert.instance(err, NodeStartFailedError);
    assert.is((err as NodeStartFailedError).failure, 'image-missing');
    assert.match((err as Error).message, 'ErrImageNeverPull');
  }
  assert.equal(await objectsOf(engine, spec.nodeKey), []);
});

live('a namespace that does not exist is a 400 naming it at node create, and nothing is made', async () => {
  const engine = createKubernetesEngine({ cluster: { ...asAdmin(), namespace: 'lnm-absent-ns' }, dataDir: '/var/lib/lnm' });
  try {
    await engine.start(anvil('nons', base + 2));
    assert.unreachable('start succeeded');
  } catch (err) {
    assert.instance(err, ValidationError);
    assert.is((err as ValidationError).status, 400);
    assert.match((err as Error).message, 'lnm-absent-ns');
  }
});

live('credentials without the Role: start is refused naming the refusal, never the token', async () => {
  const engine = createKubernetesEngine({ cluster: { ...conn!, token: cluster!.tokenWithoutRole }, dataDir: '/var/lib/lnm' });
  try {
    await engine.start(anvil('norole', base + 3));
    assert.unreachable('start succeeded');
  } catch (err) {
    assert.instance(err, NodeStartFailedError);
    assert.match((err as Error).message, /403|forbidden/i);
    assert.not.match((err as Error).message, cluster!.tokenWithoutRole);
  }
});

live('ports outside the NodePort range are a 400 before anything is made', async ({ engine }) => {
  try {
    await engine.start(anvil('lowport', 8545));
    assert.unreachable('start succeeded');
  } catch (err) {
    assert.instance(err, ValidationError);
    assert.match((err as Error).message, '30000-32767');
  }
});

test.run();
