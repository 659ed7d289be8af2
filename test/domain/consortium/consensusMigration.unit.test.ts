// The consensus migrations' recorded progress (domain/consortium/consensusMigration.ts): folded
// from the events alone (what every server answers GET .../consensus/migration from); a server
// that died mid-way leaves the migration running in the phase where it stopped; only a migration
// stopped in phase normal (failed there, or cut off there) resumes, and a resumed one runs in
// phase normal again; each of its networks answers its last migration.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { consensusMigrations, latestMigration, resumable, rollbackResumable, type ConsensusMigrationCommand, type ConsensusMigrations } from '../../../domain/consortium/consensusMigration.ts';
import { refused } from './ruleFixtures.ts';

const t = suite('consensus migration progress (events)');
const at = '2026-11-29T19:00:00.000Z';

function run(commands: ConsensusMigrationCommand[], state = consensusMigrations.initialState()): ConsensusMigrations {
  for (const c of commands) for (const e of consensusMigrations.decide(c, state)) state = consensusMigrations.evolve(state, e);
  return state;
}

const start = (migrationId: string, networkIds = [7, 8]): ConsensusMigrationCommand => ({ type: 'StartConsensusMigration', migrationId, networkIds, ordererIds: [1, 2, 3, 4], from: 'etcdraft', to: 'smartbft', at });

t('a migration cut off mid-way stays running in the phase it reached, with its steps, for each of its networks', () => {
  const state = run([
    start('m1'),
    { type: 'RecordMigrationPhase', migrationId: 'm1', phase: 'maintenance', at },
    { type: 'RecordMigrationStep', migrationId: 'm1', step: 'maintenance: channel a in STATE_MAINTENANCE', at },
    { type: 'RecordMigrationPhase', migrationId: 'm1', phase: 'backup', at },
  ]);
  for (const networkId of [7, 8]) {
    const m = latestMigration(state, networkId)!;
    assert.is(m.status, 'running');
    assert.is(m.phase, 'backup');
    assert.equal(m.steps, ['maintenance: channel a in STATE_MAINTENANCE']);
    assert.equal(m.ordererIds, [1, 2, 3, 4]);
    assert.is(m.endedAt, null);
  }
  assert.is(latestMigration(state, 9), null);
  assert.is(resumable(latestMigration(state, 7)!), false);
  // Cut off in phase normal (the orderers already run BFT): resumable once its server is gone.
  const inNormal = run([{ type: 'RecordMigrationPhase', migrationId: 'm1', phase: 'normal', at }], state);
  assert.ok(resumable(latestMigration(inNormal, 7)!));
  const resumed = run([{ type: 'ResumeConsensusMigration', migrationId: 'm1', at }], inNormal);
  assert.is(latestMigration(resumed, 8)!.status, 'running');
  assert.is(refused(() => consensusMigrations.decide({ type: 'ResumeConsensusMigration', migrationId: 'm1', at }, state)).code, 'MIGRATION_NOT_RESUMABLE');
});

t('rolled back: failed in phase rollback, not resumable; a new migration becomes the networks\' last', () => {
  const restored = [7, 8].map((networkId) => ({ networkId, channelName: `ch${networkId}`, consensus: 'etcdraft' as const, state: 'normal' as const }));
  const peer = { nodeId: 12, name: 'peer1', channel: 'ch7', reason: 'it runs on the docker engine' };
  let state = run([start('m1'), { type: 'RecordMigrationPhase', migrationId: 'm1', phase: 'rollback', at }, { type: 'FailConsensusMigration', migrationId: 'm1', phase: 'rollback', reason: 'port in use', channels: restored, peersNotRolledBack: [peer], at }]);
  assert.is(latestMigration(state, 7)!.status, 'failed');
  // The channels as it left them and the peers not rolled back: from the events, for each network of it.
  for (const n of [7, 8]) {
    assert.equal(latestMigration(state, n)!.channels, restored);
    assert.equal(latestMigration(state, n)!.peersNotRolledBack, [peer]);
  }
  assert.is(resumable(latestMigration(state, 7)!), false);
  const e = refused(() => consensusMigrations.decide({ type: 'ResumeConsensusMigration', migrationId: 'm1', at }, state));
  assert.is(e.status, 409);
  assert.is(e.code, 'MIGRATION_NOT_RESUMABLE');
  assert.is(refused(() => consensusMigrations.decide({ type: 'RecordMigrationStep', migrationId: 'm1', step: 'late', at }, state)).code, 'MIGRATION_NOT_RUNNING');
  state = run([start('m2', [7]), { type: 'CompleteConsensusMigration', migrationId: 'm2', channels: [], at }], state);
  assert.equal(latestMigration(state, 7)!.peersNotRolledBack, [], 'the last migration\'s, not an earlier one\'s');
  assert.is(latestMigration(state, 7)!.migrationId, 'm2');
  assert.is(latestMigration(state, 7)!.phase, 'done');
  assert.is(latestMigration(state, 8)!.migrationId, 'm1');
});

