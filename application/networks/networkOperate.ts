// Stopping or restarting a whole network (POST /networks/{networkId}/stop, /restart) of any
// platform whose network starts as a whole (evm, consortium: POST /networks/{networkId}/start).
// One NetworkStopped or NetworkRestarted event names the nodes in start order (evm bootnodes,
// validators, then the others; consortium orderers before peers); then each node is stopped in
// the reverse order, each awaited before the next; a restart then starts them in order, each
// awaited (running or failed) before the next. Every node's stop and start is the node's own
// command (operateNode), as POST /nodes/{id}/stop and /start run it.
import { runCommand, type CommandInput } from '../commands.ts';
import { networkOperations, networkOperationsStream, startOrder, type NetworkPlatform } from '../../domain/networks/networkOperation.ts';
import { getConsortiumNetwork, consortiumNetworkMembers, type ConsortiumNetworkRow } from '../../projections/consortium/consortiumNetworks.ts';
import { getNode, type NodeRow } from '../../projections/nodes.ts';
import type { EvmNetworkRow } from '../../projections/evm/evmNetworks.ts';
import { networkOr404 } from '../evm/evmContext.ts';
import { awaitSettled, networkNodes } from '../evm/evmNodeCreate.ts';
import { operateNode } from '../nodes/nodeOperate.ts';

export type NetworkAction = 'stop' | 'restart';

export type OperatedNetwork =
  | { platform: 'consortium'; network: ConsortiumNetworkRow; nodes: NodeRow[] }
  | { platform: 'evm'; network: EvmNetworkRow; nodes: NodeRow[] };

export async function operateNetwork(input: CommandInput, networkId: number, action: NetworkAction): Promise<OperatedNetwork> {
  const { deps } = input;
  const consortium = await getConsortiumNetwork(deps.pool, networkId);
  let platform: NetworkPlatform;
  let name: string;
  let nodes: NodeRow[];
  let found: Omit<OperatedNetwork, 'nodes'>;
  if (consortium) {
    const members = await consortiumNetworkMembers(deps.pool, consortium.id);
    nodes = (await Promise.all(members.map((m) => getNode(deps.pool, m.nodeId)))).filter((n): n is NodeRow => !!n);
    platform = 'consortium';
    name = consortium.name;
    found = { platform, network: consortium };
  } else {
    const evm = await networkOr404(deps, networkId);
    nodes = await networkNodes(input, evm.id);
    platform = 'evm';
    name = evm.name;
    found = { platform, network: evm };
  }
  const ordered = startOrder(nodes);
  const data = { networkId, platform, name, nodeIds: ordered.map((n) => n.id), at: deps.clock().toISOString() };
  await runCommand(input, networkOperationsStream(platform, networkId), networkOperations, action === 'stop' ? { type: 'StopNetwork', ...data } : { type: 'RestartNetwork', ...data });
  for (const n of [...ordered].reverse()) {
    await operateNode(input, n.id, 'stop');
    await awaitSettled(input, n.id);
  }
  if (action === 'restart') {
    for (const n of ordered) {
      await operateNode(input, n.id, 'start');
      await awaitSettled(input, n.id);
    }
  }
  const after = (await Promise.all(ordered.map((n) => getNode(deps.pool, n.id)))).filter((n): n is NodeRow => !!n);
  return { ...found, nodes: after } as OperatedNetwork;
}
