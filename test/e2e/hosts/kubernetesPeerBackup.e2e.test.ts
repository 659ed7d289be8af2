// Backup and restore of a Fabric peer's claim on a Kubernetes cluster (issue 39; the anvil case is
// kubernetesBackup.e2e.test.ts), with the real restic, a real S3 server (s3rver over HTTPS on
// loopback), Fabric here (LNM_FABRIC_BIN or a release of LNM_FABRIC_RELEASES) and the shared test
// cluster of test/k8s/cluster.sh with lnm-fabric-peer:local and the service's image on its node
// (counted skips, saying which is missing):
// - an orderer here (process engine, reached by the pods at the cluster's bridge address) and a
//   peer on the cluster, one channel joined by both, an anchor peer update committed: the channel
//   height read from the peer;
// - the peer stopped (scale 0), a backup: its claim's ledger under backup-export/hosts/node-<id>/;
// - the cluster loses the peer (its objects and its claim deleted) and this machine its data
//   directory (the orderer's process ended): `lnm restore`, `lnm serve`, both started again: the
//   peer's ledger is back in a new claim, the channel height read from it is the height at the
//   backup, and the channel orders again (another update commits on the restored peer).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import * as k8s from '@kubernetes/client-node';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { fabricMissing } from '../../helpers/fabric.ts';
import { resticMissing } from '../../helpers/programs.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { startS3Server, type S3Server } from '../../helpers/s3Server.ts';
import { adminKubeConfig, clusterImageMissing, serviceImage, serviceImageSkipReason, testCluster } from '../../helpers/kubernetes.ts';
import { apiOf, consortiumEnv, node, organization, peerHeight, until } from '../consortium/consortiumApi.ts';

const run = promisify(execFile);
const PEER_IMAGE = 'lnm-fabric-peer:local';
const t = requiresAll(
  suite('kubernetes: backup and restore of a Fabric peer\'s claim'),
  ['kubernetes', resticMissing ?? (await serviceImageSkipReason()) ?? (await clusterImageMissing(PEER_IMAGE))],
  ['fabric', fabricMissing],
);
const cluster = testCluster();
const c = () => cluster!.connection;
const PREFIX = `k8spb${process.pid % 100000}-`;
const REPO_PASSWORD = 'k8s-peer-backup-repository-password-for-tests';
const ORDERER_BASE = 23000 + (process.pid % 400) * 10;
const PEER_BASE = 30000 + ((process.pid * 7 + 1300) % 2300);
let s3: S3Server;
let server: TestServer;
const api = apiOf(() => server);
let core: k8s.CoreV1Api;
let apps: k8s.AppsV1Api;
let peerId = 0;
let ordererId = 0;
let networkId = 0;
let targetId = 0;
let backupId = 0;
let heightAtBackup = 0;
const scratch: string[] = [];
const serverEnv = () => consortiumEnv({ LNM_NODE_ENGINE: 'process', LNM_IMAGE_FABRIC_PEER: PEER_IMAGE, LNM_IMAGE_SERVICE: serviceImage, LNM_HOST_CHECK_SECONDS: '2', LNM_DOCKER_PREFIX: PREFIX, LNM_BACKUP_STALL_SECONDS: '30' });
const peerName = () => `${PREFIX}node-${peerId}`;
const anchorUpdate = async (what: string, port: number) =>
  until(what, async () => {
    const a = await api('POST', `/networks/consortium/${networkId}/anchor-peers`, { organizationId: 'PeerBackupMSP', anchorPeers: [{ host: c().nodeAddress, port }] });
    if (a.status !== 200 && a.status !== 409 && a.status !== 503) assert.unreachable(a.text);
    return a.status === 200 ? a : null;
  }, 90_000, 1000);

t.before(async () => {
  const kc = adminKubeConfig();
  core = kc.makeApiClient(k8s.CoreV1Api);
  apps = kc.makeApiClient(k8s.AppsV1Api);
  s3 = await startS3Server(['backups']);
  server = await startServer({ embedded: true, env: serverEnv() });
});

