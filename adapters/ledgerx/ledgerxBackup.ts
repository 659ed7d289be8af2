// The ledgerX platform in a backup (domain/backups/backupPorts.ts BackupPart) and in `lnm
// restore`. A backup of everything takes, besides the node directories (arma's ledger, WAL and
// config; the sidecar's block store; every role's MSP and TLS files):
//   ledgerx/group-<id>/                     each group's join: the channel's genesis block, its party id
//   backup-export/ledgerx/committer-<id>/   each committer's database, exported as one snapshot
//                                           (committerDatabaseBackup.ts): one made in the service's
//                                           own PostgreSQL, or one given as a connection string
//                                           (config.databaseUrl, `external`), read through it
// A one-node backup of a group (or of one of its roles) takes the group's join, every role's
// directory and, for a committer, its database. A vc's and a query service's committer.yaml (it
// holds the database password) is left out: every start writes it again. A committer database
// that cannot be read (an external one that does not answer) fails the backup, naming the
// committer; the password is in no message.
//
// The restore (offline, into the scratch cluster `lnm restore` builds) makes each exported
// service-made committer's role and database again (same names) and imports the export as that
// role. The role gets no password here: the service sets the derived one each time it starts a
// committer service (bin/server.ts committerDatabaseAccess). An external committer's export goes
// back into its own database, as its user (the password opened with the key encryption key the
// operator gives `lnm restore`), by `external.mode`:
//   import   only into a database holding none of the committer's tables or sequences (empty or
//            freshly made); one holding data is refused, naming the committer
//   replace  its tables, sequences and functions dropped and the export imported, in one transaction
//   keep     left as it is (the operator restored it with their own tools)
// Every external database is reached and checked before any is written; each import is one
// transaction, so a database is either imported whole or left as it was.
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import type { BackupPart } from '../../domain/backups/backupPorts.ts';
import { COMMITTER_CONFIG_FILE } from './committerLaunch.ts';
import { CommitterExportError, committerDatabaseHoldings, exportCommitterDatabase, importCommitterDatabase, readCommitterManifest, type CommitterDatabaseConnection } from './committerDatabaseBackup.ts';
import { ledgerXDatabasePasswordContext, type LedgerXCommitterDatabase } from '../../domain/ledgerx/ledgerxNode.ts';

export const LEDGERX_PART = 'ledgerx';
const committerDir = (groupId: number) => `committer-${groupId}`;
/** Names the service makes (application/ledgerx/ledgerxCommitterCreate.ts), the only ones a restore creates. */
const MADE_NAME = /^lnm_ledgerx_(?:[0-9a-f]{8}_)?committer_\d+$/;

interface GroupRow {
  id: number;
  node_type: 'LEDGERX_ORDERER_GROUP' | 'LEDGERX_COMMITTER';
  config: { roleNodeIds: Record<string, number>; database?: LedgerXCommitterDatabase };
}

export interface LedgerXBackupDeps {
  pool: pg.Pool;
  dataDir: string;
  /** Where and as whom the service reaches a committer's database (the password never leaves pg). */
  committerAccess: (groupId: number, database: LedgerXCommitterDatabase) => Promise<CommitterDatabaseConnection>;
}

