// Faults landing BETWEEN channels of a three-channel migration etcdraft -> SmartBFT, in the phases
// the other suites do not hold (issue 37 item 7; real Fabric 3.1: LNM_FABRIC_RELEASES or
// LNM_FABRIC_BIN with a 3.1 release, a counted skip without it). Four raft orderers and a peer of
// Org1, three networks (one channel each) on them, each at V3_0 and committing (raftChannels). The
// moment is held without a race (heldAtEvent: a trigger on the server's own event store makes the
// INSERT of a chosen step wait on an advisory lock the test holds); then two of the four orderers
// crash (SIGKILL) and the server goes on.
// (1) Phase maintenance, after the first channel went into maintenance, before the second: the
// second channel's maintenance update is never ordered (raft: no quorum), given up after
// waitSeconds; the rollback has no backup to put back (none was taken: the failure came before
// phase backup), starts the crashed orderers and takes the first channel out of maintenance on
// etcdraft. The 409 says so ("restored: no backups were taken ..."), not "backups put back" as it
// did before; every channel etcdraft in STATE_NORMAL, committing, its blocks kept.
// (2) Phase normal, after the first channel left maintenance on BFT, before the second: that
// channel ordered on BFT and cannot go back, so nothing is restored (docs/consortium.md "Migrating
// to SmartBFT"): 409 MIGRATION_FAILED in phase normal naming the channel on BFT in STATE_NORMAL and
// the two BFT still in maintenance (the answer, the record, Fabric's channel configs), the backups
// kept; the crashed orderers started again, a new POST resumes: the three channels BFT in
// STATE_NORMAL with 4 ConsenterMapping entries, each committing with its blocks kept, the backups
// dropped.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { requires } from '../../helpers/requirements.ts';
import { blockHashes, fabric31, fabric31Server, heldAtEvent, peerHeight, raftChannels, restartedOrderers } from './consortiumApi.ts';

const t = requires(suite('consensus migration of three channels: faults between channels in phase maintenance and in phase normal (real Fabric 3.1)'), 'fabric-releases', fabric31.skip);
const { api, server } = fabric31Server(t);

let made: Awaited<ReturnType<typeof raftChannels>>;
const byChannel = <T extends { channel_name: string }>(list: T[]) => [...list].sort((a, b) => a.channel_name.localeCompare(b.channel_name));
const consensusOf = async (n: { id: number; channel: string }) =>
  (await api('GET', `/networks/${n.id}/channels/${n.channel}/config`)).json.config.channel_group.groups.Orderer.values.ConsensusType.value as { type: string; state: string };
/** Two of the four orderers crash (SIGKILL through their pid files): no quorum, raft or BFT. */
const crashTwo = async () => {
  for (const o of made.orderers.slice(2)) {
    const { pid } = JSON.parse(await readFile(path.join(server().dataDir, 'nodes', `node-${o.id}`, 'node.pid.json'), 'utf8')) as { pid: number };
    process.kill(pid, 'SIGKILL');
  }
};
/** The INSERT of the first step of a migration starting with `prefix` (none recorded yet). */
const firstStep = (prefix: string) => `NEW.type = 'ConsensusMigrationStepDone' AND NEW.data->>'step' LIKE '${prefix}%'
    AND (SELECT count(*) FROM events WHERE type = 'ConsensusMigrationStepDone' AND data->>'step' LIKE '${prefix}%') = 0`;
const hashesNow = async () => {
  const hashes = new Map<number, string[]>();
  for (const n of made.nets) hashes.set(n.id, await blockHashes(api, n.id, (await peerHeight(api, n.id))!));
  return hashes;
};
const keptAndCommitting = async (hashes: Map<number, string[]>, what: string) => {
  for (const n of made.nets) {
    const before = hashes.get(n.id)!;
    const h = await made.commits(n.id, `${what} (${n.channel})`);
    assert.ok(h > before.length, `${n.channel}: height ${h} after ${before.length}`);
    assert.equal(await blockHashes(api, n.id, before.length), before, `${n.channel}: every block before kept its hash`);
  }
};

/**
 * A migration of the three channels (waitSeconds 30) held at the first step starting with `prefix`
 * in `phase`, two orderers crashed there, then let go: its 409 MIGRATION_FAILED in `failedIn`, its
 * steps, and the channels named by the `prefix` steps (those past that point before the fault).
 */
const failedAtHold = async (prefix: string, phase: string, failedIn: string) => {
  const { nets } = made;
  const answer = await heldAtEvent(server().databaseUrl!, firstStep(prefix), () => api('POST', `/networks/consortium/${nets[0].id}/consensus/migrate`, { to: 'smartbft', waitSeconds: 30 }), async () => {
    const p = await api('GET', `/networks/consortium/${nets[0].id}/consensus/migration`);
    assert.equal([p.json.status, p.json.phase], ['running', phase], p.text);
    await crashTwo();
  });
  console.log(`  failed: ${answer.json?.message}`);
  assert.is(answer.status, 409, answer.text);
  assert.is(answer.json.code, 'MIGRATION_FAILED');
  const steps = answer.json.context.steps as string[];
  console.log(`  steps: ${JSON.stringify(steps)}`);
  assert.is(answer.json.context.phase, failedIn);
  const past = steps.filter((s) => s.startsWith(prefix)).map((s) => s.slice(prefix.length).split(' ')[0]);
  assert.is(past.length, 1, `one channel past "${prefix}" before the fault`);
  return { answer, steps, past };
};

