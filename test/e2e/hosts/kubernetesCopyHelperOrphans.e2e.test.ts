// A copy-helper pod left on a cluster by a service that died mid-backup is removed (issue 39 item
// 5, docs/kubernetes.md "Orphans"), against the shared cluster of test/k8s/cluster.sh up with the
// anvil and service images on its node, restic and a real S3 server (s3rver over HTTPS on
// loopback); a counted skip, saying why, without them. Names prefixed per run (LNM_DOCKER_PREFIX).
// An anvil node runs on the cluster; a backup starts, and the moment its helper pod (label
// lnm.role=volume-copy, the service's image mounting the node's claim) is on the cluster the
// server is killed (SIGKILL): the pod stays with no one to remove it. A server started again on
// the same data (LNM_BACKUP_STALL_SECONDS 20: the helper ends itself 35 s after no copy ran in it;
// LNM_K8S_ORPHAN_GRACE_SECONDS 1) removes the pod at a cluster check once it ended, audits it
// (NodeHostOrphansRemoved naming the Pod), and the node's own objects stay. On the code before the
// change the helper ran for an hour and no check removed it: the test failed waiting for it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as k8s from '@kubernetes/client-node';
import { adminAuth, call, startServer, type TestServer } from '../../helpers/server.ts';
import { resticMissing } from '../../helpers/programs.ts';
import { requires } from '../../helpers/requirements.ts';
import { startS3Server, type S3Server } from '../../helpers/s3Server.ts';
import { adminKubeConfig, clusterImageMissing, k8sAnvilImage, serviceImage, serviceImageSkipReason, testCluster } from '../../helpers/kubernetes.ts';
import { until } from '../consortium/consortiumApi.ts';

const skipReason = (await serviceImageSkipReason()) ?? (await clusterImageMissing(k8sAnvilImage)) ?? resticMissing;
const t = requires(suite('kubernetes: a copy-helper pod left by a service killed mid-backup is removed'), 'kubernetes', skipReason);
const cluster = testCluster();
const c = () => cluster!.connection;
const PREFIX = `k8shelper${process.pid % 100000}-`;
const PORT = 30000 + ((process.pid * 19 + 1100) % 2400);
const KEK = 'k8s-helper-e2e-key-encryption-key-0123456789';
const env = (grace: string) => ({ KEY_ENCRYPTION_KEY: KEK, LNM_HOST_CHECK_SECONDS: '2', LNM_K8S_ORPHAN_GRACE_SECONDS: grace, LNM_DOCKER_PREFIX: PREFIX, LNM_NODE_ENGINE: 'process', LNM_IMAGE_SERVICE: serviceImage, LNM_BACKUP_STALL_SECONDS: '20' });
let s3: S3Server;
let server: TestServer;
let core: k8s.CoreV1Api;
let apps: k8s.AppsV1Api;
let nodeId = 0;
const api = (method: string, p: string, body?: unknown) => call(server.api, method, p, { headers: adminAuth(), body });
const helpers = async () => (await core.listNamespacedPod({ namespace: c().namespace, labelSelector: `lnm.prefix=${PREFIX.replace(/-$/, '')},lnm.role=volume-copy` })).items;

t.before(async () => {
  const kc = adminKubeConfig();
  core = kc.makeApiClient(k8s.CoreV1Api);
  apps = kc.makeApiClient(k8s.AppsV1Api);
  s3 = await startS3Server(['backups']);
  server = await startServer({ embedded: true, env: env('600') });
});

t.after(async () => {
  if (server) {
    if (nodeId) await api('DELETE', `/nodes/${nodeId}?deleteVolume=true`).catch(() => undefined);
    await until('the node\'s claim gone', async () => !(await core.readNamespacedPersistentVolumeClaim({ name: `${PREFIX}node-${nodeId}-data`, namespace: c().namespace }).then(() => true, () => false)), 120_000).catch(() => undefined);
    await server.stop();
  }
  // Whatever helper of this run's prefix a failed run left: removed with the admin client.
  for (const p of await helpers().catch(() => [])) await core.deleteNamespacedPod({ name: p.metadata!.name!, namespace: c().namespace, gracePeriodSeconds: 0 }).catch(() => undefined);
  await s3?.stop();
  s3?.remove();
});

