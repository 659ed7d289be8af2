// A consensus migration's rollback with the channel's peer recorded down (issue 37 item 7; real
// Fabric 3.1, a counted skip without it): 4 raft orderers and a peer (process engine), the channel
// at V3_0 and committing, probes every second. The migration to SmartBFT is asked (each waiting
// step 30 s); once it is in phase normal the peer hangs (SIGSTOP: its process lives and holds its
// ledger, its probes time out, the health monitor records it down) and two orderers crash
// (SIGKILL: no BFT quorum, the channel cannot leave maintenance). The migration answers 409
// MIGRATION_FAILED and rolls back: the peer, down but not stopped, is stopped first (its hung
// process ended), rolled back with `peer node rollback`, and started again; it runs, the channel is
// etcdraft in STATE_NORMAL and commits, and the peer follows. A CI run at load 12-16 met this with
// a docker peer marked down by slow probes: rolled back as if stopped and left stopped.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { requires } from '../../helpers/requirements.ts';
import { fabric31, fabric31Server, raftChannels, until } from './consortiumApi.ts';

const t = requires(suite('consensus migration: the rollback with the peer recorded down (real Fabric 3.1)'), 'fabric-releases', fabric31.skip);
const hung: number[] = [];
// Before the server's own teardown (hooks run in order): a hung peer the test left is let go.
t.after(() => {
  for (const pid of hung) {
    try {
      process.kill(pid, 'SIGCONT');
    } catch {
      /* ended by the rollback's stop */
    }
  }
});
const { api, server } = fabric31Server(t);

const pidOf = (id: number) => (JSON.parse(readFileSync(path.join(server().dataDir, 'nodes', `node-${id}`, 'node.pid.json'), 'utf8')) as { pid: number }).pid;

t('the peer hangs and is recorded down during the migration: the rollback stops it, rolls it back and starts it; it follows the channel again', async () => {
  const { orderers, peer, nets, commits } = await raftChannels(api, 'pdown', 1, { fabricVersion: fabric31.version });
  const [{ id: networkId, channel }] = nets;
  const before = await commits(networkId, 'before the migration');
  const set = await api('POST', '/settings', { nodeHealthCheckIntervalSeconds: 1, nodeDowntimeThreshold: 3 });
  assert.is(set.status, 200, set.text);

  const posting = api('POST', `/networks/consortium/${networkId}/consensus/migrate`, { to: 'smartbft', waitSeconds: 30 });
  await until('the migration in phase normal', async () => {
    const p = await api('GET', `/networks/consortium/${networkId}/consensus/migration`);
    return p.status === 200 && p.json.phase === 'normal' ? true : p.status === 200 && p.json.status !== 'running' ? Promise.reject(new Error(`ended first: ${p.text}`)) : null;
  }, 900_000, 50);
  const peerPid = pidOf(peer.id);
  process.kill(peerPid, 'SIGSTOP');
  hung.push(peerPid);
  for (const o of orderers.slice(2)) process.kill(pidOf(o.id), 'SIGKILL');
  await until('the peer recorded down', async () => ((await api('GET', `/nodes/${peer.id}`)).json.status === 'down' ? true : null), 120_000, 500);

  const failed = await posting;
  assert.is(failed.status, 409, failed.text);
  assert.is(failed.json.code, 'MIGRATION_FAILED');
  assert.match(failed.json.message, /failed in phase normal/);
  const steps = failed.json.context.steps as string[];
  console.log(`  steps: ${JSON.stringify(steps)}`);
  const rolledBack = steps.find((s) => s.startsWith(`rollback: peer ${peer.name} `));
  assert.ok(rolledBack, JSON.stringify(steps));
  assert.match(rolledBack!, 'stopped, peer node rollback, started');
  assert.is(failed.json.context.peers_not_rolled_back, undefined, failed.text);
  assert.throws(() => process.kill(peerPid, 0), 'the hung peer process was ended by the stop');

  const node = await api('GET', `/nodes/${peer.id}`);
  assert.is(node.json.status, 'running', node.text);
  const config = (await api('GET', `/networks/${networkId}/channels/${channel}/config`)).json.config;
  assert.is(config.channel_group.groups.Orderer.values.ConsensusType.value.type, 'etcdraft');
  assert.is(config.channel_group.groups.Orderer.values.ConsensusType.value.state, 'STATE_NORMAL');
  const after = await commits(networkId, 'after the rollback');
  assert.ok(after > before, `the peer's height ${after}, ${before} before the migration`);
});

t.run();
