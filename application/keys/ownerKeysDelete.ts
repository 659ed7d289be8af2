// Deleting an owner's keys with it (`?deleteKeys=true` on DELETE /organizations/{id} and
// DELETE /networks/evm/{id}): the caller must also hold KEY_DELETE (403 before anything is
// deleted otherwise); once the owner is gone each of its keys is deleted through deleteKey, so
// each deletion is its own KeyDeleted event (audited, and its provider material removed). A key
// something else still uses (another network's validator, ...) is kept, and said in the log.
import type { CommandInput } from '../commands.ts';
import { AppError, ForbiddenError } from '../../domain/shared/errors.ts';
import { hasPermission } from '../../domain/users/permissions.ts';
import { deleteKey } from './keyDelete.ts';

/** Refuses (403) a deleteKeys=true whose caller may not delete keys; call before the owner is deleted. */
export function assertMayDeleteKeys(input: CommandInput): void {
  const id = input.identity;
  if (!id) return;
  const byRole = hasPermission(id.role, 'KEY_DELETE');
  const byScope = id.method !== 'api_key' || (id.scopes ?? []).includes('KEY_DELETE') || (id.scopes ?? []).includes('*');
  if (!byRole || !byScope) throw new ForbiddenError('deleteKeys=true also deletes keys, which needs the permission KEY_DELETE; delete without it to keep the keys.', { permission: 'KEY_DELETE' });
}

/** Deletes each key, keeping (and logging) one still used elsewhere; the ids deleted. */
export async function deleteOwnerKeys(input: CommandInput, owner: string, keyIds: number[]): Promise<number[]> {
  const deleted: number[] = [];
  for (const keyId of [...new Set(keyIds)]) {
    try {
      await deleteKey(input, keyId);
      deleted.push(keyId);
    } catch (err) {
      if (!(err instanceof AppError) || (err.status !== 409 && err.status !== 404)) throw err;
      input.deps.log.warn({ keyId, owner, reason: err.message }, 'a key of a deleted owner was kept');
    }
  }
  return deleted;
}
