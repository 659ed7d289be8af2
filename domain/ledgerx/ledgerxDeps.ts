// The ledgerX platform's ports as the application sees them (AppDeps.ledgerx).
import type { LedgerXRuntime } from './ledgerxPorts.ts';

export interface LedgerXDeps {
  runtime: LedgerXRuntime;
  /** How long a join waits for each role node (LNM_LEDGERX_JOIN_TIMEOUT_SECONDS, 240 s). */
  joinTimeoutMs: number;
}
