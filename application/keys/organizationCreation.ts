// Creating an organization: claim its mspId (409 when taken), create its signing CA and TLS CA
// (self-signed) and its admin identity (issued by the signing CA) in the organization's key
// provider, then record OrganizationCreated. A failure after the claim releases it and deletes
// the keys made so far (records and provider material).
import { adminIdentityProfile, organizationDomain, signingCaProfile, tlsCaProfile } from '../../domain/organizations/organizationCertificates.ts';
import { mspIdClaimStream, mspIdClaims } from '../../domain/organizations/mspIdClaims.ts';
import { organizationStream, organizations } from '../../domain/organizations/organizations.ts';
import type { KeySpec } from '../../domain/keys/keyProvider.ts';
import { keyStream, keys } from '../../domain/keys/keys.ts';
import { runCommand } from '../commands.ts';
import { createKey, discardKey, type CommandInput } from './keyCreation.ts';
import { recordMadeFor } from '../creations.ts';

export interface NewOrganization {
  name: string;
  mspId: string;
  description: string | null;
  providerId: number;
  domain?: string;
  spec: KeySpec;
  /** A client-driven create (POST /creations) this organization is made for: recorded on it before it is made. */
  creationId?: number;
}

export async function createOrganization(input: CommandInput, o: NewOrganization): Promise<number> {
  const { deps } = input;
  const organizationId = await deps.nextId('organization');
  const at = () => deps.clock().toISOString();
  await recordMadeFor(input, o.creationId, 'organization', organizationId);
  await runCommand(input, mspIdClaimStream(o.mspId), mspIdClaims, { type: 'ClaimMspId', mspId: o.mspId, organizationId, at: at() });
  const created: number[] = [];
  const made = async (keyId: Promise<number>) => {
    created.push(await keyId);
    return created[created.length - 1];
  };
  try {
    const domain = organizationDomain(o.name, o.domain);
    const common = { providerId: o.providerId, organizationId, spec: o.spec };
    // The two self-signed CAs at once; both settle before anything is undone, so none is left behind.
    const [sign, tls] = await Promise.allSettled([
      made(createKey(input, { ...common, name: `${o.mspId}-ca`, purpose: 'SIGN_CA', certificate: { profile: signingCaProfile(domain), issuer: 'self' } })),
      made(createKey(input, { ...common, name: `${o.mspId}-tlsca`, purpose: 'TLS_CA', certificate: { profile: tlsCaProfile(domain), issuer: 'self' } })),
    ]);
    if (sign.status === 'rejected') throw sign.reason;
    if (tls.status === 'rejected') throw tls.reason;
    const signKeyId = sign.value;
    const tlsKeyId = tls.value;
    const adminKeyId = await made(createKey(input, { ...common, name: `${o.mspId}-admin`, purpose: 'ADMIN', certificate: { profile: adminIdentityProfile(domain), issuer: signKeyId } }));
    await runCommand(input, organizationStream(organizationId), organizations, {
      type: 'CreateOrganization', organizationId, fields: { name: o.name, mspId: o.mspId, description: o.description, providerId: o.providerId },
      keys: { signKeyId, tlsKeyId, adminKeyId }, at: at(),
    });
  } catch (err) {
    // The organization does not exist: its keys made so far would be orphans pointing at it.
    for (const keyId of created.reverse()) await discardKey(input, keyId);
    await runCommand(input, mspIdClaimStream(o.mspId), mspIdClaims, { type: 'ReleaseMspId', mspId: o.mspId, organizationId, at: at() }).catch(() => undefined);
    throw err;
  }
  return organizationId;
}
