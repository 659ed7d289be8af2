// The ledgerX platform in a backup (domain/backups/backupPorts.ts BackupPart) and in `lnm
// restore`. A backup of everything takes, besides the node directories (arma's ledger, WAL and
// config; the sidecar's block store; every role's MSP and TLS files):
//   ledgerx/group-<id>/                     each group's join: the channel's genesis block, its party id
//   backup-export/ledgerx/committer-<id>/   each committer's database made in the service's own
//                                           PostgreSQL, exported as one snapshot (committerDatabaseBackup.ts)
// A one-node backup of a group (or of one of its roles) takes the group's join, every role's
// directory and, for a committer, its database. A committer whose database was given as a
// connection string (config.databaseUrl, `external`) is not exported: that database is its
// owner's, to back up with their own tools; backup.json names it. A vc's and a query service's
// committer.yaml (it holds the database password) is left out: every start writes it again.
//
// The restore (offline, into the scratch cluster `lnm restore` builds) makes each exported
// committer's role and database again (same names) and imports the export as that role. The
// role gets no password here (the restore has no KEY_ENCRYPTION_KEY): the service sets the
// derived one each time it starts a committer service (bin/server.ts committerDatabaseAccess).
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import type { BackupPart } from '../../domain/backups/backupPorts.ts';
import type { LedgerXCommitterDatabase } from '../../domain/ledgerx/ledgerxNode.ts';
import { COMMITTER_CONFIG_FILE } from './committerLaunch.ts';
import { exportCommitterDatabase, importCommitterDatabase, readCommitterManifest, type CommitterDatabaseConnection } from './committerDatabaseBackup.ts';

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
      const committers: { groupId: number; database: string; exported: boolean; rows?: number; reason?: string }[] = [];
      for (const g of chosen.filter((x) => x.node_type === 'LEDGERX_COMMITTER' && x.config.database)) {
        const database = g.config.database!;
        if (database.external) {
          committers.push({ groupId: g.id, database: database.name, exported: false, reason: 'given as a connection string (config.databaseUrl): back it up with its own tools' });
          continue;
        }
        const m = await exportCommitterDatabase(await deps.committerAccess(g.id, database), path.join(exportDir, committerDir(g.id)));
        committers.push({ groupId: g.id, database: database.name, exported: true, rows: Object.values(m.rows).reduce((a, b) => a + b, 0) });
      }
      // A vc's and a query service's committer.yaml hold the database password; each start writes it again.
      const excludes = chosen.filter((g) => g.node_type === 'LEDGERX_COMMITTER').flatMap((g) => ['vc', 'query'].map((r) => g.config.roleNodeIds?.[r]).filter((r): r is number => r !== undefined))
        .map((r) => path.join('nodes', `node-${r}`, COMMITTER_CONFIG_FILE));
      return { dataPaths: dataPaths.filter((p) => existsSync(path.join(deps.dataDir, p))), excludes, record: { committers } };
    },
  };
}

/**
 * In `lnm restore`, after the read models are rebuilt in the scratch cluster (`adminUrl`, a
 * superuser): each exported committer whose group is among the restored nodes gets its role and
 * database made and its export imported. Lines for the operator through `say`.
 */
export async function restoreLedgerXCommitters(exportDir: string, pool: pg.Pool, adminUrl: string, say: (line: string) => void): Promise<number> {
  const dir = path.join(exportDir, LEDGERX_PART);
  const restored = (await pool.query<GroupRow>(`SELECT id, node_type, config FROM nodes WHERE platform = 'LEDGERX' AND node_type = 'LEDGERX_COMMITTER' ORDER BY id`)).rows;
  for (const g of restored.filter((x) => x.config.database?.external)) {
    const d = g.config.database!;
    say(`  ledgerX committer ${g.id}: its database ${d.user}@${d.host}:${d.port}/${d.name} was given as a connection string; it is not in the backup and was left as it is (it must match the restored blocks: restore it from its own backup of the same time)`);
  }
  const exported = existsSync(dir) ? (await readdir(dir)).filter((f) => /^committer-\d+$/.test(f)) : [];
  let n = 0;
  for (const entry of exported) {
    const groupId = Number(entry.slice('committer-'.length));
    const group = restored.find((g) => g.id === groupId);
    const m = await readCommitterManifest(path.join(dir, entry));
    const database = group?.config.database;
    if (!group || !database || database.external) {
      say(`  ledgerX committer ${groupId}: not among the restored nodes (made after the backup's cut); its database export is left out`);
      continue;
    }
    if (!MADE_NAME.test(database.name) || !MADE_NAME.test(database.user) || m.database !== database.name) {
      throw new Error(`ledgerX committer ${groupId}: the export is of database ${m.database}, the node's record names ${database.name}`);
    }
    await pool.query(`CREATE ROLE ${database.user} LOGIN`);
    await pool.query(`CREATE DATABASE ${database.name} OWNER ${database.user}`);
    const url = new URL(adminUrl);
    url.pathname = `/${database.name}`;
    const client = new pg.Client({ connectionString: url.toString() });
    client.on('error', () => {});
    await client.connect();
    try {
      const counts = await importCommitterDatabase(client, path.join(dir, entry), database.user);
      say(`  ledgerX committer ${groupId}: database ${database.name} restored (${Object.entries(counts).map(([t, c]) => `${c} ${t}`).join(', ')})`);
      n++;
    } finally {
      await client.end().catch(() => {});
    }
  }
  return n;
}
