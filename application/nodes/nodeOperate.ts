// Starting, stopping or restarting a node. A ledgerX orderer group or committer starts its roles
// in Fabric-X's order, each awaited (its row after the start is returned); every other node's
// start or stop is one command that the lifecycle saga carries out.
import { runCommand, type CommandInput } from '../commands.ts';
import { nodeAggregate, nodeStream } from '../../domain/nodes/node.ts';
import { getNode, type NodeRow } from '../../projections/nodes.ts';
import { startLedgerXOrdererGroup } from '../ledgerx/ledgerxOrdererGroupStart.ts';
import { assertNodeClusterReachable, assertNodeObjectsNotOthers } from '../hosts/hostPlacement.ts';

export type NodeAction = 'start' | 'stop' | 'restart';

/** The ledgerX group's row once its roles started; null for a node whose outcome the lifecycle saga records. */
export async function operateNode(input: CommandInput, nodeId: number, action: NodeAction): Promise<{ ledgerXGroup: NodeRow | null }> {
  const { deps } = input;
  const row = await getNode(deps.pool, nodeId);
  await assertNodeClusterReachable(input, row);
  if (action !== 'stop') {
    if (row && row.nodeType !== 'LEDGERX_ORDERER_GROUP' && row.nodeType !== 'LEDGERX_COMMITTER') await assertNodeObjectsNotOthers(input, row, action);
    if (row?.nodeType === 'LEDGERX_ORDERER_GROUP' || row?.nodeType === 'LEDGERX_COMMITTER') {
      return { ledgerXGroup: await startLedgerXOrdererGroup(input, row, { restart: action === 'restart' }) };
    }
  }
  const at = deps.clock().toISOString();
  const command = action === 'stop' ? { type: 'StopNode' as const, nodeId, at } : { type: 'StartNode' as const, nodeId, restart: action === 'restart', at };
  await runCommand(input, nodeStream(nodeId), nodeAggregate, command);
  return { ledgerXGroup: null };
}
