// The hash of block 0 as a node reports it, computed from the genesis file alone.
//
// besu (and geth) build the header from the genesis fields, the alloc's real state root, and the
// fork-dependent tail: baseFeePerGas when London is at block 0 (explicit value or 1 gwei),
// withdrawalsRoot when Shanghai is active at the genesis timestamp, blobGasUsed/excessBlobGas/
// parentBeaconBlockRoot for Cancun, requestsHash for Prague (and Osaka, which adds no field).
// A later fork active at genesis implies the earlier ones (GenesisState.isShanghaiAtGenesis
// and friends). For IBFT 2.0/QBFT besu hashes block 0 with its extraData verbatim
// (BftBlockHashing.serializeHeader), so one rule covers every consensus.
//
// anvil (foundry 1.x) ignores most of the file for block 0: it builds a "dummy" header with the
// empty-trie state root whatever the alloc, zero difficulty, mixHash, nonce and extraData, and
// takes only timestamp, coinbase, baseFeePerGas and number from the genesis. Its gas limit
// comes from --gas-limit (default 30M), not from the file: the anvil launcher passes the
// genesis gasLimit, and this rule assumes it did. The header tail follows --hardfork, and for
// london/shanghai it also carries the blob fields. Measured against anvil 1.7.1 by
// test/adapters/evm/anvilGenesis.int.test.ts.
//
// So one genesis file cannot give both clients the same block 0 once it has an alloc or the
// extraData a BFT/Clique network needs: the two agree only for a bare file (no alloc, empty
// extraData, zero mixHash/difficulty/nonce, Cancun or Prague at genesis, anvil on the same
// hardfork). The hash of a network therefore depends on the client that runs it.
import { encodeRlp, keccak256, toBeArray, hexlify, type RlpStructuredData } from 'ethers';
import { ValidationError } from '../shared/errors.ts';
import { genesisBytes, genesisField, genesisFixedBytes, genesisQuantity, type GenesisJson } from './genesisJson.ts';
import { genesisStateRoot } from './genesisStateRoot.ts';
import { EMPTY_TRIE_ROOT } from './merklePatriciaTrie.ts';

const ZERO_HASH = '0x' + '00'.repeat(32);
const EMPTY_OMMERS_HASH = '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347';
/** sha256 of nothing: the requests hash of a block without execution-layer requests (EIP-7685). */
const EMPTY_REQUESTS_HASH = '0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
const EMPTY_BLOOM = '0x' + '00'.repeat(256);
/** Base fee of a London-at-genesis block that names none (besu GenesisConfig, geth InitialBaseFee, anvil default). */
export const DEFAULT_GENESIS_BASE_FEE = 1_000_000_000n;

export type AnvilHardfork = 'london' | 'shanghai' | 'cancun' | 'prague';

const quantity = (n: bigint): string => hexlify(toBeArray(n));

interface HeaderTail {
  baseFee?: bigint;
  withdrawalsRoot?: string;
  blobGasUsed?: bigint;
  excessBlobGas?: bigint;
  parentBeaconBlockRoot?: string;
  requestsHash?: string;
}

interface HeaderFields extends HeaderTail {
  parentHash: string;
  coinbase: Uint8Array;
  stateRoot: string;
  difficulty: bigint;
  number: bigint;
  gasLimit: bigint;
  timestamp: bigint;
  extraData: Uint8Array;
  mixHash: Uint8Array;
  nonce: Uint8Array;
}

/** Fields in header order; optional tail fields are appended only when present, as both clients do. */
function headerHash(h: HeaderFields): string {
  const fields: RlpStructuredData[] = [
    h.parentHash,
    EMPTY_OMMERS_HASH,
    hexlify(h.coinbase),
    h.stateRoot,
    EMPTY_TRIE_ROOT,
    EMPTY_TRIE_ROOT,
    EMPTY_BLOOM,
    quantity(h.difficulty),
    quantity(h.number),
    quantity(h.gasLimit),
    quantity(0n),
    quantity(h.timestamp),
    hexlify(h.extraData),
    hexlify(h.mixHash),
    hexlify(h.nonce),
  ];
  if (h.baseFee !== undefined) fields.push(quantity(h.baseFee));
  if (h.withdrawalsRoot !== undefined) fields.push(h.withdrawalsRoot);
  if (h.blobGasUsed !== undefined) fields.push(quantity(h.blobGasUsed));
  if (h.excessBlobGas !== undefined) fields.push(quantity(h.excessBlobGas));
  if (h.parentBeaconBlockRoot !== undefined) fields.push(h.parentBeaconBlockRoot);
  if (h.requestsHash !== undefined) fields.push(h.requestsHash);
  return keccak256(encodeRlp(fields));
}

function configValue(genesis: GenesisJson, name: string): bigint | undefined {
  const v = genesisField(genesisField(genesis, 'config'), name);
  return v === undefined || v === null ? undefined : genesisQuantity(v, `config.${name}`);
}

function activeAtGenesis(genesis: GenesisJson, timestamp: bigint, fork: string): boolean | undefined {
  const at = configValue(genesis, `${fork}Time`);
  return at === undefined ? undefined : timestamp >= at;
}

