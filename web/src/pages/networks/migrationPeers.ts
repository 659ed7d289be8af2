// A failed consensus migration's rollback and the channels' peers (the 409 MIGRATION_FAILED's
// context, the migration record): the peers rolled back to the restored etcdraft chain, read from
// the steps the service recorded, and those it could not roll back (`peers_not_rolled_back`: node
// id, name, channel, reason), each with what the operator does about it.
export interface PeerNotRolledBack {
  node_id: number;
  name: string;
  channel: string;
  reason: string;
}

/** The peers the rollback could not bring back to the restored chain, as the context names them. */
export function peersNotRolledBack(context: Record<string, unknown> | undefined): PeerNotRolledBack[] {
  const list = context?.peers_not_rolled_back;
  if (!Array.isArray(list)) return [];
  return list
    .filter((p): p is Record<string, unknown> => typeof p === 'object' && p !== null)
    .map((p) => ({ node_id: Number(p.node_id), name: String(p.name ?? ''), channel: String(p.channel ?? ''), reason: String(p.reason ?? '') }));
}

/** The steps that rolled a peer back (`rollback: peer <name> rolled back on channel ...`). */
export function peersRolledBack(steps: string[]): string[] {
  return steps.filter((s) => /^rollback: peer \S+ rolled back on channel /.test(s));
}

/** What the operator does for a peer not rolled back: Fabric's `peer node rollback`, or a rejoin. */
export function peerNotRolledBackAdvice(p: PeerNotRolledBack): string {
  return (
    `Peer ${p.name} still holds blocks of channel ${p.channel} that the restored etcdraft chain does not have (${p.reason}). ` +
    `Stop it and run Fabric's \`peer node rollback -c ${p.channel} -b <block>\` to the block before the restored chain's height (the steps above name it), then start it; ` +
    `or have it leave channel ${p.channel} and join it again, so it pulls the restored chain from the orderers.`
  );
}
