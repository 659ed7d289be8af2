// The ledgerX platform's ports as the application sees them (AppDeps.ledgerx).
import type { LedgerXRuntime } from './ledgerxPorts.ts';
import type { LedgerXLedger } from './ledgerxLedgerPorts.ts';

export interface LedgerXDeps {
  runtime: LedgerXRuntime;
  /** A running network's ledger: blocks, statuses and namespaces from its committer, transactions through its routers. */
  ledger: LedgerXLedger;
  /** How long a join waits for each role node (LNM_LEDGERX_JOIN_TIMEOUT_SECONDS, 240 s). */
  joinTimeoutMs: number;
  /** A committer group's database password (derived from the key encryption key; never stored, shown or logged). */
  committerDatabasePassword: (groupId: number) => string;
  /** Where the service's own PostgreSQL listens, for the committers' databases. */
  database: { host: string; port: number };
}
