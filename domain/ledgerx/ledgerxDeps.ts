// The ledgerX platform's ports as the application sees them (AppDeps.ledgerx).
import type { LedgerXRuntime } from './ledgerxPorts.ts';
import type { LedgerXLedger } from './ledgerxLedgerPorts.ts';

export interface LedgerXDeps {
  runtime: LedgerXRuntime;
  /** A running network's ledger: blocks, statuses and namespaces from its committer, transactions through its routers. */
  ledger: LedgerXLedger;
  /** Where new ledgerX nodes run unless their creation says (LNM_NODE_ENGINE): process or docker. */
  engine: 'process' | 'docker';
  /** How long a join waits for each role node (LNM_LEDGERX_JOIN_TIMEOUT_SECONDS, 240 s). */
  joinTimeoutMs: number;
  /** A committer group's database password (derived from the key encryption key; never stored, shown or logged). */
  committerDatabasePassword: (groupId: number) => string;
  /** null when a PostgreSQL connection string given for a committer connects; otherwise why not (the password never in it). */
  checkDatabase: (database: { host: string; port: number; name: string; user: string; password: string }) => Promise<string | null>;
  /** Where the service's own PostgreSQL listens, for the committers' databases. */
  database: { host: string; port: number };
}
