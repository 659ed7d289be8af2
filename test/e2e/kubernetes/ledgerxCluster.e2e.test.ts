// A ledgerX orderer group (Fabric-X's arma roles router, batcher, consenter, assembler) placed on
// a Kubernetes cluster (issue 39 item 3, ledgerX roles), against the cluster of
// test/k8s/cluster.sh up with lnm-fabric-x-arma:local on its node (.ci/docker.sh builds it from the
// arma it finds, `test/k8s/cluster.sh import` loads it), a counted skip saying which is missing;
// the service a child process. Each role is a StatefulSet of the arma image, its gRPC and
// monitoring ports NodePorts at the cluster's node address, which is also the address of its
// party's endpoints in the genesis block: the roles reach each other there (no cluster DNS).
// - bad input: labels instead of a host id, a port outside the NodePort range, a committer on the
//   cluster whose database would be the service's own on this machine's loopback: 400, nothing recorded;
// - the group on the cluster, a network made of it, joined: four pods of the arma image, each role
//   running and answering /healthz and /metrics at the node address;
// - a role's pod deleted: node.downtime, Kubernetes makes it again, node.recovery, one node.started;
// - the group deleted with deleteVolume=true: its StatefulSets, Services and claims gone.
// - a committer on this machine (process engine, the committer program of LNM_FABRIC_X_BIN) joined
//   to that network: its sidecar pulls blocks from the assembler's NodePort, loadgen sends through
//   the router's NodePort, and its transactions are COMMITTED (loadgen's statuses, the
//   coordinator's count, the explorer); skipped, saying why, without committer or loadgen;
// A committer on the cluster itself: ledgerxCommitterCluster.e2e.test.ts.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as k8s from '@kubernetes/client-node';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { adminKubeConfig, clusterImageMissing, kubernetesSkipReason, deleteClaimsOfPrefix, deleteNodeWithVolumes, registerTestCluster, testCluster } from '../../helpers/kubernetes.ts';
import { apiOf, events, organization, until } from '../consortium/consortiumApi.ts';
import { fabricXMissing, fabricXProgram, fabricXServiceEnv } from '../../helpers/programs.ts';
import { freeGrpcBase } from '../../helpers/ports.ts';
import path from 'node:path';
import { runLoadgen } from '../ledgerx/ledgerxLoadgen.ts';

const ARMA_IMAGE = process.env.LNM_IMAGE_FABRIC_X_ARMA ?? 'lnm-fabric-x-arma:local';
const clusterMissing = await kubernetesSkipReason();
const t = requiresAll(
  suite('kubernetes: a ledgerX orderer group on a cluster'),
  ['kubernetes', clusterMissing],
  ['fabric-x-images', clusterMissing ? undefined : await clusterImageMissing(ARMA_IMAGE, `.ci/docker.sh builds it from the Fabric-X arma it finds (LNM_FABRIC_X_BIN), test/k8s/cluster.sh import ${ARMA_IMAGE} loads it`)],
);
const loadgen = await fabricXProgram('loadgen');
// The committer on this machine and loadgen: without them that one test says why and passes over.
const committerMissing = fabricXMissing ?? (loadgen ? undefined : 'loadgen (fabric-x-committer) is not in LNM_FABRIC_X_BIN or on PATH');
const cluster = testCluster();
const c = () => cluster!.connection;
// Unique per run: the cluster and its NodePorts are shared with other engineers' runs.
const PREFIX = `fabxlx${process.pid % 100000}-`;
const BASE = 30000 + ((process.pid * 13 + 1100) % 2400);
const ROLES = ['router', 'batcher', 'consenter', 'assembler'] as const;
let server: TestServer;
const api = apiOf(() => server);
let hostId: number;
let org: { id: number };
let group: any;
let network: any;
let committer: any;
let core: k8s.CoreV1Api;
let apps: k8s.AppsV1Api;
const objectName = (nodeId: number) => `${PREFIX}node-${nodeId}`;
const roleId = (role: string): number => group.ledgerXOrdererGroup.roles.find((r: any) => r.role === role).nodeId;

t.before(async () => {
  const kc = adminKubeConfig();
  core = kc.makeApiClient(k8s.CoreV1Api);
  apps = kc.makeApiClient(k8s.AppsV1Api);
  server = await startServer({ env: { KEY_ENCRYPTION_KEY: 'k8s-ledgerx-e2e-key-encryption-key-0123456789', LNM_HOST_CHECK_SECONDS: '2', LNM_DOCKER_PREFIX: PREFIX, LNM_NODE_ENGINE: 'process', LNM_IMAGE_FABRIC_X_ARMA: ARMA_IMAGE, LNM_LEDGERX_JOIN_TIMEOUT_SECONDS: '180', ...fabricXServiceEnv() } });
  assert.is((await api('POST', '/settings', { nodeHealthCheckIntervalSeconds: 1, nodeDowntimeThreshold: 2 })).status, 200);
  hostId = await registerTestCluster(api, c());
  org = await organization(api, 'XK8sOrg', 'XK8sOrgMSP');
});

