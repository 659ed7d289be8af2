// Three channels migrated from etcdraft to SmartBFT by one POST on real Fabric 3.1 orderers (issue
// 37 item 7; LNM_FABRIC_RELEASES or LNM_FABRIC_BIN with a 3.1 release, a counted skip without it):
// 4 raft orderers and a peer of Org1, three networks (one channel each) on the same orderers and
// peer, each at channel capability V3_0 and committing. The migration is asked on the second
// network: every channel of its orderers migrates in the one maintenance window (Fabric's rule),
// so the dry run and the migration name all three, each phase has a step per channel, and after
// it every channel is BFT in STATE_NORMAL with the four consenters (ids 1..4) in ConsenterMapping,
// its blocks before keep their hashes, the peer commits a new config block on it, its network says
// smartbft, and GET .../consensus/migration on each network answers the one migration, done, with
// the three channels; no orderer keeps a backup.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { requires } from '../../helpers/requirements.ts';
import { blockHashes, fabric31, fabric31Server, peerHeight, raftChannels } from './consortiumApi.ts';

const t = requires(suite('consensus migration of three channels by one POST (real Fabric 3.1)'), 'fabric-releases', fabric31.skip);
const { api, server } = fabric31Server(t);

t('three channels on the same four orderers: one POST migrates all three, each BFT in STATE_NORMAL with 4 consenters, its blocks kept, committing', async () => {
  // Made in the test, not in before (uvu drops a before hook's error).
  const { orderers, nets, commits } = await raftChannels(api, 'm3', 3);
  const channels = nets.map((n) => n.channel).sort();
  const byChannel = <T extends { channel_name: string }>(list: T[]) => [...list].sort((a, b) => a.channel_name.localeCompare(b.channel_name));
  const asked = nets[1];
  const dry = await api('POST', `/networks/consortium/${asked.id}/consensus/migrate?dry_run=true`, { to: 'smartbft' });
  assert.is(dry.status, 200, dry.text);
  assert.equal(dry.json.networks.map((n: { channel_name: string }) => n.channel_name).sort(), channels, 'one migration covers the three channels');
  const hashes = new Map<number, string[]>();
  for (const n of nets) hashes.set(n.id, await blockHashes(api, n.id, (await peerHeight(api, n.id))!));

  const started = Date.now();
  const r = await api('POST', `/networks/consortium/${asked.id}/consensus/migrate`, { to: 'smartbft' });
  assert.is(r.status, 200, r.text);
  assert.is(r.json.status, 'migrated', r.text);
  console.log(`  migrated in ${Math.round((Date.now() - started) / 1000)} s; steps: ${JSON.stringify(r.json.steps)}`);
  assert.equal(r.json.networks.map((n: { channel_name: string }) => n.channel_name).sort(), channels);
  const steps = r.json.steps as string[];
  for (const phase of ['maintenance', 'switch', 'normal']) {
    for (const c of channels) assert.ok(steps.some((s) => s.startsWith(`${phase}: channel ${c} `)), `${phase} of ${c} in ${JSON.stringify(steps)}`);
  }
  for (const phase of ['backup:', 'restart:']) assert.is(steps.filter((s) => s.startsWith(phase)).length, 1, `one ${phase} step for every orderer at once`);

  const expected = byChannel(nets.map((n) => ({ network_id: n.id, channel_name: n.channel, consensus: 'smartbft', state: 'normal' })));
  let migrationId: string | undefined;
  for (const n of nets) {
    const config = (await api('GET', `/networks/${n.id}/channels/${n.channel}/config`)).json.config;
    const consensus = config.channel_group.groups.Orderer.values.ConsensusType.value;
    assert.equal([consensus.type, consensus.state], ['BFT', 'STATE_NORMAL'], n.channel);
    const mapping = config.channel_group.groups.Orderer.values.Orderers.value.consenter_mapping as Array<{ id: number; port: number }>;
    assert.equal(mapping.map((m) => [m.id, m.port]), orderers.map((o, i) => [i + 1, o.config.port]), n.channel);
    assert.is((await api('GET', `/networks/consortium/${n.id}`)).json.consensus, 'smartbft', n.channel);
    const before = hashes.get(n.id)!;
    const h = await commits(n.id, `on BFT (${n.channel})`);
    assert.ok(h > before.length, `${n.channel}: height ${h} after ${before.length}`);
    assert.equal((await blockHashes(api, n.id, before.length)), before, `${n.channel}: every block before the migration kept its hash`);
    const p = await api('GET', `/networks/consortium/${n.id}/consensus/migration`);
    assert.is(p.status, 200, p.text);
    assert.is(p.json.status, 'done', p.text);
    assert.equal(byChannel(p.json.channels), expected, p.text);
    migrationId ??= p.json.migration_id;
    assert.is(p.json.migration_id, migrationId, 'the one migration, read from each network');
  }
  for (const o of orderers) assert.not.ok(existsSync(path.join(server().dataDir, 'nodes', `node-${o.id}`, 'data.backup-raft-to-bft')), `orderer ${o.name}'s backup dropped`);
});

t.run();
