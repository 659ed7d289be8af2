// A peer on a Kubernetes cluster leaves a channel (issue 37 item 5 on issue 39's engine), against
// the shared cluster of test/k8s/cluster.sh up with the Fabric 2.5 release images on its node
// (`cluster.sh import lnm-fabric-peer:2.5.12`, and the orderer's): Org1's raft orderer and peer
// placed on the cluster (POST /nodes with config.hostId: StatefulSets on lnm-fabric-*:2.5.x), the
// channel joined, the peer Org1's anchor peer at its cluster endpoint. The leave removes the
// anchor entry, scales the peer's StatefulSet to 0, runs `peer node unjoin` in a one-off pod of
// its pod template on its claim (kubernetesEngine.ts runWhileStopped) and scales it to 1 again:
// the peer's own /metrics (at its NodePort) have no ledger of the channel, no pod of role
// node-command is left, its claim is the same (uid), and it joins again and catches up. The
// engine's one-off pod on its own: a failing command (unjoin of a channel the peer lacks) answers
// its exit code and Fabric's reason, and one that never ends is removed at its deadline, the
// call failing saying why; with the channel's ledger dropped behind the service's back, the leave
// is a 409 with Fabric's line and the peer runs again. Counted skips, saying why, without the cluster, the images on its node,
// or Fabric here (the service's channel tools).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as k8s from '@kubernetes/client-node';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { fabricMissing } from '../../helpers/fabric.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { adminKubeConfig, clusterFabricReleases, kubernetesSkipReason, testCluster } from '../../helpers/kubernetes.ts';
import { createKubernetesEngine, nodeCommandPod } from '../../../adapters/engines/kubernetesEngine.ts';
import { apiOf, consortiumEnv, oneOrganizationChannel, peerLeaves, until } from '../consortium/consortiumApi.ts';

const PEER = 'lnm-fabric-peer:local';
const ORDERER = 'lnm-fabric-orderer:local';
const clusterMissing = await kubernetesSkipReason();
const v25 = clusterMissing ? undefined : (await clusterFabricReleases(PEER, ORDERER)).find((v) => v.startsWith('2.5.'));
const imagesMissing = clusterMissing || v25 ? undefined : 'the cluster\'s node needs lnm-fabric-peer and lnm-fabric-orderer images of Fabric 2.5.x; test/k8s/cluster.sh import lnm-fabric-peer:2.5.12 (and lnm-fabric-orderer:2.5.12) loads them';
const t = requiresAll(suite('kubernetes: a peer on the cluster leaves the channel'), ['kubernetes', clusterMissing], ['fabric-release-images', imagesMissing], ['fabric', fabricMissing]);
const cluster = testCluster();
const c = () => cluster!.connection;
const PREFIX = `k8slv${process.pid % 100000}-`;
const CHANNEL = 'k8sleave';
let server: TestServer;
const api = apiOf(() => server);
let hostId = 0;
let setup: Awaited<ReturnType<typeof oneOrganizationChannel>>;
let core: k8s.CoreV1Api;
const stsName = (id: number) => `${PREFIX}node-${id}`;
const serverEnv = (grace: string) => consortiumEnv({ LNM_NODE_ENGINE: 'process', LNM_IMAGE_FABRIC_PEER: PEER, LNM_IMAGE_FABRIC_ORDERER: ORDERER, LNM_HOST_CHECK_SECONDS: '2', LNM_K8S_ORPHAN_GRACE_SECONDS: grace, LNM_DOCKER_PREFIX: PREFIX });

t.before(async () => {
  core = adminKubeConfig().makeApiClient(k8s.CoreV1Api);
  server = await startServer({ env: serverEnv('600') });
  const h = await api('POST', '/hosts', { name: 'cluster', kind: 'kubernetes', url: c().server, externalIp: c().nodeAddress, kubernetes: { caCertificate: c().caCertificate, token: c().token, namespace: c().namespace, storageClass: c().storageClass } });
  assert.is(h.status, 201, h.text);
  hostId = h.json.id;
  setup = await oneOrganizationChannel(api, 'k8sleave', CHANNEL, { fabricVersion: v25!, hostId });
  for (const n of [setup.orderer, setup.peer]) assert.is(n.config.hostId, hostId, `${n.name} on the cluster`);
  // The kit's anchor entry is 127.0.0.1 (a local peer's); a cluster peer's is its external endpoint.
  const [host, port] = [setup.peer.config.externalEndpoint.replace(/:\d+$/, ''), Number(setup.peer.config.externalEndpoint.split(':').pop())];
  await until('the anchor peer at the cluster endpoint', async () => {
    const a = await api('POST', `/networks/consortium/${setup.network.id}/anchor-peers`, { organizationId: 'Org1MSP', anchorPeers: [{ host, port }] });
    if (a.status !== 200 && a.status !== 409 && a.status !== 503) assert.unreachable(a.text);
    return a.status === 200 ? a : null;
  }, 90_000, 1000);
});
t.after(async () => {
  if (!server) return;
  const all = ((await api('GET', '/nodes?limit=100').catch(() => null))?.json?.items ?? []) as Array<{ id: number; name: string }>;
  for (const n of all) await api('DELETE', `/nodes/${n.id}?deleteVolume=true`).catch(() => undefined);
  for (const n of all) {
    await until(`${n.name}'s claim gone`, async () => !(await core.readNamespacedPersistentVolumeClaim({ name: `${stsName(n.id)}-data`, namespace: c().namespace }).then(() => true, () => false)), 120_000).catch(() => undefined);
  }
  if (hostId) await api('DELETE', `/hosts/${hostId}`).catch(() => undefined);
  await server.stop();
  server.reapNodes();
});

