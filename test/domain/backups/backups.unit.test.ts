import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { backups, type BackupCommand, type BackupEvent, type BackupState } from '../../../domain/backups/backups.ts';
import { backupTargets, type BackupTargetCommand, type BackupTargetState } from '../../../domain/backups/backupTargets.ts';
import { backupSchedules } from '../../../domain/backups/backupSchedules.ts';
import { ConflictError, NotFoundError } from '../../../domain/shared/errors.ts';

const at = '2026-01-01T00:00:00.000Z';
const fold = (cmds: BackupCommand[]): { state: BackupState; events: BackupEvent[] } => {
  let state = backups.initialState();
  const events: BackupEvent[] = [];
  for (const c of cmds) for (const e of backups.decide(c, state)) {
    events.push(e);
    state = backups.evolve(state, e);
  }
  return { state, events };
};
const summary = { snapshotId: 'abc', eventPosition: 10, dataAdded: 1, totalSize: 2, files: 3, durationMs: 4 };

test('a backup goes IN_PROGRESS -> COMPLETED; a later failure report is ignored', () => {
  const { state, events } = fold([
    { type: 'RequestBackup', backupId: 1, targetId: 2, nodeId: null, scheduleId: null, at },
    { type: 'StartBackupRun', backupId: 1, at },
    { type: 'CompleteBackup', backupId: 1, summary, at },
    { type: 'FailBackup', backupId: 1, error: 'late', at },
  ]);
  assert.is(state.status, 'COMPLETED');
  assert.equal(events.map((e) => e.type), ['BackupRequested', 'BackupRunStarted', 'BackupCompleted']);
});

test('a run is started once: a second start (a restart re-delivering the request) emits nothing', () => {
  const { state, events } = fold([
    { type: 'RequestBackup', backupId: 1, targetId: 2, nodeId: 5, scheduleId: null, at },
    { type: 'StartBackupRun', backupId: 1, at },
    { type: 'StartBackupRun', backupId: 1, at },
  ]);
  assert.ok(state.runStarted);
  assert.is(events.length, 2);
});

test('a running backup cannot be deleted; an unknown one is a 404', () => {
  const { state } = fold([{ type: 'RequestBackup', backupId: 1, targetId: 2, nodeId: null, scheduleId: null, at }]);
  assert.throws(() => backups.decide({ type: 'DeleteBackup', backupId: 1, reason: 'deleted', at }, state), (e: unknown) => e instanceof ConflictError);
  assert.throws(() => backups.decide({ type: 'DeleteBackup', backupId: 9, reason: 'deleted', at }, backups.initialState()), (e: unknown) => e instanceof NotFoundError);
});

test('a target reports a connection issue once per outage, and its recovery once', () => {
  let s: BackupTargetState = backupTargets.initialState();
  const run = (c: BackupTargetCommand) => {
    const ev = backupTargets.decide(c, s);
    for (const e of ev) s = backupTargets.evolve(s, e);
    return ev.map((e) => e.type);
  };
  run({ type: 'CreateBackupTarget', targetId: 1, name: 't', publicConfig: {}, sealedSecrets: 'v1:x', at });
  const check = (ok: boolean) => run({ type: 'RecordBackupTargetCheck', targetId: 1, ok, reason: ok ? null : 'unreachable endpoint', at });
  assert.equal([check(true), check(false), check(false), check(true), check(true)], [[], ['BackupTargetConnectionFailed'], [], ['BackupTargetConnectionRestored'], []]);
  assert.throws(() => run({ type: 'DeleteBackupTarget', targetId: 1, schedulesUsingIt: 2, at }), (e: unknown) => e instanceof ConflictError);
});

test('schedules: enable and disable are idempotent', () => {
  let s = backupSchedules.initialState();
  const apply = (c: Parameters<typeof backupSchedules.decide>[0]) => {
    const ev = backupSchedules.decide(c, s);
    for (const e of ev) s = backupSchedules.evolve(s, e);
    return ev.length;
  };
  apply({ type: 'CreateBackupSchedule', enabled: true, at, schedule: { scheduleId: 1, name: 'n', description: null, cronExpression: '0 * * * * *', targetId: 1, nodeIds: null, retention: { keepLast: 1, keepDaily: null, keepWeekly: null, keepMonthly: null } } });
  assert.equal([apply({ type: 'EnableBackupSchedule', scheduleId: 1, at }), apply({ type: 'DisableBackupSchedule', scheduleId: 1, at }), apply({ type: 'DisableBackupSchedule', scheduleId: 1, at })], [0, 1, 0]);
});


test('a backup\'s outcome carries its name, target, start and end, so webhooks (backup.success/.failure) and notification emails can say which backup it was', async () => {
  const { catalogEntryOfDomainEvent, publicData } = await import('../../../domain/webhooks/eventCatalog.ts');
  const { notificationOf } = await import('../../../domain/notifications/messages.ts');
  const later = '2026-01-01T00:01:30.000Z';
  const request: BackupCommand = { type: 'RequestBackup', backupId: 7, targetId: 2, nodeId: null, scheduleId: null, backupName: 'nightly #7', targetName: 'minio', at };
  const done = fold([request, { type: 'StartBackupRun', backupId: 7, at }, { type: 'CompleteBackup', backupId: 7, summary, at: later }]).events.at(-1)!;
  assert.is(done.type, 'BackupCompleted');
  const entry = catalogEntryOfDomainEvent('BackupCompleted')!;
  assert.is(entry.name, 'backup.success');
  const data = publicData(entry, done.data as unknown as Record<string, unknown>);
  assert.equal([data.backupName, data.targetName, data.startedAt, data.completedAt, data.durationMs], ['nightly #7', 'minio', at, later, 4]);
  const mail = notificationOf('BACKUP_SUCCESS', 'e1', later, data);
  assert.is(mail.title, 'Backup nightly #7 completed');
  assert.ok(mail.lines.some(([label, value]) => label === 'Target' && value === 'minio'));
  const failed = fold([request, { type: 'FailBackup', backupId: 7, error: 'access denied', at: later }]).events.at(-1)!;
  assert.is(catalogEntryOfDomainEvent(failed.type)!.name, 'backup.failure');
  const failure = notificationOf('BACKUP_FAILURE', 'e2', later, publicData(catalogEntryOfDomainEvent(failed.type)!, failed.data as unknown as Record<string, unknown>));
  assert.is(failure.title, 'Backup nightly #7 failed');
  assert.ok(failure.lines.some(([label, value]) => label === 'Error' && value === 'access denied'));
  assert.ok(failure.lines.some(([label, value]) => label === 'Duration' && /1 ?min/.test(value)), JSON.stringify(failure.lines));
});

test.run();
