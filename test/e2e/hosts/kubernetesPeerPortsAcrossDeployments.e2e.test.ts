// Default NodePorts across deployments for Fabric peers (issue 39, docs/kubernetes.md "Default
// ports across deployments"), against the shared cluster of test/k8s/cluster.sh up with
// lnm-fabric-peer:local on its node and Fabric here (LNM_FABRIC_BIN, for the service's own Fabric
// steps), a counted skip saying which is missing: two instances of the service, each with its own
// database and LNM_DOCKER_PREFIX, register the same cluster and namespace and each create a peer
// there with default ports: both run, on different NodePorts, each peer's external endpoint (in its
// config, and what other nodes dial) naming its own.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as k8s from '@kubernetes/client-node';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { fabricMissing } from '../../helpers/fabric.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { adminKubeConfig, clusterImageMissing, kubernetesSkipReason, testCluster } from '../../helpers/kubernetes.ts';
import { apiOf, consortiumEnv, node, organization, until, type Api } from '../consortium/consortiumApi.ts';

const PEER_IMAGE = 'lnm-fabric-peer:local';
const clusterMissing = await kubernetesSkipReason();
const t = requiresAll(
  suite('kubernetes: default NodePorts of two deployments\' peers on one cluster'),
  ['kubernetes', clusterMissing ?? (await clusterImageMissing(PEER_IMAGE))],
  ['fabric', fabricMissing],
);
const cluster = testCluster();
const c = () => cluster!.connection;
const RUN = `k8sportsp${process.pid % 100000}`;

interface Deployment { prefix: string; server: TestServer; api: Api; nodes: number[]; hostId?: number }
const deployments: Deployment[] = [];
let core: k8s.CoreV1Api;
let apps: k8s.AppsV1Api;

async function deployment(letter: string): Promise<Deployment> {
  const prefix = `${RUN}${letter}-`;
  const server = await startServer({ env: consortiumEnv({ LNM_NODE_ENGINE: 'process', LNM_IMAGE_FABRIC_PEER: PEER_IMAGE, LNM_HOST_CHECK_SECONDS: '2', LNM_DOCKER_PREFIX: prefix }) });
  const d: Deployment = { prefix, server, api: apiOf(() => server), nodes: [] };
  deployments.push(d);
  return d;
}

/** A peer of deployment `d` on the cluster with default ports, running. */
async function peerOnCluster(d: Deployment, letter: string) {
  const h = await d.api('POST', '/hosts', { name: 'cluster', kind: 'kubernetes', url: c().server, externalIp: c().nodeAddress, kubernetes: { caCertificate: c().caCertificate, token: c().token, namespace: c().namespace, storageClass: c().storageClass } });
  assert.is(h.status, 201, h.text);
  d.hostId = h.json.id;
  const org = await organization(d.api, `Ports${letter.toUpperCase()}Org`, `Ports${letter.toUpperCase()}MSP`);
  // node() asserts the 201 and that the peer is running.
  const api: Api = async (...args) => {
    const r = await d.api(...args);
    if (r.json?.id) d.nodes.push(r.json.id);
    return r;
  };
  return node(api, `ports-peer-${letter}`, 'CONSORTIUM_PEER', org.id, { hostId: d.hostId });
}

t.before(async () => {
  const kc = adminKubeConfig();
  core = kc.makeApiClient(k8s.CoreV1Api);
  apps = kc.makeApiClient(k8s.AppsV1Api);
  await deployment('a');
  await deployment('b');
});

t.after(async () => {
  for (const d of deployments) {
    for (const id of d.nodes) await d.api('DELETE', `/nodes/${id}?deleteVolume=true`).catch(() => undefined);
    for (const id of d.nodes) {
      const sts = `${d.prefix}node-${id}`;
      await until('the peer\'s objects gone', async () => {
        const there = await apps.readNamespacedStatefulSet({ name: sts, namespace: c().namespace }).then(() => true, () => false);
        const claim = await core.readNamespacedPersistentVolumeClaim({ name: `${sts}-data`, namespace: c().namespace }).then(() => true, () => false);
        return !there && !claim;
      }, 90_000).catch(() => undefined);
    }
    if (d.hostId) await d.api('DELETE', `/hosts/${d.hostId}`).catch(() => undefined);
    await d.server.stop();
    const left = await core.listNamespacedService({ namespace: c().namespace, labelSelector: `lnm.prefix=${d.prefix.replace(/-$/, '')}` }).catch(() => ({ items: [] as k8s.V1Service[] }));
    for (const s of left.items) await core.deleteNamespacedService({ name: s.metadata!.name!, namespace: c().namespace }).catch(() => undefined);
  }
});

t('two deployments create a peer each on the cluster with default ports: both run, each at its own NodePort', async () => {
  const [a, b] = deployments;
  const first = await peerOnCluster(a!, 'a');
  const second = await peerOnCluster(b!, 'b');
  assert.is.not(second.config.port, first.config.port, 'the second deployment skipped the NodePort the first one holds');
  for (const [d, p] of [[a!, first], [b!, second]] as const) {
    assert.is(p.config.externalEndpoint, `${c().nodeAddress}:${p.config.port}`);
    const svc = await core.readNamespacedService({ name: `${d.prefix}node-${p.id}`, namespace: c().namespace });
    assert.equal(svc.spec!.ports!.map((x) => x.nodePort).sort(), [p.config.port, p.config.chaincodePort, p.config.operationsPort].sort());
  }
});

t.run();
