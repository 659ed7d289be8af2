// Which client runs an evm network (DESIGN "Node engines"): besu for real networks; anvil, a
// single-node development chain, only for a network with at most one validator, and never
// presented as a multi-validator network. `auto` takes besu where it is available and anvil
// for a one-validator network otherwise. The choice also fixes the genesis_block_hash, since
// the two clients build block 0 differently (see genesisBlockHash.ts).
import { UnavailableError, ValidationError } from '../shared/errors.ts';
import type { EvmClient } from './evmGenesis.ts';

export type EvmClientPreference = 'auto' | EvmClient;

export function chooseEvmClient(preference: EvmClientPreference, opts: { besuAvailable: boolean; validatorCount: number }): EvmClient {
  const { besuAvailable, validatorCount } = opts;
  const needsBesu = `${validatorCount} validators need besu (anvil is a single-node development chain)`;
  switch (preference) {
    case 'besu':
      if (!besuAvailable) throw new UnavailableError('The besu client is not available on this server (no besu binary or image).');
      return 'besu';
    case 'anvil':
      if (validatorCount > 1) throw new ValidationError(`Cannot run this network on anvil: ${needsBesu}.`, [{ field: 'validators', message: needsBesu }]);
      return 'anvil';
    case 'auto':
      if (besuAvailable) return 'besu';
      if (validatorCount <= 1) return 'anvil';
      throw new UnavailableError(`No client can run this network here: ${needsBesu}, and besu is not available.`);
    default: {
      const never: never = preference;
      throw new ValidationError(`Unknown evm client ${String(never)}.`, [{ field: 'client', message: 'must be auto, besu or anvil' }]);
    }
  }
}
