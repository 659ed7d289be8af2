// The Kubernetes cluster the kubernetes-engine tests run against (issue 39): settings from
// LNM_TEST_K8S_* variables, else from the test.env that test/k8s/cluster.sh up writes into its
// state dir (LNM_K8S_STATE, default /tmp/lnm-k8s). Why the tests cannot run, for their skip
// message: no settings, the API server not answering, no Ready node, or the anvil image missing
// from the cluster's node.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as k8s from '@kubernetes/client-node';
import path from 'node:path';
import { probeKubernetesCluster } from '../../adapters/engines/kubernetesCluster.ts';
import { DEPLOYMENT_LABEL, type KubernetesClusterConnection } from '../../adapters/engines/kubernetesEngine.ts';
import { releasesAmong } from '../../adapters/consortium/fabricReleaseImages.ts';
import type { NodeLaunchSpec } from '../../domain/nodes/nodeEngine.ts';

export const k8sAnvilImage = process.env.LNM_ANVIL_IMAGE ?? 'lnm-anvil:local';

function settings(): Record<string, string> {
  const fromEnv = Object.fromEntries(Object.entries(process.env).filter(([k, v]) => k.startsWith('LNM_TEST_K8S_') && v)) as Record<string, string>;
  if (fromEnv.LNM_TEST_K8S_SERVER) return fromEnv;
  const file = path.join(process.env.LNM_K8S_STATE ?? '/tmp/lnm-k8s', 'test.env');
  try {
    return Object.fromEntries(
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l.includes('='))
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
  } catch {
    return {};
  }
}

export interface TestCluster {
  connection: KubernetesClusterConnection;
  /** A token of a service account without the engine's Role (the permission tests). */
  tokenWithoutRole: string;
}

/** The cluster's connection as the engine's service account, or null when none is configured. */
export function testCluster(): TestCluster | null {
  const s = settings();
  if (!s.LNM_TEST_K8S_SERVER || !s.LNM_TEST_K8S_TOKEN || !s.LNM_TEST_K8S_CA_FILE) return null;
  let ca: string;
  try {
    ca = readFileSync(s.LNM_TEST_K8S_CA_FILE, 'utf8');
  } catch {
    return null;
  }
  return {
    connection: {
      name: 'test-cluster',
      server: s.LNM_TEST_K8S_SERVER,
      caCertificate: ca,
      token: s.LNM_TEST_K8S_TOKEN,
      namespace: s.LNM_TEST_K8S_NAMESPACE ?? 'lnm-test',
      storageClass: s.LNM_TEST_K8S_STORAGE_CLASS ?? 'lnm-local',
      nodeAddress: s.LNM_TEST_K8S_NODE_ADDRESS ?? new URL(s.LNM_TEST_K8S_SERVER).hostname,
    },
    tokenWithoutRole: s.LNM_TEST_K8S_TOKEN_NO_ROLE ?? '',
  };
}

/** Why the kubernetes tests cannot run here, or undefined. */
export async function kubernetesSkipReason(): Promise<string | undefined> {
  const cluster = testCluster();
  if (!cluster) return 'no Kubernetes cluster is configured (no LNM_TEST_K8S_SERVER and no test.env of test/k8s/cluster.sh up); CI does not build Kubernetes unless LNM_K8S_BUILD=1';
  const seen = await probeKubernetesCluster(cluster.connection);
  if (!seen.reachable) return `the test cluster does not answer: ${seen.reason}`;
  if (!seen.nodes?.ready) return `the test cluster has no Ready node`;
  return undefined;
}

/** An admin client of the test cluster (LNM_TEST_K8S_KUBECONFIG, else cluster.sh's admin.kubeconfig), to make and look at objects. */
export function adminKubeConfig(): k8s.KubeConfig {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(settings().LNM_TEST_K8S_KUBECONFIG ?? `${process.env.LNM_K8S_STATE ?? '/tmp/lnm-k8s'}/admin.kubeconfig`);
  return kc;
}

/**
 * A fault a test makes: the node's pod (replica 0 of its StatefulSet `statefulSet`) deleted with
 * the admin client, as an eviction or an operator would; the StatefulSet controller makes it
 * again, the engine is not asked. (The service restarts a node with the engine's restart(), a
 * rolling restart of its StatefulSet.)
 */
export async function deleteNodePod(statefulSet: string, namespace: string, opts: { gracePeriodSeconds?: number } = {}): Promise<void> {
  await adminKubeConfig().makeApiClient(k8s.CoreV1Api).deleteNamespacedPod({ name: `${statefulSet}-0`, namespace, ...opts });
}

/** The image of the service deploy/service.yaml runs (deploy/image.sh builds it). */
export const serviceImage = process.env.LNM_SERVICE_IMAGE ?? 'ledger-network-manager:local';