t.after(async () => {
  if (!server) return;
  if (committer) await api('DELETE', `/nodes/${committer.id}`).catch(() => undefined);
  if (group) await api('DELETE', `/nodes/${group.id}?deleteVolume=true`).catch(() => undefined);
  const ids = group ? ROLES.map(roleId) : [];
  await until('the roles\' objects gone from the cluster', async () => {
    for (const id of ids) {
      if (await apps.readNamespacedStatefulSet({ name: objectName(id), namespace: c().namespace }).then(() => true, () => false)) return false;
      if (await core.readNamespacedService({ name: objectName(id), namespace: c().namespace }).then(() => true, () => false)) return false;
    }
    return true;
  }, 120_000).catch(() => undefined);
  // Whatever a failed run left (claims of roles never deleted) goes with the run's prefix.
  await deleteClaimsOfPrefix(PREFIX, c().namespace);
  if (hostId) await api('DELETE', `/hosts/${hostId}`).catch(() => undefined);
  await server.stop();
});

t('bad input: host labels, a port outside the NodePort range, a committer on the cluster with a loopback database: 400, nothing recorded', async () => {
  const labels = await api('POST', '/nodes', { name: 'xk-bad', platform: 'LEDGERX', nodeType: 'LEDGERX_ORDERER_GROUP', organizationId: org.id, config: { hostLabels: { zone: 'a' } } });
  assert.is(labels.status, 400, labels.text);
  assert.match(labels.json.message, 'hostLabels');
  const low = await api('POST', '/nodes', { name: 'xk-bad', platform: 'LEDGERX', nodeType: 'LEDGERX_ORDERER_GROUP', organizationId: org.id, config: { hostId, grpcPort: 7050 } });
  assert.is(low.status, 400, low.text);
  assert.match(low.json.message, 'NodePort');
  const committer = await api('POST', '/nodes', { name: 'xk-bad', platform: 'LEDGERX', nodeType: 'LEDGERX_COMMITTER', organizationId: org.id, config: { hostId } });
  assert.is(committer.status, 400, committer.text);
  assert.is(committer.json.code, 'DATABASE_UNREACHABLE_FROM_CLUSTER', 'its pods cannot reach the service\'s PostgreSQL on 127.0.0.1');
  assert.is((await api('GET', '/nodes/platform/LEDGERX')).json.total, 0);
});

