// Pushing an organization's CRL into a channel: the signing CA's current CRL (GET
// /organizations/{id}/crl, with every revocation made so far, client identities among them)
// becomes the revocation_list of the organization's MSP in the channel's config, in one config
// update signed by the admins this service holds and sent to a joined orderer; recorded with
// RecordConfigUpdate when the config changed. From the block on, peers refuse proposals and
// transactions of the revoked certificates and orderers refuse their broadcasts.
import type { CommandInput } from '../commands.ts';
import { NotFoundError, ValidationError } from '../../domain/shared/errors.ts';
import { loadKey } from '../../domain/keys/certificateRenewal.ts';
import { getOrganization } from '../../projections/organizations.ts';
import { organizationCrl } from '../keys/certificateRevocation.ts';
import { consortiumNetworkOr404 } from './consortiumChannelAccess.ts';
import { applyPlannedChange, type PlannedConfigChange } from './consortiumConfigChange.ts';

/** The organization's current CRL as its MSP's revocation list in the channel, nothing signed. */
export async function planOrganizationCrl(input: CommandInput, networkId: number, organizationId: number): Promise<PlannedConfigChange & { mspId: string; crlNumber: number; revokedSerials: string[] }> {
  const { deps } = input;
  const network = await consortiumNetworkOr404(deps, networkId);
  const org = await getOrganization(deps.pool, organizationId);
  if (!org) throw new NotFoundError('Organization', organizationId);
  const members = [...network.organizations, ...network.ordererOrganizations].map((o) => o.mspId);
  if (!members.includes(org.mspId)) throw new ValidationError(`${org.mspId} is not an organization of channel ${network.channelName} (${[...new Set(members)].join(', ')}).`, [{ field: 'organizationId', message: `not an organization of ${network.channelName}` }]);
  const crl = await organizationCrl(input, org);
  const ca = await loadKey(deps.store, org.signKeyId!);
  const crlNumber = ca.crl?.crlNumber ?? ca.crlNumber;
  const revokedSerials = ca.revocations.slice(0, ca.crl?.revokedCount ?? ca.revocations.length).map((r) => r.serialNumber);
  const record = { kind: 'revocationList', organization: { organizationId: org.id, mspId: org.mspId }, crlNumber, revokedSerials };
  return { network, changes: [{ kind: 'revocationList', mspId: org.mspId, crlPems: [crl] }], record: { changes: [record] }, mspId: org.mspId, crlNumber, revokedSerials };
}

export async function pushOrganizationCrl(input: CommandInput, networkId: number, organizationId: number) {
  const planned = await planOrganizationCrl(input, networkId, organizationId);
  const r = await applyPlannedChange(input, planned);
  return { ...r, mspId: planned.mspId, crlNumber: planned.crlNumber, revokedSerials: planned.revokedSerials };
}
