// Creating an organization: claim its mspId (409 when taken), create its signing CA and TLS CA
// (self-signed) and its admin identity (issued by the signing CA) in the organization's key
// provider, then record OrganizationCreated. A failure after the claim releases it and deletes
// the keys made so far (records and provider material); so does the next start after a kill -9
// mid-way (a tracked creation: application/creations.ts).
import { adminIdentityProfile, organizationDomain, signingCaProfile, tlsCaProfile } from '../../domain/organizations/organizationCertificates.ts';
import { mspIdClaimStream, mspIdClaims } from '../../domain/organizations/mspIdClaims.ts';
import { organizationStream, organizations } from '../../domain/organizations/organizations.ts';
import type { KeySpec } from '../../domain/keys/keyProvider.ts';
import { keyStream, keys } from '../../domain/keys/keys.ts';
import { runCommand } from '../commands.ts';
import { createKey, type CommandInput } from './keyCreation.ts';
import { recordMadeFor, trackedCreation } from '../creations.ts';

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
  const at = () => deps.clock().toISOString();
  // Recorded as it goes (application/creations.ts): a failure, or a stop of the service (kill -9)
  // before the organization is recorded, removes the keys made so far.
  return trackedCreation(input, 'organization', o.mspId, async (steps) => {
    const organizationId = await deps.nextId('organization');
    await recordMadeFor(input, o.creationId, 'organization', organizationId);
    await runCommand(input, mspIdClaimStream(o.mspId), mspIdClaims, { type: 'ClaimMspId', mspId: o.mspId, organizationId, at: at() });
    try {
      const domain = organizationDomain(o.name, o.domain);
      const common = { providerId: o.providerId, organizationId, spec: o.spec };
      steps.step('certificate authorities');
      const signId = await steps.making('key');
      const tlsId = await steps.making('key');
      // The two self-signed CAs at once; both settle before anything is undone, so none is left behind.
      const [sign, tls] = await Promise.allSettled([
        createKey(input, { ...common, keyId: signId, name: `${o.mspId}-ca`, purpose: 'SIGN_CA', certificate: { profile: signingCaProfile(domain), issuer: 'self' } }),
        createKey(input, { ...common, keyId: tlsId, name: `${o.mspId}-tlsca`, purpose: 'TLS_CA', certificate: { profile: tlsCaProfile(domain), issuer: 'self' } }),
      ]);
      if (sign.status === 'rejected') throw sign.reason;
      if (tls.status === 'rejected') throw tls.reason;
      steps.step('admin identity');
      const adminKeyId = await createKey(input, { ...common, keyId: await steps.making('key'), name: `${o.mspId}-admin`, purpose: 'ADMIN', certificate: { profile: adminIdentityProfile(domain), issuer: signId } });
      steps.step('organization');
      await runCommand(input, organizationStream(organizationId), organizations, {
        type: 'CreateOrganization', organizationId, fields: { name: o.name, mspId: o.mspId, description: o.description, providerId: o.providerId },
        keys: { signKeyId: signId, tlsKeyId: tlsId, adminKeyId }, at: at(),
      });
    } catch (err) {
      // The organization does not exist: its keys are removed by trackedCreation; the mspId is free again.
      await runCommand(input, mspIdClaimStream(o.mspId), mspIdClaims, { type: 'ReleaseMspId', mspId: o.mspId, organizationId, at: at() }).catch(() => undefined);
      throw err;
    }
    return organizationId;
  });
}
