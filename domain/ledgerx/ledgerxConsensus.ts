// The ordering settings of a ledgerX network, written into its genesis block's Arma shared
// config: SmartBFT (the consenters' BFT library) and batching (the batchers). Defaults are
// fabric-x-orderer 1.0's (config/defaults.go and armageddon's shared config); the checks are
// the ones the orderer applies when it reads them (SmartBFT's Configuration.Validate and
// config/verify's batch timeout rules), so a value arma would refuse is a 400 naming its field
// before any network is recorded, not a role that exits after a join.
//   resolveLedgerXConsensus(input) -> LedgerXConsensusSettings (defaults filled, checked)
//   goDurationMs("1m30s")          -> 90000, or null when it is not a Go duration
import { ValidationError } from '../shared/errors.ts';
import { goDurationMs } from '../shared/goDuration.ts';

export { goDurationMs };

export interface LedgerXSmartBftSettings {
  requestBatchMaxCount: number;
  requestBatchMaxBytes: number;
  requestBatchMaxInterval: string;
  incomingMessageBufferSize: number;
  requestPoolSize: number;
  requestForwardTimeout: string;
  requestComplainTimeout: string;
  requestAutoRemoveTimeout: string;
  viewChangeResendInterval: string;
  viewChangeTimeout: string;
  leaderHeartbeatTimeout: string;
  leaderHeartbeatCount: number;
  numOfTicksBehindBeforeSyncing: number;
  collectTimeout: string;
  syncOnStart: boolean;
  speedUpViewChange: boolean;
  leaderRotation: boolean;
  decisionsPerLeader: number;
  requestMaxBytes: number;
  requestPoolSubmitTimeout: string;
}

export interface LedgerXBatchingSettings {
  batchCreationTimeout: string;
  firstStrikeThreshold: string;
  secondStrikeThreshold: string;
  autoRemoveTimeout: string;
  maxMessageCount: number;
  absoluteMaxBytes: number;
  requestMaxBytes: number;
}

export interface LedgerXConsensusSettings {
  smartBft: LedgerXSmartBftSettings;
  batching: LedgerXBatchingSettings;
}

export interface LedgerXConsensusInput {
  smartBft?: Partial<LedgerXSmartBftSettings>;
  batching?: Partial<LedgerXBatchingSettings>;
}

export const LEDGERX_SMARTBFT_DEFAULTS: Readonly<LedgerXSmartBftSettings> = {
  requestBatchMaxCount: 100,
  requestBatchMaxBytes: 10485760,
  requestBatchMaxInterval: '500ms',
  incomingMessageBufferSize: 10000,
  requestPoolSize: 50000,
  requestForwardTimeout: '10s',
  requestComplainTimeout: '20s',
  requestAutoRemoveTimeout: '3m0s',
  viewChangeResendInterval: '5s',
  viewChangeTimeout: '20s',
  leaderHeartbeatTimeout: '1m0s',
  leaderHeartbeatCount: 10,
  numOfTicksBehindBeforeSyncing: 10,
  collectTimeout: '1s',
  syncOnStart: false,
  speedUpViewChange: false,
  leaderRotation: false,
  decisionsPerLeader: 0,
  requestMaxBytes: 1048576,
  requestPoolSubmitTimeout: '5s',
};

export const LEDGERX_BATCHING_DEFAULTS: Readonly<LedgerXBatchingSettings> = {
  batchCreationTimeout: '500ms',
  firstStrikeThreshold: '10s',
  secondStrikeThreshold: '10s',
  autoRemoveTimeout: '10s',
  maxMessageCount: 10000,
  absoluteMaxBytes: 10485760,
  requestMaxBytes: 1048576,
};

const DURATION_FIELDS = {
  smartBft: ['requestBatchMaxInterval', 'requestForwardTimeout', 'requestComplainTimeout', 'requestAutoRemoveTimeout', 'viewChangeResendInterval', 'viewChangeTimeout', 'leaderHeartbeatTimeout', 'collectTimeout', 'requestPoolSubmitTimeout'],
  batching: ['batchCreationTimeout', 'firstStrikeThreshold', 'secondStrikeThreshold', 'autoRemoveTimeout'],
} as const;
// Counts that SmartBFT or the batchers refuse at zero (uint64/uint32 in the shared config).
const POSITIVE_FIELDS = {
  smartBft: ['requestBatchMaxCount', 'requestBatchMaxBytes', 'incomingMessageBufferSize', 'requestPoolSize', 'leaderHeartbeatCount', 'numOfTicksBehindBeforeSyncing', 'requestMaxBytes'],
  batching: ['maxMessageCount', 'absoluteMaxBytes', 'requestMaxBytes'],
} as const;
const UINT32_MAX = 0xffffffff;

