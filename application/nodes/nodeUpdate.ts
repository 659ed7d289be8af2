// Changing a stopped node's name or configuration, for either platform: the name checked, the
// new configuration worked out by the platform (evm: ports checked and allocated; consortium:
// ports, hostname, endpoints and certificate names), then UpdateNodeConfig (409 while running).
import { runCommand, type CommandInput } from '../commands.ts';
import { nodeAggregate, nodeStream } from '../../domain/nodes/node.ts';
import type { NodeRow } from '../../projections/nodes.ts';
import { updateConsortiumNodeConfig, type ConsortiumNodeRequest } from '../consortium/consortiumNodeCreate.ts';
import { networkOr404 } from '../evm/evmContext.ts';
import { checkNodeName, updateEvmNodePorts, type EvmNodeRequest } from '../evm/evmNodeCreate.ts';

export interface NodeUpdateRequest {
  name?: string;
  /** The platform's settings (the route refuses the other platform's fields). */
  config?: EvmNodeRequest['ports'] & ConsortiumNodeRequest['config'];
}

export async function updateNode(input: CommandInput, node: NodeRow, req: NodeUpdateRequest): Promise<void> {
  const { deps } = input;
  if (req.name !== undefined) await checkNodeName(input, req.name, node.id);
  if (node.platform === 'CONSORTIUM') {
    const config = req.config ? await updateConsortiumNodeConfig(input, node, req.config) : {};
    await runCommand(input, nodeStream(node.id), nodeAggregate, { type: 'UpdateNodeConfig', nodeId: node.id, name: req.name, config, at: deps.clock().toISOString() });
    return;
  }
  const network = await networkOr404(deps, node.networkId!);
  const config = req.config ? await updateEvmNodePorts(input, network, node, req.config) : undefined;
  await runCommand(input, nodeStream(node.id), nodeAggregate, { type: 'UpdateNodeConfig', nodeId: node.id, name: req.name, config: config ?? {}, at: deps.clock().toISOString() });
}