/** The peer's own ledger height of the channel (its operations /metrics at the cluster's node address), null without the channel. */
async function peerLedgerHeight(): Promise<number | null> {
  const text = await (await fetch(`http://${c().nodeAddress}:${setup.peer.config.operationsPort}/metrics`)).text();
  const m = text.match(new RegExp(`^ledger_blockchain_height\\{[^}]*channel="${CHANNEL}"[^}]*\\}\\s+(\\d+)`, 'm'));
  return m ? Number(m[1]) : null;
}
const claimUid = async (id: number) => (await core.readNamespacedPersistentVolumeClaim({ name: `${stsName(id)}-data`, namespace: c().namespace })).metadata!.uid;
const commandPods = async () => (await core.listNamespacedPod({ namespace: c().namespace, labelSelector: `lnm.role=node-command` })).items.map((p) => p.metadata!.name!).filter((n) => n.startsWith(PREFIX));
const running = (id: number) => until('the peer running', async () => ((await api('GET', `/nodes/${id}`)).json?.status === 'running' ? true : null), 120_000, 1000);

t('the anchor peer on the cluster leaves: anchor entry removed, scaled to 0, unjoined in a one-off pod, scaled to 1; no ledger of the channel, no pod left, the same claim; it joins again and catches up', async () => {
  const { peer, network } = setup;
  const before = await until('the peer\'s ledger height', peerLedgerHeight, 60_000, 1000);
  const claim = await claimUid(peer.id);

  const r = await peerLeaves(api, network.id, peer.id);
  assert.is(r.json.restarted, true, r.text);
  assert.is(r.json.steps.length, 4, r.text);
  assert.match(r.json.steps[0], /removed from Org1MSP's anchor peers/);
  assert.ok(r.json.anchor_peers_updated, r.text);
  assert.match(r.json.steps[1], /peer stopped/);
  assert.match(r.json.steps[2], `peer node unjoin -c ${CHANNEL}`);
  assert.match(r.json.steps[3], /peer started again/);

  await running(peer.id);
  // Started again on its claim without the channel's ledger: it reports no height for the channel.
  const afterLeave = await until('the peer\'s metrics', async () => {
    const res = await fetch(`http://${c().nodeAddress}:${peer.config.operationsPort}/metrics`).catch(() => null);
    return res?.ok ? true : null;
  }, 60_000, 1000).then(peerLedgerHeight);
  assert.is(afterLeave, null, 'the channel is gone from the peer');
  assert.equal(await commandPods(), [], 'no one-off pod left');
  assert.is(await claimUid(peer.id), claim, 'the same claim (the peer\'s other state kept)');
  const members = (await api('GET', `/networks/consortium/${network.id}/nodes`)).json.items as Array<{ id: number; networks: Array<{ network_id: number; joined: boolean }> }>;
  assert.is(members.find((m) => m.id === peer.id)!.networks.find((n) => n.network_id === network.id)?.joined, false);

  await until('the peer to join again', async () => ((await api('POST', `/networks/consortium/${network.id}/peers/${peer.id}/join`)).status === 200 ? true : null), 90_000, 2000);
  await until('the peer caught up', async () => ((await peerLedgerHeight()) ?? 0) >= before ? true : null, 90_000, 1000);
});

t('the one-off pod on its own: refused while the node runs; a failing unjoin answers its exit code and Fabric\'s reason; one that never ends is removed at its deadline, saying why. A leave whose unjoin fails is a 409 with Fabric\'s line, the peer started again', async () => {
  const { peer, network } = setup;
  const engine = createKubernetesEngine({ cluster: c(), dataDir: server.dataDir, namePrefix: PREFIX, deploymentId: (await api('GET', '/health')).json.deployment.id });
  const key = `node-${peer.id}`;
  const before = await until('the peer\'s ledger height', peerLedgerHeight, 60_000, 1000);
  const refused = await engine.runWhileStopped!(key, ['peer', 'node', 'unjoin', '-c', 'nosuch']).then(() => null, (err: Error) => err.message);
  assert.match(String(refused), /is running .*needs it stopped/);

  assert.is((await api('POST', `/nodes/${peer.id}/stop`)).status < 300, true);
  await until('the peer\'s pod gone', async () => !(await core.readNamespacedPod({ name: `${stsName(peer.id)}-0`, namespace: c().namespace }).then(() => true, () => false)), 60_000, 1000);
  try {
    const failed = await engine.runWhileStopped!(key, ['peer', 'node', 'unjoin', '-c', 'nosuch'], { env: { FABRIC_LOGGING_SPEC: 'WARNING' } });
    assert.is.not(failed.exitCode, 0, JSON.stringify(failed));
    // Fabric's reason, then its usage text (the runtime's 409 takes the last line before it).
    assert.ok(failed.output.some((l) => /^Error: unjoin channel \[nosuch\]: .*ledger \[nosuch\] does not exist/.test(l)), JSON.stringify(failed.output));
    assert.equal(await commandPods(), []);

    // `peer node start` never ends: the pod is removed at the deadline and the call says why.
    const hung = await engine.runWhileStopped!(key, ['peer', 'node', 'start'], { timeoutMs: 8000 }).then(() => null, (err: Error) => err.message);
    assert.match(String(hung), /was not ended within 8 s/);
    assert.equal(await commandPods(), [], 'the pod that never ended is removed');

    // The channel's ledger dropped behind the service's back: its record still says joined.
    const dropped = await engine.runWhileStopped!(key, ['peer', 'node', 'unjoin', '-c', CHANNEL], { env: { FABRIC_LOGGING_SPEC: 'WARNING' } });
    assert.is(dropped.exitCode, 0, JSON.stringify(dropped));
  } finally {
    await api('POST', `/nodes/${peer.id}/start`);
  }
  await running(peer.id);
  // So the leave's unjoin fails: 409 with Fabric's line (not its usage text), the peer started again.
  const leave = await until('the leave to be answered', async () => {
    const x = await api('POST', `/networks/consortium/${network.id}/peers/${peer.id}/leave`);
    return x.status === 503 ? null : x;
  }, 90_000, 2000);
  assert.is(leave.status, 409, leave.text);
  assert.match(leave.json.message, new RegExp(`peer node unjoin -c ${CHANNEL}\` of .* failed: Error: unjoin channel \\[${CHANNEL}\\]: .*does not exist`));
  await running(peer.id);
  assert.equal(await commandPods(), []);
  await until('the peer to join again', async () => ((await api('POST', `/networks/consortium/${network.id}/peers/${peer.id}/join`)).status === 200 ? true : null), 90_000, 2000);
  await until('the peer caught up', async () => ((await peerLedgerHeight()) ?? 0) >= before ? true : null, 90_000, 1000);
});

t('a one-off pod a dead service left (ended, of role node-command) is removed by the cluster check, audited; the node\'s own objects stay', async () => {
  const { peer } = setup;
  const apps = adminKubeConfig().makeApiClient(k8s.AppsV1Api);
  const sts = await apps.readNamespacedStatefulSet({ name: stsName(peer.id), namespace: c().namespace });
  // The service dies (SIGKILL) with a one-off pod on the cluster, made as the engine makes it
  // (labelled with the deployment's id, which the sweep selects on); it ends at once.
  const deployment = (await api('GET', '/health')).json.deployment.id as string;
  await server.kill();
  const name = `${stsName(peer.id)}-once`;
  const left = await core.createNamespacedPod({ namespace: c().namespace, body: nodeCommandPod(sts, { name, labels: { 'lnm.node': `node-${peer.id}`, 'lnm.prefix': PREFIX.replace(/-$/, ''), 'lnm.deployment': deployment, 'lnm.role': 'node-command' }, args: ['peer', 'version'], deadlineSeconds: 60 }) });
  await until(`the pod ${name} ended`, async () => ['Succeeded', 'Failed'].includes((await core.readNamespacedPod({ name, namespace: c().namespace })).status?.phase ?? '') ? true : null, 60_000, 1000);
  // Started again on the same data with a grace of 1 s: its cluster check sweeps the ended pod.
  server = await startServer({ env: serverEnv('1'), dataDir: server.dataDir, databaseUrl: server.databaseUrl ?? undefined });
  await until(`the pod ${name} removed`, async () => !(await core.readNamespacedPod({ name, namespace: c().namespace }).then((p) => p.metadata?.uid === left.metadata?.uid, () => false)), 90_000, 1000);
  const entry = await until('the audit entry of the removal', async () => ((await api('GET', '/audit-logs?limit=100')).json.items as Array<Record<string, any>>).find((e) => e.event_type === 'NodeHostOrphansRemoved'), 30_000);
  assert.match(entry.reason, 'node-command pods');
  assert.ok((entry.details.objects as Array<{ kind: string; name: string; nodeKey: string }>).some((o) => o.kind === 'Pod' && o.name === name && o.nodeKey === `node-${peer.id}`), JSON.stringify(entry.details));
  assert.ok(await apps.readNamespacedStatefulSet({ name: stsName(peer.id), namespace: c().namespace }), 'the peer\'s StatefulSet stays');
  assert.ok(await claimUid(peer.id), 'the peer\'s claim stays');
});

t.run();
