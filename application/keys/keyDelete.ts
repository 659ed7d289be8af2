// Deleting a key: refused (409 naming them) while an organization or an evm network uses it;
// once the deletion is recorded, its material is deleted from the provider (a provider that
// cannot is reported in the log: the key is gone from the service either way).
import { runCommand, type CommandInput } from '../commands.ts';
import { NotFoundError } from '../../domain/shared/errors.ts';
import { keyStream, keys } from '../../domain/keys/keys.ts';
import { getKey } from '../../projections/keys.ts';
import { getOrganization } from '../../projections/organizations.ts';
import { networksUsingKey } from '../../projections/evm/evmNetworks.ts';

export async function deleteKey(input: CommandInput, keyId: number): Promise<void> {
  const { deps } = input;
  const k = await getKey(deps.pool, keyId);
  if (!k) throw new NotFoundError('Key', keyId);
  const usedBy: string[] = [];
  if (k.organizationId) {
    const o = await getOrganization(deps.pool, k.organizationId);
    if (o && [o.signKeyId, o.tlsKeyId, o.adminKeyId].includes(k.id)) usedBy.push(`organization ${o.mspId} (${k.purpose})`);
  }
  for (const name of await networksUsingKey(deps.pool, k.id)) usedBy.push(`evm network ${name} (validator key)`);
  const r = await runCommand(input, keyStream(keyId), keys, { type: 'DeleteKey', keyId, usedBy, at: deps.clock().toISOString() });
  const deleted = r.events.find((e) => e.type === 'KeyDeleted');
  if (deleted) {
    const provider = await deps.keys.providers.get(k.providerId);
    await provider.deleteKey(String(deleted.data.handle)).catch((err) => deps.log.warn({ keyId: k.id, err: (err as Error).message }, 'provider could not delete the key material'));
  }
}
