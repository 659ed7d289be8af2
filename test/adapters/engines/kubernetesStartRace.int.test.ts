// A start of one deployment racing another deployment's cluster check on a node key both record
// (issue 39, docs/kubernetes.md "Two deployments on one cluster"): node-1 made before the
// deployment id (no lnm.deployment label), stopped; engines of deployments A and B (same namespace
// and prefix), on the shared cluster of test/k8s/cluster.sh up with the anvil image on its node (a
// counted skip, saying why, without). The race is held for real, not slept: one deployment's engine
// talks to the API server through a proxy here (TLS ended and begun again, test/helpers' own
// certificate) that holds that engine's first PUT of node-1's StatefulSet (the label's replace,
// the object that decides who owns the node: LABEL_ORDER) until the other deployment has done its
// part, then lets it through as it was sent.
// - A's start held at that PUT while B's check labels: B owns all five (the same objects), A's
//   start is the 409 naming B and changes nothing after B's labels, the node stays stopped;
// - B's check held at that PUT while A's start runs: A owns all five and its node runs; B's check
//   labels nothing and says so.
// And the start's reads (the same proxy, holding nothing, counting A's calls): a start right after
// the API's check (assertNotOthers) reads none of the five objects again; the StatefulSet changed
// between the check and the start (an annotation put on with the admin client), the start's replace
// guarded by the check's resourceVersion is a 409 and the start reads afresh and runs.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as k8s from '@kubernetes/client-node';
import { mkdtempSync, rmSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createKubernetesEngine, type KubernetesNodeEngine } from '../../../adapters/engines/kubernetesEngine.ts';
import type { AppError } from '../../../domain/shared/errors.ts';
import { adminKubeConfig, anvilStateSpec, clusterImageMissing, k8sAnvilImage, nodeObjectsOf, testCluster } from '../../helpers/kubernetes.ts';
import { selfSignedCertificate } from '../../helpers/mail.ts';
import { requires } from '../../helpers/requirements.ts';

const skipReason = await clusterImageMissing(k8sAnvilImage);
const t = requires(suite('kubernetes: a start racing another deployment\'s check on a node key both record'), 'kubernetes', skipReason);
const conn = testCluster()?.connection;
const ns = () => conn!.namespace;
const PREFIX = `k8srace${process.pid % 100000}-`;
const PORT = 30000 + ((process.pid * 11 + 1300) % 2400);
const A = `race-a-${process.pid}`;
const B = `race-b-${process.pid}`;
const dataDir = mkdtempSync(path.join(tmpdir(), 'lnm-k8s-race-'));
const spec = anvilStateSpec(PORT);
const recordsNode1 = async (key: string) => key === spec.nodeKey;
let before: KubernetesNodeEngine;
let apps: k8s.AppsV1Api;
let core: k8s.CoreV1Api;
const proxies: HoldingProxy[] = [];

/**
 * An HTTPS proxy to the cluster's API server that holds the first request `matches` picks until
 * release(); `held` resolves once it holds it. Everything else goes through at once.
 */
