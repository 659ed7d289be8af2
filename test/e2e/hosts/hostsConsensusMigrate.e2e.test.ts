// A channel migrated from etcdraft to SmartBFT (issue 37 item 7) with its orderers and peer on a
// registered Docker node host: a second Docker Engine in a network namespace the test makes (tcp
// with --tlsverify, secondDockerHost.ts) holding only the Fabric 3.1 release images of the peer
// and orderer. Org1's four raft orderers and a peer run there (their data in volumes of that
// engine, which this machine reaches through its API only), one channel committing, V3_0. The
// migration backs each stopped orderer's data directory up out of its volume (the engine's archive
// of it, as a service backup reads a host node) and, on a failure, leaves it for the orderer's next
// start, which empties the volume and puts it back (as after `lnm restore`).
// (a) A real fault after the switch: two of the four orderer containers killed on the host once
// phase normal is recorded, so the BFT cluster has no quorum; meanwhile the peer has pulled the
// switch block. 409 MIGRATION_FAILED in phase normal, the backups put back, the peer on the host
// rolled back to the restored chain (`peer node rollback` in a one-off container of its image on
// its volume), the channel etcdraft in STATE_NORMAL, committing, every block hash kept, the five
// containers running, no one-off container and no restore left. (a2) The host gone during a
// rollback: the server held, without a race, where it records phase normal (a trigger on its own
// event store makes that INSERT wait on an advisory lock the test holds: the orderers restarted as
// BFT, the channel in maintenance), the host's engine stopped there (every container on it ends
// with it), the server goes on: the channel cannot leave maintenance on BFT, and the rollback
// cannot stop an orderer on a host that does not answer: 409 MIGRATION_FAILED "rollback incomplete"
// naming the node host, its address and why, and what to do, the record failed in phase rollback;
// said at once (waitSeconds 30; the rollback timed from its phase recorded to the 409: before, the
// stop waited 90 s whatever waitSeconds said).
// The engine started again on the same data, a new POST takes the rollback up again: every
// orderer's backup put back into its volume at its start, the channel etcdraft in STATE_NORMAL,
// the peer (down with its host: a peer not running is rolled back and left stopped) started and
// following, every block hash kept, the five containers running, no restore pending. Against the
// code before, the 409 named the orderer that did not stop, not the host. (b) Then the migration succeeds:
// BFT with 4 ConsenterMapping entries, the peer commits, the network says smartbft, no backup left.
// Against the code before, both fail on their first POST: 400 MIGRATION_ENGINE. Skipped, saying
// why, without a Docker Engine, the 3.1 release images, or root to start the second engine.
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestServer } from '../../helpers/server.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { secondHostMissing, startSecondDockerHost, type SecondDockerHost } from '../../helpers/secondDockerHost.ts';
import { dockerMissing, releaseImages, startDockerServer, stopDockerServer } from '../consortium/dockerFabricKit.ts';
import { apiOf, blockHashes, channelCommits, fourOrdererRaftChannel, heldAtEvent, migratedAgain, migrationRolledBack, migrationStruckInPhaseNormal, orderersSay, rollbackIncomplete, until } from '../consortium/consortiumApi.ts';

const { versions: [v31], missing: releasesMissing } = await releaseImages(['3.1.']);
const t = requiresAll(
  suite('node hosts: consensus migration etcdraft -> smartbft of Fabric nodes on a Docker host'),
  ['docker', dockerMissing],
  ['fabric-release-images', releasesMissing],
  ['docker-host', secondHostMissing()],
);
let host: SecondDockerHost;
let server: TestServer;
const api = apiOf(() => server);
interface Node { id: number; name: string; config: { port: number; hostId: number; externalEndpoint: string } }
let orderers: Node[] = [];
let peer: Node;
let networkId = 0;
let hostId = 0;
let height: () => Promise<number | null>;
const channel = 'hostmigrate';
const configPath = () => `/networks/${networkId}/channels/${channel}/config`;
const migrate = () => api('POST', `/networks/consortium/${networkId}/consensus/migrate`, { to: 'smartbft' });
const progress = () => api('GET', `/networks/consortium/${networkId}/consensus/migration`);
const commits = channelCommits(api, () => networkId, 'Org1MSP', () => peer.config.port, () => height(), { heightMs: 120_000, updateMs: 180_000, everyMs: 3000, explain: () => orderersSay(api, networkId, orderers) });
const consensusNow = async () => (await api('GET', configPath())).json.config.channel_group.groups.Orderer.values.ConsensusType.value;
/** The host's containers: name, state, image, the node key it runs. */
const hostContainers = () => host.docker(['ps', '-a', '--format', '{{.Names}}|{{.State}}|{{.Image}}|{{.Label "lnm.node"}}|{{.Label "lnm.node-once"}}']).trim().split('\n').filter(Boolean).map((l) => {
  const [name, state, image, node, once] = l.split('|');
  return { name, state, image, node, once };
});
/** What the migration left on this machine for the hosted nodes: backups read out of volumes, restores pending. */
const leftHere = (dir: string) => (existsSync(path.join(server.dataDir, dir)) ? readdirSync(path.join(server.dataDir, dir), { recursive: true }).map(String) : []);

