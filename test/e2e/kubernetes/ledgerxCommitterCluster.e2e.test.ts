// A ledgerX committer (Fabric-X's committer services sidecar, coordinator, vc, verifier, query)
// placed on a Kubernetes cluster beside an orderer group there (issue 39 item 3), against the
// cluster of test/k8s/cluster.sh up with lnm-fabric-x-arma:local and lnm-fabric-x-committer:local
// on its node (.ci/docker.sh builds them from the Fabric-X programs, `test/k8s/cluster.sh import`
// loads them), a counted skip saying which is missing; the service a child process. Each service
// is a StatefulSet of the committer image, its ports NodePorts at the cluster's node address,
// where the services call one another. Its database is a PostgreSQL of this test listening on
// the cluster's node address (this machine's bridge) and admitting the pods' network.
// - refusals: the service's own PostgreSQL (loopback) or a databaseUrl at 127.0.0.1: 400
//   DATABASE_UNREACHABLE_FROM_CLUSTER; externalIp with a cluster, host labels, a port outside the
//   NodePort range: 400; nothing recorded, no Service left on the cluster;
// - the committer on the cluster joined to the network of the group on the cluster: five pods of
//   the committer image, running; loadgen's transactions through the router's NodePort COMMITTED
//   (loadgen's statuses via the sidecar's NodePort, the coordinator's count, the explorer);
// - the coordinator's pod deleted: node.downtime, Kubernetes makes it again, node.recovery, one
//   node.started; transactions sent after are COMMITTED too;
// - the committer deleted with deleteVolume=true: its StatefulSets, Services and claims gone.
// loadgen runs on this machine (LNM_FABRIC_X_BIN, PATH): without it the suite says why and skips.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as k8s from '@kubernetes/client-node';
import pg from 'pg';
import path from 'node:path';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { adminKubeConfig, clusterImageMissing, kubernetesSkipReason, deleteClaimsOfPrefix, deleteNodeWithVolumes, nodePodOf, registerTestCluster, testCluster } from '../../helpers/kubernetes.ts';
import { ownPostgres, type OwnPostgres } from '../../helpers/postgres.ts';
import { apiOf, events, organization, until } from '../consortium/consortiumApi.ts';
import { fabricXProgram, fabricXServiceEnv } from '../../helpers/programs.ts';
import { runLoadgen } from '../ledgerx/ledgerxLoadgen.ts';

const ARMA_IMAGE = process.env.LNM_IMAGE_FABRIC_X_ARMA ?? 'lnm-fabric-x-arma:local';
const COMMITTER_IMAGE = process.env.LNM_IMAGE_FABRIC_X_COMMITTER ?? 'lnm-fabric-x-committer:local';
const load = (image: string) => `.ci/docker.sh builds it from the Fabric-X programs it finds (LNM_FABRIC_X_BIN), test/k8s/cluster.sh import ${image} loads it`;
const clusterMissing = await kubernetesSkipReason();
const loadgen = await fabricXProgram('loadgen');
const t = requiresAll(
  suite('kubernetes: a ledgerX committer on a cluster'),
  ['kubernetes', clusterMissing],
  ['fabric-x-images', clusterMissing ? undefined : (await clusterImageMissing(ARMA_IMAGE, load(ARMA_IMAGE))) ?? (await clusterImageMissing(COMMITTER_IMAGE, load(COMMITTER_IMAGE)))],
  ['fabric-x', loadgen ? undefined : 'loadgen (fabric-x-committer) is not in LNM_FABRIC_X_BIN or on PATH: it sends the transactions'],
);
const cluster = testCluster();
const c = () => cluster!.connection;
// Unique per run: the cluster and its NodePorts are shared with other engineers' runs.
const PREFIX = `fxkc${process.pid % 100000}-`;
const BASE = 30000 + ((process.pid * 17 + 700) % 2400);
const ROLES = ['sidecar', 'coordinator', 'vc', 'verifier', 'query'] as const;
const DB = { name: 'committer_on_cluster', user: 'committer_on_cluster', password: 'c0mmitter-on-cluster-pw' };
let server: TestServer;
let postgres: OwnPostgres;
let core: k8s.CoreV1Api;
const api = apiOf(() => server);
let hostId: number;
let org: { id: number };
// What the tests made, in order: the orderer group, its network, the committer.
let group: any, network: any, committer: any;
const objectName = (nodeId: number) => `${PREFIX}node-${nodeId}`;
const serviceId = (role: string): number => committer.ledgerXCommitter.roles.find((r: any) => r.role === role).nodeId;
const databaseUrl = (host: string) => `postgres://${DB.user}:${DB.password}@${host}:${postgres.port}/${DB.name}`;
// The engine's lnm.prefix label: the prefix without its trailing '-' (a label value ends alphanumeric).
const PREFIX_LABEL = PREFIX.replace(/-+$/, '');
const prefixed = async () => (await core.listNamespacedService({ namespace: c().namespace, labelSelector: `lnm.prefix=${PREFIX_LABEL}` })).items.map((s) => s.metadata!.name!);

