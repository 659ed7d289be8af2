// The consensus migrations (etcdraft to smartbft, issue 37 item 7) as one aggregate (stream
// consortium-consensus-migrations): each migration's progress recorded as it goes (started,
// each phase reached, each step done, failed after its rollback or not, completed, resumed), so
// that every server of the database answers GET .../consensus/migration the same, and a server
// that died mid-way leaves a `running` record whose phase says where it stopped.
// One migration covers every network whose channels the same orderers order.
import { ConflictError, NotFoundError } from '../shared/errors.ts';
import { assertNever, type Decider, type DomainEvent } from '../shared/decider.ts';

export const CONSENSUS_MIGRATIONS_STREAM = 'consortium-consensus-migrations';

export type MigrationPhase = 'checks' | 'maintenance' | 'backup' | 'switch' | 'restart' | 'normal' | 'rollback' | 'done';
export const MIGRATION_PHASES: MigrationPhase[] = ['checks', 'maintenance', 'backup', 'switch', 'restart', 'normal', 'rollback', 'done'];

/** How a migration left one of its channels (recorded when it ends; unknown where a rollback did not complete). */
export interface MigrationChannel {
  networkId: number;
  channelName: string;
  consensus: 'etcdraft' | 'smartbft' | 'unknown';
  state: 'normal' | 'maintenance' | 'unknown';
}

/** A peer of the migrated channels that the rollback could not bring back to the restored chain (recorded with the failure). */
export interface MigrationPeerNotRolledBack {
  nodeId: number;
  name: string;
  channel: string;
  reason: string;
}

export interface MigrationProgress {
  migrationId: string;
  networkIds: number[];
  ordererIds: number[];
  status: 'running' | 'done' | 'failed';
  phase: MigrationPhase;
  steps: string[];
  startedAt: string;
  endedAt: string | null;
  /** Each channel as the migration left it: empty while it runs (and for migrations recorded before this was). */
  channels: MigrationChannel[];
  /** The peers its rollback could not roll back (empty when none, or nothing was rolled back). */
  peersNotRolledBack: MigrationPeerNotRolledBack[];
}

export type ConsensusMigrationEvent =
  | DomainEvent<'ConsensusMigrationStarted', { migrationId: string; networkIds: number[]; ordererIds: number[]; from: string; to: string; at: string }>
  | DomainEvent<'ConsensusMigrationPhaseReached', { migrationId: string; networkIds: number[]; phase: MigrationPhase; at: string }>
  | DomainEvent<'ConsensusMigrationStepDone', { migrationId: string; networkIds: number[]; phase: MigrationPhase; step: string; at: string }>
  /** Ended without the networks migrated; `phase` is where it stopped (rollback when the backups were restored, normal when some channel already ran BFT: resumable). */
  | DomainEvent<'ConsensusMigrationFailed', { migrationId: string; networkIds: number[]; phase: MigrationPhase; reason: string; channels?: MigrationChannel[]; peersNotRolledBack?: MigrationPeerNotRolledBack[]; at: string }>
  | DomainEvent<'ConsensusMigrationCompleted', { migrationId: string; networkIds: number[]; channels?: MigrationChannel[]; at: string }>
  /** A migration that failed (or whose server died) in phase normal taken up again (a new POST .../migrate): the remaining channels leave maintenance on BFT. */
  | DomainEvent<'ConsensusMigrationResumed', { migrationId: string; networkIds: number[]; at: string; /** rollback: its rollback taken up again (rollbackResumable); absent (recorded before) or normal: phase normal resumed. */ phase?: 'normal' | 'rollback' }>;

export type ConsensusMigrationCommand =
  | { type: 'StartConsensusMigration'; migrationId: string; networkIds: number[]; ordererIds: number[]; from: string; to: string; at: string }
  | { type: 'RecordMigrationPhase'; migrationId: string; phase: MigrationPhase; at: string }
  | { type: 'RecordMigrationStep'; migrationId: string; step: string; at: string }
  | { type: 'FailConsensusMigration'; migrationId: string; phase: MigrationPhase; reason: string; channels: MigrationChannel[]; peersNotRolledBack: MigrationPeerNotRolledBack[]; at: string }
  | { type: 'CompleteConsensusMigration'; migrationId: string; channels: MigrationChannel[]; at: string }
  | { type: 'ResumeConsensusMigration'; migrationId: string; at: string };

export interface ConsensusMigrations {
  migrations: Record<string, MigrationProgress>;
  /** The last migration of each network. */
  latestByNetwork: Record<number, string>;
}

/**
 * Whether a new POST .../migrate resumes the migration: it reached phase normal (every orderer
 * runs the channels as BFT) and did not finish: failed there (some channel already left
 * maintenance on BFT, the backups kept), or still running there, which the application takes up
 * only while it holds the migration lock, that is once the server that ran it died.
 */
export const resumable = (m: MigrationProgress): boolean => m.phase === 'normal' && (m.status === 'failed' || m.status === 'running');

/**
 * Whether a new POST .../migrate takes up the migration's rollback again: it ended in phase
 * rollback and its last rollback did not complete (its last outcome step says "rollback
 * incomplete": an orderer that would not start, a backup that could not be put back), or its
 * server died during the rollback (recorded running in phase rollback; taken up only while the
 * application holds the migration lock). The backups are copies, kept until a migration ends
 * done, so the rollback restores them again.
 */
