// Validation of the SPEC genesis object into settings every later step can trust. Both
// spellings are accepted (snake_case as in the SPEC, camelCase). All problems are reported at
// once in one ValidationError with one detail per field. The settings are JSON-safe (big
// numbers as strings) so they can travel inside events.
import { getAddress, isAddress } from 'ethers';
import { ValidationError, type FieldIssue } from '../shared/errors.ts';
import {
  BFT_DEFAULTS,
  CLIQUE_DEFAULTS,
  DEFAULT_GAS_LIMIT,
  ETHASH_DEFAULTS,
  defaultBlockPeriodSeconds,
  isBft,
  parseEvmConsensus,
  type BftParameters,
  type EvmConsensus,
} from './evmConsensus.ts';

export interface EvmGenesisSettings {
  chainId: number;
  networkId: number;
  consensus: EvmConsensus;
  blockPeriodSeconds: number;
  /** 0x-prefixed hex */
  gasLimit: string;
  /** 0x-prefixed hex; the genesis difficulty (PoW: also ethash fixeddifficulty) */
  difficulty: string;
  /** checksummed, in the given order (besu orders BFT validators itself) */
  validators: string[];
  /** checksummed address -> balance in wei, decimal */
  accounts: Record<string, string>;
  /** 0x-prefixed hex, at most 32 bytes; the vanity of BFT/Clique extraData, the whole extraData for PoW */
  extraData: string;
  bft: BftParameters;
  cliqueEpochLength: number;
  /**
   * Gas pricing (wei, decimal). Free gas (the default): both "0", the genesis sets zeroBaseFee
   * and the nodes accept gas price 0. Priced: either above 0; baseFee 0 keeps zeroBaseFee (the
   * price is min-gas-price alone), above 0 it is the genesis base fee of an EIP-1559 market.
   * Missing on networks created before these fields existed (their genesis had a 1 gwei base
   * fee and no zeroBaseFee): read them through gasPricingOf().
   */
  minGasPrice?: string;
  baseFee?: string;
  /**
   * Seconds; block 0's timestamp. 0 unless given: the service gives each network it creates its
   * creation time, so no two networks share a block 0 (anvil hashes block 0 from little more
   * than this). Absent on networks created before it existed (their genesis has 0).
   */
  timestamp?: number;
}

/** Largest chain id that wallets accept (EIP-2294's bound, floor((2^53 - 1) / 2) - 36). */
export const MAX_CHAIN_ID = 4503599627370476;
const MAX_UINT256 = (1n << 256n) - 1n;
/** Smallest gas limit clients accept (geth params.MinGasLimit); the largest fits besu's signed long. */
const MIN_GAS_LIMIT = 5000n;
const MAX_GAS_LIMIT = (1n << 63n) - 1n;
/** besu reads min-gas-price from TOML (64-bit signed integers) and baseFeePerGas as a long. */
const MAX_FEE = (1n << 63n) - 1n;
/** Base fee of a priced network that names none: the clients' London default (1 gwei). */
export const DEFAULT_PRICED_BASE_FEE = 1_000_000_000n;

function pick(raw: Record<string, unknown>, ...names: string[]): unknown {
  for (const n of names) if (raw[n] !== undefined && raw[n] !== null) return raw[n];
  return undefined;
}

function positiveInteger(value: unknown, field: string, issues: FieldIssue[], max = Number.MAX_SAFE_INTEGER): number | undefined {
  const n = typeof value === 'string' && /^[0-9]+$/.test(value.trim()) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1 || n > max) {
    issues.push({ field, message: `must be an integer from 1 to ${max}, got ${JSON.stringify(value)}` });
    return undefined;
  }
  return n;
}

function bigQuantity(value: unknown, field: string, issues: FieldIssue[], hexOnly: boolean): bigint | undefined {
  if (typeof value === 'number' && !hexOnly && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value === 'string') {
    const s = value.trim();
    if (/^0x[0-9a-fA-F]+$/.test(s)) return BigInt(s);
    if (!hexOnly && /^[0-9]+$/.test(s)) return BigInt(s);
  }
  issues.push({ field, message: hexOnly ? `must be a hex string such as "0x1", got ${JSON.stringify(value)}` : `must be a hex or decimal string, got ${JSON.stringify(value)}` });
  return undefined;
}

function address(value: unknown, field: string, issues: FieldIssue[]): string | undefined {
  if (typeof value === 'string' && isAddress(value)) return getAddress(value);
  issues.push({ field, message: `must be a 20-byte hex address (0x + 40 hex digits, valid checksum if mixed case), got ${JSON.stringify(value)}` });
  return undefined;
}

