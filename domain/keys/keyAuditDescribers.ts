// How organization, key, key provider and certificate events read in the audit log. Never the
// sealed provider configuration, never certificate PEMs in full (they are in the key read).
import { registerAuditDescriber } from '../audit/auditEntry.ts';
import type { RecordedEvent } from '../shared/eventStore.ts';

const str = (v: unknown) => (v === undefined || v === null ? null : String(v));
const d = (e: RecordedEvent) => e.data as Record<string, any>;

export function registerKeyAuditDescribers(): void {
  registerAuditDescriber('KeyProviderCreated', (e) => ({ action: 'CREATE', resourceType: 'key_provider', resourceId: str(d(e).providerId), resourceName: str(d(e).name), after: { type: d(e).providerType, isDefault: d(e).isDefault, config: d(e).publicConfig } }));
  registerAuditDescriber('KeyProviderDeleted', (e) => ({ action: 'DELETE', resourceType: 'key_provider', resourceId: str(d(e).providerId), resourceName: str(d(e).name) }));
  registerAuditDescriber('OrganizationCreated', (e) => ({ action: 'CREATE', resourceType: 'organization', resourceId: str(d(e).organizationId), resourceName: str(d(e).mspId), after: { name: d(e).name, mspId: d(e).mspId, providerId: d(e).providerId, signKeyId: d(e).signKeyId, tlsKeyId: d(e).tlsKeyId, adminKeyId: d(e).adminKeyId } }));
  registerAuditDescriber('OrganizationUpdated', (e) => ({ action: 'UPDATE', resourceType: 'organization', resourceId: str(d(e).organizationId), resourceName: str(d(e).after?.name), before: d(e).before, after: d(e).after }));
  registerAuditDescriber('OrganizationDeleted', (e) => ({ action: 'DELETE', resourceType: 'organization', resourceId: str(d(e).organizationId), resourceName: str(d(e).mspId) }));
  registerAuditDescriber('KeyCreated', (e) => ({ action: d(e).imported ? 'IMPORT' : 'CREATE', resourceType: 'key', resourceId: str(d(e).keyId), resourceName: str(d(e).name), after: { algorithm: d(e).algorithm, curve: d(e).curve, keySize: d(e).keySize, providerId: d(e).providerId, organizationId: d(e).organizationId, purpose: d(e).purpose, ethereumAddress: d(e).ethereumAddress } }));
  registerAuditDescriber('KeyCertificateIssued', (e) => ({ action: 'CERTIFICATE_ISSUE', resourceType: 'key', resourceId: str(d(e).keyId), reason: str(d(e).reason), after: { serialNumber: d(e).serialNumber, subject: d(e).subject, notAfter: d(e).notAfter, isCA: d(e).isCA, issuerKeyId: d(e).issuerKeyId } }));
  registerAuditDescriber('KeyRotationConfigured', (e) => ({ action: 'UPDATE', resourceType: 'key', resourceId: str(d(e).keyId), after: { rotation: { enabled: d(e).enabled, intervalDays: d(e).intervalDays } } }));
  registerAuditDescriber('KeyRotated', (e) => ({ action: 'KEY_ROTATE', resourceType: 'key', resourceId: str(d(e).keyId), after: { ethereumAddress: d(e).ethereumAddress } }));
  registerAuditDescriber('CertificateRevoked', (e) => ({ action: 'CERTIFICATE_REVOKE', resourceType: 'certificate', resourceId: str(d(e).serialNumber), reason: str(d(e).reason), details: { caKeyId: d(e).caKeyId, keyId: d(e).keyId } }));
  registerAuditDescriber('CrlIssued', (e) => ({ action: 'SIGN', resourceType: 'key', resourceId: str(d(e).keyId), details: { event: 'crl.issued', crlNumber: d(e).crlNumber, revokedCount: d(e).revokedCount, thisUpdate: d(e).thisUpdate, nextUpdate: d(e).nextUpdate } }));
  registerAuditDescriber('CertificateRenewed', (e) => ({ action: 'CERTIFICATE_RENEW', resourceType: 'key', resourceId: str(d(e).keyId), details: { event: 'certificate.renewed', serialNumber: d(e).serialNumber, previousSerialNumber: d(e).previousSerialNumber, notAfter: d(e).notAfter } }));
  registerAuditDescriber('CertificateAutoRenewed', (e) => ({ action: 'CERTIFICATE_RENEW', resourceType: 'key', resourceId: str(d(e).keyId), details: { event: 'certificate.auto_renewed', serialNumber: d(e).serialNumber, previousSerialNumber: d(e).previousSerialNumber, notAfter: d(e).notAfter } }));
  registerAuditDescriber('CertificateRenewalFailed', (e) => ({ action: 'CERTIFICATE_RENEW', resourceType: 'key', resourceId: str(d(e).keyId), resourceName: str(d(e).name), status: 'failed', errorMessage: str(d(e).reason), details: { event: 'certificate.renewal_failed' } }));
  registerAuditDescriber('CertificateExpiring', (e) => ({ action: 'UPDATE', resourceType: 'key', resourceId: str(d(e).keyId), resourceName: str(d(e).name), details: { event: 'certificate.expiring', serialNumber: d(e).serialNumber, notAfter: d(e).notAfter } }));
  registerAuditDescriber('CertificateExpired', (e) => ({ action: 'UPDATE', resourceType: 'key', resourceId: str(d(e).keyId), resourceName: str(d(e).name), details: { event: 'certificate.expired', serialNumber: d(e).serialNumber, notAfter: d(e).notAfter } }));
  registerAuditDescriber('KeyDeleted', (e) => ({ action: 'DELETE', resourceType: 'key', resourceId: str(d(e).keyId), resourceName: str(d(e).name), before: { providerId: d(e).providerId } }));
}
