// A migration whose rollback did not complete, taken up again (issue 37 item 7; real Fabric 3.1:
// LNM_FABRIC_RELEASES or LNM_FABRIC_BIN with a 3.1 release, a counted skip without it). Four raft
// orderers and a peer on 3.1, channel V3_0. The fault: another program takes orderer 0's port when
// phase backup stops it and keeps it through the whole rollback, so orderer 0 cannot start on its
// restored data within the migration's patience (waitSeconds 40; default 180 s; 5 is a 400 naming
// the field): 409 MIGRATION_FAILED saying "rollback incomplete", naming the orderer and that it was
// given up after 40 s, the channel's state unknown, the record failed in phase
// rollback (GET .../consensus/migration). The port given back, a dry run says the rollback is taken
// up again (before: the channel held in maintenance refused every POST, with no way out in the
// service), and the POST does it: 409 MIGRATION_FAILED saying the backups were put back and the
// channel left maintenance on etcdraft; the channel config is etcdraft in STATE_NORMAL, the peer
// commits, the ledger keeps its hashes, and a dry run of a new migration is answered (the network
// migrates again).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { fabricReleaseOf } from '../../helpers/programs.ts';
import { requires } from '../../helpers/requirements.ts';
import { apiOf, blockHashes, channelCommits, consortiumEnv, fourOrdererRaftChannel, portTakenInPhase, removeConsortiumNodes } from './consortiumApi.ts';

const r31 = fabricReleaseOf('3.1');
const t = requires(suite('consensus migration: a rollback that did not complete, taken up again (real Fabric 3.1)'), 'fabric-releases', r31.ok ? undefined : r31.reason);
let server: TestServer;
const api = apiOf(() => server);
let setup: Awaited<ReturnType<typeof fourOrdererRaftChannel>>;
const channel = 'rrchannel';
const configPath = () => `/networks/${setup.network.id}/channels/${channel}/config`;
const consensusType = async () => (await api('GET', configPath())).json.config.channel_group.groups.Orderer.values.ConsensusType.value as { type: string; state: string };
const migrate = (query = '', body: Record<string, unknown> = {}) => api('POST', `/networks/consortium/${setup.network.id}/consensus/migrate${query}`, { to: 'smartbft', ...body });
const progress = () => api('GET', `/networks/consortium/${setup.network.id}/consensus/migration`);
const commits = channelCommits(api, () => setup.network.id, 'Org1MSP', () => setup.peer.config.port, () => setup.height(), { heightMs: 120_000, updateMs: 180_000, everyMs: 3000 });

t.before(async () => {
  server = await startServer({ env: consortiumEnv({ LNM_FABRIC_RELEASES: r31.ok ? r31.release.binDir : '', LNM_NODE_ENGINE: 'process' }) });
});

t.after(async () => {
  if (!server) return;
  await removeConsortiumNodes(api, server.dataDir);
  await server.stop();
});

t('an orderer that cannot start during the rollback: 409 "rollback incomplete"; the port given back, a new POST takes the rollback up again: etcdraft, out of maintenance, committing, migratable again', async () => {
  setup = await fourOrdererRaftChannel(api, 'rr', 'rrnet', channel, { fabricVersion: r31.ok ? r31.release.version : '' });
  const raised = await api('PUT', configPath(), { capabilities: { channel: 'V3_0' } });
  assert.is(raised.status, 200, raised.text);
  await commits('after V3_0');
  const hashes = await blockHashes(api, setup.network.id, (await setup.height())!);
  const orderer0 = setup.orderers[0];

  const tooShort = await migrate('', { waitSeconds: 5 });
  assert.is(tooShort.status, 400, tooShort.text);
  assert.ok(JSON.stringify(tooShort.json.details).includes('waitSeconds'), tooShort.text);
  const posting = migrate('', { waitSeconds: 40 });
  // Held until the answer: the rollback's own retries of orderer 0's start (40 s) all meet it.
  const taken = await portTakenInPhase(api, setup.network.id, orderer0.config.port);
  let failed;
  try {
    failed = await posting;
  } finally {
    taken.close();
  }
  assert.is(failed.status, 409, failed.text);
  assert.is(failed.json.code, 'MIGRATION_FAILED');
  console.log(`  failed: ${failed.json.message}`);
  assert.match(failed.json.message, /failed in phase backup/);
  assert.match(failed.json.message, /rollback incomplete: /);
  assert.match(failed.json.message, orderer0.name);
  assert.match(failed.json.message, /given up after 40 s/);
  const steps = failed.json.context.steps as string[];
  assert.ok(steps.some((s) => s.startsWith('rollback incomplete: ')), JSON.stringify(steps));
  assert.ok(!steps.some((s) => s.startsWith('restored:')), JSON.stringify(steps));
  assert.equal(failed.json.context.channels, [{ network_id: setup.network.id, channel_name: channel, consensus: 'unknown', state: 'unknown' }]);
  const recorded = await progress();
  assert.is(recorded.status, 200, recorded.text);
  assert.equal([recorded.json.status, recorded.json.phase], ['failed', 'rollback']);

  // The port is free again. A dry run says what a POST does now, and changes nothing.
  const dry = await migrate('?dry_run=true');
  assert.is(dry.status, 200, dry.text);
  assert.is(dry.json.status, 'dry_run');
  assert.match(dry.json.steps[0], `takes up the rollback of migration ${recorded.json.migration_id} (it did not complete) again`);
  assert.equal((await progress()).json.steps, recorded.json.steps, 'the dry run recorded nothing');

  const again = await migrate();
  assert.is(again.status, 409, again.text);
  assert.is(again.json.code, 'MIGRATION_FAILED');
  console.log(`  taken up again: ${again.json.message}`);
  assert.match(again.json.message, /taken up again: restored: backups put back, channels left maintenance on etcdraft/);
  assert.equal(again.json.context.channels, [{ network_id: setup.network.id, channel_name: channel, consensus: 'etcdraft', state: 'normal' }]);
  const againSteps = again.json.context.steps as string[];
  assert.ok(againSteps.some((s) => s.startsWith('resumed: the rollback of migration')), JSON.stringify(againSteps));
  assert.ok(againSteps[againSteps.length - 1].startsWith('restored: backups put back'), JSON.stringify(againSteps));
  const after = await progress();
  assert.equal([after.json.status, after.json.phase, after.json.migration_id], ['failed', 'rollback', recorded.json.migration_id]);
  assert.equal(after.json.channels, again.json.context.channels);

  const c = await consensusType();
  assert.equal([c.type, c.state], ['etcdraft', 'STATE_NORMAL']);
  await commits('after the rollback taken up again');
  assert.equal((await blockHashes(api, setup.network.id, hashes.length)).slice(0, hashes.length), hashes, 'the blocks before the migration keep their hashes');
  // Not stuck: a new migration's dry run is answered (its diff), not refused.
  const fresh = await migrate('?dry_run=true');
  assert.is(fresh.status, 200, fresh.text);
  assert.equal(fresh.json.networks.map((n: { channel_name: string }) => n.channel_name), [channel]);
});

t.run();