t('the helper pod of a backup whose service was killed ends by itself and is removed at a cluster check, audited; the node\'s objects stay', async () => {
  const h = await api('POST', '/hosts', { name: 'cluster', kind: 'kubernetes', url: c().server, externalIp: c().nodeAddress, kubernetes: { caCertificate: c().caCertificate, token: c().token, namespace: c().namespace, storageClass: c().storageClass } });
  assert.is(h.status, 201, h.text);
  const hostId = h.json.id as number;
  const n = await api('POST', '/networks', { name: 'k8s-helper', type: 'evm', validatorBalance: '1000000000000000000000', genesis: { chain_id: 44001 + (process.pid % 900), consensus: 'QBFT', block_time: 1 } });
  assert.is(n.status, 201, n.text);
  const r = await api('POST', '/nodes', { name: 'k8s-anvil', platform: 'EVM', nodeType: 'EVM_FULLNODE', networkId: n.json.id, config: { hostId, rpcHttpPort: PORT, p2pPort: PORT + 1 } });
  assert.is(r.status, 201, r.text);
  nodeId = r.json.id;
  await until('the node running', async () => (await api('GET', `/nodes/${nodeId}`)).json.status === 'running', 180_000);
  const target = await api('POST', '/backups/targets', {
    name: 'k8s-s3', endpoint: s3.endpoint, bucket_name: 'backups', bucket_path: 'k8s-helper', region: 'us-east-1', access_key_id: s3.accessKeyId,
    secret_access_key: s3.secretAccessKey, force_path_style: true, repository_password: 'k8s-helper-repository-password', ca_certificate: s3.caPem,
  });
  assert.is(target.status, 201, target.text);

  // The backup makes its helper pod; the server dies the moment the pod is on the cluster.
  const b = await api('POST', '/backups', { target_id: target.json.id });
  assert.is(b.status, 201, b.text);
  const helper = await until('the backup\'s helper pod on the cluster', async () => (await helpers())[0], 120_000, 100);
  await server.kill();
  const name = helper.metadata!.name!;
  assert.is(helper.metadata!.labels!['lnm.node'], `node-${nodeId}`);
  await new Promise((resolve) => setTimeout(resolve, 3000));
  assert.ok((await helpers()).some((p) => p.metadata!.uid === helper.metadata!.uid), 'the killed backup left its helper pod');

  server = await startServer({ embedded: true, env: env('1'), dataDir: server.dataDir });
  const ended = await until(`the helper pod ${name} ended (no copy in it)`, async () => {
    const p = (await helpers()).find((x) => x.metadata!.uid === helper.metadata!.uid);
    return !p || p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed' ? (p?.status?.phase ?? 'gone') : null;
  }, 150_000, 1000);
  await until(`the helper pod ${name} removed`, async () => !(await helpers()).some((x) => x.metadata!.uid === helper.metadata!.uid), 60_000, 1000);
  const entry = await until('the audit entry of the removal', async () => ((await api('GET', '/audit-logs?limit=100')).json.items as Array<Record<string, any>>).find((e) => e.event_type === 'NodeHostOrphansRemoved'), 30_000);
  assert.is(entry.action, 'DELETE');
  assert.is(String(entry.resource_id), String(hostId));
  assert.match(entry.reason, 'copy-helper pods');
  assert.ok((entry.details.objects as Array<{ kind: string; name: string; nodeKey: string }>).some((o) => o.kind === 'Pod' && o.name === name && o.nodeKey === `node-${nodeId}`), JSON.stringify(entry.details));
  assert.not.ok(JSON.stringify(entry).includes(c().token!), 'no token in the audit entry');
  // The recorded node's own objects stay, and it still runs.
  assert.ok(await apps.readNamespacedStatefulSet({ name: `${PREFIX}node-${nodeId}`, namespace: c().namespace }), 'the node\'s StatefulSet stays');
  assert.ok(await core.readNamespacedPersistentVolumeClaim({ name: `${PREFIX}node-${nodeId}-data`, namespace: c().namespace }), 'the node\'s claim stays');
  assert.ok(['Succeeded', 'Failed', 'gone'].includes(ended), ended);
});

t.run();
