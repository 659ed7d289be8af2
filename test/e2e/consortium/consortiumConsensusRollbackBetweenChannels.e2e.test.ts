// A migration of three channels whose fault lands BETWEEN two channels: after the second channel's
// switch to BFT committed, before the third's (issue 37 item 7; real Fabric 3.1: LNM_FABRIC_RELEASES
// or LNM_FABRIC_BIN with a 3.1 release, a counted skip without it). Four raft orderers and a peer
// of Org1, three networks (one channel each) on them, each at V3_0 and committing (raftChannels).
// The moment is held without a race: a trigger on the server's own event store makes the INSERT of
// the second `switch: channel ...` step wait on an advisory lock the test holds, so the server
// stands exactly after the second channel's committed switch; then two of the four orderers crash
// (SIGKILL) and the server goes on: the third channel's switch is never ordered (raft: no quorum),
// given up after waitSeconds, and the documented rollback runs (docs/consortium.md "Migrating to
// SmartBFT": a failure before phase normal puts every orderer's backup back): 409 MIGRATION_FAILED
// naming phase switch and the third channel, every orderer stopped, its backup put back, started;
// the two channels that moved to BFT (in maintenance) and the third (still raft in maintenance)
// all back to etcdraft in STATE_NORMAL, each committing with its blocks before kept, each orderer
// holding each channel as a consenter (Fabric's own channel participation API), the peer at or
// within each restored chain (none left behind), the record failed in phase rollback with the three
// channels, and a new migration's dry run answered for the three.
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { requires } from '../../helpers/requirements.ts';
import { blockHashes, fabric31, fabric31Server, heldAtEvent, ordererHolds, peerHeight, raftChannels, until } from './consortiumApi.ts';

const t = requires(suite('consensus migration of three channels: a fault between the second and the third channel, rolled back (real Fabric 3.1)'), 'fabric-releases', fabric31.skip);
const { api, server } = fabric31Server(t);

t('after channel 2 switched and before channel 3: two orderers crash; the rollback puts every backup back, the three channels etcdraft in STATE_NORMAL, committing, blocks kept', async () => {
  const { orderers, peer, nets, commits } = await raftChannels(api, 'rb', 3);
  const hashes = new Map<number, string[]>();
  for (const n of nets) hashes.set(n.id, await blockHashes(api, n.id, (await peerHeight(api, n.id))!));
  const secondSwitch = `NEW.type = 'ConsensusMigrationStepDone' AND NEW.data->>'step' LIKE 'switch: channel %'
    AND (SELECT count(*) FROM events WHERE type = 'ConsensusMigrationStepDone' AND data->>'step' LIKE 'switch: channel %') = 1`;
  const answer = await heldAtEvent(server().databaseUrl!, secondSwitch, () => api('POST', `/networks/consortium/${nets[0].id}/consensus/migrate`, { to: 'smartbft', waitSeconds: 60 }), async () => {
    const p = await api('GET', `/networks/consortium/${nets[0].id}/consensus/migration`);
    assert.equal([p.json.status, p.json.phase], ['running', 'switch'], p.text);
    assert.is((p.json.steps as string[]).filter((s) => s.startsWith('switch: channel ')).length, 1, p.text);
    // Two of four crash: no raft quorum on any channel, so the third channel's switch is never ordered.
    for (const o of orderers.slice(2)) {
      const { pid } = JSON.parse(await readFile(path.join(server().dataDir, 'nodes', `node-${o.id}`, 'node.pid.json'), 'utf8')) as { pid: number };
      process.kill(pid, 'SIGKILL');
    }
  });

  console.log(`  failed: ${answer.json?.message}`);
  assert.is(answer.status, 409, answer.text);
  assert.is(answer.json.code, 'MIGRATION_FAILED');
  const steps = answer.json.context.steps as string[];
  console.log(`  steps: ${JSON.stringify(steps)}`);
  const moved = steps.filter((s) => s.startsWith('switch: channel ')).map((s) => /^switch: channel (\S+) /.exec(s)![1]);
  assert.is(moved.length, 2, 'two channels switched before the fault');
  const third = nets.find((n) => !moved.includes(n.channel))!;
  assert.match(answer.json.message, `failed in phase switch: channel ${third.channel} switched to BFT (given up after 60 s)`);
  assert.match(answer.json.message, /restored: backups put back, channels left maintenance on etcdraft/);
  assert.is(answer.json.context.phase, 'switch');
  assert.is(answer.json.context.peers_not_rolled_back, undefined, answer.text);
  for (const n of nets) assert.ok(steps.some((s) => s.startsWith(`maintenance: channel ${n.channel} `)), `${n.channel} went into maintenance`);
  // The channel that did not move: the peer holds nothing past its restored chain.
  assert.ok(steps.some((s) => s.startsWith(`rollback: peer ${peer.name} at height `) && s.includes(` on channel ${third.channel}, within the restored chain's height `)), JSON.stringify(steps));
  const byChannel = <T extends { channel_name: string }>(list: T[]) => [...list].sort((a, b) => a.channel_name.localeCompare(b.channel_name));
  const expected = byChannel(nets.map((n) => ({ network_id: n.id, channel_name: n.channel, consensus: 'etcdraft', state: 'normal' })));
  assert.equal(byChannel(answer.json.context.channels), expected);
  for (const n of nets) {
    const r = await api('GET', `/networks/consortium/${n.id}/consensus/migration`);
    assert.equal([r.json.status, r.json.phase], ['failed', 'rollback'], r.text);
    assert.equal(byChannel(r.json.channels), expected, r.text);
  }

  for (const o of orderers) assert.is((await api('GET', `/nodes/${o.id}`)).json.status, 'running', `orderer ${o.name} running`);
  for (const n of nets) {
    const consensus = (await api('GET', `/networks/${n.id}/channels/${n.channel}/config`)).json.config.channel_group.groups.Orderer.values.ConsensusType.value;
    assert.equal([consensus.type, consensus.state], ['etcdraft', 'STATE_NORMAL'], n.channel);
    assert.is((await api('GET', `/networks/consortium/${n.id}`)).json.consensus, 'etcdraft', n.channel);
    const before = hashes.get(n.id)!;
    const h = await commits(n.id, `after the rollback (${n.channel})`);
    assert.ok(h > before.length, `${n.channel}: height ${h} after ${before.length}`);
    assert.equal(await blockHashes(api, n.id, before.length), before, `${n.channel}: every block before the migration kept its hash`);
    for (const o of orderers) {
      const held = await until(`orderer ${o.name} at the height of ${n.channel}`, async () => {
        const x = await ordererHolds(server().dataDir, o, n.channel);
        return x && x.height >= h ? x : null;
      }, 120_000, 2000);
      assert.equal([held.consensusRelation, held.status], ['consenter', 'active'], `orderer ${o.name} on ${n.channel}: ${JSON.stringify(held)}`);
    }
  }
  const dry = await until('a new migration\'s dry run', async () => {
    const x = await api('POST', `/networks/consortium/${nets[0].id}/consensus/migrate?dry_run=true`, { to: 'smartbft' });
    return x.status === 503 ? null : x;
  }, 120_000, 3000);
  assert.is(dry.status, 200, dry.text);
  assert.equal(dry.json.networks.map((n: { channel_name: string }) => n.channel_name).sort(), nets.map((n) => n.channel).sort());
});

t.run();
