// The service as the exporter of nodes that serve no metrics themselves (anvil, besu bootnodes):
// at each scrape it asks the node (its JSON-RPC, or its P2P port) and answers what it saw.
import type { NodeReading } from '../../domain/nodes/nodeOperations.ts';

export function nodeExposition(reading: NodeReading): string {
  const lines: string[] = [];
  const gauge = (name: string, help: string, value: number | null) => {
    if (value === null) return;
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} gauge`, `${name} ${value}`);
  };
  gauge('lnm_node_block_height', 'Block height the node reports (eth_blockNumber)', reading.blockHeight);
  gauge('lnm_node_peer_count', 'Peers the node reports (net_peerCount)', reading.peerCount);
  return lines.join('\n') + '\n';
}