export function resolveLedgerXConsensus(input: LedgerXConsensusInput = {}): LedgerXConsensusSettings {
  const smartBft: LedgerXSmartBftSettings = { ...LEDGERX_SMARTBFT_DEFAULTS, ...stripUndefined(input.smartBft) };
  const batching: LedgerXBatchingSettings = { ...LEDGERX_BATCHING_DEFAULTS, ...stripUndefined(input.batching) };
  const issues: { field: string; message: string }[] = [];
  const ms: Record<string, number> = {};
  const sections = { smartBft, batching } as unknown as Record<'smartBft' | 'batching', Record<string, unknown>>;
  for (const section of ['smartBft', 'batching'] as const) {
    for (const key of DURATION_FIELDS[section]) {
      const value = sections[section][key];
      const parsed = typeof value === 'string' ? goDurationMs(value) : null;
      if (parsed === null) issues.push({ field: `${section}.${key}`, message: 'a Go duration such as "500ms", "10s" or "1m30s"' });
      else if (parsed <= 0) issues.push({ field: `${section}.${key}`, message: 'must be greater than zero' });
      else ms[`${section}.${key}`] = parsed;
    }
    for (const key of POSITIVE_FIELDS[section]) {
      const value = sections[section][key];
      if (!Number.isSafeInteger(value) || (value as number) <= 0) issues.push({ field: `${section}.${key}`, message: 'a whole number greater than zero' });
      else if (section === 'batching' && key !== 'requestMaxBytes' && (value as number) > UINT32_MAX) issues.push({ field: `${section}.${key}`, message: `at most ${UINT32_MAX}` });
    }
  }
  if (!Number.isSafeInteger(smartBft.decisionsPerLeader) || smartBft.decisionsPerLeader < 0) issues.push({ field: 'smartBft.decisionsPerLeader', message: 'a whole number, 0 or more' });
  else if (smartBft.leaderRotation && smartBft.decisionsPerLeader === 0) issues.push({ field: 'smartBft.decisionsPerLeader', message: 'must be greater than zero when leaderRotation is on' });
  else if (!smartBft.leaderRotation && smartBft.decisionsPerLeader !== 0) issues.push({ field: 'smartBft.decisionsPerLeader', message: 'must be 0 when leaderRotation is off' });
  // SmartBFT's ordering rules between fields (checked only where both sides are valid).
  const bigger = (a: number | undefined, b: number | undefined) => a !== undefined && b !== undefined && a > b;
  const sb = (k: keyof LedgerXSmartBftSettings) => ms[`smartBft.${k}`] ?? (POSITIVE_FIELDS.smartBft.includes(k as never) && (smartBft[k] as number) > 0 ? (smartBft[k] as number) : undefined);
  if (bigger(sb('requestBatchMaxCount'), sb('requestBatchMaxBytes'))) issues.push({ field: 'smartBft.requestBatchMaxCount', message: 'must not exceed requestBatchMaxBytes' });
  if (bigger(sb('requestMaxBytes'), sb('requestBatchMaxBytes'))) issues.push({ field: 'smartBft.requestMaxBytes', message: 'must not exceed requestBatchMaxBytes' });
  if (bigger(sb('requestForwardTimeout'), sb('requestComplainTimeout'))) issues.push({ field: 'smartBft.requestForwardTimeout', message: 'must not exceed requestComplainTimeout' });
  if (bigger(sb('requestComplainTimeout'), sb('requestAutoRemoveTimeout'))) issues.push({ field: 'smartBft.requestComplainTimeout', message: 'must not exceed requestAutoRemoveTimeout' });
  if (bigger(sb('viewChangeResendInterval'), sb('viewChangeTimeout'))) issues.push({ field: 'smartBft.viewChangeResendInterval', message: 'must not exceed viewChangeTimeout' });
  if (issues.length) throw new ValidationError(`Invalid ordering settings: ${issues.map((i) => `${i.field} ${i.message}`).join('; ')}.`, issues);
  return { smartBft, batching };
}

function stripUndefined<T extends object>(o: T | undefined): Partial<T> {
  return Object.fromEntries(Object.entries(o ?? {}).filter(([, v]) => v !== undefined)) as Partial<T>;
}
