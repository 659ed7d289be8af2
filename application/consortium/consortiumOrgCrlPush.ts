// Pushing an organization's CRL into a channel: the signing CA's current CRL (GET
// /organizations/{id}/crl, with every revocation made so far, client identities among them)
// becomes the revocation_list of the organization's MSP in the channel's config, in one config
// update signed by the admins this service holds and sent to a joined orderer; recorded with
// RecordConfigUpdate when the config changed. From the block on, peers refuse proposals and
// transactions of the revoked certificates and orderers refuse their broadcasts.
import { runCommand, type CommandInput } from '../commands.ts';
import { NotFoundError, ValidationError } from '../../domain/shared/errors.ts';
import { CONSORTIUM_NETWORKS_STREAM, consortiumNetworks } from '../../domain/consortium/consortiumNetwork.ts';
import { loadKey } from '../../domain/keys/certificateRenewal.ts';
import { getOrganization } from '../../projections/organizations.ts';
import { organizationCrl } from '../keys/certificateRevocation.ts';
import { consortiumNetworkOr404 } from './consortiumChannelAccess.ts';
import { submitConfigChange, type ChannelConfigUpdated } from './consortiumConfigChange.ts';

export async function pushOrganizationCrl(input: CommandInput, networkId: number, organizationId: number): Promise<ChannelConfigUpdated & { mspId: string; crlNumber: number; revokedSerials: string[] }> {
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
  const result = await submitConfigChange(deps, network, { kind: 'revocationList', mspId: org.mspId, crlPems: [crl] });
  if (result.status === 'updated') {
    const record = { kind: 'revocationList', organization: { organizationId: org.id, mspId: org.mspId }, crlNumber, revokedSerials };
    await runCommand(input, CONSORTIUM_NETWORKS_STREAM, consortiumNetworks, { type: 'RecordConfigUpdate', networkId: network.id, change: { changes: [record] }, configSequence: result.sequence, blockNumber: result.blockNumber, signedBy: result.signedBy, at: deps.clock().toISOString() });
    return { network, status: 'updated', sequence: result.sequence, blockNumber: result.blockNumber, signedBy: result.signedBy, diff: result.diff, mspId: org.mspId, crlNumber, revokedSerials };
  }
  return { network, status: 'unchanged', sequence: result.sequence, blockNumber: null, signedBy: [], diff: [], mspId: org.mspId, crlNumber, revokedSerials };
}