function object(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function validators(raw: unknown, consensus: EvmConsensus | undefined, issues: FieldIssue[]): string[] {
  if (raw !== undefined && !Array.isArray(raw)) {
    issues.push({ field: 'validators', message: 'must be an array of addresses' });
    return [];
  }
  const out: string[] = [];
  (raw ?? []).forEach((v: unknown, i: number) => {
    const a = address(v, `validators[${i}]`, issues);
    if (a && out.includes(a)) issues.push({ field: `validators[${i}]`, message: `${a} is listed twice` });
    else if (a) out.push(a);
  });
  if (consensus && consensus !== 'POW' && out.length === 0 && !issues.some((x) => x.field.startsWith('validators'))) {
    issues.push({ field: 'validators', message: `${consensus} needs at least one validator address` });
  }
  if (consensus === 'POW' && out.length > 0) issues.push({ field: 'validators', message: 'PoW has no validators; leave the list empty' });
  return out;
}

function accounts(raw: unknown, issues: FieldIssue[]): Record<string, string> {
  const out: Record<string, string> = {};
  if (raw === undefined) return out;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    issues.push({ field: 'accounts', message: 'must be an object mapping address to {balance}' });
    return out;
  }
  for (const [key, entry] of Object.entries(object(raw))) {
    const field = `accounts.${key}`;
    const a = address(key, field, issues);
    const balanceRaw = typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>).balance : entry;
    const balance =
      typeof balanceRaw === 'number' && Number.isSafeInteger(balanceRaw) && balanceRaw >= 0
        ? BigInt(balanceRaw)
        : typeof balanceRaw === 'string' && /^[0-9]+$/.test(balanceRaw.trim())
          ? BigInt(balanceRaw.trim())
          : undefined;
    if (balance === undefined || balance > MAX_UINT256) {
      issues.push({ field: `${field}.balance`, message: `must be a decimal string of wei (0 to 2^256-1), got ${JSON.stringify(balanceRaw)}` });
      continue;
    }
    if (!a) continue;
    if (out[a] !== undefined) issues.push({ field, message: `${a} is listed twice` });
    else out[a] = balance.toString();
  }
  return out;
}

function extraData(raw: unknown, issues: FieldIssue[]): string {
  if (raw === undefined || raw === '' || raw === '0x') return '0x';
  if (typeof raw === 'string' && /^(0x)?([0-9a-fA-F]{2}){0,32}$/.test(raw.trim())) return '0x' + raw.trim().replace(/^0x/, '').toLowerCase();
  issues.push({ field: 'extradata', message: 'must be hex of at most 32 bytes (it is the vanity of the consensus extraData)' });
  return '0x';
}

function bftParameters(raw: Record<string, unknown>, issues: FieldIssue[]): BftParameters {
  const o = object(pick(raw, 'ibft', 'qbft', 'ibft2'));
  const int = (name: keyof typeof BFT_DEFAULTS, fallback: number) =>
    o[name] === undefined ? fallback : (positiveInteger(o[name], `ibft.${name}`, issues) ?? fallback);
  return {
    epochLength: int('epochlength', BFT_DEFAULTS.epochlength),
    requestTimeoutMs: int('requesttimeoutms', BFT_DEFAULTS.requesttimeoutms),
    messageQueueLimit: int('messageQueueLimit', BFT_DEFAULTS.messageQueueLimit),
    duplicateMessageLimit: int('duplicateMessageLimit', BFT_DEFAULTS.duplicateMessageLimit),
    futureRoundsLimit: int('futureRoundsLimit', BFT_DEFAULTS.futureRoundsLimit),
  };
}

function weiAmount(value: unknown, field: string, issues: FieldIssue[]): bigint | undefined {
  const s = typeof value === 'string' ? value.trim() : undefined;
  const n =
    typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? BigInt(value)
    : s !== undefined && /^(0x[0-9a-fA-F]+|[0-9]+)$/.test(s) ? BigInt(s)
    : undefined;
  if (n === undefined || n > MAX_FEE) {
    issues.push({ field, message: `must be an amount of wei from 0 to ${MAX_FEE} (decimal or 0x hex string, or an integer), got ${JSON.stringify(value)}` });
    return undefined;
  }
  return n;
}

/**
 * The gas model. Neither field (the default): free gas, base fee 0 and gas price 0 accepted.
 * min_gas_price above 0 makes the network priced, with base_fee as its genesis base fee (default
 * 1 gwei; 0 keeps a zero base fee, priced by the minimum alone). base_fee alone, above 0, prices
 * by the base fee only (how an imported network with the clients' 1 gwei default is described).
 */
function gasPricing(raw: Record<string, unknown>, issues: FieldIssue[]): { minGasPrice: bigint; baseFee: bigint } {
  const minRaw = pick(raw, 'min_gas_price', 'minGasPrice');
  const baseRaw = pick(raw, 'base_fee', 'baseFee', 'baseFeePerGas');
  const minGasPrice = minRaw === undefined ? 0n : (weiAmount(minRaw, 'min_gas_price', issues) ?? 0n);
  const baseFee = baseRaw === undefined ? undefined : weiAmount(baseRaw, 'base_fee', issues);
  return { minGasPrice, baseFee: baseFee ?? (minGasPrice > 0n ? DEFAULT_PRICED_BASE_FEE : 0n) };
}

