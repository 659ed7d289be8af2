// Shared by the network, node and contract routers: the evm ports from AppDeps, and a node's
// runtime target assembled from the read models.
import type { AppDeps } from '../deps.ts';
import type { EvmDeps, EvmNodeTarget } from '../../domain/evm/evmPorts.ts';
import { NotFoundError, UnavailableError } from '../../domain/shared/errors.ts';
import { getEvmNetwork, type EvmNetworkRow } from '../../projections/evm/evmNetworks.ts';
import { getNode, type NodeRow } from '../../projections/nodes.ts';
import type { EvmNodeCreatedData } from '../../domain/evm/evmNode.ts';

export function evmOf(deps: AppDeps): EvmDeps {
  const evm = deps.evm;
  if (!evm) throw new UnavailableError('EVM networks are not configured on this server.');
  return evm;
}

export async function networkOr404(deps: AppDeps, id: number): Promise<EvmNetworkRow> {
  const n = await getEvmNetwork(deps.pool, id);
  if (!n) throw new NotFoundError('Network', id);
  return n;
}

export async function nodeOr404(deps: AppDeps, id: number): Promise<NodeRow> {
  const n = await getNode(deps.pool, id);
  if (!n) throw new NotFoundError('Node', id);
  return n;
}

function nodeRecord(node: NodeRow, networkId: number): EvmNodeCreatedData {
  return {
    nodeId: node.id,
    name: node.name,
    platform: 'EVM',
    nodeType: 'EVM_FULLNODE',
    role: node.role as EvmNodeCreatedData['role'],
    networkId,
    client: node.client as EvmNodeCreatedData['client'],
    engine: node.engine,
    config: node.config,
    validatorAddress: node.validatorAddress,
    resources: node.resources,
    at: node.createdAt,
  };
}

/**
 * A node's runtime target for reads and probes. Its peers (the network's other nodes) matter
 * only to a start, which the lifecycle saga does from the event store with its own view of them.
 */
export function targetOf(node: NodeRow, network: EvmNetworkRow): EvmNodeTarget {
  return { node: nodeRecord(node, network.id), network: network.record, peers: [] };
}

export async function nodeTarget(deps: AppDeps, node: NodeRow): Promise<EvmNodeTarget | null> {
  if (node.networkId === null) return null;
  const network = await getEvmNetwork(deps.pool, node.networkId);
  if (!network) return null;
  return targetOf(node, network);
}
