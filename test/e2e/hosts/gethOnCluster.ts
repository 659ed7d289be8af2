// The set-up the geth-on-Kubernetes suites share (kubernetesGeth, kubernetesGethPlacement): the
// suite gated on the shared cluster of test/k8s/cluster.sh, geth here (the genesis hash is
// computed with it; LNM_GETH_BIN) and lnm-geth:local on the cluster's node, a counted skip saying
// which is missing; the service a child process with the cluster registered as a node host; a
// geth node's JSON-RPC; one chain on every sealer; the nodes' objects removed at the end.
import * as assert from 'uvu/assert';
import * as k8s from '@kubernetes/client-node';
import type { Test } from 'uvu';
import { adminAuth, call, startServer, type TestServer } from '../../helpers/server.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { adminKubeConfig, clusterImageMissing, kubernetesSkipReason, testCluster, type TestCluster } from '../../helpers/kubernetes.ts';
import { gethMissing, gethServiceEnv } from '../../helpers/programs.ts';
import { until } from '../evm/evmLifecycle.ts';

export const GETH_IMAGE = process.env.LNM_IMAGE_GETH ?? 'lnm-geth:local';

/** The suite, run only with the cluster, geth and the geth image on the cluster. */
export async function gethOnClusterSuite(t: Test): Promise<Test> {
  const clusterMissing = await kubernetesSkipReason();
  return requiresAll(
    t,
    ['kubernetes', clusterMissing],
    ['geth', gethMissing],
    ['geth-image', clusterMissing ? undefined : await clusterImageMissing(GETH_IMAGE)],
  );
}

export interface GethOnCluster {
  server: TestServer;
  /** The cluster registered as a node host. */
  hostId: number;
  connection: TestCluster['connection'];
  core: k8s.CoreV1Api;
  apps: k8s.AppsV1Api;
  api(method: string, p: string, body?: unknown): ReturnType<typeof call>;
  /** A node's events (node.started, node.downtime, ...). */
  events(nodeId: number): Promise<Array<{ event: string }>>;
  /** The node once running; null while it starts; throws once it failed. */
  running(id: number): Promise<any>;
  /** The StatefulSet of a node (its pod is `${statefulSet(n)}-0`). */
  statefulSet(n: { id: number }): string;
  /** Deletes the nodes (with their volumes) and waits for their objects to go, then the host; stops the service. */
  stop(nodes: Array<{ id: number }>, before?: () => Promise<void>): Promise<void>;
}

/**
 * The service (process engine, the geth image for cluster nodes, names prefixed with `prefix`:
 * the cluster is shared with other runs), health checks every second, and the cluster as a host.
 */
export async function startGethOnCluster(prefix: string, keyEncryptionKey: string): Promise<GethOnCluster> {
  const c = testCluster()!.connection;
  const kc = adminKubeConfig();
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const apps = kc.makeApiClient(k8s.AppsV1Api);
  const server = await startServer({ env: { ...gethServiceEnv(), KEY_ENCRYPTION_KEY: keyEncryptionKey, LNM_HOST_CHECK_SECONDS: '2', LNM_DOCKER_PREFIX: prefix, LNM_NODE_ENGINE: 'process', LNM_IMAGE_GETH: GETH_IMAGE } });
  const api = (method: string, p: string, body?: unknown) => call(server.api, method, p, { headers: adminAuth(), body });
  assert.is((await api('POST', '/settings', { nodeHealthCheckIntervalSeconds: 1, nodeDowntimeThreshold: 2 })).status, 200);
  const h = await api('POST', '/hosts', { name: 'cluster', kind: 'kubernetes', url: c.server, externalIp: c.nodeAddress, kubernetes: { caCertificate: c.caCertificate, token: c.token, namespace: c.namespace, storageClass: c.storageClass } });
  assert.is(h.status, 201, h.text);
  const hostId = h.json.id as number;
  const statefulSet = (n: { id: number }) => `${prefix}node-${n.id}`;
  return {
    server, hostId, connection: c, core, apps, api, statefulSet,
    events: async (nodeId) => (await api('GET', `/nodes/${nodeId}/events?limit=500`)).json.items,
    async running(id) {
      const r = (await api('GET', `/nodes/${id}`)).json;
      if (r?.status === 'error') throw new Error(`node ${id} failed: ${r.error}`);
      return r?.status === 'running' ? r : null;
    },
    async stop(nodes, before) {
      for (const n of nodes) await api('DELETE', `/nodes/${n.id}?deleteVolume=true`).catch(() => undefined);
      for (const n of nodes) {
        await until('the node\'s objects gone', async () => {
          const set = await apps.readNamespacedStatefulSet({ name: statefulSet(n), namespace: c.namespace }).then(() => true, () => false);
          const claim = await core.readNamespacedPersistentVolumeClaim({ name: `${statefulSet(n)}-data`, namespace: c.namespace }).then(() => true, () => false);
          return !set && !claim;
        }, 90_000).catch(() => undefined);
      }
      await before?.();
      await api('DELETE', `/hosts/${hostId}`).catch(() => undefined);
      await server.stop();
    },
  };
}

/** A JSON-RPC call to a geth node's HTTP endpoint. */
export async function rpc<T = any>(n: any, method: string, params: unknown[] = []): Promise<T> {
  const r = await fetch(n.endpoints.rpc_http, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), signal: AbortSignal.timeout(3000) });
  const body = (await r.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}
export const hex = (n: number) => '0x' + n.toString(16);
export const height = async (n: any) => Number(await rpc<string>(n, 'eth_blockNumber'));
export const heightOr = (n: any, fallback: number) => height(n).catch(() => fallback);
export const hashAt = async (n: any, block: number) => (await rpc<{ hash: string }>(n, 'eth_getBlockByNumber', [hex(block), false])).hash;
export const peerCount = async (n: any) => Number(await rpc<string>(n, 'net_peerCount').catch(() => '0'));

/** Every node at or past `block`, with one hash there: one chain. */
export async function oneChainAt(nodes: any[], block: number): Promise<void> {
  await until(`every node at block ${block}`, async () => (await Promise.all(nodes.map((n) => heightOr(n, -1)))).every((h) => h >= block), 120_000);
  assert.is(new Set(await Promise.all(nodes.map((n) => hashAt(n, block)))).size, 1, `one block hash at ${block} on all ${nodes.length}`);
}