export function ledgerXBackupPart(deps: LedgerXBackupDeps): BackupPart {
  return {
    name: LEDGERX_PART,
    async export(exportDir, nodeIds) {
      const groups = (await deps.pool.query<GroupRow>(`SELECT id, node_type, config FROM nodes WHERE platform = 'LEDGERX' AND node_type IN ('LEDGERX_ORDERER_GROUP', 'LEDGERX_COMMITTER') ORDER BY id`)).rows;
      const chosen = nodeIds === null ? groups : groups.filter((g) => nodeIds.includes(g.id) || Object.values(g.config.roleNodeIds ?? {}).some((r) => nodeIds.includes(r)));
      const dataPaths = nodeIds === null
        ? ['ledgerx']
        : chosen.flatMap((g) => [path.join('ledgerx', `group-${g.id}`), ...Object.values(g.config.roleNodeIds ?? {}).map((r) => path.join('nodes', `node-${r}`))]);
      const committers: { groupId: number; database: string; exported: boolean; external?: boolean; rows?: number }[] = [];
      for (const g of chosen.filter((x) => x.node_type === 'LEDGERX_COMMITTER' && x.config.database)) {
        const database = g.config.database!;
        let m: Awaited<ReturnType<typeof exportCommitterDatabase>>;
        try {
          m = await exportCommitterDatabase(await deps.committerAccess(g.id, database), path.join(exportDir, committerDir(g.id)));
        } catch (err) {
          // The committer named; the connection's password never was in the message (committerDatabaseBackup.ts).
          throw new CommitterExportError(`ledgerX committer ${g.id}: ${(err as Error).message}`);
        }
        committers.push({ groupId: g.id, database: database.name, exported: true, ...(database.external ? { external: true } : {}), rows: Object.values(m.rows).reduce((a, b) => a + b, 0) });
      }
      // A vc's and a query service's committer.yaml hold the database password; each start writes it again.
      const excludes = chosen.filter((g) => g.node_type === 'LEDGERX_COMMITTER').flatMap((g) => ['vc', 'query'].map((r) => g.config.roleNodeIds?.[r]).filter((r): r is number => r !== undefined))
        .map((r) => path.join('nodes', `node-${r}`, COMMITTER_CONFIG_FILE));
      return { dataPaths: dataPaths.filter((p) => existsSync(path.join(deps.dataDir, p))), excludes, record: { committers } };
    },
  };
}

export type ExternalDatabaseMode = 'import' | 'replace' | 'keep';
export const EXTERNAL_DATABASE_MODES: readonly ExternalDatabaseMode[] = ['import', 'replace', 'keep'];

export interface ExternalCommitterRestore {
  mode: ExternalDatabaseMode;
  /** Opens a sealed password (the key encryption key of the backed-up server); null when none was given. */
  openPassword: ((sealed: string, context: string) => Promise<string>) | null;
}

/** A restore step that cannot go on: the message names the committer, never a password. */
export class CommitterRestoreError extends Error {}

const addressOf = (d: LedgerXCommitterDatabase) => `${d.user}@${d.host}:${d.port}/${d.name}`;

/**
 * In `lnm restore`, after the read models are rebuilt in the scratch cluster (`adminUrl`, a
 * superuser): each exported committer whose group is among the restored nodes gets its database
 * back: a service-made one made again in the scratch cluster, an external one imported into its
 * own database (see the head of this file). Lines for the operator through `say`.
 */
