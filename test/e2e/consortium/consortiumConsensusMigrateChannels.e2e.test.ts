// Two channels migrated from etcdraft to SmartBFT at once on real Fabric 3.1 orderers (issue 37
// item 7; LNM_FABRIC_RELEASES or LNM_FABRIC_BIN with a 3.1 release, a counted skip without it):
// 4 raft orderers and a peer, two networks (one channel each) on the same orderers and peer, both
// at channel capability V3_0 and committing. One POST migrates both (Fabric: every channel of an
// orderer in the same maintenance window).
// The fault, after one of the two channels already left maintenance on BFT: once the second
// server of the database reads the first channel's `normal:` step, two of the four orderers are
// killed (SIGKILL), so the BFT cluster has no quorum and the second channel cannot leave
// maintenance. The first channel cannot go back (it ordered on BFT), so the service keeps the
// backups, restores nothing, and answers 409 MIGRATION_FAILED in phase normal naming, per channel,
// which runs BFT in STATE_NORMAL and which is BFT still in maintenance (context.channels, and the
// same from GET .../consensus/migration on both servers, read from the recorded events); the
// network of the first channel is recorded smartbft, the second etcdraft. The killed orderers are
// started again and a new POST resumes the migration: the second channel leaves maintenance on
// BFT; both channels end BFT in STATE_NORMAL with 4 ConsenterMapping entries, the ledgers keep
// their hashes, and the peer commits a new config block on each.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { fabricReleaseOf } from '../../helpers/programs.ts';
import { requires } from '../../helpers/requirements.ts';
import { apiOf, blockHashes, consortiumEnv, crashOnceOneChannelLeft, peerHeight, removeConsortiumNodes, restartedOrderers, raftChannels } from './consortiumApi.ts';

const r31 = fabricReleaseOf('3.1');
const t = requires(suite('consensus migration of two channels at once, a fault after one left maintenance (real Fabric 3.1)'), 'fabric-releases', r31.ok ? undefined : r31.reason);
let server: TestServer;
/** A second server on the same database: reads the progress the first records (and tells when to strike). */
let second: TestServer;
const api = apiOf(() => server);
const api2 = apiOf(() => second);
interface Node { id: number; name: string; config: { port: number } }
let orderers: Node[] = [];
let peer: Node;
/** The two networks, one channel each, on the same four orderers and peer. */
let nets: Array<{ id: number; channel: string }> = [];
const migrate = (id: number, body: unknown) => api('POST', `/networks/consortium/${id}/consensus/migrate`, body);

const heightOf = (id: number) => peerHeight(api, id);
let commits: (id: number, what: string) => Promise<number>;
const hashesOf = async (id: number) => blockHashes(api, id, (await heightOf(id))!);
const consensusOf = async (n: { id: number; channel: string }) =>
  (await api('GET', `/networks/${n.id}/channels/${n.channel}/config`)).json.config.channel_group.groups.Orderer.values.ConsensusType.value as { type: string; state: string };

t.before(async () => {
  // The first server keeps every node shard (LNM_WORK_LEASE_SECONDS); the second, on the same database, only reads.
  server = await startServer({ env: consortiumEnv({ LNM_FABRIC_RELEASES: r31.ok ? r31.release.binDir : '', LNM_NODE_ENGINE: 'process', LNM_WORK_LEASE_SECONDS: '3600' }) });
  const { PORT: _port, DATA_DIR: _dir, ...env } = server.env;
  second = await startServer({ env, databaseUrl: server.databaseUrl! });
});

t.after(async () => {
  if (second) await second.stop();
  if (!server) return;
  await removeConsortiumNodes(api, server.dataDir);
  await server.stop();
});

