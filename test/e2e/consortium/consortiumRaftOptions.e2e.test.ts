// An etcdraft channel's options changed through PUT .../config raftOptions on real Fabric 2.5 (a
// counted skip without the programs): one raft orderer, one peer. An option Fabric would refuse
// (electionTick not above heartbeatTick) is a 400 naming the field, nothing submitted; a dry run
// answers the diff and submits nothing; the change is committed, read back from GET .../config
// (the others kept), audited, and the channel still commits a block after it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { fabricMissing } from '../../helpers/fabric.ts';
import { requires } from '../../helpers/requirements.ts';
import { apiOf, channelCommits, channelConfigOf, configUpdate, consortiumEnv, oneOrganizationChannel, peerHeight, removeConsortiumNodes } from './consortiumApi.ts';

const t = requires(suite('etcdraft options as a config update (real Fabric 2.5)'), 'fabric', fabricMissing);
let server: TestServer;
const api = apiOf(() => server);
let networkId: number;
let peerPort: number;
const configPath = () => `/networks/${networkId}/channels/raftopts/config`;

async function raftConfig(): Promise<{ sequence: number; options: Record<string, unknown> }> {
  const { sequence, group } = await channelConfigOf(api, networkId, 'raftopts');
  return { sequence, options: group.groups.Orderer.values.ConsensusType.value.metadata.options };
}
const commits = channelCommits(api, () => networkId, 'Org1MSP', () => peerPort, () => peerHeight(api, networkId));

t.before(async () => {
  server = await startServer({ env: consortiumEnv() });
  // Org1MSP, one raft orderer and one peer, joined, the peer Org1's anchor peer.
  const setup = await oneOrganizationChannel(api, 'raftopts', 'raftopts');
  networkId = setup.network.id;
  peerPort = setup.peer.config.port;
});
t.after(async () => {
  if (!server) return;
  await removeConsortiumNodes(api, server.dataDir);
  await server.stop();
});

t('an invalid option is a 400 naming the field, nothing submitted; a dry run answers the diff only', async () => {
  const before = await raftConfig();
  assert.equal(before.options, { election_tick: 10, heartbeat_tick: 1, max_inflight_blocks: 5, snapshot_interval_size: 16 * 1024 * 1024, tick_interval: '500ms' });
  const bad = await api('PUT', configPath(), { raftOptions: { heartbeatTick: 10 } });
  assert.is(bad.status, 400, bad.text);
  assert.is(bad.json.details[0].field, 'raftOptions.electionTick', bad.text);
  const badTick = await api('PUT', configPath(), { raftOptions: { tickInterval: '0s' } });
  assert.is(badTick.status, 400, badTick.text);
  assert.is(badTick.json.details[0].field, 'raftOptions.tickInterval', badTick.text);
  const dry = await api('PUT', `${configPath()}?dry_run=true`, { raftOptions: { snapshotIntervalSize: 8 * 1024 * 1024, maxInflightBlocks: 7 } });
  assert.is(dry.status, 200, dry.text);
  assert.is(dry.json.status, 'dry_run');
  assert.equal(dry.json.diff.map((d: { path: string; before: unknown; after: unknown }) => [d.path.replace(/^.*metadata\./, ''), d.before, d.after]), [
    ['options.max_inflight_blocks', 5, 7],
    ['options.snapshot_interval_size', 16 * 1024 * 1024, 8 * 1024 * 1024],
  ]);
  assert.equal(dry.json.missing_organizations, []);
  const after = await raftConfig();
  assert.is(after.sequence, before.sequence, 'nothing submitted');
  assert.equal(after.options, before.options);
});

t('the change is committed and read back (the others kept), audited, and the channel commits a block after it', async () => {
  const before = await raftConfig();
  const r = await configUpdate(api, networkId, 'raftopts', { raftOptions: { snapshotIntervalSize: 8 * 1024 * 1024, maxInflightBlocks: 7 } }, 'the raft options update');
  assert.is(r.json.status, 'updated', r.text);
  assert.ok(r.json.sequence > before.sequence, r.text);
  const after = await raftConfig();
  assert.is(after.sequence, r.json.sequence);
  assert.equal(after.options, { election_tick: 10, heartbeat_tick: 1, max_inflight_blocks: 7, snapshot_interval_size: 8 * 1024 * 1024, tick_interval: '500ms' });
  const audit = await api('GET', '/audit-logs?action=NETWORK_UPDATE&limit=100');
  assert.is(audit.status, 200, audit.text);
  const kinds = audit.json.items.flatMap((e: { after: { change?: { changes?: Array<{ kind: string }> } } | null }) => e.after?.change?.changes?.map((c) => c.kind) ?? []);
  assert.ok(kinds.includes('raftOptions'), kinds.join(','));

  await commits('after the raft options update');
});

t.run();