t.before(async () => {
  host = await startSecondDockerHost({ images: [`lnm-fabric-peer:${v31}`, `lnm-fabric-orderer:${v31}`] });
  server = await startDockerServer('hmig', { LNM_HOST_CHECK_SECONDS: '2' });
  const h = await api('POST', '/hosts', { name: 'migration-host', url: host.url, tls: host.pki });
  assert.is(h.status, 201, h.text);
  hostId = h.json.id;
  const made = await fourOrdererRaftChannel(api, 'hmig', 'hostmignet', channel, { fabricVersion: v31, hostId: h.json.id });
  ({ orderers, peer } = made);
  networkId = made.network.id;
  height = made.height;
  for (const n of [...orderers, peer]) {
    assert.is(n.config.hostId, h.json.id, n.name);
    assert.is(n.config.externalEndpoint, `${host.address}:${n.config.port}`, n.name);
  }
  await commits('after the joins');
  const raised = await api('PUT', configPath(), { capabilities: { channel: 'V3_0' } });
  assert.is(raised.status, 200, raised.text);
  await commits('after V3_0');
});
t.after(async () => {
  await host?.start().catch(() => undefined);
  await stopDockerServer(server);
  await host?.remove();
});

t('(a) a real fault after the switch (two orderer containers on the host killed in phase normal): 409 MIGRATION_FAILED, the backups put back into the volumes, the peer on the host rolled back, raft orders again and the peer follows', async () => {
  const running = hostContainers();
  assert.is(running.length, 5, JSON.stringify(running));
  for (const n of [...orderers, peer]) assert.ok(running.some((c) => c.node === `node-${n.id}` && c.state === 'running'), `${n.name} runs in a container on the host`);
  const h = (await height())!;
  const hashes = await blockHashes(api, networkId, h);
  // Phase normal recorded (the orderers restarted as BFT): the fault.
  const failed = await migrationStruckInPhaseNormal(api, networkId, migrate, async () => {
    for (const o of orderers.slice(2)) {
      const c = hostContainers().find((x) => x.node === `node-${o.id}`);
      assert.ok(c, `orderer ${o.name}'s container on the host`);
      host.docker(['kill', c.name]);
    }
  }, 900_000);
  const restoredHeight = migrationRolledBack(failed, peer.name, channel, h);

  const consensus = await consensusNow();
  assert.is(consensus.type, 'etcdraft');
  assert.is(consensus.state, 'STATE_NORMAL');
  assert.is((await api('GET', `/networks/consortium/${networkId}`)).json.consensus, 'etcdraft');
  const hAfter = await commits('after the rollback');
  assert.ok(hAfter > restoredHeight + 1, `the peer's height ${hAfter}, the restored chain's ${restoredHeight}`);
  assert.equal(await blockHashes(api, networkId, h), hashes, 'every block before the migration kept its hash');
  const p = await progress();
  assert.is(p.json.status, 'failed', p.text);
  assert.is(p.json.phase, 'rollback', p.text);
  // Every node in its container on the host again, on the 3.1 image; no one-off container, every restore put back.
  const after = hostContainers();
  assert.is(after.length, 5, JSON.stringify(after));
  for (const c of after) {
    assert.is(c.state, 'running', JSON.stringify(c));
    assert.is(c.once, '', JSON.stringify(c));
    assert.ok(c.image.endsWith(`:${v31}`), JSON.stringify(c));
  }
  assert.equal(leftHere('hosted-restore'), [], 'every backup put back into its volume at the restart');
  for (const o of orderers) assert.ok(existsSync(path.join(server.dataDir, 'hosted-backups', `node-${o.id}`, 'raft-to-bft')), `orderer ${o.name}'s backup kept after a failure`);
});