t.before(async () => {
  const kc = adminKubeConfig();
  core = kc.makeApiClient(k8s.CoreV1Api);
  // The committer's database where the pods reach it: this machine's address on the cluster's bridge.
  const podNetwork = process.env.LNM_TEST_K8S_POD_CIDR ?? `${c().nodeAddress.split('.').slice(0, 3).join('.')}.0/24`;
  postgres = await ownPostgres({ listenAddresses: ['127.0.0.1', c().nodeAddress], allowFrom: [podNetwork] });
  const admin = new pg.Client({ connectionString: postgres.url });
  await admin.connect();
  await admin.query(`CREATE ROLE ${DB.user} LOGIN PASSWORD '${DB.password}'`);
  await admin.query(`CREATE DATABASE ${DB.name} OWNER ${DB.user}`);
  await admin.end();
  server = await startServer({ env: { KEY_ENCRYPTION_KEY: 'k8s-ledgerx-committer-e2e-key-0123456789', LNM_HOST_CHECK_SECONDS: '2', LNM_DOCKER_PREFIX: PREFIX, LNM_NODE_ENGINE: 'process', LNM_IMAGE_FABRIC_X_ARMA: ARMA_IMAGE, LNM_IMAGE_FABRIC_X_COMMITTER: COMMITTER_IMAGE, LNM_LEDGERX_JOIN_TIMEOUT_SECONDS: '180', ...fabricXServiceEnv() } });
  assert.is((await api('POST', '/settings', { nodeHealthCheckIntervalSeconds: 1, nodeDowntimeThreshold: 2 })).status, 200);
  hostId = await registerTestCluster(api, c());
  org = await organization(api, 'XKcOrg', 'XKcOrgMSP');
});

t.after(async () => {
  if (server) {
    if (committer) await api('DELETE', `/nodes/${committer.id}?deleteVolume=true`).catch(() => undefined);
    if (group) await api('DELETE', `/nodes/${group.id}?deleteVolume=true`).catch(() => undefined);
    await until('the run\'s objects gone from the cluster', async () => (await prefixed().catch(() => [])).length === 0, 120_000).catch(() => undefined);
    await deleteClaimsOfPrefix(PREFIX, c().namespace);
    if (hostId) await api('DELETE', `/hosts/${hostId}`).catch(() => undefined);
    await server.stop();
  }
  await postgres?.remove();
});

