// Deleting a ledgerX network: refused (409 naming them) while an orderer group of it runs; its
// groups forget its block. DELETE /networks/ledgerx/{id} and the undo of a failed ledgerX quick
// start (application/creationUndo.ts) both delete through here.
import { runCommand, type CommandInput } from '../commands.ts';
import { ConflictError } from '../../domain/shared/errors.ts';
import { LEDGERX_NETWORKS_STREAM, ledgerXNetworks } from '../../domain/ledgerx/ledgerxNetwork.ts';
import { listNodes } from '../../projections/nodes.ts';
import { ledgerXNetworkOr404 } from './ledgerxNetworkCreate.ts';
import { ledgerXOf } from './ledgerxContext.ts';

export async function deleteLedgerXNetwork(input: CommandInput, networkId: number): Promise<void> {
  const { deps } = input;
  const n = await ledgerXNetworkOr404(input, networkId);
  const rows = (await listNodes(deps.pool, { limit: 10_000, offset: 0, ids: n.nodes.map((m) => m.nodeId) })).items;
  const running = rows.filter((r) => ['running', 'starting', 'down'].includes(r.status));
  if (running.length) throw new ConflictError(`Network ${n.name} has running orderer groups: ${running.map((r) => r.name).join(', ')}; stop or delete them first.`, { nodes: running.map((r) => r.id) }, 'NETWORK_IN_USE');
  await runCommand(input, LEDGERX_NETWORKS_STREAM, ledgerXNetworks, { type: 'DeleteLedgerXNetwork', networkId, at: deps.clock().toISOString() });
  for (const m of n.nodes) await ledgerXOf(deps).runtime.removeJoin(m.nodeId);
}