interface HoldingProxy { server: string; ca: string; held: Promise<{ method: string; path: string }>; release: () => void; close: () => void; seen: string[] }
async function holdingProxy(matches: (method: string, url: string) => boolean): Promise<HoldingProxy> {
  const { key, cert } = selfSignedCertificate('127.0.0.1');
  const upstream = new URL(conn!.server);
  let onHeld!: (r: { method: string; path: string }) => void;
  const held = new Promise<{ method: string; path: string }>((r) => (onHeld = r));
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let holding = false;
  const seen: string[] = [];
  const server = https.createServer({ key, cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const method = req.method ?? 'GET';
      const url = req.url ?? '/';
      if (!holding && matches(method, url)) {
        holding = true;
        onHeld({ method, path: url });
        await released;
      }
      const up = https.request({ host: upstream.hostname, port: upstream.port, method, path: url, headers: { ...req.headers, host: upstream.host }, ca: conn!.caCertificate }, (r) => {
        seen.push(`${method} ${url.split('?')[0]} ${r.statusCode}`);
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      up.on('error', (err) => {
        res.writeHead(502);
        res.end(err.message);
      });
      up.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const proxy = { server: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, ca: cert, held, release, seen, close: () => server.close() };
  proxies.push(proxy);
  return proxy;
}

const node1 = () => nodeObjectsOf(before.objectNames(spec.nodeKey), ns());
const access = () => node1().access;
const objects = () => node1().objects();
const owners = (o: Awaited<ReturnType<typeof objects>>) => Object.entries(o).map(([k, x]) => `${k}=${x.deployment === A ? 'A' : x.deployment === B ? 'B' : String(x.deployment)}`).join(' ');
const stripAll = () => node1().stripAll();
const replicas = async () => (await apps.readNamespacedStatefulSet({ name: before.objectNames(spec.nodeKey).statefulSet, namespace: ns() })).spec?.replicas;
const engineOf = (id: string, via?: HoldingProxy) => createKubernetesEngine({ cluster: via ? { ...conn!, server: via.server, caCertificate: via.ca } : conn!, dataDir, namePrefix: PREFIX, deploymentId: id });
/** The first PUT of node-1's StatefulSet. */
const stsPut = (method: string, url: string) => method === 'PUT' && url.split('?')[0]!.endsWith(`/namespaces/${ns()}/statefulsets/${before.objectNames(spec.nodeKey).statefulSet}`);

t.before(async () => {
  const kc = adminKubeConfig();
  apps = kc.makeApiClient(k8s.AppsV1Api);
  core = kc.makeApiClient(k8s.CoreV1Api);
  before = createKubernetesEngine({ cluster: conn!, dataDir, namePrefix: PREFIX });
  await before.prepare(spec);
  await before.start(spec);
  await before.stop(spec.nodeKey);
});

t.after(async () => {
  for (const p of proxies) {
    p.release();
    p.close();
  }
  await before?.remove(spec.nodeKey, { deleteVolume: true }).catch(() => undefined);
  rmSync(dataDir, { recursive: true, force: true });
});

t('A\'s start held at its StatefulSet label while B\'s check labels: B owns all five, A\'s start is the 409 naming B, the node stays stopped', async () => {
  const start = await objects();
  for (const [kind, o] of Object.entries(start)) assert.is(o.deployment, undefined, `${kind} made without the id`);
  const proxy = await holdingProxy(stsPut);
  const a = engineOf(A, proxy);
  const b = engineOf(B);
  const starting = a.start(spec).then(() => null, (e: AppError) => e);
  const held = await proxy.held;
  console.log(`  held A's ${held.method} ${held.path.split('?')[0]}`);
  const checked = await b.labelUnlabelled(recordsNode1);
  assert.equal(checked.failed, [], 'B\'s check labelled without a failure');
  assert.equal(checked.labelled.map((o) => o.kind), ['StatefulSet', 'PersistentVolumeClaim', 'Service', 'Secret', 'ConfigMap']);
  const labelled = await objects();
  proxy.release();
  const err = await starting;
  const after = await objects();
  console.log(`  owners: ${owners(after)}; A's start: ${err ? `${err.status} ${err.message}` : 'started'}`);
  assert.ok(err, 'A\'s start went on over B\'s labels');
  assert.is(err!.status, 409, err!.message);
  assert.ok(err!.message.includes(B), `names B: ${err!.message}`);
  for (const [kind, o] of Object.entries(after)) {
    assert.is(o.deployment, B, `${kind} is B's`);
    assert.is(o.uid, start[kind]!.uid, `the same ${kind}`);
  }
  assert.equal(after, labelled, 'A changed nothing after B\'s labels (the five resourceVersions)');
  assert.is(await replicas(), 0, 'the node stays stopped');
});

t('B\'s check held at its StatefulSet label while A\'s start runs: A owns all five and runs the node, B labels nothing', async () => {
  await stripAll();
  const start = await objects();
  const proxy = await holdingProxy(stsPut);
  const a = engineOf(A);
  const b = engineOf(B, proxy);
  const checking = b.labelUnlabelled(recordsNode1);
  const held = await proxy.held;
  console.log(`  held B's ${held.method} ${held.path.split('?')[0]}`);
  await a.start(spec);
  proxy.release();
  const checked = await checking;
  const after = await objects();
  console.log(`  owners: ${owners(after)}; B's check labelled ${checked.labelled.length}, said: ${checked.failed.join(' | ')}`);
  assert.equal(checked.labelled, [], 'B labelled nothing');
  assert.ok(checked.failed.some((f) => f.includes('StatefulSet')), `B says its StatefulSet label failed: ${checked.failed.join(' | ')}`);
  for (const [kind, o] of Object.entries(after)) {
    assert.is(o.deployment, A, `${kind} is A's`);
    assert.is(o.uid, start[kind]!.uid, `the same ${kind}`);
  }
  assert.is((await a.status(spec.nodeKey)).state, 'running', 'A\'s node runs');
  await a.stop(spec.nodeKey);
});

/** The GETs of node-1's five objects among the calls `calls` (as the proxy saw them). */
function objectReads(calls: string[]): string[] {
  const n = before.objectNames(spec.nodeKey);
  const paths = [`statefulsets/${n.statefulSet}`, `services/${n.service}`, `secrets/${n.secret}`, `configmaps/${n.configMap}`, `persistentvolumeclaims/${n.claim}`];
  return calls.filter((x) => x.startsWith('GET ') && paths.some((p) => x.split(' ')[1]!.endsWith(`/namespaces/${ns()}/${p}`)));
}

t('a start right after the API\'s check reads none of the five again; the StatefulSet changed in between: a 409 and the start reads afresh and runs', async () => {
  const proxy = await holdingProxy(() => false);
  const a = engineOf(A, proxy);
  await a.assertNotOthers(spec.nodeKey, 'start');
  const checkReads = objectReads(proxy.seen);
  assert.is(checkReads.length, 5, `the check reads the five: ${checkReads.join(', ')}`);
  let mark = proxy.seen.length;
  await a.start(spec);
  const startCalls = proxy.seen.slice(mark);
  console.log(`  the start's calls (its pod's reads left out): ${startCalls.filter((x) => !x.includes('/pods/')).join(', ')}`);
  assert.equal(objectReads(startCalls), [], 'the start read none of the five again');
  assert.is((await a.status(spec.nodeKey)).state, 'running');
  await a.stop(spec.nodeKey);

  await a.assertNotOthers(spec.nodeKey, 'start');
  const sts = await access().StatefulSet.get();
  await access().StatefulSet.put({ ...sts, metadata: { ...sts.metadata, annotations: { ...sts.metadata?.annotations, 'lnm-test/changed': 'between the check and the start' } } });
  mark = proxy.seen.length;
  await a.start(spec);
  const again = proxy.seen.slice(mark);
  console.log(`  the start's calls (its pod's reads left out): ${again.filter((x) => !x.includes('/pods/')).join(', ')}`);
  assert.ok(again.some((x) => x.startsWith('PUT ') && x.includes('/statefulsets/') && x.endsWith(' 409')), `the replace guarded by the check's read is a 409: ${again.join(', ')}`);
  const fresh = objectReads(again.slice(again.findIndex((x) => x.endsWith(' 409'))));
  for (const kind of ['statefulsets', 'services', 'secrets', 'configmaps', 'persistentvolumeclaims']) assert.ok(fresh.some((x) => x.includes(`/${kind}/`)), `then read afresh: ${kind} (${fresh.join(', ')})`);
  assert.is((await a.status(spec.nodeKey)).state, 'running', 'and the node runs');
  await a.stop(spec.nodeKey);
});

t.run();