/** Why `image` cannot run on the test cluster (not on its node: `test/k8s/cluster.sh import <image>`), or undefined. */
export async function clusterImageMissing(image: string, howToLoad = `test/k8s/cluster.sh import ${image} loads it`): Promise<string | undefined> {
  const why = await kubernetesSkipReason();
  if (why) return why;
  const full = image.includes('/') ? image : `docker.io/library/${image}`;
  const nodes = await adminKubeConfig().makeApiClient(k8s.CoreV1Api).listNode();
  if (!nodes.items.some((n) => n.status?.images?.some((i) => i.names?.includes(full)))) return `the image ${image} is not on the test cluster's node (${howToLoad})`;
  return undefined;
}

/** Why the service's image cannot run on the test cluster (not on its node: deploy/image.sh --import), or undefined. */
export const serviceImageSkipReason = () => clusterImageMissing(serviceImage, 'deploy/image.sh --import loads it');

/**
 * The admin's client certificate and key of the test cluster, from its admin kubeconfig (cluster.sh
 * makes one signed by the cluster's CA, in system:masters), or null when that kubeconfig has none.
 */
export function adminClientCertificate(): { certificate: string; key: string } | null {
  let user: k8s.User | null;
  try {
    user = adminKubeConfig().getCurrentUser();
  } catch {
    return null;
  }
  if (!user?.certData || !user.keyData) return null;
  return { certificate: Buffer.from(user.certData, 'base64').toString('utf8'), key: Buffer.from(user.keyData, 'base64').toString('utf8') };
}

/**
 * The Fabric releases with a peer and an orderer image on the test cluster's node (as its kubelet
 * reports them, e.g. lnm-fabric-peer:2.5.12 in the repository of `peer`), newest first; none
 * without a cluster.
 */
export async function clusterFabricReleases(peer = 'lnm-fabric-peer:local', orderer = 'lnm-fabric-orderer:local'): Promise<string[]> {
  if (await kubernetesSkipReason()) return [];
  const nodes = await adminKubeConfig().makeApiClient(k8s.CoreV1Api).listNode();
  const images = nodes.items.flatMap((n) => (n.status?.images ?? []).flatMap((i) => (i.names ?? []).map((x) => x.replace(/^docker\.io\/(library\/)?/, ''))));
  return releasesAmong(images, peer, orderer);
}

/** An anvil node-1 of the claim tests: its chain in {nodeDir}/state.json, saved every second, at NodePort `port`. */
export function anvilStateSpec(port: number): NodeLaunchSpec {
  return {
    nodeKey: 'node-1',
    displayName: 'anvil node-1',
    docker: { image: k8sAnvilImage, args: ['--host', '0.0.0.0', '--port', String(port), '--block-time', '1', '--state', '{nodeDir}/state.json', '--state-interval', '1'] },
    files: [],
    ports: [port],
  };
}

/** Scratch directories under the OS's temp directory (`dir()` makes one), all removed by `clear()`. */
export function scratchDirs(prefix: string): { dir: () => string; clear: () => void } {
  const made: string[] = [];
  return {
    dir: () => {
      const d = mkdtempSync(path.join(tmpdir(), prefix));
      made.push(d);
      return d;
    },
    clear: () => {
      for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
    },
  };
}

type ObjectMeta = { metadata?: k8s.V1ObjectMeta };
export type NodeObjectKind = 'StatefulSet' | 'Service' | 'Secret' | 'ConfigMap' | 'PersistentVolumeClaim';

/**
 * A node's five objects through the admin client, by kind: get and replace (`names`: the engine's
 * objectNames of the node), the uid, resourceVersion and lnm.deployment label of each, and the
 * label taken off all five (as objects made before the deployment id have none).
 */
export function nodeObjectsOf(names: { statefulSet: string; service: string; claim: string; secret: string; configMap: string }, namespace: string) {
  const kc = adminKubeConfig();
  const apps = kc.makeApiClient(k8s.AppsV1Api);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const access: Record<NodeObjectKind, { get: () => Promise<ObjectMeta>; put: (o: ObjectMeta) => Promise<ObjectMeta> }> = {
    StatefulSet: { get: () => apps.readNamespacedStatefulSet({ name: names.statefulSet, namespace }), put: (o) => apps.replaceNamespacedStatefulSet({ name: names.statefulSet, namespace, body: o as k8s.V1StatefulSet }) },
    Service: { get: () => core.readNamespacedService({ name: names.service, namespace }), put: (o) => core.replaceNamespacedService({ name: names.service, namespace, body: o as k8s.V1Service }) },
    Secret: { get: () => core.readNamespacedSecret({ name: names.secret, namespace }), put: (o) => core.replaceNamespacedSecret({ name: names.secret, namespace, body: o as k8s.V1Secret }) },
    ConfigMap: { get: () => core.readNamespacedConfigMap({ name: names.configMap, namespace }), put: (o) => core.replaceNamespacedConfigMap({ name: names.configMap, namespace, body: o as k8s.V1ConfigMap }) },
    PersistentVolumeClaim: { get: () => core.readNamespacedPersistentVolumeClaim({ name: names.claim, namespace }), put: (o) => core.replaceNamespacedPersistentVolumeClaim({ name: names.claim, namespace, body: o as k8s.V1PersistentVolumeClaim }) },
  };
  return {
    access,
    async objects() {
      return Object.fromEntries(await Promise.all(Object.entries(access).map(async ([kind, a]) => {
        const o = await a.get();
        return [kind, { uid: o.metadata?.uid, resourceVersion: o.metadata?.resourceVersion, deployment: o.metadata?.labels?.[DEPLOYMENT_LABEL] }] as const;
      })));
    },
    async stripAll() {
      for (const a of Object.values(access)) {
        const o = await a.get();
        const labels = { ...o.metadata!.labels };
        delete labels[DEPLOYMENT_LABEL];
        await a.put({ ...o, metadata: { ...o.metadata, labels } });
      }
    },
  };
}