/** Validate the SPEC genesis object; throws one ValidationError naming every bad field. */
export function parseEvmGenesisInput(input: unknown): EvmGenesisSettings {
  const raw = object(input);
  const issues: FieldIssue[] = [];

  let consensus: EvmConsensus | undefined;
  try {
    consensus = parseEvmConsensus(pick(raw, 'consensus'));
  } catch (err) {
    issues.push(...((err as ValidationError).details ?? []));
  }

  const chainIdRaw = pick(raw, 'chain_id', 'chainId');
  const chainId = chainIdRaw === undefined ? (issues.push({ field: 'chain_id', message: 'is required' }), undefined) : positiveInteger(chainIdRaw, 'chain_id', issues, MAX_CHAIN_ID);
  const networkIdRaw = pick(raw, 'network_id', 'networkId');
  const networkId = networkIdRaw === undefined ? chainId : positiveInteger(networkIdRaw, 'network_id', issues);

  const ibft = object(pick(raw, 'ibft', 'qbft', 'ibft2'));
  const clique = object(pick(raw, 'clique'));
  const blockTimeRaw =
    pick(raw, 'block_time', 'blockTime') ??
    (consensus && isBft(consensus) ? ibft.blockperiod : undefined) ??
    (consensus === 'CLIQUE' ? clique.period : undefined);
  const blockPeriodSeconds =
    blockTimeRaw === undefined ? defaultBlockPeriodSeconds(consensus ?? 'QBFT') : positiveInteger(blockTimeRaw, 'block_time', issues, 86400);

  const gasLimitRaw = pick(raw, 'gas_limit', 'gasLimit');
  const gasLimit = gasLimitRaw === undefined ? DEFAULT_GAS_LIMIT : bigQuantity(gasLimitRaw, 'gas_limit', issues, false);
  if (gasLimit !== undefined && (gasLimit < MIN_GAS_LIMIT || gasLimit > MAX_GAS_LIMIT)) {
    issues.push({ field: 'gas_limit', message: `must be between ${MIN_GAS_LIMIT} and ${MAX_GAS_LIMIT}` });
  }

  const difficultyRaw = pick(raw, 'difficulty');
  let difficulty = consensus === 'POW' ? BigInt(ETHASH_DEFAULTS.fixeddifficulty) : 1n;
  if (difficultyRaw !== undefined && difficultyRaw !== '') {
    const d = bigQuantity(difficultyRaw, 'difficulty', issues, true);
    if (d !== undefined && consensus === 'POW') {
      if (d < 1n || d > BigInt(Number.MAX_SAFE_INTEGER)) issues.push({ field: 'difficulty', message: `must be from 0x1 to 0x${Number.MAX_SAFE_INTEGER.toString(16)}` });
      else difficulty = d;
    } else if (d !== undefined && consensus && d !== 1n) {
      issues.push({ field: 'difficulty', message: `is for PoW only; ${consensus} uses difficulty 0x1` });
    }
  }

  const settings = {
    validators: validators(pick(raw, 'validators'), consensus, issues),
    accounts: accounts(pick(raw, 'accounts', 'alloc'), issues),
    extraData: extraData(pick(raw, 'extradata', 'extraData', 'extra_data'), issues),
    bft: bftParameters(raw, issues),
    cliqueEpochLength: clique.epoch === undefined ? CLIQUE_DEFAULTS.epoch : (positiveInteger(clique.epoch, 'clique.epoch', issues) ?? CLIQUE_DEFAULTS.epoch),
  };
  const pricing = gasPricing(raw, issues);
  const timestampRaw = pick(raw, 'timestamp');
  const timestamp = timestampRaw === undefined ? 0 : bigQuantity(timestampRaw, 'timestamp', issues, false);
  if (timestamp !== undefined && timestamp > BigInt(Number.MAX_SAFE_INTEGER)) issues.push({ field: 'timestamp', message: `must be at most ${Number.MAX_SAFE_INTEGER} seconds` });

  if (issues.length > 0 || !consensus || !chainId || !networkId || !blockPeriodSeconds || gasLimit === undefined) {
    const summary = issues.map((i) => `${i.field} ${i.message}`).join('; ');
    throw new ValidationError(`Invalid evm genesis: ${summary}.`, issues);
  }
  return {
    chainId,
    networkId,
    consensus,
    blockPeriodSeconds,
    gasLimit: '0x' + gasLimit.toString(16),
    difficulty: '0x' + difficulty.toString(16),
    ...settings,
    minGasPrice: pricing.minGasPrice.toString(),
    baseFee: pricing.baseFee.toString(),
    ...(timestamp ? { timestamp: Number(timestamp) } : {}),
  };
}
