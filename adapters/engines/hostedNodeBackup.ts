// Nodes on node hosts in a backup (domain/backups/backupPorts.ts BackupPart) and in `lnm
// restore`. A node on a host keeps what it writes (ledger, chain state) in a volume on that host
// (dockerEngine.ts), which this machine's disk never holds: nodes/<node>/ here is only the
// staging copy of its config. So a backup reads each such node's directory through its host's
// engine (the archive of the directory in its container, which is the volume) into
//   backup-export/hosts/node-<id>/          the node's files as its container sees them
// and backup.json names, per node, its host and how many files were read. A host that does not
// answer fails the backup, naming the node and the host: a COMPLETED backup without a node's
// ledger would be a false promise. A node that never started (no container) has nothing on its
// host; it is listed with files 0. A node on a Kubernetes cluster is read the same way from its
// claim there (kubernetesEngine.ts copyNodeDataOut: a helper pod mounting the claim), and put back
// into its claim at its next start.
//
// `lnm restore` moves backup-export/hosts/ to <dataDir>/hosted-restore/ (restoreHostedNodes);
// the node's next start on its host empties its volume and puts these files back through the
// engine (putArchive), then removes them here.
import { existsSync } from 'node:fs';
import { readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';
import type { BackupPart } from '../../domain/backups/backupPorts.ts';
import { nodeKey } from '../../domain/nodes/node.ts';
import { HOSTED_RESTORE_DIR } from './dockerEngine.ts';
import type { HostEngines } from './hostEngines.ts';

export const HOSTS_PART = 'hosts';

export function hostedNodesBackupPart(deps: { pool: pg.Pool; hostEngines: HostEngines }): BackupPart {
  return {
    name: HOSTS_PART,
    async export(exportDir, nodeIds) {
      const rows = (await deps.pool.query<{ id: number; host_id: string }>(`SELECT id, config->>'hostId' AS host_id FROM nodes WHERE config ? 'hostId' AND config->>'hostId' IS NOT NULL ORDER BY id`)).rows;
      const chosen = rows.filter((r) => nodeIds === null || nodeIds.includes(r.id));
      const nodes: { nodeId: number; hostId: number; files: number; bytes: number; skipped: number }[] = [];
      for (const r of chosen) {
        const hostId = Number(r.host_id);
        const engine = await deps.hostEngines(hostId);
        if (!engine) throw new Error(`node ${r.id} is placed on host ${hostId}, which is not registered: its data cannot be read`);
        let copied;
        try {
          copied = await engine.copyNodeDataOut(nodeKey(r.id), path.join(exportDir, nodeKey(r.id)));
        } catch (err) {
          throw new Error(`node ${r.id} on host ${hostId}: its data could not be read through the host's engine: ${((err as Error).message ?? String(err)).split('\n')[0]}`);
        }
        nodes.push({ nodeId: r.id, hostId, ...(copied ?? { files: 0, bytes: 0, skipped: 0 }) });
      }
      return { dataPaths: [], excludes: [], record: { nodes } };
    },
  };
}

/**
 * In `lnm restore`, with the output directory written: the hosted nodes' files of the backup go
 * to <outputDir>/hosted-restore/ (replacing any left there), for each node's next start.
 * Returns the node keys.
 */
export async function restoreHostedNodes(exportDir: string, outputDir: string): Promise<string[]> {
  const target = path.join(outputDir, HOSTED_RESTORE_DIR);
  await rm(target, { recursive: true, force: true });
  const dir = path.join(exportDir, HOSTS_PART);
  if (!existsSync(dir)) return [];
  await rename(dir, target);
  return (await readdir(target)).filter((f) => /^node-\d+$/.test(f)).sort();
}