t('(1) phase maintenance, after channel 1 and before channel 2: two orderers crash; no backup was taken, so the rollback says none was put back; every channel etcdraft in STATE_NORMAL, committing', async () => {
  made = await raftChannels(api, 'hf', 3);
  const { nets } = made;
  const hashes = await hashesNow();
  const { answer, steps } = await failedAtHold('maintenance: channel ', 'maintenance', 'maintenance');
  assert.match(answer.json.message, /failed in phase maintenance: channel \S+ into maintenance \(given up after 30 s\)/);
  // What happened: no backup was taken, none put back (it said "backups put back" before).
  assert.match(answer.json.message, 'restored: no backups were taken (failed in phase maintenance, before phase backup), none put back; orderers running on etcdraft, channels out of maintenance on etcdraft');
  assert.not.match(answer.json.message, 'backups put back');
  assert.ok(!steps.some((s) => s.startsWith('backup: ') || s.startsWith('rollback: putting the backups back')), JSON.stringify(steps));
  assert.is(answer.json.context.peers_not_rolled_back, undefined, answer.text);
  const expected = byChannel(nets.map((n) => ({ network_id: n.id, channel_name: n.channel, consensus: 'etcdraft', state: 'normal' })));
  assert.equal(byChannel(answer.json.context.channels), expected);
  for (const n of nets) {
    const r = await api('GET', `/networks/consortium/${n.id}/consensus/migration`);
    assert.equal([r.json.status, r.json.phase], ['failed', 'rollback'], r.text);
    assert.ok((r.json.steps as string[]).some((s) => s.startsWith('restored: no backups were taken')), r.text);
    const c = await consensusOf(n);
    assert.equal([c.type, c.state], ['etcdraft', 'STATE_NORMAL'], n.channel);
  }
  for (const o of made.orderers) assert.is((await api('GET', `/nodes/${o.id}`)).json.status, 'running', `orderer ${o.name} started again by the rollback`);
  for (const o of made.orderers) assert.not.ok(existsSync(path.join(server().dataDir, 'nodes', `node-${o.id}`, 'data.backup-raft-to-bft')), `orderer ${o.name}: no backup taken`);
  await keptAndCommitting(hashes, 'after the rollback');
});

t('(2) phase normal, after channel 1 left maintenance on BFT and before channel 2: two orderers crash; nothing restored (channel 1 ordered on BFT), 409 naming each channel; the orderers back, a new POST resumes: all three BFT, committing, blocks kept', async () => {
  const { nets, orderers } = made;
  const hashes = await hashesNow();
  const { answer, steps, past: left } = await failedAtHold('normal: channel ', 'normal', 'normal');
  const bft = nets.find((n) => n.channel === left[0])!;
  const held = nets.filter((n) => n !== bft);
  assert.match(answer.json.message, `${bft.channel} already runs BFT in STATE_NORMAL, so the backups are kept and not restored`);
  assert.match(answer.json.message, /\(given up after 30 s\)/);
  assert.ok(!steps.some((s) => s.startsWith('restored:') || s.startsWith('rollback')), JSON.stringify(steps));
  const expected = byChannel(nets.map((n) => ({ network_id: n.id, channel_name: n.channel, consensus: 'smartbft', state: n === bft ? 'normal' : 'maintenance' })));
  assert.equal(byChannel(answer.json.context.channels), expected);
  for (const n of nets) {
    const r = await api('GET', `/networks/consortium/${n.id}/consensus/migration`);
    assert.equal([r.json.status, r.json.phase], ['failed', 'normal'], r.text);
    assert.equal(byChannel(r.json.channels), expected, r.text);
    const c = await consensusOf(n);
    assert.equal([c.type, c.state], ['BFT', n === bft ? 'STATE_NORMAL' : 'STATE_MAINTENANCE'], n.channel);
    assert.is((await api('GET', `/networks/consortium/${n.id}`)).json.consensus, n === bft ? 'smartbft' : 'etcdraft', n.channel);
  }
  for (const o of orderers) assert.ok(existsSync(path.join(server().dataDir, 'nodes', `node-${o.id}`, 'data.backup-raft-to-bft')), `orderer ${o.name}'s backup kept`);

  // The crashed orderers started again; a new POST (on a held channel's network) resumes.
  await restartedOrderers(api, orderers.slice(2));
  const resumed = await api('POST', `/networks/consortium/${held[1].id}/consensus/migrate`, { to: 'smartbft', waitSeconds: 120 });
  assert.is(resumed.status, 200, resumed.text);
  assert.is(resumed.json.status, 'migrated', resumed.text);
  console.log(`  resumed steps: ${JSON.stringify((resumed.json.steps as string[]).slice(-5))}`);
  assert.ok((resumed.json.steps as string[]).some((s) => s.startsWith('resumed: ') && held.every((h) => s.includes(h.channel)) && !s.includes(bft.channel)), resumed.text);
  for (const n of nets) {
    const config = (await api('GET', `/networks/${n.id}/channels/${n.channel}/config`)).json.config;
    const c = config.channel_group.groups.Orderer.values.ConsensusType.value;
    assert.equal([c.type, c.state], ['BFT', 'STATE_NORMAL'], n.channel);
    const mapping = config.channel_group.groups.Orderer.values.Orderers.value.consenter_mapping as Array<{ id: number; port: number }>;
    assert.equal(mapping.map((m) => [m.id, m.port]), orderers.map((o, i) => [i + 1, o.config.port]), n.channel);
    assert.is((await api('GET', `/networks/consortium/${n.id}`)).json.consensus, 'smartbft', n.channel);
    const p = await api('GET', `/networks/consortium/${n.id}/consensus/migration`);
    assert.is(p.json.status, 'done', p.text);
  }
  await keptAndCommitting(hashes, 'on BFT after the resume');
  for (const o of orderers) assert.not.ok(existsSync(path.join(server().dataDir, 'nodes', `node-${o.id}`, 'data.backup-raft-to-bft')), `orderer ${o.name}'s backup dropped`);
});

t.run();