t('an orderer group on the cluster joins a network: four arma pods, each role running and answering at the node address', async () => {
  const r = await api('POST', '/nodes', { name: 'xk-group', platform: 'LEDGERX', nodeType: 'LEDGERX_ORDERER_GROUP', organizationId: org.id, config: { hostId, grpcPort: BASE } });
  assert.is(r.status, 201, r.text);
  group = r.json;
  const g = group.ledgerXOrdererGroup;
  assert.is(g.externalIp, c().nodeAddress, 'the roles are reached at the cluster\'s node address');
  assert.equal([g.routerPort, g.batcherPort, g.consenterPort, g.assemblerPort], [BASE, BASE + 1, BASE + 2, BASE + 3]);
  assert.equal([g.routerMonitoringPort, g.batcherMonitoringPort, g.consenterMonitoringPort, g.assemblerMonitoringPort], [BASE + 100, BASE + 101, BASE + 102, BASE + 103]);
  const n = await api('POST', '/networks/ledgerx', { name: 'xk-net', channelName: 'arma', ordererGroupIds: [group.id] });
  assert.is(n.status, 201, n.text);
  network = n.json;
  const joined = await api('POST', `/networks/ledgerx/${n.json.id}/orderer-groups/${group.id}/join`);
  assert.is(joined.status, 200, joined.text);
  assert.is(joined.json.status, 'running');
  for (const role of ROLES) {
    const id = roleId(role);
    assert.is((await api('GET', `/nodes/${id}`)).json.status, 'running', `${role} running`);
    const pod = await core.readNamespacedPod({ name: `${objectName(id)}-0`, namespace: c().namespace });
    assert.is(pod.spec!.containers[0]!.image, ARMA_IMAGE, `${role} runs the arma image`);
    const svc = await core.readNamespacedService({ name: objectName(id), namespace: c().namespace });
    assert.equal(svc.spec!.ports!.map((p) => p.nodePort).sort(), [g[`${role}Port`], g[`${role}MonitoringPort`]].sort(), `${role}'s ports are NodePorts`);
    const health = await fetch(`http://${c().nodeAddress}:${g[`${role}MonitoringPort`]}/healthz`, { signal: AbortSignal.timeout(5000) });
    assert.is(health.status, 200, `${role} /healthz at the node address`);
    const metrics = await fetch(g[`${role}MetricsUrl`], { signal: AbortSignal.timeout(5000) });
    assert.match(await metrics.text(), /^# (HELP|TYPE) /m, `${role} answers Prometheus text at ${g[`${role}MetricsUrl`]}`);
  }
  const logs = await api('GET', `/nodes/${roleId('consenter')}/logs?tail=50`);
  assert.is(logs.status, 200, logs.text);
});

t('a committer on this machine joins the cluster\'s orderer group: loadgen through the router\'s NodePort, its transactions COMMITTED', async () => {
  if (committerMissing) {
    console.log(`  skipped: a committer on this machine and loadgen are needed (${committerMissing})`);
    return;
  }
  assert.ok(network, 'the network of the group on the cluster (test above)');
  network = (await api('GET', `/networks/ledgerx/${network.id}`)).json;
  const r = await api('POST', '/nodes', { name: 'xk-committer', platform: 'LEDGERX', nodeType: 'LEDGERX_COMMITTER', organizationId: org.id, config: { grpcPort: await freeGrpcBase(5) } });
  assert.is(r.status, 201, r.text);
  committer = r.json;
  const joined = await api('POST', `/networks/ledgerx/${network.id}/committers/${committer.id}/join`);
  assert.is(joined.status, 200, joined.text);
  assert.is(joined.json.status, 'running');
  const c = committer.ledgerXCommitter;
  const sidecarId = c.roles.find((x: any) => x.role === 'sidecar').nodeId;
  const transactions = 100;
  const run = await runLoadgen({
    loadgen: loadgen!,
    // Its routers are in the genesis block at the cluster's node address (their NodePorts).
    genesisBlock: Buffer.from((await api('GET', `/networks/ledgerx/${network.id}/genesis`)).json.block, 'base64'),
    channel: network.channel_name,
    mspId: 'XK8sOrgMSP',
    mspDir: path.join(server.dataDir, 'nodes', `node-${sidecarId}`, 'msp'),
    sidecarPort: c.sidecarPort,
    coordinatorMetricsUrl: c.coordinatorMetricsUrl,
    transactions,
  });
  console.log(`  cluster orderer group + local committer: loadgen saw ${run.seen} COMMITTED; the coordinator counts ${run.committed}; loadgen log: ${run.log}`);
  assert.ok(run.seen >= transactions, `loadgen saw ${run.seen} COMMITTED; its last lines: ${run.lastLines}`);
  assert.ok(run.committed >= transactions + 2, `the coordinator counts ${run.committed} (config block + namespace + ${transactions})`);
  const info = await until('the explorer sees loadgen\'s blocks', async () => {
    const x = await api('GET', `/networks/ledgerx/${network.id}/info`);
    return x.status === 200 && x.json.height >= 2 ? x.json : null;
  }, 60_000, 1000);
  let committed = 0;
  for (let b = 0; b < info.height; b++) {
    const block = await api('GET', `/networks/ledgerx/${network.id}/blocks/${b}`);
    assert.is(block.status, 200, block.text);
    committed += block.json.transactions.filter((x: any) => x.status === 'COMMITTED').length;
  }
  assert.ok(committed >= transactions, `${committed} COMMITTED transactions in the explorer's ${info.height} blocks`);
  const del = await api('DELETE', `/nodes/${committer.id}`);
  assert.ok(del.status < 300, del.text);
  committer = null;
});

t('a role\'s pod deleted: downtime, Kubernetes makes it again, recovery, one node.started', async () => {
  const id = roleId('batcher');
  await core.deleteNamespacedPod({ name: `${objectName(id)}-0`, namespace: c().namespace, gracePeriodSeconds: 0 });
  await until('node.downtime', async () => (await events(api, id)).includes('node.downtime'), 60_000);
  await until('node.recovery', async () => (await events(api, id)).includes('node.recovery'), 180_000);
  assert.is((await api('GET', `/nodes/${id}`)).json.status, 'running');
  assert.is((await events(api, id)).filter((e) => e === 'node.started').length, 1, 'a pod Kubernetes makes again is not a second start');
});

t('the group deleted with deleteVolume=true: the roles\' StatefulSets, Services and claims gone', async () => {
  await deleteNodeWithVolumes(api, group.id, ROLES.map((r) => objectName(roleId(r))), c().namespace);
  group = null;
});

t.run();
