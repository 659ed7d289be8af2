// The certificates created with an organization, as profiles (the same layout as
// adapters/x509/certificateProfiles.ts, in the domain's own data form so that renewal and
// rotation can issue them again): signing CA "ca.<domain>", TLS CA "tlsca.<domain>", and the
// admin identity "Admin@<domain>" (OU admin) issued by the signing CA.
import type { CertificateProfileData } from '../keys/keys.ts';

export const CA_VALIDITY_DAYS = 3650;
export const IDENTITY_VALIDITY_DAYS = 365;

/**
 * The longest domain that fits the certificates: X.509 caps CN and O at 64 characters (RFC 5280),
 * and the longest CN made from it is "tlsca.<domain>".
 */
export const MAX_DOMAIN_LENGTH = 64 - 'tlsca.'.length;

/** A DNS-style domain from the organization's name when none is given: "Org 1" -> "org-1", cut to MAX_DOMAIN_LENGTH. */
export function organizationDomain(name: string, domain?: string): string {
  if (domain) return domain.toLowerCase();
  const slug = name.toLowerCase().replace(/[^a-z0-9.-]+/g, '-').slice(0, MAX_DOMAIN_LENGTH).replace(/^[-.]+|[-.]+$/g, '');
  return slug || 'org';
}

const caProfile = (cn: string, organization: string, validityDays: number): CertificateProfileData => ({
  commonName: cn,
  organization,
  keyUsages: ['digitalSignature', 'keyEncipherment', 'keyCertSign', 'cRLSign'],
  extendedKeyUsages: ['clientAuth', 'serverAuth'],
  isCa: true,
  validityDays,
});

export function signingCaProfile(domain: string, validityDays = CA_VALIDITY_DAYS): CertificateProfileData {
  return caProfile(`ca.${domain}`, domain, validityDays);
}

export function tlsCaProfile(domain: string, validityDays = CA_VALIDITY_DAYS): CertificateProfileData {
  return caProfile(`tlsca.${domain}`, domain, validityDays);
}

export function adminIdentityProfile(domain: string, validityDays = IDENTITY_VALIDITY_DAYS): CertificateProfileData {
  return { commonName: `Admin@${domain}`, organization: domain, organizationalUnits: ['admin'], keyUsages: ['digitalSignature'], isCa: false, validityDays };
}
