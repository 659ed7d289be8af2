// The X.509 v3 extensions this project writes, each as one small encoder.
//   keyIdentifierOf(spkiDer)   RFC 5280 4.2.1.2 method (1): SHA-1 of the subjectPublicKey bits
//   basicConstraints, keyUsage, extendedKeyUsage, subjectKeyIdentifier, authorityKeyIdentifier,
//   subjectAltName, crlNumber, crlReason -> Extension
//   fabricAttributes(attrs)    Fabric's attribute extension, as Fabric CA writes it
import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import {
  AuthorityKeyIdentifier,
  BasicConstraints,
  CRLNumber,
  CRLReason,
  CRLReasons,
  ExtendedKeyUsage,
  Extension,
  GeneralName,
  KeyIdentifier,
  KeyUsage,
  KeyUsageFlags,
  SubjectAlternativeName,
  SubjectKeyIdentifier,
  SubjectPublicKeyInfo,
  id_ce_authorityKeyIdentifier,
  id_ce_basicConstraints,
  id_ce_cRLNumber,
  id_ce_cRLReasons,
  id_ce_extKeyUsage,
  id_ce_keyUsage,
  id_ce_subjectAltName,
  id_ce_subjectKeyIdentifier,
  id_kp_clientAuth,
  id_kp_serverAuth,
} from '@peculiar/asn1-x509';
import { ValidationError } from '../../domain/shared/errors.ts';

export type KeyUsageName = keyof typeof KeyUsageFlags;
export type ExtendedKeyUsageName = 'serverAuth' | 'clientAuth';
export type RevocationReason = keyof typeof CRLReasons;

export const keyUsageNames = Object.keys(KeyUsageFlags).filter((k) => Number.isNaN(Number(k))) as KeyUsageName[];

function extension(extnID: string, critical: boolean, value: unknown): Extension {
  return new Extension({ extnID, critical, extnValue: new OctetString(AsnConvert.serialize(value)) });
}

export function keyIdentifierOf(spkiDer: Buffer): Buffer {
  const spki = AsnConvert.parse(spkiDer, SubjectPublicKeyInfo);
  return createHash('sha1').update(Buffer.from(spki.subjectPublicKey)).digest();
}

export function basicConstraints(isCa: boolean, pathLength?: number): Extension {
  return extension(id_ce_basicConstraints, true, new BasicConstraints(isCa ? { cA: true, pathLenConstraint: pathLength } : {}));
}

export function keyUsage(usages: KeyUsageName[]): Extension {
  let flags = 0;
  for (const u of usages) {
    const flag = KeyUsageFlags[u];
    if (flag === undefined) {
      throw new ValidationError(`Unknown key usage ${JSON.stringify(u)}; known: ${keyUsageNames.join(', ')}.`, [
        { field: 'keyUsages', message: `unknown key usage ${u}` },
      ]);
    }
    flags |= flag;
  }
  return extension(id_ce_keyUsage, true, new KeyUsage(flags));
}

const extendedKeyUsageOids: Record<ExtendedKeyUsageName, string> = { serverAuth: id_kp_serverAuth, clientAuth: id_kp_clientAuth };

export function extendedKeyUsage(usages: ExtendedKeyUsageName[]): Extension {
  const oids = usages.map((u) => {
    const oid = extendedKeyUsageOids[u];
    if (!oid) {
      throw new ValidationError(`Unknown extended key usage ${JSON.stringify(u)}; known: serverAuth, clientAuth.`, [
        { field: 'extendedKeyUsages', message: `unknown extended key usage ${u}` },
      ]);
    }
    return oid;
  });
  return extension(id_ce_extKeyUsage, false, new ExtendedKeyUsage(oids));
}

export function subjectKeyIdentifier(keyId: Buffer): Extension {
  return extension(id_ce_subjectKeyIdentifier, false, new SubjectKeyIdentifier(keyId));
}

export function authorityKeyIdentifier(keyId: Buffer): Extension {
  return extension(id_ce_authorityKeyIdentifier, false, new AuthorityKeyIdentifier({ keyIdentifier: new KeyIdentifier(keyId) }));
}

// A hostname label, or a leading wildcard label; no scheme, port or path.
const dnsNamePattern = /^(\*\.)?([A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)(\.[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*$/;

export function subjectAltName(dnsNames: string[], ipAddresses: string[]): Extension {
  const names: GeneralName[] = [];
  for (const dns of dnsNames) {
    if (!dnsNamePattern.test(dns) || dns.length > 253) {
      throw new ValidationError(`${JSON.stringify(dns)} is not a DNS name.`, [{ field: 'dnsNames', message: `not a DNS name: ${dns}` }]);
    }
    names.push(new GeneralName({ dNSName: dns }));
  }
  for (const ip of ipAddresses) {
    if (isIP(ip) === 0) {
      throw new ValidationError(`${JSON.stringify(ip)} is not an IP address.`, [{ field: 'ipAddresses', message: `not an IP address: ${ip}` }]);
    }
    names.push(new GeneralName({ iPAddress: ip }));
  }
  return extension(id_ce_subjectAltName, false, new SubjectAlternativeName(names));
}

/** Fabric's attribute extension: OID 1.2.3.4.5.6.7.8.1, not critical, its value the JSON {"attrs":{...}} itself (no ASN.1 inside). */
export const FABRIC_ATTRIBUTES_OID = '1.2.3.4.5.6.7.8.1';

export function fabricAttributes(attributes: Record<string, string>): Extension {
  const json = Buffer.from(JSON.stringify({ attrs: attributes }));
  return new Extension({ extnID: FABRIC_ATTRIBUTES_OID, critical: false, extnValue: new OctetString(json) });
}

export function crlNumber(value: number): Extension {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new ValidationError('CRL number must be a non-negative integer.', [{ field: 'crlNumber', message: 'must be a non-negative integer' }]);
  }
  return extension(id_ce_cRLNumber, false, new CRLNumber(value));
}

export function crlReason(reason: RevocationReason): Extension {
  const value = CRLReasons[reason];
  if (value === undefined) {
    const known = Object.keys(CRLReasons).filter((k) => Number.isNaN(Number(k)));
    throw new ValidationError(`Unknown revocation reason ${JSON.stringify(reason)}; known: ${known.join(', ')}.`, [
      { field: 'reason', message: `unknown revocation reason ${reason}` },
    ]);
  }
  return extension(id_ce_cRLReasons, false, new CRLReason(value));
}
