// Deleting an organization: refused (409 naming them) while nodes, networks or keys use it; its
// mspId claim is released with it, so the name can be used again.
import { runCommand, type CommandInput } from '../commands.ts';
import { NotFoundError } from '../../domain/shared/errors.ts';
import { organizationStream, organizations } from '../../domain/organizations/organizations.ts';
import { mspIdClaimStream, mspIdClaims } from '../../domain/organizations/mspIdClaims.ts';
import { getOrganization, organizationUsage } from '../../projections/organizations.ts';

export async function deleteOrganization(input: CommandInput, organizationId: number): Promise<void> {
  const { deps } = input;
  const o = await getOrganization(deps.pool, organizationId);
  if (!o) throw new NotFoundError('Organization', organizationId);
  const usedBy = await organizationUsage(deps.pool, organizationId);
  const at = deps.clock().toISOString();
  await runCommand(input, organizationStream(organizationId), organizations, { type: 'DeleteOrganization', organizationId, usedBy, at });
  await runCommand(input, mspIdClaimStream(o.mspId), mspIdClaims, { type: 'ReleaseMspId', mspId: o.mspId, organizationId, at });
}
