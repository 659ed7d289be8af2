// Undoing a failed create (POST /creations/{id}/undo): one call removes everything the create
// made that is still there, in the order the deletes allow: its nodes (stopped and their files
// removed by the lifecycle saga), then its networks (refused while joined nodes remain), then its
// organizations with their keys (their CAs, admin, and the keys of their deleted nodes), then the
// keys it made itself. Each removal is the same use case as the single delete (each audited);
// what is already gone counts as removed; what cannot be removed is left, with why, and a second
// undo tries it again. The removal is recorded on the create (CreationUndone, audited).
import { runCommand, type CommandInput } from './commands.ts';
import { AppError, ConflictError, NotFoundError } from '../domain/shared/errors.ts';
import { creations, type LeftResource, type MadeResource } from '../domain/creations/creation.ts';
import { nodeAggregate, nodeStream } from '../domain/nodes/node.ts';
import { maskSecrets } from '../domain/nodes/nodeEngine.ts';
import { getNode } from '../projections/nodes.ts';
import { getOrganization } from '../projections/organizations.ts';
import type { CreationRow } from '../projections/creations.ts';
import { creationOr404, streamOf } from './creations.ts';
import { discardKey } from './keys/keyCreation.ts';
import { deleteOrganization } from './keys/organizationDelete.ts';
import { assertMayDeleteKeys } from './keys/ownerKeysDelete.ts';
import { deleteConsortiumNetwork } from './consortium/consortiumNetworkDelete.ts';
import { getConsortiumNetwork } from '../projections/consortium/consortiumNetworks.ts';
import { getLedgerXNetwork } from '../projections/ledgerx/ledgerxNetworks.ts';
import { deleteLedgerXNetwork } from './ledgerx/ledgerxNetworkDelete.ts';

const ORDER: Array<MadeResource['resource']> = ['node', 'network', 'organization', 'key'];

async function removeOne(input: CommandInput, r: MadeResource): Promise<void> {
  const { deps } = input;
  const at = deps.clock().toISOString();
  switch (r.resource) {
    case 'node': {
      const node = await getNode(deps.pool, r.id);
      if (node) await runCommand(input, nodeStream(r.id), nodeAggregate, { type: 'DeleteNode', nodeId: r.id, at });
      // A ledgerX orderer group or committer: its role nodes go now too (the saga's own deletes of
      // them then find them gone), so that its organization is no longer in use when its turn comes.
      const roleNodeIds = (node?.config as { roleNodeIds?: Record<string, number> } | undefined)?.roleNodeIds ?? {};
      for (const id of Object.values(roleNodeIds)) {
        if (!(await getNode(deps.pool, id))) continue;
        // The saga may delete it between the read and this: gone is what was asked.
        await runCommand(input, nodeStream(id), nodeAggregate, { type: 'DeleteNode', nodeId: id, at }).catch((err) => {
          if (!(err instanceof NotFoundError)) throw err;
        });
      }
      return;
    }
    case 'network':
      if (await getConsortiumNetwork(deps.pool, r.id)) await deleteConsortiumNetwork(input, r.id);
      else if (await getLedgerXNetwork(deps.pool, { id: r.id })) await deleteLedgerXNetwork(input, r.id);
      return;
    case 'organization':
      if (await getOrganization(deps.pool, r.id)) await deleteOrganization(input, r.id, { deleteKeys: true });
      return;
    case 'key':
      if (!(await discardKey(input, r.id))) throw new AppError(409, 'KEY_NOT_REMOVED', `key ${r.id} could not be removed (the service log says why)`);
      return;
  }
}

/** Removes what the failed create made; the create as recorded after. */
export async function undoCreation(input: CommandInput, creationId: number): Promise<CreationRow> {
  const row = await creationOr404(input, creationId);
  if (row.status !== 'FAILED') throw new ConflictError(`Create ${creationId} (${row.kind} ${row.name}) is ${row.status}: only a failed create is undone.`, { creationId, status: row.status }, 'CREATION_NOT_FAILED');
  // It deletes keys (the organizations' with them): the caller must be allowed to, before anything goes.
  assertMayDeleteKeys(input);
  const done = new Set(row.removed.map((r) => `${r.resource}:${r.id}`));
  const todo = row.made.filter((r) => !done.has(`${r.resource}:${r.id}`)).sort((a, b) => ORDER.indexOf(a.resource) - ORDER.indexOf(b.resource) || b.id - a.id);
  const removed: MadeResource[] = [];
  const left: LeftResource[] = [];
  for (const r of todo) {
    try {
      await removeOne(input, r);
      removed.push(r);
    } catch (err) {
      if (!(err instanceof AppError)) input.deps.log.warn({ creationId, ...r, err: (err as Error).message }, 'undo: could not remove');
      left.push({ ...r, reason: err instanceof AppError && err.expose ? maskSecrets(err.message) : 'an internal error (the service log has the details)' });
    }
  }
  await runCommand(input, streamOf(row.kind, row.name), creations, { type: 'UndoCreation', creationId, removed, left, at: input.deps.clock().toISOString() });
  return creationOr404(input, creationId);
}
