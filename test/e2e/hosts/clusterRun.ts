// What the Fabric suites on the test cluster share: the cluster registered as a node host, and
// every node of the run removed with its claim afterwards (the cluster's volumes are shared).
import * as assert from 'uvu/assert';
import * as k8s from '@kubernetes/client-node';
import type { KubernetesClusterConnection } from '../../../adapters/engines/kubernetesEngine.ts';
import type { TestServer } from '../../helpers/server.ts';
import { fabricMissing } from '../../helpers/fabric.ts';
import { clusterFabricReleases, kubernetesSkipReason, serviceImageSkipReason } from '../../helpers/kubernetes.ts';
import type { Dependency } from '../../helpers/requirements.ts';
import { until, type Api } from '../consortium/consortiumApi.ts';

/** POST /hosts of the test cluster (kind kubernetes); its host id. */
export async function registeredCluster(api: Api, c: KubernetesClusterConnection): Promise<number> {
  const h = await api('POST', '/hosts', { name: 'cluster', kind: 'kubernetes', url: c.server, externalIp: c.nodeAddress, kubernetes: { caCertificate: c.caCertificate, token: c.token, namespace: c.namespace, storageClass: c.storageClass } });
  assert.is(h.status, 201, h.text);
  return h.json.id;
}

/** Every node of the run deleted with its claim (waited for, up to 2 min each), the host deleted, the server stopped. */
export async function clusterRunRemoved(api: Api, server: TestServer, o: { hostId: number; namespace: string; stsName: (id: number) => string; apps: k8s.AppsV1Api; core: k8s.CoreV1Api }): Promise<void> {
  const all = ((await api('GET', '/nodes?limit=100').catch(() => null))?.json?.items ?? []) as Array<{ id: number; name: string }>;
  for (const n of all) await api('DELETE', `/nodes/${n.id}?deleteVolume=true`).catch(() => undefined);
  for (const n of all) {
    await until(`${n.name}'s objects gone`, async () => {
      const there = await o.apps.readNamespacedStatefulSet({ name: o.stsName(n.id), namespace: o.namespace }).then(() => true, () => false);
      const claim = await o.core.readNamespacedPersistentVolumeClaim({ name: `${o.stsName(n.id)}-data`, namespace: o.namespace }).then(() => true, () => false);
      return !there && !claim;
    }, 120_000).catch(() => undefined);
  }
  if (o.hostId) await api('DELETE', `/hosts/${o.hostId}`).catch(() => undefined);
  await server.stop();
  server.reapNodes();
}

/** A channel committing (`commits`) raised to channel capability V3_0, as the migration needs. */
export async function onV3(api: Api, configPath: string, commits: (what: string) => Promise<number>): Promise<void> {
  await commits('after the joins');
  const raised = await api('PUT', configPath, { capabilities: { channel: 'V3_0' } });
  assert.is(raised.status, 200, raised.text);
  await commits('after V3_0');
}

export const CLUSTER_PEER_IMAGE = 'lnm-fabric-peer:local';
export const CLUSTER_ORDERER_IMAGE = 'lnm-fabric-orderer:local';

/**
 * The Fabric 3.1 release the cluster's node has images of, and what a 3.1 suite on the cluster
 * needs (requiresAll's checks): the cluster (or `kubernetesToo`, a further reason of the suite's
 * own), the release images there, the service's image there, Fabric here.
 */
export async function clusterFabric31(kubernetesToo?: string): Promise<{ version: string | undefined; checks: [Dependency, string | undefined][] }> {
  const clusterMissing = await kubernetesSkipReason();
  const version = clusterMissing ? undefined : (await clusterFabricReleases(CLUSTER_PEER_IMAGE, CLUSTER_ORDERER_IMAGE)).find((v) => v.startsWith('3.1.'));
  const imagesMissing = clusterMissing || version ? undefined : 'the cluster\'s node needs lnm-fabric-peer and lnm-fabric-orderer images of Fabric 3.1.x; test/k8s/cluster.sh import lnm-fabric-peer:3.1.5 (and lnm-fabric-orderer:3.1.5) loads them';
  return {
    version,
    checks: [
      ['kubernetes', clusterMissing ?? kubernetesToo],
      ['fabric-release-images', imagesMissing],
      ['service-image', clusterMissing ? undefined : await serviceImageSkipReason()],
      ['fabric', fabricMissing],
    ],
  };
}

/** A run's name prefix on the shared cluster (LNM_DOCKER_PREFIX) and its nodes' StatefulSet names. */
export function runNames(tag: string): { prefix: string; stsName: (id: number) => string } {
  const prefix = `${tag}${process.pid % 100000}-`;
  return { prefix, stsName: (id) => `${prefix}node-${id}` };
}
