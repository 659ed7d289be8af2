// KeyServices (domain/keys/keyServices.ts) over the provider registry and the X.509 library:
// every certificate and CRL is signed by the CA key inside its provider (keyProviderSigner).
import type { KeyServices, KeyRef, CertificateDetails, CertificateRequest, KeyProviderRegistry } from '../../domain/keys/keyServices.ts';
import { ValidationError } from '../../domain/shared/errors.ts';
import { createSelfSignedCa, issueCertificate } from '../x509/certificateBuilder.ts';
import { keyProviderSigner } from '../x509/certificateSigner.ts';
import { buildCrl } from '../x509/crlBuilder.ts';
import { parseCertificatePem } from '../x509/certificateInfo.ts';
import { validateImportedCa } from '../x509/caImport.ts';
import { keyUsageNames, type ExtendedKeyUsageName, type KeyUsageName, type RevocationReason } from '../x509/extensions.ts';
import { signData } from './signingData.ts';
import { ethereumAddressOf } from './signingEthereum.ts';
import { parsePrivateKeyPem } from './privateKeyPem.ts';

const extendedUsages = new Set(['serverAuth', 'clientAuth']);
export const revocationReasons = ['unspecified', 'keyCompromise', 'cACompromise', 'affiliationChanged', 'superseded', 'cessationOfOperation', 'certificateHold', 'privilegeWithdrawn', 'aACompromise'];

function details(pem: string, field?: string): CertificateDetails {
  const c = parseCertificatePem(pem, field);
  return { pem: c.pem, subject: c.subject, commonName: c.commonName, issuer: c.issuer, serialNumber: c.serialNumber, notBefore: c.notBefore, notAfter: c.notAfter, isCA: c.isCA, fingerprintSha256: c.fingerprintSha256, subjectAltNames: c.subjectAltNames, publicKeyPem: c.publicKeyPem };
}

function profileOf(r: CertificateRequest) {
  const badUsage = (r.keyUsages ?? []).filter((u) => !keyUsageNames.includes(u as KeyUsageName));
  const badExt = (r.extendedKeyUsages ?? []).filter((u) => !extendedUsages.has(u));
  if (badUsage.length || badExt.length) {
    throw new ValidationError(`Unknown key usages: ${[...badUsage, ...badExt].join(', ')}. Key usages: ${keyUsageNames.join(', ')}; extended: serverAuth, clientAuth.`, [
      ...badUsage.map((u) => ({ field: 'keyUsages', message: `${u} is not a key usage` })),
      ...badExt.map((u) => ({ field: 'extendedKeyUsages', message: `${u} is not an extended key usage` })),
    ]);
  }
  return {
    subject: { commonName: r.commonName, organization: r.organization, organizationalUnits: r.organizationalUnits, country: r.country, province: r.province, locality: r.locality },
    notBefore: r.notBefore,
    notAfter: r.notAfter,
    isCa: r.isCa,
    dnsNames: r.dnsNames,
    ipAddresses: r.ipAddresses,
    keyUsages: r.keyUsages?.length ? (r.keyUsages as KeyUsageName[]) : undefined,
    extendedKeyUsages: r.extendedKeyUsages as ExtendedKeyUsageName[] | undefined,
    attributes: r.attributes,
  };
}

export function createRegistryKeyServices(providers: KeyProviderRegistry): KeyServices {
  const signer = async (key: KeyRef) => keyProviderSigner(await providers.get(key.providerId), key.handle, key.spec, key.publicKeyPem);
  return {
    providers,
    async selfSignedCa(key, request) {
      const issued = await createSelfSignedCa(profileOf({ ...request, isCa: true }), await signer(key));
      return details(issued.pem);
    },
    async issueCertificate(subjectPublicKeyPem, request, issuer) {
      const issued = await issueCertificate(profileOf(request), subjectPublicKeyPem, { certificatePem: issuer.certificatePem, signer: await signer(issuer.key) });
      return details(issued.pem);
    },
    async buildCrl(issuer, request) {
      const crl = await buildCrl(
        { ...request, revoked: request.revoked.map((r) => ({ serialNumber: r.serialNumber, revokedAt: r.revokedAt, reason: revocationReasons.includes(r.reason ?? '') ? (r.reason as RevocationReason) : undefined })) },
        { certificatePem: issuer.certificatePem, signer: await signer(issuer.key) },
      );
      return crl.pem;
    },
    parseCertificate: details,
    async importCa(providerId, name, input, now) {
      const ca = validateImportedCa(input, now);
      const provider = await providers.get(providerId);
      const pkcs8 = ca.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      const generated = await provider.importKey(name, pkcs8);
      return { handle: generated.handle, publicKeyPem: generated.publicKeyPem, spec: ca.spec, certificate: details(ca.certificate.pem) };
    },
    async signData(key, request) {
      return { ...(await signData(await providers.get(key.providerId), key, request)) };
    },
    ethereumAddress: ethereumAddressOf,
    privateKeySpec: (pem, field) => parsePrivateKeyPem(pem, field).spec,
  };
}
