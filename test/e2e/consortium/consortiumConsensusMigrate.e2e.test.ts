// A channel migrated from etcdraft to SmartBFT through the service on real Fabric 3.1 orderers
// (issue 37 item 7; LNM_FABRIC_RELEASES with a 2.5 and a 3.1 release, a counted skip without
// both): 4 raft orderers and a peer on 3.1, the channel committing. Refusals first, nothing
// changed: channel capability below V3_0 (409), a target other than smartbft (400), a network of 3
// orderers (400 naming 3f + 1), one with a 2.5 peer (409 naming it); a dry run answers the diff
// (etcdraft to BFT) and submits nothing. Then the migration (maintenance, orderers stopped and
// backed up, Type BFT with the same consenters, restart, maintenance left): the channel config is
// BFT in STATE_NORMAL with 4 ConsenterMapping entries, blocks 0..n keep their hashes, a new config
// update commits, the network view says smartbft, the progress says done, and the migration is
// audited; a second migration is a 409 (not etcdraft).
// Before it, a real fault after the switch: two of the four orderers crash (SIGKILL) once phase
// normal is recorded (the poller follows the progress on a second server of the same database,
// which sees the running migration's phase), so the BFT cluster has no quorum and the channel
// cannot leave maintenance; meanwhile the peer pulls the switch block (ordered on raft in
// maintenance; the peer's organization is the orderers', an Orderer reader) from the orderers left.
// The migration answers 409 MIGRATION_FAILED naming phase normal, the backups are restored (a raft
// chain without the switch block), the peer is rolled back to the restored chain's height (`peer
// node rollback`, a step), the channel is etcdraft in STATE_NORMAL again, commits, the peer sees the
// commits (its height past the restored chain's), and every block hash before the migration is
// kept; both servers read the recorded progress (failed in phase rollback). The console's e2e test
// injects a fault in phase backup (orderer 0's port taken). The migration itself is cut by a crash: the server running it is
// killed once phase normal is recorded; the second server reads it running in phase normal, and a
// POST there resumes it (the channel leaves maintenance on BFT) to the end above.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { fabricReleaseOf } from '../../helpers/programs.ts';
import { requires } from '../../helpers/requirements.ts';
import { apiOf, channelCommits, consortiumEnv, fourOrdererRaftChannel, peerHeight, removeConsortiumNodes, runningNode, until } from './consortiumApi.ts';

const r25 = fabricReleaseOf('2.5');
const r31 = fabricReleaseOf('3.1');
const t = requires(suite('consensus migration etcdraft -> smartbft (real Fabric 3.1)'), 'fabric-releases', !r25.ok ? r25.reason : !r31.ok ? r31.reason : undefined);
const v25 = r25.ok ? r25.release.version : '';
const v31 = r31.ok ? r31.release.version : '';
let server: TestServer;
/** A second server on the same database: reads the progress the first records. */
let second: TestServer;
const api = apiOf(() => server);
const api2 = apiOf(() => second);
interface Node { id: number; name: string; config: { port: number } }
let orderers: Node[] = [];
let peer: Node;
let org1Id = 0;
let networkId = 0;
const channel = 'migratechannel';
const configPath = () => `/networks/${networkId}/channels/${channel}/config`;
const migrate = (id: number, body: unknown, dry = false) => api('POST', `/networks/consortium/${id}/consensus/migrate${dry ? '?dry_run=true' : ''}`, body);

const height = () => peerHeight(api, networkId);
/** The channel orders: an anchor peer update commits a config block the peer then has (patient across the migration). */
const commits = channelCommits(api, () => networkId, 'Org1MSP', () => peer.config.port, height, { heightMs: 120_000, updateMs: 180_000, everyMs: 3000 });
const blockHash = async (n: number) => {
  const r = await api('GET', `/networks/consortium/${networkId}/blocks/${n}`);
  assert.is(r.status, 200, r.text);
  return r.json.hash as string;
};

