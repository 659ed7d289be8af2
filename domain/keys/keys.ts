// Keys: one stream per key (`key-<id>`). A key's private half lives in its provider (handle);
// the stream records its public half, the certificates it was given, its rotation schedule and,
// for CA keys, the certificates the CA revoked (what its CRL lists). No private key in any event.
import type { Decider } from '../shared/decider.ts';
import { assertNever } from '../shared/decider.ts';
import { ConflictError, NotFoundError, ValidationError } from '../shared/errors.ts';
import type { KeySpec } from './keyProvider.ts';

export const keyStream = (id: number) => `key-${id}`;

/**
 * SIGN_CA and TLS_CA are an organization's CAs; ADMIN its admin identity; CLIENT a client
 * identity issued to an application (POST /organizations/{id}/identities); VALIDATOR an evm
 * network's validator key (secp256k1); GENERAL anything else.
 */
export type KeyPurpose = 'SIGN_CA' | 'TLS_CA' | 'ADMIN' | 'CLIENT' | 'IDENTITY' | 'TLS' | 'CA' | 'VALIDATOR' | 'GENERAL';

/** Enough to issue the same certificate again (renewal, rotation). */
export interface CertificateProfileData {
  commonName: string;
  organization?: string;
  organizationalUnits?: string[];
  country?: string;
  province?: string;
  locality?: string;
  dnsNames?: string[];
  ipAddresses?: string[];
  keyUsages?: string[];
  extendedKeyUsages?: string[];
  /** Attributes written as Fabric's attribute extension (OID 1.2.3.4.5.6.7.8.1, {"attrs":{...}}), as Fabric CA does. */
  attributes?: Record<string, string>;
  isCa: boolean;
  validityDays: number;
}

export interface CertificateRecord {
  certificatePem: string;
  serialNumber: string;
  subject: string;
  notBefore: string;
  notAfter: string;
  isCA: boolean;
  /** The CA key that signed it; the key itself when self-signed; null for an imported CA's own certificate. */
  issuerKeyId: number | null;
  profile: CertificateProfileData | null;
}

export type CertificateReason = 'created' | 'signed' | 'imported' | 'renewed' | 'auto_renewed' | 'rotated';

export interface KeyMaterial {
  handle: string;
  publicKeyPem: string;
  ethereumAddress: string | null;
}

/** A revocation recorded by a CA key: what its CRL lists. */
export interface RevocationRecord {
  serialNumber: string;
  revokedAt: string;
  reason: string;
}

/**
 * The CRL a CA key last issued. Its number identifies its content: it is served again (same
 * number, same thisUpdate/nextUpdate, same entries) until a revocation, a new CA certificate or
 * key, or its age calls for a new one, which gets the next number.
 */
export interface CrlRecord {
  crlNumber: number;
  thisUpdate: string;
  nextUpdate: string;
  revokedCount: number;
}

/** A CRL is valid for 7 days and issued anew after 1 day, so relying parties refresh well before it lapses. */
export const CRL_VALIDITY_MS = 7 * 86_400_000;
export const CRL_REISSUE_AFTER_MS = 86_400_000;

export interface KeyState {
  status: 'none' | 'active' | 'deleted';
  keyId?: number;
  name?: string;
  purpose?: KeyPurpose;
  providerId?: number;
  organizationId?: number | null;
  spec?: KeySpec;
  material?: KeyMaterial;
  certificate?: CertificateRecord | null;
  rotation?: { enabled: boolean; intervalDays: number | null };
  revokedSerials: string[];
  revocations: RevocationRecord[];
  /** The CRL to serve again, or null when the next request needs a new one. */
  crl: CrlRecord | null;
  /** Highest CRL number this CA key ever issued (0: none); survives resets of `crl`. */
  crlNumber: number;
  notified: { expiring: string | null; expired: string | null };
}

type At = { at: string };
export type KeyEvent =
  | { type: 'KeyCreated'; data: At & KeyMaterial & { keyId: number; name: string; description: string | null; purpose: KeyPurpose; providerId: number; organizationId: number | null; algorithm: KeySpec['algorithm']; curve: string | null; keySize: number | null; imported: boolean } }
  | { type: 'KeyCertificateIssued'; data: At & CertificateRecord & { keyId: number; reason: CertificateReason } }
  | { type: 'CertificateRenewed'; data: At & { keyId: number; serialNumber: string; previousSerialNumber: string | null; notAfter: string } }
  | { type: 'CertificateAutoRenewed'; data: At & { keyId: number; serialNumber: string; previousSerialNumber: string | null; notAfter: string } }
  | { type: 'CertificateRenewalFailed'; data: At & { keyId: number; name: string; reason: string } }
  | { type: 'KeyRotationConfigured'; data: At & { keyId: number; enabled: boolean; intervalDays: number | null } }
  | { type: 'KeyRotated'; data: At & KeyMaterial & { keyId: number; previousHandle: string } }
  | { type: 'CertificateRevoked'; data: At & { caKeyId: number; serialNumber: string; keyId: number | null; reason: string; revokedAt: string } }
  | { type: 'CrlIssued'; data: At & CrlRecord & { keyId: number } }
  | { type: 'CertificateExpiring'; data: At & { keyId: number; name: string; serialNumber: string; notAfter: string } }
  | { type: 'CertificateExpired'; data: At & { keyId: number; name: string; serialNumber: string; notAfter: string } }
  | { type: 'KeyDeleted'; data: At & { keyId: number; name: string; providerId: number; handle: string } };