t.after(async () => {
  if (server) {
    for (const id of [peerId, ordererId]) if (id) await api('DELETE', `/nodes/${id}?deleteVolume=true`).catch(() => undefined);
    if (peerId) await until('the peer gone from the cluster', async () => !(await core.readNamespacedPersistentVolumeClaim({ name: `${peerName()}-data`, namespace: c().namespace }).then(() => true, () => false)), 120_000).catch(() => undefined);
    await server.stop();
    server.reapNodes();
  }
  await s3?.stop();
  s3?.remove();
  for (const d of scratch) rmSync(d, { recursive: true, force: true });
});

t('a peer on the cluster, stopped and backed up, is restored from its claim with its channel height', async () => {
  const h = await api('POST', '/hosts', { name: 'cluster', kind: 'kubernetes', url: c().server, externalIp: c().nodeAddress, kubernetes: { caCertificate: c().caCertificate, token: c().token, namespace: c().namespace, storageClass: c().storageClass } });
  assert.is(h.status, 201, h.text);
  const org = await organization(api, 'PeerBackupOrg', 'PeerBackupMSP');
  const orderer = await node(api, 'here-orderer', 'CONSORTIUM_ORDERER', org.id, { port: ORDERER_BASE, adminPort: ORDERER_BASE + 1, operationsPort: ORDERER_BASE + 2, externalEndpoint: `${c().nodeAddress}:${ORDERER_BASE}`, domainNames: [c().nodeAddress] });
  ordererId = orderer.id;
  const peer = await node(api, 'cluster-peer', 'CONSORTIUM_PEER', org.id, { hostId: h.json.id, port: PEER_BASE, chaincodePort: PEER_BASE + 1, operationsPort: PEER_BASE + 2 });
  peerId = peer.id;
  const net = await api('POST', '/networks/consortium', { name: 'peer-backup', channelName: 'peerbackup', ordererIds: [orderer.id], peerIds: [peer.id] });
  assert.is(net.status, 201, net.text);
  networkId = net.json.id;
  assert.is((await api('POST', `/networks/consortium/${networkId}/orderers/${orderer.id}/join`)).status, 200);
  await until('the cluster peer to join', async () => ((await api('POST', `/networks/consortium/${networkId}/peers/${peer.id}/join`)).status === 200 ? true : null), 90_000, 1000);
  await anchorUpdate('the anchor peer update', PEER_BASE);
  heightAtBackup = await until('the channel at block 1 on the peer', async () => {
    const height = await peerHeight(api, networkId);
    return height !== null && height >= 2 ? height : null;
  }, 60_000);

  // The peer stopped (scale 0): a consistent copy of its ledger.
  const stopped = await api('POST', `/nodes/${peer.id}/stop`);
  assert.ok(stopped.status < 300, stopped.text);
  await until('the peer stopped, its pod gone', async () => (await api('GET', `/nodes/${peer.id}`)).json.status === 'stopped' && !(await core.readNamespacedPod({ name: `${peerName()}-0`, namespace: c().namespace }).then(() => true, () => false)), 90_000);
  const target = await api('POST', '/backups/targets', {
    name: 'k8s-peer-s3', endpoint: s3.endpoint, bucket_name: 'backups', bucket_path: 'k8speer', region: 'us-east-1', access_key_id: s3.accessKeyId,
    secret_access_key: s3.secretAccessKey, force_path_style: true, repository_password: REPO_PASSWORD, ca_certificate: s3.caPem,
  });
  assert.is(target.status, 201, target.text);
  targetId = target.json.id;
  const b = await api('POST', '/backups', { target_id: targetId });
  assert.is(b.status, 201, b.text);
  const done = await until(`backup ${b.json.id} to end`, async () => {
    const x = await api('GET', `/backups/${b.json.id}`);
    return x.json.status !== 'IN_PROGRESS' ? x : null;
  }, 180_000);
  assert.is(done.json.status, 'COMPLETED', done.text);
  backupId = b.json.id;
  const record = JSON.parse((await run('restic', ['-r', `s3:${s3.endpoint}/backups/k8speer`, '--cacert', s3.caFile, '-o', 's3.bucket-lookup=path', 'dump', done.json.snapshot_id, '/backup-export/backup.json'], {
    maxBuffer: 50_000_000,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', RESTIC_PASSWORD: REPO_PASSWORD, AWS_ACCESS_KEY_ID: s3.accessKeyId, AWS_SECRET_ACCESS_KEY: s3.secretAccessKey, RESTIC_CACHE_DIR: path.join(tmpdir(), 'lnm-restic-cache-e2e') },
  })).stdout);
  const entry = record.parts.hosts.nodes.find((x: { nodeId: number }) => x.nodeId === peer.id);
  assert.ok(entry && entry.files >= 1 && entry.bytes > 0, JSON.stringify(record.parts.hosts));

  // The cluster loses the peer, claim included; this machine its data directory and the orderer.
  const oldDir = server.dataDir;
  await server.stop();
  server.reapNodes();
  const ns = c().namespace;
  const name = peerName();
  await apps.deleteNamespacedStatefulSet({ name, namespace: ns }).catch(() => undefined);
  await core.deleteNamespacedService({ name, namespace: ns }).catch(() => undefined);
  await core.deleteNamespacedSecret({ name: `${name}-keys`, namespace: ns }).catch(() => undefined);
  await core.deleteNamespacedConfigMap({ name: `${name}-config`, namespace: ns }).catch(() => undefined);
  await core.deleteNamespacedPersistentVolumeClaim({ name: `${name}-data`, namespace: ns }).catch(() => undefined);
  await until('the peer\'s claim gone', async () => !(await core.readNamespacedPersistentVolumeClaim({ name: `${name}-data`, namespace: ns }).then(() => true, () => false)), 120_000);
  rmSync(oldDir, { recursive: true, force: true });

  const out = path.join(mkdtempSync(path.join(tmpdir(), 'lnm-k8s-peer-restored-')), 'data');
  scratch.push(path.dirname(out));
  await run(process.execPath, ['--import', 'tsx', path.resolve('bin/lnm.ts'), 'restore', '--endpoint', s3.endpoint, '--bucket', 'backups', '--bucket-path', 'k8speer', '--access-key', s3.accessKeyId, '--cacert', s3.caFile, '--output-dir', out, '--force-path-style', '--backup', String(backupId)], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', AWS_SECRET_ACCESS_KEY: s3.secretAccessKey, LNM_RESTORE_PASSWORD: REPO_PASSWORD }, maxBuffer: 20_000_000,
  }).catch((err: { stdout: string; stderr: string }) => assert.unreachable(`lnm restore failed: ${err.stdout}${err.stderr}`));
  server = await startServer({ embedded: true, dataDir: out, env: serverEnv() });
  for (const id of [ordererId, peerId]) {
    const row = (await api('GET', `/nodes/${id}`)).json;
    if (row.status === 'running') continue;
    const started = await api('POST', `/nodes/${id}/start`);
    assert.is(started.status, 200, started.text);
  }
  await until('both nodes running', async () => (await api('GET', `/nodes/${peerId}`)).json.status === 'running' && (await api('GET', `/nodes/${ordererId}`)).json.status === 'running', 120_000);
  const restored = await until('the channel height read from the restored peer', () => peerHeight(api, networkId), 60_000);
  assert.is(restored, heightAtBackup, 'the restored peer holds the channel as at the backup');
  // The channel orders again, committed by the restored peer.
  await anchorUpdate('another anchor peer update', PEER_BASE + 3);
  await until('the next block on the restored peer', async () => ((await peerHeight(api, networkId)) ?? 0) > heightAtBackup, 60_000);
});

t.run();
