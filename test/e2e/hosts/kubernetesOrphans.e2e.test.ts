// Nothing half-created stays on a cluster (issue 39 item 5, docs/kubernetes.md "Orphans"), against
// the shared cluster of test/k8s/cluster.sh up with the anvil and service images on its node (a
// counted skip, saying why, without them); names prefixed per run (LNM_DOCKER_PREFIX).
// A node placed on a cluster with NodePort exposure has its Service made there before the node is
// recorded. Here the record is held up for real: the test takes PostgreSQL's EXCLUSIVE lock on the
// events table (reads go on, every append waits), the create makes its Service and blocks on its
// append, and the server is killed (SIGKILL) then, its waiting database connections ended: the
// Service is on the cluster with no node record. A server started again on the same database, with a grace period of 1 s, removes it at
// its first cluster check and audits it (NodeHostOrphansRemoved naming the Service); the objects
// of the node that was recorded before stay.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as k8s from '@kubernetes/client-node';
import pg from 'pg';
import { adminAuth, call, startServer, type TestServer } from '../../helpers/server.ts';
import { requires } from '../../helpers/requirements.ts';
import { adminKubeConfig, clusterImageMissing, k8sAnvilImage, serviceImage, serviceImageSkipReason, testCluster } from '../../helpers/kubernetes.ts';
import { until } from '../evm/evmLifecycle.ts';

const skipReason = (await serviceImageSkipReason()) ?? (await clusterImageMissing(k8sAnvilImage));
const t = requires(suite('kubernetes: the objects of a node never recorded are removed from the cluster'), 'kubernetes', skipReason);
const cluster = testCluster();
const c = () => cluster!.connection;
const PREFIX = `k8sorphan${process.pid % 100000}-`;
const KEK = 'k8s-orphans-e2e-key-encryption-key-0123456789';
const env = (grace: string) => ({ KEY_ENCRYPTION_KEY: KEK, LNM_HOST_CHECK_SECONDS: '2', LNM_K8S_ORPHAN_GRACE_SECONDS: grace, LNM_DOCKER_PREFIX: PREFIX, LNM_NODE_ENGINE: 'process', LNM_IMAGE_SERVICE: serviceImage });
let server: TestServer;
let core: k8s.CoreV1Api;
const api = (method: string, p: string, body?: unknown) => call(server.api, method, p, { headers: adminAuth(), body });
const services = async () => (await core.listNamespacedService({ namespace: c().namespace, labelSelector: `lnm.prefix=${PREFIX.replace(/-$/, '')}` })).items;
const anvilNetwork = async (name: string, chainId: number) => {
  const n = await api('POST', '/networks', { name, type: 'evm', validatorBalance: '1000000000000000000000', genesis: { chain_id: chainId, consensus: 'QBFT', block_time: 1 } });
  assert.is(n.status, 201, n.text);
  return n.json.id as number;
};

t.before(async () => {
  core = adminKubeConfig().makeApiClient(k8s.CoreV1Api);
  server = await startServer({ env: env('600') });
});

t.after(async () => {
  if (server) {
    const left = ((await api('GET', '/nodes').catch(() => null))?.json?.items ?? []) as Array<{ id: number }>;
    for (const n of left) await api('DELETE', `/nodes/${n.id}?deleteVolume=true`).catch(() => undefined);
    await server.stop();
  }
  // Whatever the test left of this run's prefix (a failed run): removed with the admin client.
  for (const s of await services().catch(() => [])) await core.deleteNamespacedService({ name: s.metadata!.name!, namespace: c().namespace }).catch(() => undefined);
});

t('a Service made for a node whose record never landed (server killed) is removed at the next cluster check, audited; a recorded node\'s objects stay', async () => {
  const h = await api('POST', '/hosts', { name: 'cluster', kind: 'kubernetes', url: c().server, externalIp: c().nodeAddress, kubernetes: { caCertificate: c().caCertificate, token: c().token, namespace: c().namespace, storageClass: c().storageClass } });
  assert.is(h.status, 201, h.text);
  const hostId = h.json.id as number;

  // A recorded node: its Service made ahead, then recorded (and started).
  const kept = await api('POST', '/nodes', { name: 'recorded', platform: 'EVM', nodeType: 'EVM_FULLNODE', networkId: await anvilNetwork(`orph-a-${process.pid}`, 43001 + (process.pid % 900) * 2), config: { hostId } });
  assert.is(kept.status, 201, kept.text);
  const keptService = `${PREFIX}node-${kept.json.id}`;
  assert.ok((await services()).some((s) => s.metadata?.name === keptService), 'the recorded node has its Service');
  const second = await anvilNetwork(`orph-b-${process.pid}`, 43002 + (process.pid % 900) * 2);

  // Every append waits from here: the create makes its Service, then blocks on its record.
  const db = new pg.Client({ connectionString: server.databaseUrl! });
  await db.connect();
  let orphanName = '';
  try {
    await db.query('BEGIN');
    await db.query('LOCK TABLE events IN EXCLUSIVE MODE');
    const pending = api('POST', '/nodes', { name: 'never-recorded', platform: 'EVM', nodeType: 'EVM_FULLNODE', networkId: second, config: { hostId } }).catch(() => null);
    const orphan = await until('the second node\'s Service on the cluster', async () => (await services()).find((s) => s.metadata?.name !== keptService), 120_000);
    orphanName = orphan.metadata!.name!;
    await server.kill();
    await pending;
    // A backend waiting on a lock does not notice its client is gone: the killed server's
    // connections are ended here, as PostgreSQL would once it looked (its append never lands).
    await db.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
  } finally {
    await db.query('ROLLBACK').catch(() => undefined);
    await db.end();
  }
  assert.ok((await services()).some((s) => s.metadata?.name === orphanName), 'the killed create left its Service on the cluster');

  server = await startServer({ env: env('1'), databaseUrl: server.databaseUrl!, dataDir: server.dataDir });
  const nodes = (await api('GET', '/nodes')).json.items as Array<{ id: number; name: string }>;
  assert.equal(nodes.map((n) => n.name), ['recorded'], 'the killed create recorded no node');
  await until(`the orphan Service ${orphanName} removed`, async () => !(await services()).some((s) => s.metadata?.name === orphanName), 60_000);
  assert.ok((await services()).some((s) => s.metadata?.name === keptService), 'the recorded node\'s Service stays');
  const entry = await until('the audit entry of the removal', async () => ((await api('GET', '/audit-logs?limit=100')).json.items as Array<Record<string, any>>).find((e) => e.event_type === 'NodeHostOrphansRemoved'), 30_000);
  assert.is(entry.action, 'DELETE');
  assert.is(entry.resource_type, 'node_host');
  assert.is(String(entry.resource_id), String(hostId));
  assert.ok((entry.details.objects as Array<{ kind: string; name: string }>).some((o) => o.kind === 'Service' && o.name === orphanName), JSON.stringify(entry.details));
  assert.not.ok(JSON.stringify(entry).includes(c().token!), 'no token in the audit entry');
});

t.run();
