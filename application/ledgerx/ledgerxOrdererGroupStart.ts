// Starting an orderer group or a committer in Fabric-X's order: each role (orderer: consenter,
// batcher, assembler, router; committer: vc, verifier, query, coordinator, sidecar) is asked to start and awaited up to the join timeout before the next; a role that does
// not come up stops the sequence with a 422 naming it, why, and its last log lines. A role
// recorded running whose process is gone is started again. Then the
// group node itself is recorded started (its operations see four running roles).
import { runCommand, type CommandInput } from '../commands.ts';
import { AppError } from '../../domain/shared/errors.ts';
import { nodeAggregate, nodeStream } from '../../domain/nodes/node.ts';
import { maskSecrets } from '../../domain/nodes/nodeEngine.ts';
import { LEDGERX_COMMITTER_START_ORDER, LEDGERX_ORDERER_START_ORDER, type LedgerXRoleNodeCreatedData } from '../../domain/ledgerx/ledgerxNode.ts';
import { loadState } from '../../domain/shared/commandHandler.ts';
import { getNode, type NodeRow } from '../../projections/nodes.ts';
import { awaitSettled } from '../evm/evmNodeCreate.ts';
import { ledgerXOf } from './ledgerxContext.ts';

export async function startLedgerXOrdererGroup(input: CommandInput, group: NodeRow, opts: { restart?: boolean } = {}): Promise<NodeRow> {
  const { deps } = input;
  const ledgerx = ledgerXOf(deps);
  const ids = (group.config as unknown as { roleNodeIds: Record<string, number> }).roleNodeIds;
  const committer = group.nodeType === 'LEDGERX_COMMITTER';
  const noun = committer ? 'committer' : 'orderer group';
  for (const role of committer ? LEDGERX_COMMITTER_START_ORDER : LEDGERX_ORDERER_START_ORDER) {
    const id = ids[role];
    // A role recorded running whose process is not (a data directory restored from a backup taken
    // while it ran, before the health monitor has seen it down) is started again, not skipped.
    const { state: recorded } = await loadState(deps.store, nodeStream(id), nodeAggregate);
    const stale = !opts.restart && recorded.status === 'running' && recorded.node
      ? (await ledgerx.runtime.status(recorded.node as LedgerXRoleNodeCreatedData).catch(() => ({ state: 'unknown' }))).state !== 'running'
      : false;
    await runCommand(input, nodeStream(id), nodeAggregate, { type: 'StartNode', nodeId: id, restart: opts.restart || stale || undefined, at: deps.clock().toISOString() });
    const row = await awaitSettled(input, id, ledgerx.joinTimeoutMs);
    if (row?.status === 'running') continue;
    const { state } = await loadState(deps.store, nodeStream(id), nodeAggregate);
    const tail = state.node ? (await ledgerx.runtime.logs(state.node as LedgerXRoleNodeCreatedData, 8).catch(() => [] as string[])).map(maskSecrets) : [];
    const why = row?.status === 'starting' ? `it did not come up within ${Math.round(ledgerx.joinTimeoutMs / 1000)} s` : (row?.error ?? `its status is ${row?.status ?? 'unknown'}`);
    throw new AppError(422, 'ROLE_START_FAILED', `The ${role} of ${noun} ${group.name} (node ${id}) did not come up: ${why}${tail.length ? ` | last log lines: ${tail.join(' | ')}` : ''}`, { extra: { nodeId: group.id, roleNodeId: id, role, lastLogLines: tail } });
  }
  await runCommand(input, nodeStream(group.id), nodeAggregate, { type: 'StartNode', nodeId: group.id, restart: opts.restart, at: deps.clock().toISOString() });
  return (await awaitSettled(input, group.id, 30_000)) ?? (await getNode(deps.pool, group.id))!;
}