export async function restoreLedgerXCommitters(exportDir: string, pool: pg.Pool, adminUrl: string, say: (line: string) => void, external: ExternalCommitterRestore = { mode: 'import', openPassword: null }): Promise<number> {
  const dir = path.join(exportDir, LEDGERX_PART);
  const restored = (await pool.query<GroupRow>(`SELECT id, node_type, config FROM nodes WHERE platform = 'LEDGERX' AND node_type = 'LEDGERX_COMMITTER' ORDER BY id`)).rows;
  const exported = existsSync(dir) ? (await readdir(dir)).filter((f) => /^committer-\d+$/.test(f)) : [];
  const made: { groupId: number; database: LedgerXCommitterDatabase; from: string }[] = [];
  const theirs: { groupId: number; database: LedgerXCommitterDatabase; from: string }[] = [];
  for (const entry of exported) {
    const groupId = Number(entry.slice('committer-'.length));
    const database = restored.find((g) => g.id === groupId)?.config.database;
    const m = await readCommitterManifest(path.join(dir, entry));
    if (!database) {
      say(`  ledgerX committer ${groupId}: not among the restored nodes (made after the backup's cut); its database export is left out`);
      continue;
    }
    if (m.database !== database.name || (!database.external && (!MADE_NAME.test(database.name) || !MADE_NAME.test(database.user)))) {
      throw new CommitterRestoreError(`ledgerX committer ${groupId}: the export is of database ${m.database}, the node's record names ${database.name}`);
    }
    (database.external ? theirs : made).push({ groupId, database, from: path.join(dir, entry) });
  }
  // An external committer without an export: a backup taken before external databases were exported.
  for (const g of restored.filter((x) => x.config.database?.external && !theirs.some((t) => t.groupId === x.id))) {
    say(`  ledgerX committer ${g.id}: its database ${addressOf(g.config.database!)} was given as a connection string and this backup holds no export of it; it was left as it is (it must match the restored blocks: restore it from its own backup of the same time)`);
  }

  // Every external database reached and checked before anything is written.
  const clients: { groupId: number; database: LedgerXCommitterDatabase; from: string; client: pg.Client; password: string }[] = [];
  try {
    for (const x of theirs) {
      if (external.mode === 'keep') {
        say(`  ledgerX committer ${x.groupId}: its database ${addressOf(x.database)} was given as a connection string; left as it is (--external-databases keep): it must match the restored blocks`);
        continue;
      }
      if (!external.openPassword) {
        throw new CommitterRestoreError(`ledgerX committer ${x.groupId}: its database ${addressOf(x.database)} was given as a connection string; importing the backup's export into it needs the KEY_ENCRYPTION_KEY the backed-up server used (KEY_ENCRYPTION_KEY or --key-encryption-key-file <file>), or --external-databases keep leaves that database as it is`);
      }
      let password: string;
      try {
        password = await external.openPassword(x.database.sealedPassword ?? '', ledgerXDatabasePasswordContext(x.groupId));
      } catch {
        throw new CommitterRestoreError(`ledgerX committer ${x.groupId}: the password of its database ${addressOf(x.database)} does not open with the given key encryption key (is it the one the backed-up server used?)`);
      }
      const client = new pg.Client({ host: x.database.host, port: x.database.port, database: x.database.name, user: x.database.user, password, connectionTimeoutMillis: 10_000 });
      client.on('error', () => {});
      const scrub = (m: string) => (password ? m.split(password).join('<redacted>') : m);
      try {
        await client.connect();
      } catch (err) {
        await client.end().catch(() => {});
        throw new CommitterRestoreError(`ledgerX committer ${x.groupId}: its database ${addressOf(x.database)} cannot be reached: ${scrub((err as Error).message || String((err as { code?: string }).code ?? err))}`);
      }
      clients.push({ ...x, client, password });
      let holds: string[];
      try {
        holds = await committerDatabaseHoldings(client);
      } catch (err) {
        throw new CommitterRestoreError(`ledgerX committer ${x.groupId}: its database ${addressOf(x.database)} could not be read: ${scrub((err as Error).message)}`);
      }
      if (holds.length && external.mode === 'import') {
        throw new CommitterRestoreError(`ledgerX committer ${x.groupId}: its database ${addressOf(x.database)} already holds data (${holds.slice(0, 5).join(', ')}${holds.length > 5 ? `, and ${holds.length - 5} more` : ''}); lnm restore imports only into a database without the committer's tables. Empty it (or make it again, empty), or pass --external-databases replace to drop its tables and import the backup's, or keep to leave it as it is`);
      }
    }

    let n = 0;
    for (const x of made) {
      await pool.query(`CREATE ROLE ${x.database.user} LOGIN`);
      await pool.query(`CREATE DATABASE ${x.database.name} OWNER ${x.database.user}`);
      const url = new URL(adminUrl);
      url.pathname = `/${x.database.name}`;
      const client = new pg.Client({ connectionString: url.toString() });
      client.on('error', () => {});
      await client.connect();
      try {
        const counts = await importCommitterDatabase(client, x.from, x.database.user);
        say(`  ledgerX committer ${x.groupId}: database ${x.database.name} restored (${Object.entries(counts).map(([t, c]) => `${c} ${t}`).join(', ')})`);
        n++;
      } finally {
        await client.end().catch(() => {});
      }
    }
    // Last, as their writes outlive a failure of this restore: each in one transaction.
    for (const x of clients) {
      let counts: Record<string, number>;
      try {
        counts = await importCommitterDatabase(x.client, x.from, x.database.user, { replace: external.mode === 'replace' });
      } catch (err) {
        const m = (err as Error).message;
        throw new CommitterRestoreError(`ledgerX committer ${x.groupId}: importing into its database ${addressOf(x.database)} failed, that database is as it was: ${x.password ? m.split(x.password).join('<redacted>') : m}`);
      }
      say(`  ledgerX committer ${x.groupId}: its database ${addressOf(x.database)} (given as a connection string) ${external.mode === 'replace' ? 'replaced' : 'imported'} (${Object.entries(counts).map(([t, c]) => `${c} ${t}`).join(', ')})`);
      n++;
    }
    return n;
  } finally {
    for (const x of clients) await x.client.end().catch(() => {});
  }
}