t('refused on the cluster: a database at a loopback address, externalIp, host labels, a port outside the NodePort range: 400, nothing made', async () => {
  const create = (config: Record<string, unknown>) => api('POST', '/nodes', { name: 'xkc-bad', platform: 'LEDGERX', nodeType: 'LEDGERX_COMMITTER', organizationId: org.id, config });
  const own = await create({ hostId });
  assert.is(own.status, 400, own.text);
  assert.is(own.json.code, 'DATABASE_UNREACHABLE_FROM_CLUSTER');
  assert.match(own.json.message, 'config.databaseUrl');
  assert.match(own.json.message, c().nodeAddress, 'says at which address pods reach this machine');
  const loopback = await create({ hostId, databaseUrl: databaseUrl('127.0.0.1') });
  assert.is(loopback.status, 400, loopback.text);
  assert.is(loopback.json.code, 'DATABASE_UNREACHABLE_FROM_CLUSTER');
  assert.not.match(loopback.text, DB.password, 'the password is never echoed');
  const ip = await create({ hostId, externalIp: '10.1.2.3', databaseUrl: databaseUrl(c().nodeAddress) });
  assert.is(ip.status, 400, ip.text);
  assert.match(ip.json.message, 'externalIp');
  const labels = await create({ hostLabels: { zone: 'a' }, databaseUrl: databaseUrl(c().nodeAddress) });
  assert.is(labels.status, 400, labels.text);
  const low = await create({ hostId, grpcPort: 7350, databaseUrl: databaseUrl(c().nodeAddress) });
  assert.is(low.status, 400, low.text);
  assert.match(low.json.message, 'NodePort');
  assert.is((await api('GET', '/nodes/platform/LEDGERX')).json.total, 0, 'no node recorded');
  assert.equal(await prefixed(), [], 'no Service left on the cluster');
});

t('a committer on the cluster joins the network of an orderer group there: five committer pods, loadgen\'s transactions COMMITTED', async () => {
  const g = await api('POST', '/nodes', { name: 'xkc-group', platform: 'LEDGERX', nodeType: 'LEDGERX_ORDERER_GROUP', organizationId: org.id, config: { hostId, grpcPort: BASE } });
  assert.is(g.status, 201, g.text);
  group = g.json;
  const n = await api('POST', '/networks/ledgerx', { name: 'xkc-net', channelName: 'arma', ordererGroupIds: [group.id] });
  assert.is(n.status, 201, n.text);
  network = n.json;
  const gj = await api('POST', `/networks/ledgerx/${network.id}/orderer-groups/${group.id}/join`);
  assert.is(gj.status, 200, gj.text);
  const r = await api('POST', '/nodes', { name: 'xkc-committer', platform: 'LEDGERX', nodeType: 'LEDGERX_COMMITTER', organizationId: org.id, config: { hostId, grpcPort: BASE + 10, databaseUrl: databaseUrl(c().nodeAddress) } });
  assert.is(r.status, 201, r.text);
  committer = r.json;
  assert.not.match(r.text, DB.password, 'the password is never shown');
  const x = committer.ledgerXCommitter;
  assert.is(x.externalIp, c().nodeAddress, 'its services are reached at the cluster\'s node address');
  assert.is(x.hostId, hostId);
  assert.equal(ROLES.map((role) => x[`${role}Port`]), ROLES.map((_, i) => BASE + 10 + i), 'gRPC NodePorts from the base');
  const joined = await api('POST', `/networks/ledgerx/${network.id}/committers/${committer.id}/join`);
  assert.is(joined.status, 200, joined.text);
  assert.is(joined.json.status, 'running');
  for (const role of ROLES) {
    const id = serviceId(role);
    assert.is((await api('GET', `/nodes/${id}`)).json.status, 'running', `${role} running`);
    const placed = await nodePodOf(objectName(id), c().namespace);
    assert.is(placed.image, COMMITTER_IMAGE, `${role} runs the committer image`);
    assert.equal(placed.nodePorts, [x[`${role}Port`], x[`${role}MonitoringPort`]].sort((a, b) => a - b), `${role}'s ports are NodePorts`);
  }
  const transactions = 100;
  const run = await send(transactions, true);
  console.log(`  committer on the cluster: loadgen saw ${run.seen} COMMITTED; the coordinator counts ${run.committed}; loadgen log: ${run.log}`);
  assert.ok(run.seen >= transactions, `loadgen saw ${run.seen} COMMITTED; its last lines: ${run.lastLines}`);
  assert.ok(run.committed >= transactions + 2, `the coordinator counts ${run.committed} (config block + namespace + ${transactions})`);
  assert.ok((await explorer()).committed >= transactions, 'the explorer (the sidecar and query service at their NodePorts) lists them COMMITTED');
});

