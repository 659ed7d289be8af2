// The certificates an organization needs, as profiles for certificateBuilder.ts, following the
// layout consortium tooling (cryptogen-style MSPs) expects. Time comes from the caller.
//
//   organizationCaProfile(org, now, years = 10)   signing CA "ca.<domain>": certSign, cRLSign,
//                                                 digitalSignature, keyEncipherment; EKU client+server
//   tlsCaProfile(org, now, years = 10)            TLS CA "tlsca.<domain>", same shape
//   nodeIdentityProfile(org, node, now, years=1)  enrolment certificate: digitalSignature only,
//                                                 OU = role (peer, orderer, admin, client)
//   nodeTlsProfile(org, node, now, years = 1)     TLS certificate: digitalSignature, keyEncipherment,
//                                                 EKU serverAuth + clientAuth, SAN = hosts
// notBefore is set 5 minutes in the past so a peer whose clock lags slightly accepts the certificate.
import { isIP } from 'node:net';
import type { CertificateProfile } from './certificateBuilder.ts';
import type { SubjectName } from './distinguishedName.ts';

export interface OrganizationNaming {
  /** DNS-style domain of the organization, e.g. org1.example.com; used as O and in CNs. */
  domain: string;
  country?: string;
  province?: string;
  locality?: string;
}

export type NodeRole = 'peer' | 'orderer' | 'admin' | 'client';

export interface NodeNaming {
  /** Host name of the node, e.g. peer0.org1.example.com; the certificate's CN. */
  commonName: string;
  role: NodeRole;
  /** DNS names and IP addresses the node answers on (TLS only); the CN is always included. */
  hosts?: string[];
}

const BACKDATE_MS = 5 * 60 * 1000;
const YEAR_MS = 365 * 24 * 3600 * 1000;

function window(now: Date, years: number): { notBefore: Date; notAfter: Date } {
  return { notBefore: new Date(now.getTime() - BACKDATE_MS), notAfter: new Date(now.getTime() + years * YEAR_MS) };
}

function subject(org: OrganizationNaming, commonName: string, organizationalUnits?: string[]): SubjectName {
  return { country: org.country, province: org.province, locality: org.locality, organization: org.domain, organizationalUnits, commonName };
}

function caProfile(org: OrganizationNaming, cn: string, now: Date, years: number): Omit<CertificateProfile, 'isCa'> {
  return {
    subject: subject(org, cn),
    ...window(now, years),
    keyUsages: ['digitalSignature', 'keyEncipherment', 'keyCertSign', 'cRLSign'],
    extendedKeyUsages: ['clientAuth', 'serverAuth'],
  };
}

export function organizationCaProfile(org: OrganizationNaming, now: Date, years = 10): Omit<CertificateProfile, 'isCa'> {
  return caProfile(org, `ca.${org.domain}`, now, years);
}

export function tlsCaProfile(org: OrganizationNaming, now: Date, years = 10): Omit<CertificateProfile, 'isCa'> {
  return caProfile(org, `tlsca.${org.domain}`, now, years);
}

export function nodeIdentityProfile(org: OrganizationNaming, node: NodeNaming, now: Date, years = 1): CertificateProfile {
  return { subject: subject(org, node.commonName, [node.role]), ...window(now, years), keyUsages: ['digitalSignature'] };
}

export function nodeTlsProfile(org: OrganizationNaming, node: NodeNaming, now: Date, years = 1): CertificateProfile {
  const hosts = [...new Set([node.commonName, ...(node.hosts ?? [])])];
  return {
    subject: subject(org, node.commonName),
    ...window(now, years),
    keyUsages: ['digitalSignature', 'keyEncipherment'],
    extendedKeyUsages: ['serverAuth', 'clientAuth'],
    dnsNames: hosts.filter((h) => isIP(h) === 0),
    ipAddresses: hosts.filter((h) => isIP(h) !== 0),
  };
}