export const rollbackResumable = (m: MigrationProgress): boolean => {
  if (m.phase !== 'rollback') return false;
  if (m.status === 'running') return true;
  if (m.status !== 'failed') return false;
  const outcome = [...m.steps].reverse().find((s) => s.startsWith('restored:') || s.startsWith('rollback incomplete:'));
  return outcome?.startsWith('rollback incomplete:') ?? false;
};

export function latestMigration(state: ConsensusMigrations, networkId: number): MigrationProgress | null {
  const id = state.latestByNetwork[networkId];
  return id === undefined ? null : state.migrations[id] ?? null;
}

function running(state: ConsensusMigrations, migrationId: string): MigrationProgress {
  const m = state.migrations[migrationId];
  if (!m) throw new NotFoundError('Consensus migration', migrationId);
  if (m.status !== 'running') throw new ConflictError(`Consensus migration ${migrationId} is ${m.status}, not running.`, { migrationId, status: m.status }, 'MIGRATION_NOT_RUNNING');
  return m;
}

export const consensusMigrations: Decider<ConsensusMigrations, ConsensusMigrationCommand, ConsensusMigrationEvent> = {
  initialState: () => ({ migrations: {}, latestByNetwork: {} }),
  evolve(state, e) {
    const put = (id: string, f: (m: MigrationProgress) => MigrationProgress) => ({ ...state, migrations: { ...state.migrations, [id]: f(state.migrations[id]) } });
    switch (e.type) {
      case 'ConsensusMigrationStarted': {
        const m: MigrationProgress = { migrationId: e.data.migrationId, networkIds: e.data.networkIds, ordererIds: e.data.ordererIds, status: 'running', phase: 'checks', steps: [], startedAt: e.data.at, endedAt: null, channels: [], peersNotRolledBack: [] };
        const latest = { ...state.latestByNetwork };
        for (const n of e.data.networkIds) latest[n] = e.data.migrationId;
        return { migrations: { ...state.migrations, [m.migrationId]: m }, latestByNetwork: latest };
      }
      case 'ConsensusMigrationPhaseReached':
        return put(e.data.migrationId, (m) => ({ ...m, phase: e.data.phase }));
      case 'ConsensusMigrationStepDone':
        return put(e.data.migrationId, (m) => ({ ...m, steps: [...m.steps, e.data.step] }));
      case 'ConsensusMigrationFailed':
        return put(e.data.migrationId, (m) => ({ ...m, status: 'failed', phase: e.data.phase, endedAt: e.data.at, channels: e.data.channels ?? [], peersNotRolledBack: e.data.peersNotRolledBack ?? [] }));
      case 'ConsensusMigrationCompleted':
        return put(e.data.migrationId, (m) => ({ ...m, status: 'done', phase: 'done', endedAt: e.data.at, channels: e.data.channels ?? [], peersNotRolledBack: [] }));
      case 'ConsensusMigrationResumed':
        return put(e.data.migrationId, (m) => ({ ...m, status: 'running', phase: e.data.phase ?? 'normal', endedAt: null, channels: [], peersNotRolledBack: [] }));
      default:
        return assertNever(e);
    }
  },
  decide(c, state) {
    switch (c.type) {
      case 'StartConsensusMigration': {
        if (state.migrations[c.migrationId]) throw new ConflictError(`Consensus migration ${c.migrationId} exists already.`, { migrationId: c.migrationId }, 'MIGRATION_EXISTS');
        const { type: _t, ...data } = c;
        return [{ type: 'ConsensusMigrationStarted', data }];
      }
      case 'RecordMigrationPhase': {
        const m = running(state, c.migrationId);
        if (m.phase === c.phase) return [];
        return [{ type: 'ConsensusMigrationPhaseReached', data: { migrationId: c.migrationId, networkIds: m.networkIds, phase: c.phase, at: c.at } }];
      }
      case 'RecordMigrationStep': {
        const m = running(state, c.migrationId);
        return [{ type: 'ConsensusMigrationStepDone', data: { migrationId: c.migrationId, networkIds: m.networkIds, phase: m.phase, step: c.step, at: c.at } }];
      }
      case 'FailConsensusMigration': {
        const m = running(state, c.migrationId);
        return [{ type: 'ConsensusMigrationFailed', data: { migrationId: c.migrationId, networkIds: m.networkIds, phase: c.phase, reason: c.reason, channels: c.channels, peersNotRolledBack: c.peersNotRolledBack, at: c.at } }];
      }
      case 'CompleteConsensusMigration': {
        const m = running(state, c.migrationId);
        return [{ type: 'ConsensusMigrationCompleted', data: { migrationId: c.migrationId, networkIds: m.networkIds, channels: c.channels, at: c.at } }];
      }
      case 'ResumeConsensusMigration': {
        const m = state.migrations[c.migrationId];
        if (!m) throw new NotFoundError('Consensus migration', c.migrationId);
        if (resumable(m)) return [{ type: 'ConsensusMigrationResumed', data: { migrationId: c.migrationId, networkIds: m.networkIds, at: c.at } }];
        if (rollbackResumable(m)) return [{ type: 'ConsensusMigrationResumed', data: { migrationId: c.migrationId, networkIds: m.networkIds, at: c.at, phase: 'rollback' } }];
        throw new ConflictError(`Consensus migration ${c.migrationId} is ${m.status} in phase ${m.phase}; only one that stopped in phase normal (the orderers already run BFT) resumes, or one whose rollback did not complete (its rollback is taken up again).`, { migrationId: c.migrationId, status: m.status, phase: m.phase }, 'MIGRATION_NOT_RESUMABLE');
      }
      default:
        return assertNever(c);
    }
  },
};