t('failed in phase normal (a channel already on BFT): resumable; resumed it runs in phase normal and completes', () => {
  const left = [
    { networkId: 7, channelName: 'ch7', consensus: 'smartbft' as const, state: 'normal' as const },
    { networkId: 8, channelName: 'ch8', consensus: 'smartbft' as const, state: 'maintenance' as const },
  ];
  let state = run([start('m1'), { type: 'RecordMigrationPhase', migrationId: 'm1', phase: 'normal', at }, { type: 'FailConsensusMigration', migrationId: 'm1', phase: 'normal', reason: 'timed out', channels: left, peersNotRolledBack: [], at }]);
  assert.ok(resumable(latestMigration(state, 8)!));
  assert.equal(latestMigration(state, 8)!.channels, left, 'which channel runs BFT and which waits in maintenance');
  state = run([{ type: 'ResumeConsensusMigration', migrationId: 'm1', at }], state);
  const m = latestMigration(state, 8)!;
  assert.is(m.status, 'running');
  assert.is(m.phase, 'normal');
  assert.is(m.endedAt, null);
  assert.equal(m.channels, [], 'running again: how it leaves the channels is not known yet');
  const migrated = left.map((c) => ({ ...c, state: 'normal' as const }));
  state = run([{ type: 'CompleteConsensusMigration', migrationId: 'm1', channels: migrated, at }], state);
  assert.is(latestMigration(state, 7)!.status, 'done');
  assert.equal(latestMigration(state, 7)!.channels, migrated);
  assert.is(refused(() => consensusMigrations.decide(start('m1'), state)).code, 'MIGRATION_EXISTS');
});

t('a rollback that did not complete, or was cut off: taken up again in phase rollback; once it completed, not again', () => {
  const unknown = [{ networkId: 7, channelName: 'ch7', consensus: 'unknown' as const, state: 'unknown' as const }];
  let state = run([
    start('m1', [7]),
    { type: 'RecordMigrationPhase', migrationId: 'm1', phase: 'rollback', at },
    { type: 'RecordMigrationStep', migrationId: 'm1', step: 'failed in phase backup: port 7050 in use', at },
  ]);
  // Cut off during the rollback (its server died): taken up again once the lock is free.
  assert.ok(rollbackResumable(latestMigration(state, 7)!));
  assert.is(resumable(latestMigration(state, 7)!), false);
  state = run([
    { type: 'RecordMigrationStep', migrationId: 'm1', step: 'rollback incomplete: orderer o0 did not start', at },
    { type: 'FailConsensusMigration', migrationId: 'm1', phase: 'rollback', reason: 'rollback incomplete', channels: unknown, peersNotRolledBack: [], at },
  ], state);
  assert.ok(rollbackResumable(latestMigration(state, 7)!));
  state = run([{ type: 'ResumeConsensusMigration', migrationId: 'm1', at }], state);
  let m = latestMigration(state, 7)!;
  assert.equal([m.status, m.phase, m.endedAt], ['running', 'rollback', null]);
  assert.equal(m.channels, []);
  const restored = [{ networkId: 7, channelName: 'ch7', consensus: 'etcdraft' as const, state: 'normal' as const }];
  state = run([
    { type: 'RecordMigrationStep', migrationId: 'm1', step: 'restored: backups put back, channels left maintenance on etcdraft', at },
    { type: 'FailConsensusMigration', migrationId: 'm1', phase: 'rollback', reason: 'rollback taken up again: restored', channels: restored, peersNotRolledBack: [], at },
  ], state);
  m = latestMigration(state, 7)!;
  assert.equal([m.status, m.phase], ['failed', 'rollback']);
  assert.is(rollbackResumable(m), false, 'the last rollback completed');
  assert.is(refused(() => consensusMigrations.decide({ type: 'ResumeConsensusMigration', migrationId: 'm1', at }, state)).code, 'MIGRATION_NOT_RESUMABLE');
});

t('events recorded before the channels and peers were: read as none', () => {
  let state = consensusMigrations.initialState();
  for (const e of consensusMigrations.decide(start('m1'), state)) state = consensusMigrations.evolve(state, e);
  state = consensusMigrations.evolve(state, { type: 'ConsensusMigrationFailed', data: { migrationId: 'm1', networkIds: [7, 8], phase: 'rollback', reason: 'old', at } });
  assert.equal(latestMigration(state, 7)!.channels, []);
  assert.equal(latestMigration(state, 7)!.peersNotRolledBack, []);
});

t.run();