/** loadgen through the router's NodePort, statuses from the sidecar's NodePort, the coordinator's count at its monitoring NodePort. */
async function send(transactions: number, namespaces: boolean, statusesOnChain = 0) {
  const x = committer.ledgerXCommitter;
  return runLoadgen({
    loadgen: loadgen!,
    genesisBlock: Buffer.from((await api('GET', `/networks/ledgerx/${network.id}/genesis`)).json.block, 'base64'),
    channel: network.channel_name ?? network.channelName ?? 'arma',
    mspId: 'XKcOrgMSP',
    // The staging copy of the sidecar's files on this machine (the engine's prepare): the organization admin's MSP.
    mspDir: path.join(server.dataDir, 'nodes', `node-${serviceId('sidecar')}`, 'msp'),
    sidecarPort: x.sidecarPort,
    sidecarHost: c().nodeAddress,
    coordinatorMetricsUrl: x.coordinatorMetricsUrl,
    transactions,
    namespaces,
    statusesOnChain,
    seed: namespaces ? 12345 : 67890,
  });
}

/** The transactions in the explorer's blocks: all of them, and those COMMITTED. */
async function explorer(): Promise<{ all: number; committed: number }> {
  const info = await until('the explorer sees the blocks', async () => {
    const i = await api('GET', `/networks/ledgerx/${network.id}/info`);
    return i.status === 200 && i.json.height >= 2 ? i.json : null;
  }, 60_000, 1000);
  let committed = 0;
  let all = 0;
  for (let b = 0; b < info.height; b++) {
    const block = await api('GET', `/networks/ledgerx/${network.id}/blocks/${b}`);
    assert.is(block.status, 200, block.text);
    all += block.json.transactions.length;
    committed += block.json.transactions.filter((tx: any) => tx.status === 'COMMITTED').length;
  }
  return { all, committed };
}

t('the coordinator\'s pod deleted: downtime, Kubernetes makes it again, recovery, one node.started; transactions after it COMMITTED', async () => {
  assert.ok(committer, 'the committer of the test above');
  const id = serviceId('coordinator');
  const before = await explorer();
  await core.deleteNamespacedPod({ name: `${objectName(id)}-0`, namespace: c().namespace, gracePeriodSeconds: 0 });
  await until('node.downtime', async () => (await events(api, id)).includes('node.downtime'), 60_000);
  await until('node.recovery', async () => (await events(api, id)).includes('node.recovery'), 180_000);
  assert.is((await api('GET', `/nodes/${id}`)).json.status, 'running');
  assert.is((await events(api, id)).filter((e) => e === 'node.started').length, 1, 'a pod Kubernetes makes again is not a second start');
  const more = 50;
  const run = await send(more, false, before.all);
  console.log(`  after the coordinator's pod came back: loadgen saw ${run.seen} COMMITTED; loadgen log: ${run.log}`);
  const after = await until(`${more} more transactions COMMITTED in the explorer`, async () => {
    const n = (await explorer()).committed;
    return n >= before.committed + more ? n : null;
  }, 120_000, 2000);
  assert.ok(after >= before.committed + more, `${after} COMMITTED after, ${before.committed} before`);
});

t('the committer deleted with deleteVolume=true: its StatefulSets, Services and claims gone', async () => {
  assert.ok(committer, 'the committer of the test above');
  // Its five services are stopped one after the other, each waiting for its pod to go (the engine
  // gives a pod 45 s): more than a group of four may take.
  const started = Date.now();
  await deleteNodeWithVolumes(api, committer.id, ROLES.map((r) => objectName(serviceId(r))), c().namespace, 300_000);
  console.log(`  the committer's objects gone ${Math.round((Date.now() - started) / 1000)} s after its delete`);
  committer = null;
});

t.run();
