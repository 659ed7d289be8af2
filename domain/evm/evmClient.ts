// Which client runs an evm network (DESIGN "Node engines"): besu for real networks; geth
// (go-ethereum 1.13, the last line whose Clique sealing works) for Clique networks; anvil, a
// single-node development chain, only for a network with at most one validator, and never
// presented as a multi-validator network. `auto` takes geth for a Clique network where geth is
// available, else besu where it is available, and anvil for a one-validator network otherwise.
// The choice also fixes the genesis_block_hash, since anvil builds block 0 differently from
// besu and geth (see genesisBlockHash.ts).
import { UnavailableError, ValidationError } from '../shared/errors.ts';
import type { EvmConsensus } from './evmConsensus.ts';
import type { EvmClient } from './evmGenesis.ts';

export type EvmClientPreference = 'auto' | EvmClient;

/** Where geth serves its metrics in Prometheus's format (--metrics); besu serves them at /metrics. */
export const GETH_METRICS_PATH = '/debug/metrics/prometheus';

export interface EvmClientChoice {
  besuAvailable: boolean;
  validatorCount: number;
  /** Whether geth is found for the engine (its program, or its image); absent: not. */
  gethAvailable?: boolean;
  /** The genesis consensus; geth runs Clique only. Absent: not known (not Clique). */
  consensus?: EvmConsensus;
}

export function chooseEvmClient(preference: EvmClientPreference, opts: EvmClientChoice): EvmClient {
  const { besuAvailable, validatorCount } = opts;
  const clique = opts.consensus === 'CLIQUE';
  const gethAvailable = opts.gethAvailable === true;
  const needsBesu = `${validatorCount} validators need besu${clique ? ' or geth' : ''} (anvil is a single-node development chain)`;
  switch (preference) {
    case 'besu':
      if (!besuAvailable) throw new UnavailableError('The besu client is not available on this server (no besu binary or image).');
      return 'besu';
    case 'geth':
      if (!clique) {
        const message = `geth runs Clique networks only (go-ethereum 1.13 has no IBFT 2.0, QBFT or proof-of-work mining), not ${opts.consensus ?? 'this consensus'}`;
        throw new ValidationError(`Cannot run this network on geth: ${message}.`, [{ field: 'client', message }]);
      }
      if (!gethAvailable) throw new UnavailableError('The geth client is not available on this server (no geth program: set LNM_GETH_BIN or put geth on the PATH).');
      return 'geth';
    case 'anvil':
      if (validatorCount > 1) throw new ValidationError(`Cannot run this network on anvil: ${needsBesu}.`, [{ field: 'validators', message: needsBesu }]);
      return 'anvil';
    case 'auto':
      if (clique && gethAvailable) return 'geth';
      if (besuAvailable) return 'besu';
      if (validatorCount <= 1) return 'anvil';
      throw new UnavailableError(`No client can run this network here: ${needsBesu}, and ${clique ? 'neither is' : 'besu is not'} available.`);
    default: {
      const never: never = preference;
      throw new ValidationError(`Unknown evm client ${String(never)}.`, [{ field: 'client', message: 'must be auto, besu, geth or anvil' }]);
    }
  }
}
