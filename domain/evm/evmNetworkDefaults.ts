// The one set of defaults of a new evm network, used by the API when the request leaves a
// genesis field out and shown to the console (GET /networks/evm/defaults), which pre-fills its
// form from them rather than keeping its own copy. docs/evm.md, "Defaults".
import { BFT_DEFAULTS, type EvmConsensus } from './evmConsensus.ts';

export const EVM_NETWORK_DEFAULTS = {
  consensus: 'QBFT' as EvmConsensus,
  /** seconds; the SPEC's IBFT/QBFT block period */
  blockTimeSeconds: BFT_DEFAULTS.blockperiod,
  /** the first chain id handed out; each network without one gets the next free id from here */
  firstChainId: 1337,
  validatorCount: 1,
} as const;

/** The smallest chain id from `from` up that no network of the deployment uses. */
export function nextFreeChainId(used: Iterable<number>, from: number = EVM_NETWORK_DEFAULTS.firstChainId): number {
  const taken = new Set(used);
  let id = from;
  while (taken.has(id)) id++;
  return id;
}
