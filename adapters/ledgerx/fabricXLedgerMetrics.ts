// What a running Fabric-X role says of its ledger, read from its monitoring endpoint's Prometheus
// text (/metrics). Two roles keep a ledger of the channel's blocks and export its height:
//   the committer's sidecar: sidecar_ledger_block_height (its block store's height);
//   arma's assembler: assembler_ledger_blocks_count_total (the blocks in its ledger, block 0
//   included: the same number as a height).
// The other roles (router, batcher, consenter; coordinator, vc, verifier, query) keep no block
// ledger and export no height; no role exports a count of peers (Fabric-X has no gossip, and
// arma's consenter exports no count of the other parties it sees), so peers stay null.
import type { LedgerXCommitterRole, LedgerXOrdererRole } from '../../domain/ledgerx/ledgerxNode.ts';

/** The metric that carries the role's block height, or null for a role that keeps no ledger. */
export function heightMetricOf(role: LedgerXOrdererRole | LedgerXCommitterRole): string | null {
  return role === 'sidecar' ? 'sidecar_ledger_block_height' : role === 'assembler' ? 'assembler_ledger_blocks_count_total' : null;
}

/** The block height in a role's metrics text (the highest sample of its height metric); null when absent. */
export function blockHeightOf(metricsText: string, role: LedgerXOrdererRole | LedgerXCommitterRole): number | null {
  const name = heightMetricOf(role);
  if (!name) return null;
  let height: number | null = null;
  for (const line of metricsText.split('\n')) {
    if (!line.startsWith(name)) continue;
    const m = /^([a-z_]+)(?:\{[^}]*\})?\s+([0-9.eE+-]+)(?:\s+\d+)?\s*$/.exec(line);
    if (!m || m[1] !== name) continue;
    const v = Number(m[2]);
    if (Number.isFinite(v) && v >= 0) height = Math.max(height ?? 0, Math.trunc(v));
  }
  return height;
}
