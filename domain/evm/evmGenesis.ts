// The genesis file of an evm network, built from the SPEC genesis object, in the format besu
// reads (and anvil accepts with --init).
//
// Fork milestones (chosen for besu 24.x, the SPEC's "evm platform 24.x"):
//  - IBFT 2.0 / QBFT: every block-numbered fork up to London at block 0 and shanghaiTime 0.
//    besu supports Shanghai on BFT chains since 24.3 (CHANGELOG "Support for shanghaiTime fork
//    ... in QBFT/IBFT chains"); Shanghai brings PUSH0, which solc >= 0.8.20 emits by default.
//    Cancun/Prague are not set: besu documents no blob support on BFT chains in 24.x.
//  - Clique and PoW: London at block 0 only (besu 24.x mines these pre-merge; newer besu
//    removed Clique and PoW block production altogether).
// The genesis block header then carries baseFeePerGas (London) and, for BFT, withdrawalsRoot
// (Shanghai). baseFeePerGas is always written out so no client has to guess it (besu's block 0
// ignores zeroBaseFee and would take its 1 gwei default). timestamp is the input's (0 unless
// given), so the file, and its hash, depend on the input alone; the service gives each network
// it creates its creation time there (application/evm/evmNetworkCreate.ts).
//
// Gas: a free-gas network (the default) has baseFeePerGas 0 and config.zeroBaseFee true (besu
// keeps every later base fee at 0: "Configure free gas networks" in the besu docs); its nodes
// accept gas price 0 (besu --min-gas-price=0, anvil --base-fee 0 --gas-price 0), so a key with
// no ether can deploy. A priced network (min_gas_price and/or base_fee above 0) has the base fee
// it was given and the ordinary EIP-1559 market (zeroBaseFee still when its base fee is 0).
import { cliqueExtraData, ibft2ExtraData, qbftExtraData } from './genesisExtraData.ts';
import { genesisBytes, genesisQuantity } from './genesisJson.ts';
import { besuBftSection, besuCliqueSection, type EvmConsensus } from './evmConsensus.ts';
import { anvilGenesisBlockHash, besuGenesisBlockHash, DEFAULT_GENESIS_BASE_FEE, type AnvilHardfork } from './genesisBlockHash.ts';
import { parseEvmGenesisInput, type EvmGenesisSettings } from './evmGenesisInput.ts';

/** mixHash that marks an Istanbul-family BFT block ("Istanbul practical byzantine fault tolerance" digest). */
export const BFT_MIX_HASH = '0x63746963616c2062797a616e74696e65206661756c7420746f6c6572616e6365';
const ZERO_HASH = '0x' + '00'.repeat(32);
const ZERO_ADDRESS = '0x' + '00'.repeat(20);

const BLOCK_MILESTONES_TO_LONDON = [
  'homesteadBlock',
  'eip150Block',
  'eip155Block',
  'eip158Block',
  'byzantiumBlock',
  'constantinopleBlock',
  'petersburgBlock',
  'istanbulBlock',
  'berlinBlock',
  'londonBlock',
] as const;

export interface EvmGenesisFile {
  config: Record<string, unknown>;
  nonce: string;
  timestamp: string;
  extraData: string;
  gasLimit: string;
  difficulty: string;
  mixHash: string;
  coinbase: string;
  baseFeePerGas: string;
  alloc: Record<string, { balance: string }>;
  number: string;
  gasUsed: string;
  parentHash: string;
}

function milestones(consensus: EvmConsensus): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of BLOCK_MILESTONES_TO_LONDON) out[m] = 0;
  if (consensus === 'QBFT' || consensus === 'IBFT_2') out.shanghaiTime = 0;
  return out;
}

function consensusSection(s: EvmGenesisSettings): Record<string, unknown> {
  switch (s.consensus) {
    case 'QBFT':
      return { qbft: besuBftSection(s.blockPeriodSeconds, s.bft) };
    case 'IBFT_2':
      return { ibft2: besuBftSection(s.blockPeriodSeconds, s.bft) };
    case 'CLIQUE':
      return { clique: besuCliqueSection(s.blockPeriodSeconds, s.cliqueEpochLength) };
    case 'POW':
      return { ethash: { fixeddifficulty: Number(BigInt(s.difficulty)) } };
    default: {
      const never: never = s.consensus;
      throw new Error(`unhandled consensus ${String(never)}`);
    }
  }
}

