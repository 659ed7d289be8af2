// Deleting keys together (POST /keys/delete), meant for the keys nothing uses any more (GET
// /keys?unused=true): every key is checked first, and one still used by an organization, a node or
// an evm network refuses the whole call (409 naming each such key and its users) with nothing
// deleted; an unknown id is a 404 with nothing deleted. Then each key is deleted through
// deleteKey: its own KeyDeleted (audited) and its provider material removed.
import type { CommandInput } from '../commands.ts';
import { AppError, ConflictError } from '../../domain/shared/errors.ts';
import { listKeys } from '../../projections/keys.ts';
import { deleteKey, describeKeyUser } from './keyDelete.ts';

export async function deleteKeys(input: CommandInput, keyIds: number[]): Promise<number[]> {
  const ids = [...new Set(keyIds)];
  const rows = (await listKeys(input.deps.pool, { ids }, ids.length, 0)).items;
  const missing = ids.filter((id) => !rows.some((k) => k.id === id));
  if (missing.length) throw new AppError(404, 'NOT_FOUND', `No key ${missing.join(', ')}; nothing was deleted.`, { details: missing.map((id) => ({ field: 'ids', message: `no key ${id}` })), extra: { missing } });
  const inUse = rows.filter((k) => k.usedBy.length);
  if (inUse.length) {
    const said = inUse.map((k) => `key ${k.id} (${k.name}) is used by ${k.usedBy.map(describeKeyUser).join(', ')}`);
    throw new ConflictError(`${said.join('; ')}. Nothing was deleted.`, { inUse: inUse.map((k) => ({ keyId: k.id, name: k.name, usedBy: k.usedBy })) }, 'KEY_IN_USE');
  }
  const deleted: number[] = [];
  for (const id of ids) {
    await deleteKey(input, id);
    deleted.push(id);
  }
  return deleted;
}
