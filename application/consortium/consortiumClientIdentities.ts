// Client identities of an organization (domain/consortium/consortiumClientIdentity.ts): issued
// by its signing CA (a key of purpose CLIENT in the organization's key provider, ECDSA P-256 as
// Fabric's MSP expects), listed, read, revoked into the signing CA's CRL (GET
// /organizations/{id}/crl; pushing it into a channel is consortiumOrgCrlPush), and their private
// key given out only by exportClientIdentityKey, which the route audits.
import { recordSecurityEvent } from '../securityEvents.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../domain/shared/errors.ts';
import { loadKey } from '../../domain/keys/certificateRenewal.ts';
import { clientIdentityProfile, type ClientIdentityRequest, type ClientIdentityRole } from '../../domain/consortium/consortiumClientIdentity.ts';
import { organizationDomain } from '../../domain/organizations/organizationCertificates.ts';
import type { ExportedIdentity } from '../../domain/consortium/consortiumPorts.ts';
import { getOrganization, type OrganizationRow } from '../../projections/organizations.ts';
import { certificateRevocation, getKey, listKeys, type KeyRow } from '../../projections/keys.ts';
import { createKey, type CommandInput } from '../keys/keyCreation.ts';
import { revokeCertificate } from '../keys/certificateRevocation.ts';
import { consortiumOf } from './consortiumContext.ts';
import type { AppDeps } from '../deps.ts';

export const CLIENT_PURPOSE = 'CLIENT';

export interface ClientIdentity {
  id: number;
  organizationId: number;
  mspId: string;
  name: string;
  role: ClientIdentityRole;
  attributes: Record<string, string>;
  keyProviderId: number;
  keyProviderType: string;
  certificate: string;
  serialNumber: string;
  subject: string;
  notBefore: string;
  notAfter: string;
  status: 'active' | 'revoked';
  revokedAt: string | null;
  revocationReason: string | null;
  createdAt: string;
}

async function organizationOr404(deps: AppDeps, organizationId: number): Promise<OrganizationRow> {
  const o = await getOrganization(deps.pool, organizationId);
  if (!o) throw new NotFoundError('Organization', organizationId);
  return o;
}

async function view(deps: AppDeps, org: OrganizationRow, k: KeyRow): Promise<ClientIdentity> {
  const state = await loadKey(deps.store, k.id);
  const profile = state.certificate?.profile;
  const c = k.certificate!;
  const revocation = c.issuerKeyId === null ? null : await certificateRevocation(deps.pool, c.issuerKeyId, c.serialNumber);
  const attributes = { ...(profile?.attributes ?? {}) };
  return {
    id: k.id, organizationId: org.id, mspId: org.mspId, name: profile?.commonName ?? k.name, role: (profile?.organizationalUnits?.[0] ?? 'client') as ClientIdentityRole,
    attributes, keyProviderId: k.providerId, keyProviderType: k.providerType,
    certificate: c.pem, serialNumber: c.serialNumber, subject: c.subject, notBefore: c.notBefore, notAfter: c.notAfter,
    status: revocation ? 'revoked' : 'active', revokedAt: revocation?.revokedAt ?? null, revocationReason: revocation?.reason ?? null, createdAt: k.createdAt,
  };
}

async function identityKey(deps: AppDeps, org: OrganizationRow, identityId: number): Promise<KeyRow> {
  const k = await getKey(deps.pool, identityId);
  if (!k || k.purpose !== CLIENT_PURPOSE || k.organizationId !== org.id || !k.certificate) throw new NotFoundError(`Client identity of ${org.mspId}`, identityId);
  return k;
}

