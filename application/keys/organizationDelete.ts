// Deleting an organization: refused (409 naming them) while nodes, networks or keys use it; its
// mspId claim is released with it, so the name can be used again. With deleteKeys its keys go
// too (application/keys/ownerKeysDelete.ts).
import { runCommand, type CommandInput } from '../commands.ts';
import { NotFoundError } from '../../domain/shared/errors.ts';
import { organizationStream, organizations } from '../../domain/organizations/organizations.ts';
import { mspIdClaimStream, mspIdClaims } from '../../domain/organizations/mspIdClaims.ts';
import { getOrganization, organizationUsage } from '../../projections/organizations.ts';
import { listKeys } from '../../projections/keys.ts';
import { assertMayDeleteKeys, deleteOwnerKeys } from './ownerKeysDelete.ts';

/** deleteKeys: also delete the keys of the organization (its CAs, admin, and the keys of its deleted nodes). */
export async function deleteOrganization(input: CommandInput, organizationId: number, opts: { deleteKeys?: boolean } = {}): Promise<void> {
  const { deps } = input;
  const o = await getOrganization(deps.pool, organizationId);
  if (!o) throw new NotFoundError('Organization', organizationId);
  if (opts.deleteKeys) assertMayDeleteKeys(input);
  const usedBy = await organizationUsage(deps.pool, organizationId);
  const at = deps.clock().toISOString();
  await runCommand(input, organizationStream(organizationId), organizations, { type: 'DeleteOrganization', organizationId, usedBy, at });
  await runCommand(input, mspIdClaimStream(o.mspId), mspIdClaims, { type: 'ReleaseMspId', mspId: o.mspId, organizationId, at });
  if (opts.deleteKeys) {
    const owned = (await listKeys(deps.pool, { organizationId }, 10_000, 0)).items.map((k) => k.id);
    await deleteOwnerKeys(input, `organization ${o.mspId}`, [o.signKeyId, o.tlsKeyId, o.adminKeyId, ...owned].filter((k): k is number => typeof k === 'number'));
  }
}
