// Deleting a key: refused (409 naming them) while an organization, a node or an evm network uses
// it (the key's used_by, projections/keys.ts);
// once the deletion is recorded, its material is deleted from the provider (a provider that
// cannot is reported in the log: the key is gone from the service either way).
import { runCommand, type CommandInput } from '../commands.ts';
import { NotFoundError } from '../../domain/shared/errors.ts';
import { keyStream, keys } from '../../domain/keys/keys.ts';
import { getKey } from '../../projections/keys.ts';
import type { KeyUser } from '../../projections/keys.ts';

export async function deleteKey(input: CommandInput, keyId: number): Promise<void> {
  const { deps } = input;
  const k = await getKey(deps.pool, keyId);
  if (!k) throw new NotFoundError('Key', keyId);
  const usedBy = k.usedBy.map(describeKeyUser);
  const r = await runCommand(input, keyStream(keyId), keys, { type: 'DeleteKey', keyId, usedBy, at: deps.clock().toISOString() });
  const deleted = r.events.find((e) => e.type === 'KeyDeleted');
  if (deleted) {
    const provider = await deps.keys.providers.get(k.providerId);
    await provider.deleteKey(String(deleted.data.handle)).catch((err) => deps.log.warn({ keyId: k.id, err: (err as Error).message }, 'provider could not delete the key material'));
  }
}

/** A user of a key as a refusal names it: "organization Org1MSP (signing CA)". */
export function describeKeyUser(u: KeyUser): string {
  return `${u.type === 'network' ? 'evm network' : u.type} ${u.name} (${u.as}${u.type === 'organization' ? '' : ' key'})`;
}
