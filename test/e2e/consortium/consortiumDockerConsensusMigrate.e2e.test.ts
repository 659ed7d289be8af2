// A channel migrated from etcdraft to SmartBFT on docker engine nodes (issue 37 item 7) on real
// Fabric 3.1 (the release images lnm-fabric-orderer:3.1.x and lnm-fabric-peer:3.1.x): Org1's four
// raft orderers and a peer in containers of this machine's Docker, one channel committing, channel
// capability V3_0. The orderers' data lives in their node directories, bound into the containers
// and written as this service's uid:gid, so the migration backs it up and restores it here as for
// process engine orderers (no 400 migration-engine), and rolls a docker peer back with `peer node
// rollback` in a one-off container of its image.
// (a) A real fault after the switch: two of the four orderer containers killed once phase normal is
// recorded (GET .../consensus/migration), so the BFT cluster has no quorum; meanwhile the peer (its
// organization the orderers', an Orderer reader) has pulled the switch block. 409 MIGRATION_FAILED
// naming phase normal, the backups put back (the restored files this service's), the docker peer
// rolled back to the restored chain (a step; not in peers_not_rolled_back), the channel etcdraft in
// STATE_NORMAL, it commits and the peer follows, every block hash before kept, no one-off container
// left. (b) Then the migration succeeds: BFT in STATE_NORMAL with 4 ConsenterMapping entries, the
// peer commits, the network says smartbft, the backups dropped. Skipped, saying why, without a
// Docker Engine or the 3.1 release images.
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestServer } from '../../helpers/server.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { docker, dockerMissing, ourContainers, releaseImages, startDockerServer, stopDockerServer } from './dockerFabricKit.ts';
import { apiOf, blockHashes, channelCommits, fourOrdererRaftChannel, migratedAgain, migrationRolledBack, migrationStruckInPhaseNormal, orderersSay, until } from './consortiumApi.ts';

const { versions: [v31], missing: releasesMissing } = await releaseImages(['3.1.']);
const t = requiresAll(suite('consensus migration etcdraft -> smartbft of docker engine nodes (Fabric 3.1 release images)'), ['docker', dockerMissing], ['fabric-release-images', releasesMissing]);
let server: TestServer;
const api = apiOf(() => server);
interface Node { id: number; name: string; config: { port: number } }
let orderers: Node[] = [];
let peer: Node;
let networkId = 0;
let height: () => Promise<number | null>;
const channel = 'dockmigrate';
const configPath = () => `/networks/${networkId}/channels/${channel}/config`;
const migrate = () => api('POST', `/networks/consortium/${networkId}/consensus/migrate`, { to: 'smartbft' });
const progress = () => api('GET', `/networks/consortium/${networkId}/consensus/migration`);
const nodeDir = (id: number) => path.join(server.dataDir, 'nodes', `node-${id}`);
const commits = channelCommits(api, () => networkId, 'Org1MSP', () => peer.config.port, () => height(), { heightMs: 120_000, updateMs: 180_000, everyMs: 3000, explain: () => orderersSay(api, networkId, orderers) });
const consensusNow = async () => (await api('GET', configPath())).json.config.channel_group.groups.Orderer.values.ConsensusType.value;

t.before(async () => {
  server = await startDockerServer('dmig');
  const made = await fourOrdererRaftChannel(api, 'dmig', 'dockmignet', channel, { fabricVersion: v31 });
  ({ orderers, peer } = made);
  networkId = made.network.id;
  height = made.height;
  await commits('after the joins');
  const raised = await api('PUT', configPath(), { capabilities: { channel: 'V3_0' } });
  assert.is(raised.status, 200, raised.text);
  await commits('after V3_0');
});
t.after(() => stopDockerServer(server));

t('(a) a real fault after the switch (two orderer containers killed in phase normal): 409 MIGRATION_FAILED, the backups restored, the docker peer rolled back, raft orders again and the peer follows', async () => {
  for (const o of orderers) {
    const c = (await ourContainers(server.dataDir)).find((x) => x.Labels['lnm.node'] === `node-${o.id}`);
    assert.is(c?.State, 'running', `orderer ${o.name} runs in a container`);
  }
  const h = (await height())!;
  const hashes = await blockHashes(api, networkId, h);
  // Phase normal recorded (the orderers restarted as BFT): the fault.
  const failed = await migrationStruckInPhaseNormal(api, networkId, migrate, async () => {
    for (const o of orderers.slice(2)) {
      const c = (await ourContainers(server.dataDir)).find((x) => x.Labels['lnm.node'] === `node-${o.id}`);
      assert.ok(c, `orderer ${o.name}'s container`);
      await docker.getContainer(c.Id).kill();
    }
  }, 600_000);
  const restoredHeight = migrationRolledBack(failed, peer.name, channel, h);

  const consensus = await consensusNow();
  assert.is(consensus.type, 'etcdraft');
  assert.is(consensus.state, 'STATE_NORMAL');
  assert.is((await api('GET', `/networks/consortium/${networkId}`)).json.consensus, 'etcdraft');
  // The restored data is the service's (the container writes as its uid), so the orderers write on it again.
  for (const o of orderers) {
    const data = path.join(nodeDir(o.id), 'data');
    assert.ok(existsSync(data), data);
    assert.is(statSync(data).uid, process.getuid!(), `${data} owned by this service`);
  }
  const hAfter = await commits('after the rollback');
  assert.ok(hAfter > restoredHeight + 1, `the peer's height ${hAfter}, the restored chain's ${restoredHeight}`);
  const kept = await blockHashes(api, networkId, h);
  assert.equal(kept, hashes, 'every block before the migration kept its hash');
  const p = await progress();
  assert.is(p.json.status, 'failed', p.text);
  assert.is(p.json.phase, 'rollback', p.text);
  // Every node in its container again, from the 3.1 image; no one-off container left.
  const containers = await ourContainers(server.dataDir);
  assert.is(containers.length, 5, containers.map((c) => c.Names.join(',')).join(' '));
  for (const c of containers) assert.is(c.State, 'running', `${c.Names.join(',')} ${c.State}`);
  assert.ok(containers.every((c) => c.Image.endsWith(`:${v31}`)), containers.map((c) => c.Image).join(' '));
});

t('(b) migrated: BFT in STATE_NORMAL with the same 4 consenters, the peer commits, the network says smartbft, the backups dropped', async () => {
  await migratedAgain(api, { networkId, channel, migrate, height, commits, consenters: orderers.map((o, i) => ({ id: i + 1, port: o.config.port })) });
  for (const o of orderers) assert.not.ok(existsSync(path.join(nodeDir(o.id), 'data.backup-raft-to-bft')), `orderer ${o.name}'s backup dropped`);
});

t.run();