t('two channels, a fault after the first left maintenance on BFT: 409 naming which channel runs BFT and which is in maintenance (the answer and GET .../consensus/migration on both servers); resumed: both BFT, the peer commits on each', async () => {
  // Made in the test, not in before (uvu drops a before hook's error).
  ({ orderers, peer, nets, commits } = await raftChannels(api, 'mm', 2));
  const dry = await api('POST', `/networks/consortium/${nets[0].id}/consensus/migrate?dry_run=true`, { to: 'smartbft' });
  assert.is(dry.status, 200, dry.text);
  assert.equal(dry.json.networks.map((n: { channel_name: string }) => n.channel_name).sort(), nets.map((n) => n.channel).sort(), 'one migration covers both channels');
  const hashes = new Map<number, string[]>();
  for (const n of nets) hashes.set(n.id, await hashesOf(n.id));

  const posting = migrate(nets[0].id, { to: 'smartbft' });
  // The fault, read on the second server: orderers 2 and 3 (the first server runs them) crash.
  const bftChannel = await crashOnceOneChannelLeft(api2, nets[1].id, server.dataDir, orderers.slice(2));
  const bft = nets.find((n) => n.channel === bftChannel)!;
  const held = nets.find((n) => n !== bft)!;
  const failed = await posting;
  assert.is(failed.status, 409, failed.text);
  assert.is(failed.json.code, 'MIGRATION_FAILED');
  console.log(`  failed: ${failed.json.message}`);
  assert.is(failed.json.context.phase, 'normal');
  assert.match(failed.json.message, `Channel ${held.channel} did not leave maintenance on BFT`);
  assert.match(failed.json.message, `${bft.channel} already runs BFT`);
  const expected = [
    { network_id: bft.id, channel_name: bft.channel, consensus: 'smartbft', state: 'normal' },
    { network_id: held.id, channel_name: held.channel, consensus: 'smartbft', state: 'maintenance' },
  ].sort((a, b) => a.network_id - b.network_id);
  const byNetwork = (list: Array<{ network_id: number }>) => [...list].sort((a, b) => a.network_id - b.network_id);
  assert.equal(byNetwork(failed.json.context.channels), expected);
  // As Fabric has them: the first BFT in STATE_NORMAL, the second BFT still in maintenance; nothing restored.
  const [onBft, onHeld] = [await consensusOf(bft), await consensusOf(held)];
  assert.equal([onBft.type, onBft.state], ['BFT', 'STATE_NORMAL'], bft.channel);
  assert.equal([onHeld.type, onHeld.state], ['BFT', 'STATE_MAINTENANCE'], held.channel);
  assert.is((await api('GET', `/networks/consortium/${bft.id}`)).json.consensus, 'smartbft');
  assert.is((await api('GET', `/networks/consortium/${held.id}`)).json.consensus, 'etcdraft');
  for (const a of [api, api2]) {
    for (const n of nets) {
      const p = await a('GET', `/networks/consortium/${n.id}/consensus/migration`);
      assert.is(p.status, 200, p.text);
      assert.is(p.json.status, 'failed');
      assert.is(p.json.phase, 'normal', 'resumable: stopped in phase normal, the backups kept');
      assert.equal(byNetwork(p.json.channels), expected, p.text);
      assert.equal(p.json.peers_not_rolled_back, [], 'nothing rolled back, no peer left behind');
      assert.ok(!p.json.steps.some((s: string) => s.startsWith('restored:')), p.text);
    }
  }

  // The killed orderers started again; a new POST resumes: the held channel leaves maintenance on BFT.
  await restartedOrderers(api, orderers.slice(2));
  const resumed = await migrate(held.id, { to: 'smartbft' });
  assert.is(resumed.status, 200, resumed.text);
  assert.is(resumed.json.status, 'migrated');
  assert.ok(resumed.json.steps.some((s: string) => s.startsWith(`resumed: ${held.channel} `)), resumed.text);
  console.log(`  resumed steps: ${JSON.stringify(resumed.json.steps.slice(-4))}`);
  for (const n of nets) {
    const config = (await api('GET', `/networks/${n.id}/channels/${n.channel}/config`)).json.config;
    const consensus = config.channel_group.groups.Orderer.values.ConsensusType.value;
    assert.is(consensus.type, 'BFT', n.channel);
    assert.is(consensus.state, 'STATE_NORMAL', n.channel);
    const mapping = config.channel_group.groups.Orderer.values.Orderers.value.consenter_mapping;
    assert.equal(mapping.map((c: { port: number }) => c.port), orderers.map((o) => o.config.port), n.channel);
    assert.is((await api('GET', `/networks/consortium/${n.id}`)).json.consensus, 'smartbft');
    const before = hashes.get(n.id)!;
    const h = await commits(n.id, `on BFT (${n.channel})`);
    assert.ok(h > before.length, `${n.channel}: height ${h} after ${before.length}`);
    const now = await hashesOf(n.id);
    for (let i = 0; i < before.length; i++) assert.is(now[i], before[i], `${n.channel}: block ${i} kept its hash`);
    const p = await api2('GET', `/networks/consortium/${n.id}/consensus/migration`);
    assert.is(p.json.status, 'done', p.text);
    assert.equal(byNetwork(p.json.channels), nets.map((x) => ({ network_id: x.id, channel_name: x.channel, consensus: 'smartbft', state: 'normal' })).sort((a, b) => a.network_id - b.network_id), p.text);
  }
});

t.run();