/** Which timestamp forks are active at block 0, a later one implying the earlier ones. */
function timestampForksAtGenesis(genesis: GenesisJson, timestamp: bigint) {
  if (activeAtGenesis(genesis, timestamp, 'amsterdam')) {
    throw new ValidationError('Genesis with Amsterdam active at block 0 is not supported.', [
      { field: 'config.amsterdamTime', message: 'not supported' },
    ]);
  }
  const osaka = activeAtGenesis(genesis, timestamp, 'osaka') ?? false;
  const prague = activeAtGenesis(genesis, timestamp, 'prague') ?? osaka;
  const cancun = activeAtGenesis(genesis, timestamp, 'cancun') ?? prague;
  const shanghai = activeAtGenesis(genesis, timestamp, 'shanghai') ?? cancun;
  return { shanghai, cancun, prague };
}

function commonFields(genesis: GenesisJson) {
  const gasLimit = genesisField(genesis, 'gasLimit');
  if (gasLimit === undefined) throw new ValidationError('Genesis has no gasLimit.', [{ field: 'gasLimit', message: 'required' }]);
  const baseFee = genesisField(genesis, 'baseFeePerGas');
  return {
    coinbase: genesisFixedBytes(genesisField(genesis, 'coinbase'), 'coinbase', 20),
    number: genesisQuantity(genesisField(genesis, 'number') ?? '0x0', 'number'),
    gasLimit: genesisQuantity(gasLimit, 'gasLimit'),
    timestamp: genesisQuantity(genesisField(genesis, 'timestamp') ?? '0x0', 'timestamp'),
    explicitBaseFee: baseFee === undefined || baseFee === null ? undefined : genesisQuantity(baseFee, 'baseFeePerGas'),
  };
}

/** Hash of block 0 as besu (and geth) compute it from this genesis file. */
export function besuGenesisBlockHash(genesis: GenesisJson): string {
  const common = commonFields(genesis);
  const forks = timestampForksAtGenesis(genesis, common.timestamp);
  const londonAtZero = configValue(genesis, 'londonBlock') === 0n;
  const baseFee = common.explicitBaseFee ?? (londonAtZero ? DEFAULT_GENESIS_BASE_FEE : undefined);
  const difficulty = genesisField(genesis, 'difficulty');
  if (difficulty === undefined) throw new ValidationError('Genesis has no difficulty.', [{ field: 'difficulty', message: 'required' }]);
  return headerHash({
    parentHash: hexlify(genesisFixedBytes(genesisField(genesis, 'parentHash') ?? ZERO_HASH, 'parentHash', 32)),
    coinbase: common.coinbase,
    stateRoot: genesisStateRoot(genesisField(genesis, 'alloc')),
    difficulty: genesisQuantity(difficulty, 'difficulty', { hexOnly: true }),
    number: 0n,
    gasLimit: common.gasLimit,
    timestamp: common.timestamp,
    extraData: genesisBytes(genesisField(genesis, 'extraData'), 'extraData'),
    mixHash: genesisFixedBytes(genesisField(genesis, 'mixHash'), 'mixHash', 32),
    nonce: genesisFixedBytes('0x' + genesisQuantity(genesisField(genesis, 'nonce') ?? '0x0', 'nonce', { hexOnly: true }).toString(16), 'nonce', 8),
    baseFee,
    withdrawalsRoot: forks.shanghai ? EMPTY_TRIE_ROOT : undefined,
    blobGasUsed: forks.cancun ? genesisQuantity(genesisField(genesis, 'blobGasUsed') ?? '0x0', 'blobGasUsed', { hexOnly: true }) : undefined,
    excessBlobGas: forks.cancun ? genesisQuantity(genesisField(genesis, 'excessBlobGas') ?? '0x0', 'excessBlobGas', { hexOnly: true }) : undefined,
    parentBeaconBlockRoot: forks.cancun
      ? hexlify(genesisFixedBytes(genesisField(genesis, 'parentBeaconBlockRoot') ?? ZERO_HASH, 'parentBeaconBlockRoot', 32))
      : undefined,
    requestsHash: forks.prague ? EMPTY_REQUESTS_HASH : undefined,
  });
}

/** Hash of block 0 as anvil reports it when started with `--init <genesis> --hardfork <hardfork> --gas-limit <genesis gasLimit>`. */
export function anvilGenesisBlockHash(genesis: GenesisJson, hardfork: AnvilHardfork): string {
  const common = commonFields(genesis);
  const from = (fork: AnvilHardfork) => ['london', 'shanghai', 'cancun', 'prague'].indexOf(hardfork) >= ['london', 'shanghai', 'cancun', 'prague'].indexOf(fork);
  return headerHash({
    parentHash: ZERO_HASH,
    coinbase: common.coinbase,
    stateRoot: EMPTY_TRIE_ROOT,
    difficulty: 0n,
    number: common.number,
    gasLimit: common.gasLimit,
    timestamp: common.timestamp,
    extraData: new Uint8Array(),
    mixHash: new Uint8Array(32),
    nonce: new Uint8Array(8),
    baseFee: common.explicitBaseFee ?? DEFAULT_GENESIS_BASE_FEE,
    withdrawalsRoot: from('shanghai') ? EMPTY_TRIE_ROOT : undefined,
    blobGasUsed: 0n,
    excessBlobGas: 0n,
    parentBeaconBlockRoot: from('cancun') ? ZERO_HASH : undefined,
    requestsHash: from('prague') ? EMPTY_REQUESTS_HASH : undefined,
  });
}