t.before(async () => {
  // LNM_WORK_LEASE_SECONDS: the first server keeps every node shard for the whole test (renewed every
  // 20 minutes; the second claims only free or expired ones), so the second server, with a data
  // directory (and so an instance id) of its own, only reads: process-engine nodes are worked on
  // by the instance that started them (docs/scaling.md).
  server = await startServer({ env: consortiumEnv({ LNM_FABRIC_RELEASES: `${r25.ok && r25.release.binDir}:${r31.ok && r31.release.binDir}`, LNM_NODE_ENGINE: 'process', LNM_WORK_LEASE_SECONDS: '3600' }) });
  const { PORT: _port, DATA_DIR: _dir, ...env } = server.env;
  second = await startServer({ env, databaseUrl: server.databaseUrl! });
  const made = await fourOrdererRaftChannel(api, 'mig', 'migratenet', channel, { fabricVersion: v31 });
  ({ orderers, peer } = made);
  org1Id = made.org1.id;
  networkId = made.network.id;
  await commits('after the joins');
});
/** Set once the first server (the one holding the node work, its data directory the nodes') was killed: the nodes are then ended directly. */
let nodeOwnerKilled: TestServer | null = null;
t.after(async () => {
  if (second) await second.stop();
  if (!server) return;
  if (nodeOwnerKilled) nodeOwnerKilled.reapNodes();
  else await removeConsortiumNodes(api, server.dataDir);
  await server.stop();
});

t('refusals first, nothing changed: capability below V3_0, a target other than smartbft, 3 orderers (3f + 1), a 2.5 peer; a dry run answers the diff', async () => {
  const before = await api('GET', configPath());
  assert.is(before.status, 200, before.text);
  const noV3 = await migrate(networkId, { to: 'smartbft' });
  assert.is(noV3.status, 409, noV3.text);
  assert.is(noV3.json.code, 'MIGRATION_CAPABILITY');
  assert.match(noV3.json.message, /Rule migration-v3-capability/);
  const raised = await api('PUT', configPath(), { capabilities: { channel: 'V3_0' } });
  assert.is(raised.status, 200, raised.text);
  await commits('after V3_0');

  const target = await migrate(networkId, { to: 'pbft' });
  assert.is(target.status, 400, target.text);
  assert.match(target.json.message, /Rule migration-target/);

  const small = await api('POST', '/networks/consortium', { name: 'smallnet', channelName: 'smallchannel', ordererIds: orderers.slice(0, 3).map((o) => o.id), peerIds: [peer.id] });
  assert.is(small.status, 201, small.text);
  const three = await migrate(small.json.id, { to: 'smartbft' });
  assert.is(three.status, 400, three.text);
  assert.is(three.json.code, 'MIGRATION_BFT_SIZE');
  assert.match(three.json.message, /3f \+ 1/);
  assert.match(three.json.message, /has 3/);

  const oldPeer = await runningNode(api, 'mig-oldpeer', 'CONSORTIUM_PEER', org1Id, { fabricVersion: v25 });
  const old = await api('POST', '/networks/consortium', { name: 'oldnet', channelName: 'oldchannel', ordererIds: orderers.map((o) => o.id), peerIds: [oldPeer.id] });
  assert.is(old.status, 201, old.text);
  const on25 = await migrate(old.json.id, { to: 'smartbft' });
  assert.is(on25.status, 409, on25.text);
  assert.is(on25.json.code, 'MIGRATION_NODES_BELOW_V3');
  assert.match(on25.json.message, `peer mig-oldpeer (Fabric ${v25})`);
  for (const id of [small.json.id, old.json.id]) assert.is((await api('DELETE', `/networks/consortium/${id}`)).status, 204);
  assert.is((await api('DELETE', `/nodes/${oldPeer.id}`)).status < 300, true);

  const badOptions = await migrate(networkId, { to: 'smartbft', smartBftOptions: { requestForwardTimeout: '30s' } });
  assert.is(badOptions.status, 400, badOptions.text);
  const sequence = (await api('GET', configPath())).json.sequence;
  const dry = await migrate(networkId, { to: 'smartbft' }, true);
  assert.is(dry.status, 200, dry.text);
  assert.is(dry.json.status, 'dry_run');
  assert.equal(dry.json.networks.map((n: { channel_name: string }) => n.channel_name), [channel]);
  assert.equal(dry.json.orderers.map((o: { node_id: number }) => o.node_id), orderers.map((o) => o.id));
  const paths = dry.json.networks[0].diff.map((d: { path: string }) => d.path);
  assert.ok(paths.includes('channel_group.groups.Orderer.values.ConsensusType.value.type'), JSON.stringify(paths));
  assert.ok(paths.some((p: string) => p.startsWith('channel_group.groups.Orderer.values.Orderers')), JSON.stringify(paths));
  assert.ok(paths.some((p: string) => p.startsWith('channel_group.groups.Orderer.policies.BlockValidation')), JSON.stringify(paths));
  const after = await api('GET', configPath());
  assert.is(after.json.sequence, sequence, 'nothing was submitted');
  assert.is(after.json.config.channel_group.groups.Orderer.values.ConsensusType.value.type, 'etcdraft');
  assert.is((await api('GET', `/networks/consortium/${networkId}`)).json.consensus, 'etcdraft');
});

