// Consensus names and parameter defaults for evm networks (SPEC "Network": genesis object and
// consensus parameter objects; SPEC "Limits": block time, gas limit).
//
// Block period, when the genesis gives no block_time: the SPEC states both "block_time default
// 12" (genesis) and "IBFT block period default 5" / "clique period 15" (consensus parameter
// objects). We read the consensus objects as the more specific rule: IBFT 2.0 and QBFT default
// to 5 s, Clique to 15 s, and 12 s applies where the consensus has no period of its own (PoW,
// where it is only the dev client's mining interval). An explicit block_time always wins.
import { ValidationError } from '../shared/errors.ts';

export type EvmConsensus = 'QBFT' | 'IBFT_2' | 'CLIQUE' | 'POW';
export const EVM_CONSENSUS_VALUES: readonly EvmConsensus[] = ['QBFT', 'IBFT_2', 'CLIQUE', 'POW'];

/** Spellings seen in the SPEC and in clients, compared upper-cased without separators. */
const ALIASES: Record<string, EvmConsensus> = {
  QBFT: 'QBFT',
  IBFT2: 'IBFT_2',
  IBFT20: 'IBFT_2',
  IBFT: 'IBFT_2',
  CLIQUE: 'CLIQUE',
  POA: 'CLIQUE',
  POW: 'POW',
  ETHASH: 'POW',
};

export function parseEvmConsensus(value: unknown, field = 'consensus'): EvmConsensus {
  const key = typeof value === 'string' ? value.toUpperCase().replace(/[\s_.-]/g, '') : '';
  const consensus = ALIASES[key];
  if (!consensus) {
    const message = `must be one of IBFT_2, QBFT, Clique (PoA) or PoW, got ${JSON.stringify(value)}.`;
    throw new ValidationError(`Genesis ${field} ${message}`, [{ field, message }]);
  }
  return consensus;
}

export const isBft = (c: EvmConsensus): boolean => c === 'QBFT' || c === 'IBFT_2';

export const GENESIS_DEFAULT_BLOCK_TIME_SECONDS = 12;
export const DEFAULT_GAS_LIMIT = 30_000_000n;

export function defaultBlockPeriodSeconds(consensus: EvmConsensus): number {
  if (isBft(consensus)) return BFT_DEFAULTS.blockperiod;
  if (consensus === 'CLIQUE') return CLIQUE_DEFAULTS.period;
  return GENESIS_DEFAULT_BLOCK_TIME_SECONDS;
}

/** SPEC consensus parameter object `ibft` (also used for QBFT). */
export const BFT_DEFAULTS = {
  blockperiod: 5,
  epochlength: 30000,
  requesttimeoutms: 10000,
  roundchangetimeoutms: 3000,
  messageQueueLimit: 1000,
  duplicateMessageLimit: 100,
  futureRoundsLimit: 1000,
  transmitOnEmptyPayload: true,
} as const;

export const CLIQUE_DEFAULTS = { period: 15, epoch: 30000 } as const;
export const ETHASH_DEFAULTS = { fixeddifficulty: 1000, minBlockTime: 1 } as const;

export interface BftParameters {
  epochLength: number;
  requestTimeoutMs: number;
  messageQueueLimit: number;
  duplicateMessageLimit: number;
  futureRoundsLimit: number;
}

/**
 * The besu `qbft` / `ibft2` genesis object (besu JsonBftConfigOptions; keys are read
 * case-insensitively). Mapping of the SPEC names: requesttimeoutms -> requesttimeoutseconds
 * (rounded up, besu counts whole seconds); futureRoundsLimit -> futureMessagesLimit (besu's
 * bound on buffered messages for future rounds/heights). roundchangetimeoutms and
 * transmitOnEmptyPayload have no besu key: besu derives round-change timeouts from
 * requesttimeoutseconds (doubling per round) and always proposes blocks, empty or not, unless
 * emptyblockperiodseconds says otherwise, so they are not emitted.
 */
export function besuBftSection(blockPeriodSeconds: number, p: BftParameters): Record<string, number> {
  return {
    blockperiodseconds: blockPeriodSeconds,
    epochlength: p.epochLength,
    requesttimeoutseconds: Math.ceil(p.requestTimeoutMs / 1000),
    messageQueueLimit: p.messageQueueLimit,
    duplicateMessageLimit: p.duplicateMessageLimit,
    futureMessagesLimit: p.futureRoundsLimit,
  };
}

/** besu `clique` genesis object (besu JsonCliqueConfigOptions: blockperiodseconds, epochlength, createemptyblocks). */
export function besuCliqueSection(blockPeriodSeconds: number, epochLength: number): Record<string, number | boolean> {
  return { blockperiodseconds: blockPeriodSeconds, epochlength: epochLength, createemptyblocks: true };
}