t('(a2) the node host gone during the rollback: 409 "rollback incomplete" naming the host; the host back, a new POST completes the rollback: etcdraft, committing, blocks kept', async () => {
  const h = (await height())!;
  const hashes = await blockHashes(api, networkId, h);
  // The host goes once the orderers run as BFT (phase normal recorded): its engine stops, and every container on it with it.
  // waitSeconds 30, the least: the rollback's stop of an orderer on the gone host must be said at
  // once (a refused connection is known at the first ask), not after a wait of its own (it was 90 s
  // whatever waitSeconds said).
  const failed = await heldAtEvent(server.databaseUrl!, `NEW.type = 'ConsensusMigrationPhaseReached' AND NEW.data->>'phase' = 'normal'`, () => api('POST', `/networks/consortium/${networkId}/consensus/migrate`, { to: 'smartbft', waitSeconds: 30 }), () => host.stop());
  const answeredAt = Date.now();
  const recorded = await rollbackIncomplete(api, networkId, channel, failed, 'normal (the BFT orderers did not order)', [`its node host migration-host (${host.url}) does not answer`]);
  assert.match(failed.json.message, /POST \.\.\.\/consensus\/migrate takes the rollback up again/);
  assert.is(failed.json.message.split('does not answer').length, 2, `the host named once: ${failed.json.message}`);
  // How long the rollback took, from its phase recorded (the server's database clock, this machine's) to the 409.
  const db = new pg.Client({ connectionString: server.databaseUrl! });
  await db.connect();
  const rollbackAt = (await db.query(`SELECT max(recorded_at) AS at FROM events WHERE type = 'ConsensusMigrationPhaseReached' AND data->>'phase' = 'rollback'`).finally(() => db.end())).rows[0].at as Date;
  const rollbackSeconds = (answeredAt - rollbackAt.getTime()) / 1000;
  console.log(`  the rollback answered ${rollbackSeconds.toFixed(1)} s after it began (waitSeconds 30)`);
  assert.ok(rollbackSeconds < 30 + 30, `the host gone is said within the request's wait plus a margin, well under the 90 s of before: ${rollbackSeconds} s`);

  // The host back on the same data: a new POST takes the rollback up again.
  await host.start();
  await until('the host seen reachable', async () => ((await api('GET', `/hosts/${hostId}`)).json.status?.reachable === true ? true : null), 120_000, 2000);
  const again = await until('the rollback taken up again', async () => {
    const x = await api('POST', `/networks/consortium/${networkId}/consensus/migrate`, { to: 'smartbft' });
    return x.status === 503 ? null : x;
  }, 300_000, 3000);
  console.log(`  taken up again: ${again.json?.message}`);
  console.log(`  steps: ${JSON.stringify((again.json?.context?.steps ?? []).slice(-6))}`);
  assert.is(again.status, 409, again.text);
  assert.is(again.json.code, 'MIGRATION_FAILED');
  assert.match(again.json.message, /taken up again: restored: backups put back, channels left maintenance on etcdraft/);
  assert.equal(again.json.context.channels, [{ network_id: networkId, channel_name: channel, consensus: 'etcdraft', state: 'normal' }]);
  assert.is(again.json.context.peers_not_rolled_back, undefined, again.text);
  const after = await api('GET', `/networks/consortium/${networkId}/consensus/migration`);
  assert.equal([after.json.status, after.json.phase, after.json.migration_id], ['failed', 'rollback', recorded.json.migration_id]);

  // The peer went with its host; a peer not running is rolled back and left stopped: started here.
  if ((await api('GET', `/nodes/${peer.id}`)).json.status !== 'running') {
    const s = await until('the peer started', async () => {
      const x = await api('POST', `/nodes/${peer.id}/start`);
      return x.status === 503 ? null : x;
    }, 120_000, 3000);
    assert.ok(s.status === 200 || s.status === 202, s.text);
    await until('the peer running', async () => ((await api('GET', `/nodes/${peer.id}`)).json.status === 'running' ? true : null), 180_000, 2000);
  }
  const consensus = (await api('GET', configPath())).json.config.channel_group.groups.Orderer.values.ConsensusType.value;
  assert.equal([consensus.type, consensus.state], ['etcdraft', 'STATE_NORMAL']);
  await commits('after the rollback taken up again');
  assert.equal(await blockHashes(api, networkId, h), hashes, 'every block before the migration kept its hash');
  const containers = hostContainers();
  assert.is(containers.length, 5, JSON.stringify(containers));
  for (const c of containers) {
    assert.is(c.state, 'running', JSON.stringify(c));
    assert.is(c.once, '', JSON.stringify(c));
  }
  assert.equal(leftHere('hosted-restore'), [], 'every backup put back into its volume at the start');
});

t('(b) migrated: BFT in STATE_NORMAL with the same 4 consenters, the peer commits, the network says smartbft, no backup left', async () => {
  await migratedAgain(api, { networkId, channel, migrate, height, commits, consenters: orderers.map((o, i) => ({ id: i + 1, host: host.address, port: o.config.port })) });
  assert.equal(leftHere('hosted-backups'), [], 'every backup dropped');
  assert.equal(leftHere('hosted-restore'), [], 'no restore pending');
  const after = hostContainers();
  assert.is(after.length, 5, JSON.stringify(after));
  for (const c of after) assert.is(c.state, 'running', JSON.stringify(c));
});

t.run();