t('a real fault after the switch (two orderers crash in phase normal: no BFT quorum): 409 MIGRATION_FAILED naming the phase, raft restored, the peer (which has the switch block) rolled back to it, the ledger kept, it commits and the peer sees it; the progress recorded and read from a second server', async () => {
  const none = await api2('GET', `/networks/consortium/${networkId}/consensus/migration`);
  assert.is(none.status, 404, none.text);
  const h = (await height())!;
  const hashes = [];
  for (let i = 0; i < h; i++) hashes.push(await blockHash(i));
  const posting = migrate(networkId, { to: 'smartbft' });
  const progress2 = () => api2('GET', `/networks/consortium/${networkId}/consensus/migration`);
  const seenRunning = await until('the second server to read the migration in phase normal', async () => {
    const p = await progress2();
    return p.status === 200 && p.json.status === 'running' && p.json.phase === 'normal' ? p.json : null;
  }, 600_000, 50);
  // The fault: orderers 2 and 3 (the first server runs them; their pid files are in its data directory) crash.
  for (const o of orderers.slice(2)) {
    const { pid } = JSON.parse(readFileSync(path.join(server.dataDir, 'nodes', `node-${o.id}`, 'node.pid.json'), 'utf8')) as { pid: number };
    process.kill(pid, 'SIGKILL');
  }
  assert.ok(seenRunning.steps.some((st: string) => st.startsWith('restart:')), JSON.stringify(seenRunning.steps));
  const failed = await posting;
  assert.is(failed.status, 409, failed.text);
  assert.is(failed.json.code, 'MIGRATION_FAILED');
  assert.match(failed.json.message, /failed in phase normal/);
  assert.match(failed.json.message, /restored: backups put back/);
  console.log(`  rolled back: ${failed.json.message.slice(0, 600)}`);
  console.log(`  steps: ${JSON.stringify(failed.json.context.steps)}`);

  const config = (await api('GET', configPath())).json.config;
  const consensus = config.channel_group.groups.Orderer.values.ConsensusType.value;
  assert.is(consensus.type, 'etcdraft');
  assert.is(consensus.state, 'STATE_NORMAL');
  assert.is((await api('GET', `/networks/consortium/${networkId}`)).json.consensus, 'etcdraft');
  // Seen by the peer: the raft block that left maintenance and the anchor peer update, past the
  // restored chain's height (the blocks before the migration and the maintenance block).
  const hAfter = await commits('after the rollback');
  assert.ok(hAfter >= h + 3, `the peer's height ${hAfter}, ${h} before the migration`);
  // The peer had the switch block (ordered on raft in maintenance), which the restored chain lacks: rolled back to it.
  const rolledBack = failed.json.context.steps.find((st: string) => st.startsWith(`rollback: peer ${peer.name} `));
  assert.ok(rolledBack, JSON.stringify(failed.json.context.steps));
  const restoredHeight = Number(/restored chain's height (\d+)/.exec(rolledBack)?.[1]);
  assert.is(restoredHeight, h + 1, rolledBack);
  assert.match(rolledBack, `rolled back on channel ${channel} to block ${h}`);
  assert.match(rolledBack, `it was at ${h + 2}`);
  assert.ok(hAfter > restoredHeight + 1, `the peer's height ${hAfter}, the restored chain's ${restoredHeight}`);
  assert.is(failed.json.context.peers_not_rolled_back, undefined);
  for (let i = 0; i < h; i++) assert.is(await blockHash(i), hashes[i], `block ${i} kept its hash`);

  for (const a of [api, api2]) {
    const p = await a('GET', `/networks/consortium/${networkId}/consensus/migration`);
    assert.is(p.status, 200, p.text);
    assert.is(p.json.status, 'failed');
    assert.is(p.json.phase, 'rollback');
    assert.is(p.json.migration_id, seenRunning.migration_id);
    assert.ok(p.json.steps.some((st: string) => st.startsWith('failed in phase normal:')), p.text);
  }
  const audited = await api('GET', `/audit-logs?resource_type=network&limit=200`);
  assert.is(audited.status, 200, audited.text);
  const events = audited.json.items.filter((e: { resource_id: string | null }) => e.resource_id === String(networkId)).map((e: { details: { event?: string } | null }) => e.details?.event);
  for (const e of ['consensus.migration.started', 'consensus.migration.phase', 'consensus.migration.step', 'consensus.migration.failed']) assert.ok(events.includes(e), `${e} audited: ${JSON.stringify(events)}`);
});

t('migrated: BFT in STATE_NORMAL with the same 4 consenters, the ledger kept, a new config update commits, the network says smartbft, audited', async () => {
  const h = (await height())!;
  const hashes = [];
  for (let i = 0; i < h; i++) hashes.push(await blockHash(i));
  // The server running the migration dies (SIGKILL) once phase normal is recorded (the orderers run BFT, the channel still in maintenance):
  // the other server reads it running in phase normal, and a POST there resumes it.
  const posting = migrate(networkId, { to: 'smartbft', smartBftOptions: { requestBatchMaxInterval: '300ms' } }).catch((err: Error) => ({ status: 0, text: err.message }));
  const inNormal = await until('the second server to read the migration in phase normal', async () => {
    const p = await api2('GET', `/networks/consortium/${networkId}/consensus/migration`);
    return p.status === 200 && p.json.started_at && p.json.status !== 'failed' && (p.json.phase === 'normal' || p.json.status !== 'running') ? p.json : null;
  }, 600_000, 50);
  await server.kill();
  nodeOwnerKilled = server;
  assert.is(inNormal.status, 'running', JSON.stringify(inNormal));
  const cut = (await posting) as { status: number; text: string };
  assert.is(cut.status, 0, `the first server answered before it died: ${cut.text}`);
  const left = await api2('GET', `/networks/consortium/${networkId}/consensus/migration`);
  assert.is(left.json.status, 'running', left.text);
  assert.is(left.json.phase, 'normal', left.text);
  assert.ok(!left.json.steps.some((st: string) => st.startsWith('normal:')), left.text);
  assert.is((await api2('GET', `/networks/consortium/${networkId}`)).json.consensus, 'etcdraft');
  server = second;
  second = undefined as unknown as TestServer;
  const r = await migrate(networkId, { to: 'smartbft' });
  assert.is(r.status, 200, r.text);
  assert.ok(r.json.steps.some((st: string) => st.startsWith('resumed:')), r.text);
  assert.is(r.json.status, 'migrated', r.text);
  assert.is(r.json.from, 'etcdraft');
  assert.is(r.json.to, 'smartbft');
  console.log(`  migration steps: ${JSON.stringify(r.json.steps)}`);
  for (const phase of ['maintenance:', 'backup:', 'switch:', 'restart:', 'normal:']) assert.ok(r.json.steps.some((s: string) => s.startsWith(phase)), `${phase} in ${r.text}`);

  const config = (await api('GET', configPath())).json.config;
  const consensus = config.channel_group.groups.Orderer.values.ConsensusType.value;
  assert.is(consensus.type, 'BFT');
  assert.is(consensus.state, 'STATE_NORMAL');
  assert.is(consensus.metadata.request_batch_max_interval, '300ms');
  const mapping = config.channel_group.groups.Orderer.values.Orderers.value.consenter_mapping;
  assert.equal(mapping.map((c: { id: number; port: number }) => [c.id, c.port]), orderers.map((o, i) => [i + 1, o.config.port]));

  const hAfter = await commits('after the migration');
  assert.ok(hAfter > h, `height ${hAfter} after ${h}`);
  for (let i = 0; i < h; i++) assert.is(await blockHash(i), hashes[i], `block ${i} kept its hash`);

  assert.is((await api('GET', `/networks/consortium/${networkId}`)).json.consensus, 'smartbft');
  const progress = await api('GET', `/networks/consortium/${networkId}/consensus/migration`);
  assert.is(progress.status, 200, progress.text);
  assert.is(progress.json.status, 'done');
  assert.is(progress.json.phase, 'done');
  assert.is(progress.json.migration_id, left.json.migration_id, 'the migration the dead server began, resumed and done');
  const consenters = await api('GET', `/networks/consortium/${networkId}/channels/${channel}/consenters`);
  assert.equal(consenters.json.consenters.map((c: { bft_id: number; node_id: number }) => [c.bft_id, c.node_id]), orderers.map((o, i) => [i + 1, o.id]));
  const audited = await api('GET', `/audit-logs?resource_type=network&limit=200`);
  assert.is(audited.status, 200, audited.text);
  const entry = audited.json.items.find((e: { resource_id: string | null; before: { consensus?: string } | null; after: { consensus?: string } | null }) => e.resource_id === String(networkId) && e.before?.consensus === 'etcdraft' && e.after?.consensus === 'smartbft');
  assert.ok(entry, audited.text.slice(0, 2000));

  // Rule consenter-leader: the current SmartBFT leader (its own consensus_BFT_is_leader) is not renewed.
  const leader = await until('the SmartBFT leader in the metrics', async () => {
    for (const o of orderers) {
      const text = await (await fetch(`http://127.0.0.1:${(o.config as { operationsPort?: number }).operationsPort}/metrics`)).text();
      if (new RegExp(`consensus_BFT_is_leader\\{channel="${channel}"\\} 1\\b`).test(text)) return o;
    }
    return null;
  }, 60_000, 2000);
  const renew = await api('POST', `/nodes/${leader.id}/certificates/renew`);
  assert.is(renew.status, 409, renew.text);
  assert.is(renew.json.code, 'CONSENTER_LEADER');
  assert.match(renew.json.message, `Rule consenter-leader: orderer ${leader.name} is the current SmartBFT leader of channel ${channel}`);
  const still = await api('GET', `/networks/consortium/${networkId}/channels/${channel}/consenters`);
  assert.ok(still.json.consenters.every((c: { certificate_current: boolean }) => c.certificate_current), 'nothing was renewed');

  const again = await migrate(networkId, { to: 'smartbft' });
  assert.is(again.status, 409, again.text);
  assert.is(again.json.code, 'MIGRATION_NOT_RAFT');
});

t.run();
