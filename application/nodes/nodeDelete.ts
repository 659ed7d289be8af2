// Deleting a node: recorded (the lifecycle saga stops it and removes its files). With deleteKeys
// its own keys (a consortium or ledgerX role node's identity and TLS keys) are deleted once it is
// gone, as DELETE /organizations/{id} and DELETE /networks/evm/{id} do theirs
// (application/keys/ownerKeysDelete.ts: KEY_DELETE needed first, each deletion audited).
import { runCommand, type CommandInput } from '../commands.ts';
import { nodeAggregate, nodeStream } from '../../domain/nodes/node.ts';
import { getNode } from '../../projections/nodes.ts';
import { assertMayDeleteKeys, deleteOwnerKeys } from '../keys/ownerKeysDelete.ts';
import { assertNodeClusterReachable, onKubernetesCluster } from '../hosts/hostPlacement.ts';

export async function deleteNode(input: CommandInput, nodeId: number, opts: { deleteKeys?: boolean; deleteVolume?: boolean } = {}): Promise<number[]> {
  if (opts.deleteKeys) assertMayDeleteKeys(input);
  const node = await getNode(input.deps.pool, nodeId);
  await assertNodeClusterReachable(input, node);
  // A node on a Kubernetes cluster keeps its claim (its ledger) unless asked; NodeDeleted says which.
  const onCluster = await onKubernetesCluster(input, node);
  const volume = onCluster ? (opts.deleteVolume ? ('deleted' as const) : ('kept' as const)) : undefined;
  await runCommand(input, nodeStream(nodeId), nodeAggregate, { type: 'DeleteNode', nodeId, ...(volume ? { volume } : {}), at: input.deps.clock().toISOString() });
  if (!opts.deleteKeys || !node) return [];
  return deleteOwnerKeys(input, `node ${node.name}`, node.keyIds);
}
