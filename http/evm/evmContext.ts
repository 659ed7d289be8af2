// Shared by the network, node and contract routers: the evm ports from AppDeps, and a node's
// runtime target assembled from the read models.
import type { AppDeps } from '../deps.ts';
import type { EvmDeps, EvmNodeTarget } from '../../domain/evm/evmPorts.ts';
import { NotFoundError, UnavailableError } from '../../domain/shared/errors.ts';
import { getEvmNetwork, type EvmNetworkRow } from '../../projections/evmNetworks.ts';
import { getNode, listNodes, type NodeRow } from '../../projections/evmNodes.ts';
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
    client: node.client,
    engine: node.engine,
    config: node.config,
    validatorAddress: node.validatorAddress,
    resources: node.resources,
    at: node.createdAt,
  };
}

/**
 * A node's runtime target. `peers` (the network's other nodes) matters only to a start, which
 * the lifecycle saga does from the event store; reads may pass none (see nodeTarget for all).
 */
export function targetOf(node: NodeRow, network: EvmNetworkRow, peers: NodeRow[] = []): EvmNodeTarget {
  return {
    node: nodeRecord(node, network.id),
    network: network.record,
    peers: peers.filter((p) => p.id !== node.id).map((p) => nodeRecord(p, network.id)),
  };
}

export async function nodeTarget(deps: AppDeps, node: NodeRow): Promise<EvmNodeTarget | null> {
  if (node.networkId === null) return null;
  const network = await getEvmNetwork(deps.pool, node.networkId);
  if (!network) return null;
  const peers = (await listNodes(deps.pool, { limit: 10_000, offset: 0, networkId: network.id })).items;
  return targetOf(node, network, peers);
}
