// A failed consensus migration's rollback and the channels' peers (the 409 MIGRATION_FAILED's
// context, the migration record): the peers rolled back to the restored etcdraft chain, read from
// the steps the service recorded, and those it could not roll back (`peers_not_rolled_back`: node
// id, name, channel, reason), each with what the operator does about it; and how each channel was left
// (`channels`). The 409 and GET .../consensus/migration (after a reload) carry the same fields.
export interface PeerNotRolledBack {
  node_id: number;
  name: string;
  channel: string;
  reason: string;
}

/** The objects of a list field of the record; none where the field is absent or not a list. */
function objectsOf(record: Record<string, unknown> | undefined, field: string): Array<Record<string, unknown>> {
  const list = record?.[field];
  return Array.isArray(list) ? list.filter((o): o is Record<string, unknown> => typeof o === 'object' && o !== null) : [];
}

/** The peers the rollback could not bring back to the restored chain, as the context names them. */
export function peersNotRolledBack(context: Record<string, unknown> | undefined): PeerNotRolledBack[] {
  return objectsOf(context, 'peers_not_rolled_back').map((p) => ({ node_id: Number(p.node_id), name: String(p.name ?? ''), channel: String(p.channel ?? ''), reason: String(p.reason ?? '') }));
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

/** How the migration left one of its channels (the 409's context.channels, GET .../consensus/migration's channels). */
export interface MigrationChannel {
  network_id: number;
  channel_name: string;
  consensus: string;
  state: string;
}

/** The channels as the record names them; none without the field (a migration still running, or recorded before it was). */
export function migrationChannels(record: Record<string, unknown> | undefined): MigrationChannel[] {
  return objectsOf(record, 'channels').map((c) => ({ network_id: Number(c.network_id), channel_name: String(c.channel_name ?? ''), consensus: String(c.consensus ?? 'unknown'), state: String(c.state ?? 'unknown') }));
}

/** One channel's state in words: ordering on SmartBFT, waiting in maintenance on SmartBFT (a resume takes it out), back on etcdraft, or not known. */
export function migrationChannelText(c: MigrationChannel): string {
  const name = `Channel ${c.channel_name}`;
  if (c.consensus === 'smartbft' && c.state === 'normal') return `${name}: runs SmartBFT and orders (it left maintenance on SmartBFT; it cannot go back to etcdraft).`;
  if (c.consensus === 'smartbft' && c.state === 'maintenance') return `${name}: switched to SmartBFT but still in maintenance (no transactions): resuming the migration takes it out of maintenance on SmartBFT.`;
  if (c.consensus === 'etcdraft' && c.state === 'normal') return `${name}: back on etcdraft (raft) and out of maintenance, as before the migration.`;
  return `${name}: its state is not known (${c.consensus}, ${c.state}): read its channel configuration (consensus type and state) before anything else.`;
}