export async function issueClientIdentity(input: CommandInput, organizationId: number, req: ClientIdentityRequest): Promise<ClientIdentity> {
  const { deps } = input;
  const org = await organizationOr404(deps, organizationId);
  if (!org.signKeyId) throw new ValidationError(`Organization ${org.mspId} has no signing CA key to issue identities with.`, [{ field: 'organizationId', message: 'no signing CA' }]);
  const ca = await loadKey(deps.store, org.signKeyId);
  const profile = clientIdentityProfile(ca.certificate?.profile?.organization ?? organizationDomain(org.name), req);
  const taken = (await listClientIdentityKeys(deps, org.id)).find((k) => k.name === keyName(org, req.name));
  if (taken) throw new ConflictError(`${org.mspId} already has a client identity named ${req.name} (id ${taken.id}); revoke it and issue one under another name, or use it.`, { identityId: taken.id });
  const keyId = await createKey(input, {
    name: keyName(org, req.name), description: `client identity (${req.role}) of ${org.mspId}`, purpose: CLIENT_PURPOSE, providerId: org.providerId, organizationId: org.id,
    spec: { algorithm: 'EC', curve: 'P-256' }, certificate: { profile, issuer: org.signKeyId },
  });
  return view(deps, org, (await getKey(deps.pool, keyId))!);
}

const keyName = (org: OrganizationRow, name: string) => `${name}@${org.mspId}`;

async function listClientIdentityKeys(deps: AppDeps, organizationId: number): Promise<KeyRow[]> {
  const r = await listKeys(deps.pool, { organizationId, purpose: CLIENT_PURPOSE }, 10_000, 0);
  return r.items;
}

export async function listClientIdentities(deps: AppDeps, organizationId: number, limit: number, offset: number): Promise<{ items: ClientIdentity[]; total: number }> {
  const org = await organizationOr404(deps, organizationId);
  const r = await listKeys(deps.pool, { organizationId, purpose: CLIENT_PURPOSE }, limit, offset);
  return { items: await Promise.all(r.items.filter((k) => k.certificate).map((k) => view(deps, org, k))), total: r.total };
}

export async function getClientIdentity(deps: AppDeps, organizationId: number, identityId: number): Promise<ClientIdentity> {
  const org = await organizationOr404(deps, organizationId);
  return view(deps, org, await identityKey(deps, org, identityId));
}

/** Revokes the identity's certificate at the signing CA that issued it (409 when it already is). */
export async function revokeClientIdentity(input: CommandInput, organizationId: number, identityId: number, reason: string): Promise<ClientIdentity> {
  const { deps } = input;
  const org = await organizationOr404(deps, organizationId);
  const k = await identityKey(deps, org, identityId);
  const c = k.certificate!;
  if (c.issuerKeyId === null) throw new ValidationError(`Client identity ${identityId} has a certificate no CA of this service issued.`, [{ field: 'identityId', message: 'not issued here' }]);
  await revokeCertificate(input, c.issuerKeyId, c.serialNumber, k.id, reason);
  return view(deps, org, k);
}

/**
 * The identity with its private key, for an application that reads it from a file. Only the
 * database provider gives a key out (422 KEY_NOT_EXPORTABLE otherwise); a revoked identity's
 * key is refused (409): nothing can use it any more. Every download is audited (SensitiveRead).
 */
export async function exportClientIdentityKey(input: CommandInput, organizationId: number, identityId: number): Promise<{ identity: ClientIdentity; exported: ExportedIdentity }> {
  const { deps } = input;
  const org = await organizationOr404(deps, organizationId);
  const identity = await view(deps, org, await identityKey(deps, org, identityId));
  if (identity.status === 'revoked') throw new ConflictError(`Client identity ${identity.name} of ${org.mspId} is revoked; its key is not given out.`, undefined, 'IDENTITY_REVOKED');
  const exported = await consortiumOf(deps).credentials.exportIdentity(identityId);
  await recordSecurityEvent(input, 'SensitiveRead', { action: 'READ', resourceType: 'key', resourceId: String(identity.id), resourceName: `${identity.name}@${identity.mspId}`, details: { export: 'private-key', serialNumber: identity.serialNumber, organizationId: identity.organizationId } });
  return { identity, exported };
}