export type KeyCommand =
  | { type: 'CreateKey'; keyId: number; name: string; description: string | null; purpose: KeyPurpose; providerId: number; organizationId: number | null; spec: KeySpec; material: KeyMaterial; imported: boolean; certificate?: CertificateRecord; at: string }
  | { type: 'RecordCertificate'; keyId: number; certificate: CertificateRecord; reason: CertificateReason; at: string }
  | { type: 'RecordRenewalFailure'; keyId: number; reason: string; at: string }
  | { type: 'ConfigureRotation'; keyId: number; enabled: boolean; intervalDays: number | null; at: string }
  | { type: 'RotateKey'; keyId: number; material: KeyMaterial; certificate: CertificateRecord | null; at: string }
  | { type: 'RevokeCertificate'; caKeyId: number; serialNumber: string; keyId: number | null; reason: string; at: string }
  /** The CRL to serve at `at`: the last one while still current, else a new one with the next number. */
  | { type: 'IssueCrl'; keyId: number; at: string }
  | { type: 'MarkCertificateExpiring'; keyId: number; serialNumber: string; at: string }
  | { type: 'MarkCertificateExpired'; keyId: number; serialNumber: string; at: string }
  /** usedBy: what still depends on the key (an organization's CA, ...); a delete is refused then. */
  | { type: 'DeleteKey'; keyId: number; usedBy: string[]; at: string };

const specOf = (d: { algorithm: KeySpec['algorithm']; curve: string | null; keySize: number | null }): KeySpec => ({
  algorithm: d.algorithm,
  ...(d.curve ? { curve: d.curve as KeySpec['curve'] } : {}),
  ...(d.keySize ? { keySize: d.keySize as 2048 | 4096 } : {}),
});

function active(s: KeyState, keyId: number): void {
  if (s.status !== 'active') throw new NotFoundError('Key', keyId);
}

function issued(keyId: number, certificate: CertificateRecord, reason: CertificateReason, at: string, previous: CertificateRecord | null | undefined): KeyEvent[] {
  const events: KeyEvent[] = [{ type: 'KeyCertificateIssued', data: { keyId, ...certificate, reason, at } }];
  const renewal = { keyId, serialNumber: certificate.serialNumber, previousSerialNumber: previous?.serialNumber ?? null, notAfter: certificate.notAfter, at };
  if (reason === 'renewed') events.push({ type: 'CertificateRenewed', data: renewal });
  if (reason === 'auto_renewed') events.push({ type: 'CertificateAutoRenewed', data: renewal });
  return events;
}

