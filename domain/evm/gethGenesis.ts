// The genesis file a geth (go-ethereum 1.13) node of a Clique network is initialised from: the
// network's genesis file (evmGenesis.ts, besu's format) with the one section geth reads
// differently, `config.clique`: geth's CliqueConfig is { period, epoch } (SPEC "clique period"
// and "epoch"), where besu reads { blockperiodseconds, epochlength, createemptyblocks }. Every
// other field (chainId, the block milestones up to London, extraData with the signers,
// gasLimit, difficulty, alloc, baseFeePerGas, timestamp) is the same, and block 0 does not
// depend on `config`: geth reports the genesis_block_hash computed for besu
// (genesisBlockHash.ts besuGenesisBlockHash). besu's zeroBaseFee has no geth key: a
// baseFeePerGas of 0 stays 0 under EIP-1559 while blocks are at most half full.
import { ValidationError } from '../shared/errors.ts';
import type { EvmGenesisFile } from './evmGenesis.ts';

export function gethGenesisFile(file: EvmGenesisFile, settings: { consensus: string; blockPeriodSeconds: number; cliqueEpochLength: number }): Record<string, unknown> {
  if (settings.consensus !== 'CLIQUE') {
    throw new ValidationError(`geth runs Clique networks only, not ${settings.consensus}.`, [{ field: 'consensus', message: 'geth runs Clique only' }]);
  }
  const config: Record<string, unknown> = { ...file.config, clique: { period: settings.blockPeriodSeconds, epoch: settings.cliqueEpochLength } };
  delete config.zeroBaseFee;
  return { ...file, config };
}