/** Which of the nodes' StatefulSets, Services and claims (`<name>-data`) are still in `namespace` ("StatefulSet x", ...); none: []. */
export async function nodeObjectsLeft(names: string[], namespace: string): Promise<string[]> {
  const kc = adminKubeConfig();
  const apps = kc.makeApiClient(k8s.AppsV1Api);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const there = (read: Promise<unknown>) => read.then(() => true, () => false);
  const left: string[] = [];
  for (const name of names) {
    if (await there(apps.readNamespacedStatefulSet({ name, namespace }))) left.push(`StatefulSet ${name}`);
    if (await there(core.readNamespacedService({ name, namespace }))) left.push(`Service ${name}`);
    if (await there(core.readNamespacedPersistentVolumeClaim({ name: `${name}-data`, namespace }))) left.push(`PersistentVolumeClaim ${name}-data`);
  }
  return left;
}

/** What the pod of a node's StatefulSet `name` runs (replica 0's image) and the node ports of its Service, sorted. */
export async function nodePodOf(name: string, namespace: string): Promise<{ image: string | undefined; nodePorts: number[] }> {
  const core = adminKubeConfig().makeApiClient(k8s.CoreV1Api);
  const pod = await core.readNamespacedPod({ name: `${name}-0`, namespace });
  const svc = await core.readNamespacedService({ name, namespace });
  return { image: pod.spec?.containers[0]?.image, nodePorts: (svc.spec?.ports ?? []).map((p) => p.nodePort ?? 0).sort((a, b) => a - b) };
}

type HostApi = (method: string, path: string, body?: unknown) => Promise<{ status: number; text: string; json: any }>;

/** Registers the test cluster as the node host `name` of the service behind `api` (201 asserted by the caller's message); its id. */
export async function registerTestCluster(api: HostApi, connection: KubernetesClusterConnection, name = 'cluster'): Promise<number> {
  const c = connection;
  const h = await api('POST', '/hosts', { name, kind: 'kubernetes', url: c.server, externalIp: c.nodeAddress, kubernetes: { caCertificate: c.caCertificate, token: c.token, namespace: c.namespace, storageClass: c.storageClass } });
  if (h.status !== 201) throw new Error(`registering the test cluster: ${h.status} ${h.text}`);
  return h.json.id;
}

/** Deletes the claims a run left with its prefix (the engine's lnm.prefix label: the prefix without its trailing '-'). */
export async function deleteClaimsOfPrefix(prefix: string, namespace: string): Promise<void> {
  const core = adminKubeConfig().makeApiClient(k8s.CoreV1Api);
  const claims = await core.listNamespacedPersistentVolumeClaim({ namespace, labelSelector: `lnm.prefix=${prefix.replace(/-+$/, '')}` }).catch(() => ({ items: [] as k8s.V1PersistentVolumeClaim[] }));
  for (const claim of claims.items) await core.deleteNamespacedPersistentVolumeClaim({ name: claim.metadata!.name!, namespace }).catch(() => undefined);
}

/** DELETE /nodes/{nodeId}?deleteVolume=true, then waits until the StatefulSets, Services and claims of `objectNames` are gone (throws saying which are left). */
export async function deleteNodeWithVolumes(api: HostApi, nodeId: number, objectNames: string[], namespace: string, timeoutMs = 120_000): Promise<void> {
  const del = await api('DELETE', `/nodes/${nodeId}?deleteVolume=true`);
  if (del.status >= 300) throw new Error(`DELETE /nodes/${nodeId}?deleteVolume=true: ${del.status} ${del.text}`);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = await nodeObjectsLeft(objectNames, namespace);
    if (!left.length) return;
    if (Date.now() > deadline) throw new Error(`still on the cluster ${timeoutMs / 1000} s after the delete: ${left.join(', ')}`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}