export const keys: Decider<KeyState, KeyCommand, KeyEvent> = {
  initialState: () => ({ status: 'none', revokedSerials: [], revocations: [], crl: null, crlNumber: 0, notified: { expiring: null, expired: null } }),
  evolve(s, e) {
    switch (e.type) {
      case 'KeyCreated': {
        const d = e.data;
        return {
          ...s, status: 'active', keyId: d.keyId, name: d.name, purpose: d.purpose, providerId: d.providerId, organizationId: d.organizationId,
          spec: specOf(d), material: { handle: d.handle, publicKeyPem: d.publicKeyPem, ethereumAddress: d.ethereumAddress }, certificate: null,
          rotation: { enabled: false, intervalDays: null },
        };
      }
      case 'KeyCertificateIssued': {
        const { keyId: _k, reason: _r, at: _a, ...certificate } = e.data;
        // A new CA certificate may carry another issuer name: the next CRL is a new one.
        return { ...s, certificate, crl: null };
      }
      case 'KeyRotationConfigured':
        return { ...s, rotation: { enabled: e.data.enabled, intervalDays: e.data.intervalDays } };
      case 'KeyRotated':
        return { ...s, material: { handle: e.data.handle, publicKeyPem: e.data.publicKeyPem, ethereumAddress: e.data.ethereumAddress }, crl: null };
      case 'CertificateRevoked':
        return {
          ...s,
          revokedSerials: [...s.revokedSerials, e.data.serialNumber],
          revocations: [...s.revocations, { serialNumber: e.data.serialNumber, revokedAt: e.data.revokedAt, reason: e.data.reason }],
        };
      case 'CrlIssued': {
        const { keyId: _k, at: _a, ...crl } = e.data;
        return { ...s, crl, crlNumber: Math.max(s.crlNumber, crl.crlNumber) };
      }
      case 'CertificateExpiring':
        return { ...s, notified: { ...s.notified, expiring: e.data.serialNumber } };
      case 'CertificateExpired':
        return { ...s, notified: { ...s.notified, expired: e.data.serialNumber } };
      case 'KeyDeleted':
        return { ...s, status: 'deleted' };
      case 'CertificateRenewed':
      case 'CertificateAutoRenewed':
      case 'CertificateRenewalFailed':
        return s;
      default:
        return assertNever(e);
    }
  },
  decide(c, s) {
    switch (c.type) {
      case 'CreateKey': {
        if (s.status !== 'none') throw new ConflictError(`Key ${c.keyId} exists already.`);
        const created: KeyEvent = {
          type: 'KeyCreated',
          data: {
            keyId: c.keyId, name: c.name, description: c.description, purpose: c.purpose, providerId: c.providerId, organizationId: c.organizationId,
            algorithm: c.spec.algorithm, curve: c.spec.curve ?? null, keySize: c.spec.keySize ?? null, imported: c.imported, ...c.material, at: c.at,
          },
        };
        return c.certificate ? [created, ...issued(c.keyId, c.certificate, c.imported ? 'imported' : 'created', c.at, null)] : [created];
      }
      case 'RecordCertificate':
        active(s, c.keyId);
        return issued(c.keyId, c.certificate, c.reason, c.at, s.certificate);
      case 'RecordRenewalFailure':
        active(s, c.keyId);
        return [{ type: 'CertificateRenewalFailed', data: { keyId: c.keyId, name: s.name!, reason: c.reason, at: c.at } }];
      case 'ConfigureRotation':
        active(s, c.keyId);
        if (c.enabled && (!c.intervalDays || c.intervalDays < 1)) {
          throw new ValidationError('Rotation needs intervalDays of at least 1 when enabled.', [{ field: 'intervalDays', message: 'at least 1 when enabled' }]);
        }
        return [{ type: 'KeyRotationConfigured', data: { keyId: c.keyId, enabled: c.enabled, intervalDays: c.intervalDays, at: c.at } }];
      case 'RotateKey': {
        active(s, c.keyId);
        const rotated: KeyEvent = { type: 'KeyRotated', data: { keyId: c.keyId, previousHandle: s.material!.handle, ...c.material, at: c.at } };
        return c.certificate ? [rotated, ...issued(c.keyId, c.certificate, 'rotated', c.at, s.certificate)] : [rotated];
      }
      case 'RevokeCertificate':
        active(s, c.caKeyId);
        if (!s.certificate?.isCA) throw new ValidationError(`Key ${s.name} is not a CA; only the CA that issued a certificate can revoke it.`, [{ field: 'caKeyId', message: 'not a CA key' }]);
        if (s.revokedSerials.includes(c.serialNumber)) throw new ConflictError(`Certificate ${c.serialNumber} is already revoked.`);
        return [{ type: 'CertificateRevoked', data: { caKeyId: c.caKeyId, serialNumber: c.serialNumber, keyId: c.keyId, reason: c.reason, revokedAt: c.at, at: c.at } }];
      case 'IssueCrl': {
        active(s, c.keyId);
        if (!s.certificate?.isCA) throw new ValidationError(`Key ${s.name} is not a CA and has no CRL.`, [{ field: 'keyId', message: 'not a CA' }]);
        const now = Date.parse(c.at);
        const last = s.crl;
        if (last && last.revokedCount === s.revocations.length && now >= Date.parse(last.thisUpdate) && now < Date.parse(last.thisUpdate) + CRL_REISSUE_AFTER_MS) return [];
        // RFC 5280 5.2.3: a monotonically increasing number per CA. It is counted on the CA key's
        // own stream (one more than the highest issued), so it survives restarts and read-model
        // rebuilds, never repeats even for two CRLs in one second, and concurrent issuers are
        // serialised by the stream's expected version.
        const crlNumber = s.crlNumber + 1;
        return [{ type: 'CrlIssued', data: { keyId: c.keyId, crlNumber, thisUpdate: c.at, nextUpdate: new Date(now + CRL_VALIDITY_MS).toISOString(), revokedCount: s.revocations.length, at: c.at } }];
      }
      case 'MarkCertificateExpiring':
      case 'MarkCertificateExpired': {
        // Only for the certificate the key still has, and once per certificate (timers may fire twice).
        if (s.status !== 'active' || s.certificate?.serialNumber !== c.serialNumber) return [];
        const expiring = c.type === 'MarkCertificateExpiring';
        if ((expiring ? s.notified.expiring : s.notified.expired) === c.serialNumber) return [];
        const data = { keyId: c.keyId, name: s.name!, serialNumber: c.serialNumber, notAfter: s.certificate.notAfter, at: c.at };
        return [expiring ? { type: 'CertificateExpiring', data } : { type: 'CertificateExpired', data }];
      }
      case 'DeleteKey':
        active(s, c.keyId);
        if (c.usedBy.length) throw new ConflictError(`Key ${s.name} is still used by ${c.usedBy.join(', ')}.`, { usedBy: c.usedBy });
        return [{ type: 'KeyDeleted', data: { keyId: c.keyId, name: s.name!, providerId: s.providerId!, handle: s.material!.handle, at: c.at } }];
      default:
        return assertNever(c);
    }
  },
};
