// Starting an evm network: a validator the genesis names without a node gets one first (anvil:
// one node at most; a network without validators gets one plain node), then every node is asked
// to start and the call returns once each settled (running or failed). The nodes it makes are
// placed as the network's create asked (`placement`: a node host or Kubernetes cluster).
import { runCommand, type CommandInput } from '../commands.ts';
import { nodeAggregate, nodeStream } from '../../domain/nodes/node.ts';
import type { EvmNetworkRow } from '../../projections/evm/evmNetworks.ts';
import type { NodeRow } from '../../projections/nodes.ts';
import { networkOr404 } from './evmContext.ts';
import { awaitSettled, createEvmNode, networkNodes } from './evmNodeCreate.ts';

export async function startEvmNetwork(input: CommandInput, networkId: number): Promise<{ network: EvmNetworkRow; nodes: NodeRow[] }> {
  const { deps } = input;
  const network = await networkOr404(deps, networkId);
  const existing = await networkNodes(input, network.id);
  const bound = new Set(existing.map((n) => n.validatorAddress));
  const canAdd = network.client !== 'anvil' || existing.length === 0;
  // The nodes it makes go where the network's create asked (its placement), checked again now.
  const placement = { ...(network.record.placement ?? {}), placementField: 'placement' };
  for (const [i, v] of network.validators.entries()) {
    if (bound.has(v.address) || !canAdd) continue;
    await createEvmNode(input, network, { name: `${network.name}-validator-${i + 1}`, role: 'validator', isBootnode: false, ports: {}, ...placement });
    if (network.client === 'anvil') break;
  }
  if (network.validators.length === 0 && existing.length === 0) {
    await createEvmNode(input, network, { name: `${network.name}-node-1`, isBootnode: false, ports: {}, ...placement });
  }
  const nodes = await networkNodes(input, network.id);
  for (const n of nodes) await runCommand(input, nodeStream(n.id), nodeAggregate, { type: 'StartNode', nodeId: n.id, at: deps.clock().toISOString() });
  const settled = await Promise.all(nodes.map((n) => awaitSettled(input, n.id)));
  return { network, nodes: settled.filter((n): n is NodeRow => !!n) };
}
