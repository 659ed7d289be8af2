// What a running Fabric node says of its ledgers, read from its operations endpoint's Prometheus
// text (/metrics, beside /healthz): per channel, the ledger height (ledger_blockchain_height, peers
// and orderers alike) and how many others it knows there: a peer, the peers its gossip knows
// (gossip_membership_total_peers_known); an orderer, the other raft consenters active
// (consensus_etcdraft_active_nodes less itself). A Fabric 3.x BFT orderer also says whether it is
// the channel's SmartBFT leader (consensus_BFT_is_leader, per the latest committed block): bftLeader.
//
// For the node as a whole (SPEC's block_height and peer_count, integers): the highest of its
// channels, 0 on a node that has joined none.
import type { ConsortiumLedgerReadings } from '../../domain/consortium/consortiumPorts.ts';

const NAMES = ['ledger_blockchain_height', 'gossip_membership_total_peers_known', 'consensus_etcdraft_active_nodes', 'consensus_BFT_is_leader'] as const;
const LINE = /^(ledger_blockchain_height|gossip_membership_total_peers_known|consensus_etcdraft_active_nodes|consensus_BFT_is_leader)\{([^}]*)\}\s+([0-9.eE+-]+)\s*$/;
const CHANNEL = /(?:^|,)channel="((?:[^"\\]|\\.)*)"/;

/** The lines of `text` that start with `name{`, in order. A probe reads 17-28 KB of /metrics from each
 * node every interval; searching for the four names costs a fraction of splitting every line. */
function linesOf(text: string, name: string): string[] {
  const key = `${name}{`;
  const lines: string[] = [];
  const take = (at: number) => {
    const end = text.indexOf('\n', at);
    lines.push(text.slice(at, end < 0 ? text.length : end));
  };
  if (text.startsWith(key)) take(0);
  for (let i = text.indexOf(`\n${key}`); i >= 0; i = text.indexOf(`\n${key}`, i + 1)) take(i + 1);
  return lines;
}

/** Parses the metrics text of a peer or orderer into its per-channel readings and their maxima. */
export function ledgerReadingsOf(metricsText: string, role: 'peer' | 'orderer'): ConsortiumLedgerReadings {
  const channels = new Map<string, ConsortiumLedgerReadings['channels'][number]>();
  for (const line of NAMES.flatMap((name) => linesOf(metricsText, name))) {
    const m = LINE.exec(line);
    if (!m) continue;
    const channel = CHANNEL.exec(m[2])?.[1];
    const value = Number(m[3]);
    if (channel === undefined || !Number.isFinite(value)) continue;
    const c = channels.get(channel) ?? { channel, blockHeight: null, peerCount: null };
    if (m[1] === 'ledger_blockchain_height') c.blockHeight = Math.trunc(value);
    else if (m[1] === 'gossip_membership_total_peers_known' && role === 'peer') c.peerCount = Math.trunc(value);
    else if (m[1] === 'consensus_etcdraft_active_nodes' && role === 'orderer') c.peerCount = Math.max(0, Math.trunc(value) - 1);
    else if (m[1] === 'consensus_BFT_is_leader' && role === 'orderer') c.bftLeader = value === 1;
    channels.set(channel, c);
  }
  const list = [...channels.values()].sort((a, b) => a.channel.localeCompare(b.channel));
  const max = (k: 'blockHeight' | 'peerCount') => list.reduce((m, c) => Math.max(m, c[k] ?? 0), 0);
  return { blockHeight: max('blockHeight'), peerCount: max('peerCount'), channels: list };
}