function extraDataFor(s: EvmGenesisSettings): string {
  const vanity = genesisBytes(s.extraData, 'extradata');
  switch (s.consensus) {
    case 'QBFT':
      return qbftExtraData(s.validators, vanity);
    case 'IBFT_2':
      return ibft2ExtraData(s.validators, vanity);
    case 'CLIQUE':
      return cliqueExtraData(s.validators, vanity);
    case 'POW':
      return s.extraData;
    default: {
      const never: never = s.consensus;
      throw new Error(`unhandled consensus ${String(never)}`);
    }
  }
}

export function buildEvmGenesisFile(s: EvmGenesisSettings): EvmGenesisFile {
  const alloc: Record<string, { balance: string }> = {};
  for (const [address, balance] of Object.entries(s.accounts)) alloc[address.toLowerCase()] = { balance: '0x' + BigInt(balance).toString(16) };
  const bft = s.consensus === 'QBFT' || s.consensus === 'IBFT_2';
  const baseFee = s.baseFee === undefined ? DEFAULT_GENESIS_BASE_FEE : BigInt(s.baseFee);
  return {
    // every fork built here has London at block 0, so zeroBaseFee always has a base fee to zero
    config: { chainId: s.chainId, ...milestones(s.consensus), ...consensusSection(s), ...(baseFee === 0n ? { zeroBaseFee: true } : {}) },
    nonce: '0x0',
    timestamp: '0x' + (s.timestamp ?? 0).toString(16),
    extraData: extraDataFor(s),
    gasLimit: s.gasLimit,
    difficulty: s.difficulty,
    mixHash: bft ? BFT_MIX_HASH : ZERO_HASH,
    coinbase: ZERO_ADDRESS,
    baseFeePerGas: '0x' + baseFee.toString(16),
    alloc,
    number: '0x0',
    gasUsed: '0x0',
    parentHash: ZERO_HASH,
  };
}

/** The anvil --hardfork matching the milestones of a genesis file built here. */
export function anvilHardforkFor(file: EvmGenesisFile): AnvilHardfork {
  return file.config.shanghaiTime === 0 ? 'shanghai' : 'london';
}

export interface GasPricing {
  /** gas price 0 is valid: zero base fee for ever and no minimum gas price */
  free: boolean;
  /** wei; besu --min-gas-price */
  minGasPrice: bigint;
  /** wei; the genesis base fee (and anvil --base-fee) */
  baseFee: bigint;
}

/**
 * The gas model of a network. Networks recorded before min_gas_price existed have no such
 * settings: their genesis file (1 gwei base fee, no zeroBaseFee) and min-gas-price 0 say it.
 */
export function gasPricingOf(settings: Pick<EvmGenesisSettings, 'minGasPrice' | 'baseFee'>, file: Pick<EvmGenesisFile, 'config' | 'baseFeePerGas'>): GasPricing {
  const minGasPrice = BigInt(settings.minGasPrice ?? '0');
  return {
    free: file.config.zeroBaseFee === true && minGasPrice === 0n,
    minGasPrice,
    baseFee: genesisQuantity(file.baseFeePerGas, 'baseFeePerGas'),
  };
}

export type EvmClient = 'besu' | 'anvil' | 'geth';

/**
 * Hash of block 0 as the client running the network will report it. besu and geth agree; anvil
 * differs for the same file: it ignores the alloc, extraData, mixHash and difficulty when it builds block 0.
 */
export function evmGenesisBlockHash(file: EvmGenesisFile, client: EvmClient): string {
  const json = file as unknown as Record<string, unknown>;
  return client !== 'anvil' ? besuGenesisBlockHash(json) : anvilGenesisBlockHash(json, anvilHardforkFor(file));
}

export interface EvmGenesis {
  settings: EvmGenesisSettings;
  file: EvmGenesisFile;
}

/** SPEC genesis object -> validated settings and the genesis file. Throws ValidationError. */
export function createEvmGenesis(input: unknown): EvmGenesis {
  const settings = parseEvmGenesisInput(input);
  return { settings, file: buildEvmGenesisFile(settings) };
}
