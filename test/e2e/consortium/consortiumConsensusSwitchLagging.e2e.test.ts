// An orderer that has not got the switch block when the migration restarts the orderers (issue 37
// item 7; real Fabric 3.1: LNM_FABRIC_RELEASES or LNM_FABRIC_BIN with a 3.1 release, a counted
// skip without it). Seen in hostsConsensusMigrate.e2e (b) on a loaded machine: a raft follower that
// had not replicated the switch block when phase restart stopped it came back on etcdraft one block
// short, for good, and the migration ended done on three BFT orderers of four. Made here without a
// race: the server is held where it records phase switch (heldAtEvent), orderer 3 is frozen
// (SIGSTOP) there, so the switch commits on the three others (raft quorum) without it. It is let go
// (SIGCONT) either once the migration waits for it (phase switch still recorded 10 s after the
// channel's switch step: the code after the fix) or once the restart has stopped the three others
// (the code before: it then stops orderer 3 with no leader left to get the block from). Then every
// orderer must hold the channel as a consenter at the channel's height (Fabric's channel
// participation API): the channel BFT in STATE_NORMAL, committing, its blocks kept.
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { requires } from '../../helpers/requirements.ts';
import { blockHashes, fabric31, fabric31Server, heldAtEvent, ordererHolds, peerHeight, raftChannels, until } from './consortiumApi.ts';

const t = requires(suite('consensus migration: an orderer without the switch block at the restart (real Fabric 3.1)'), 'fabric-releases', fabric31.skip);
const { api, server } = fabric31Server(t);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

t('orderer 3 frozen from phase switch: the migration waits until it holds the switch block before the restart; all four BFT consenters at the channel height, committing', async () => {
  const { orderers, nets, commits } = await raftChannels(api, 'sl', 1);
  const net = nets[0];
  const before = await blockHashes(api, net.id, (await peerHeight(api, net.id))!);
  const lagging = orderers[3];
  // Its pid read at the hold: phase backup restarted it.
  let pid = 0;
  let freed = '';
  const free = (why: string) => {
    if (freed || !pid) return;
    freed = why;
    try { process.kill(pid, 'SIGCONT'); } catch { /* gone already */ }
  };
  let watching: Promise<void> = Promise.resolve();
  try {
    const answer = await heldAtEvent(server().databaseUrl!, `NEW.type = 'ConsensusMigrationPhaseReached' AND NEW.data->>'phase' = 'switch'`, () => api('POST', `/networks/consortium/${net.id}/consensus/migrate`, { to: 'smartbft', waitSeconds: 120 }), async () => {
      ({ pid } = JSON.parse(await readFile(path.join(server().dataDir, 'nodes', `node-${lagging.id}`, 'node.pid.json'), 'utf8')) as { pid: number });
      process.kill(pid, 'SIGSTOP');
      watching = (async () => {
        let switchedAt: number | null = null;
        while (!freed) {
          const p = await api('GET', `/networks/consortium/${net.id}/consensus/migration`);
          if (p.json.status !== 'running') return free(`the migration ended (${p.json.status})`);
          const steps = (p.json.steps ?? []) as string[];
          if (p.json.phase === 'switch' && steps.some((s) => s.startsWith('switch: channel '))) {
            switchedAt ??= Date.now();
            if (Date.now() - switchedAt > 10_000) return free('the migration waits in phase switch after the switch committed');
          }
          if (p.json.phase === 'restart') {
            const others = await Promise.all(orderers.slice(0, 3).map(async (o) => (await api('GET', `/nodes/${o.id}`)).json.status));
            if (others.every((s) => s === 'stopped')) return free('the restart stopped the three others');
          }
          await sleep(200);
        }
      })();
    });
    await watching;
    console.log(`  orderer ${lagging.name} let go: ${freed}`);
    console.log(`  answer: ${answer.status} ${JSON.stringify(answer.json?.steps ?? answer.json?.message)}`);
    assert.is(answer.status, 200, answer.text);
    assert.is(answer.json.status, 'migrated');
  } finally {
    free('the end of the test');
  }
  const c = (await api('GET', `/networks/${net.id}/channels/${net.channel}/config`)).json.config.channel_group.groups.Orderer.values.ConsensusType.value;
  assert.equal([c.type, c.state], ['BFT', 'STATE_NORMAL']);
  const h = await commits(net.id, 'on BFT');
  assert.ok(h > before.length, `height ${h} after ${before.length}`);
  assert.equal(await blockHashes(api, net.id, before.length), before, 'every block before kept its hash');
  for (const o of orderers) {
    const held = await until(`orderer ${o.name} at the channel's height ${h}`, async () => {
      const x = await ordererHolds(server().dataDir, o, net.channel);
      return x && x.height >= h ? x : null;
    }, 120_000, 2000).catch(async (e: Error): Promise<never> => {
      throw new Error(`${e.message}; it holds ${JSON.stringify(await ordererHolds(server().dataDir, o, net.channel))}`);
    });
    assert.equal([held.consensusRelation, held.status], ['consenter', 'active'], `orderer ${o.name}: ${JSON.stringify(held)}`);
  }
});

t.run();
