// Validates a CA certificate and private key an operator imports (POST /keys/import, type CA).
//
//   validateImportedCa({ certificate, privateKey }, now) -> { certificate: CertificateInfo,
//       privateKey: KeyObject, spec: KeySpec }
//   Throws one ValidationError listing every problem found, each detail naming its field:
//     certificate: not PEM / not parseable / expired / not yet valid (5 min skew allowed) / not a CA /
//                  keyUsage lacks keyCertSign
//     privateKey:  not PEM / encrypted / unsupported algorithm / does not match the certificate
//   Messages never contain key material. `now` comes from the caller (no hidden clock).
import { X509Certificate, type KeyObject } from 'node:crypto';
import type { KeySpec } from '../../domain/keys/keyProvider.ts';
import { ValidationError, type FieldIssue } from '../../domain/shared/errors.ts';
import { parsePrivateKeyPem } from '../keyProviders/privateKeyPem.ts';
import { certificateKeyUsages, parseCertificatePem, type CertificateInfo } from './certificateInfo.ts';

// A CA made a moment ago on a machine whose clock runs slightly ahead is still importable.
const CLOCK_SKEW_MS = 5 * 60 * 1000;

export interface ImportedCa {
  certificate: CertificateInfo;
  privateKey: KeyObject;
  spec: KeySpec;
}

export function validateImportedCa(input: { certificate: unknown; privateKey: unknown }, now: Date): ImportedCa {
  const issues: FieldIssue[] = [];
  const certificate = readCertificate(input.certificate, now, issues);
  const key = readPrivateKey(input.privateKey, issues);
  if (certificate && key && !new X509Certificate(certificate.pem).checkPrivateKey(key.privateKey)) {
    issues.push({ field: 'privateKey', message: "does not match the certificate's public key" });
  }
  if (issues.length || !certificate || !key) {
    const summary = issues.map((i) => `${i.field} ${i.message}`).join('; ');
    throw new ValidationError(`The CA certificate and private key cannot be imported: ${summary}.`, issues);
  }
  return { certificate, privateKey: key.privateKey, spec: key.spec };
}

function readCertificate(value: unknown, now: Date, issues: FieldIssue[]): CertificateInfo | null {
  if (typeof value !== 'string' || value.trim() === '') {
    issues.push({ field: 'certificate', message: 'is required (a PEM certificate)' });
    return null;
  }
  let info: CertificateInfo;
  try {
    info = parseCertificatePem(value, 'certificate');
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    issues.push(...(err.details ?? []));
    return null;
  }
  if (new Date(info.notAfter) <= now) issues.push({ field: 'certificate', message: `expired on ${info.notAfter}` });
  if (new Date(info.notBefore).getTime() > now.getTime() + CLOCK_SKEW_MS) issues.push({ field: 'certificate', message: `is not valid until ${info.notBefore}` });
  if (!info.isCA) {
    issues.push({ field: 'certificate', message: 'is not a CA certificate (basicConstraints CA:TRUE is missing)' });
  } else {
    const usages = certificateKeyUsages(info.pem);
    if (usages && !usages.includes('keyCertSign')) issues.push({ field: 'certificate', message: 'key usage does not allow signing certificates (keyCertSign)' });
  }
  return info;
}

function readPrivateKey(value: unknown, issues: FieldIssue[]): { privateKey: KeyObject; spec: KeySpec } | null {
  try {
    return parsePrivateKeyPem(value, 'privateKey');
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    issues.push(...(err.details ?? []));
    return null;
  }
}
