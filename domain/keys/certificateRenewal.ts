// Renewing a key's certificate (same key, new validity) and rotating a key (new key pair in the
// same provider, certificate issued again with the same profile). Used by POST /keys/{id}/renew,
// /rotate and the rotation saga. Works only through ports: the event store and KeyServices;
// time and ids come from the caller.
import { handleCommand, loadState } from '../shared/commandHandler.ts';
import type { EventMetadata } from '../shared/eventStore.ts';
import type { EventStore } from '../shared/eventStore.ts';
import { NotFoundError, ValidationError } from '../shared/errors.ts';
import { keyStream, keys, type CertificateProfileData, type CertificateRecord, type KeyState } from './keys.ts';
import type { CertificateDetails, KeyRef, KeyServices } from './keyServices.ts';
import { issuingCaCertificate, validityWithinCa } from './issuingCaChecks.ts';

export interface RenewalContext {
  store: EventStore;
  services: KeyServices;
  now: Date;
  metadata: EventMetadata;
  newId: () => string;
}

export function keyRefOf(s: KeyState): KeyRef {
  return { providerId: s.providerId!, handle: s.material!.handle, spec: s.spec!, publicKeyPem: s.material!.publicKeyPem };
}

export async function loadKey(store: EventStore, keyId: number): Promise<KeyState> {
  const { state } = await loadState(store, keyStream(keyId), keys);
  if (state.status !== 'active') throw new NotFoundError('Key', keyId);
  return state;
}

export function certificateRecord(c: CertificateDetails, issuerKeyId: number | null, profile: CertificateProfileData | null): CertificateRecord {
  return { certificatePem: c.pem, serialNumber: c.serialNumber, subject: c.subject, notBefore: c.notBefore, notAfter: c.notAfter, isCA: c.isCA, issuerKeyId, profile };
}

/** Issues a certificate for `subject` (a key's public half) from its profile: self-signed when issuerKeyId is the key itself. */
export async function issueFromProfile(ctx: Pick<RenewalContext, 'store' | 'services' | 'now'>, subjectKeyId: number, subject: KeyRef, profile: CertificateProfileData, issuerKeyId: number): Promise<CertificateRecord> {
  const notBefore = new Date(ctx.now.getTime() - 60_000);
  const request = { ...profile, notBefore, notAfter: new Date(ctx.now.getTime() + profile.validityDays * 86_400_000) };
  if (issuerKeyId === subjectKeyId) {
    const { isCa: _ca, ...rest } = request;
    return certificateRecord(await ctx.services.selfSignedCa(subject, rest), subjectKeyId, profile);
  }
  const issuer = await loadKey(ctx.store, issuerKeyId).catch((err) => {
    if (err instanceof NotFoundError) throw new ValidationError(`The CA key ${issuerKeyId} that issues this certificate no longer exists.`, [{ field: 'caKeyId', message: 'no such key' }]);
    throw err;
  });
  const caCertificate = issuingCaCertificate(issuer, issuerKeyId, ctx.now);
  // Automatic issuance: nobody chose this validity, so it is cut to the CA's end rather than refused.
  const window = validityWithinCa(caCertificate, request, 'clamp');
  const issued = await ctx.services.issueCertificate(subject.publicKeyPem, { ...request, ...window }, { key: keyRefOf(issuer), certificatePem: caCertificate.certificatePem });
  return certificateRecord(issued, issuerKeyId, profile);
}

function renewable(s: KeyState): { profile: CertificateProfileData; issuerKeyId: number } {
  const c = s.certificate;
  if (!c) throw new ValidationError(`Key ${s.name} has no certificate to renew; issue it a certificate first.`, [{ field: 'keyId', message: 'no certificate' }]);
  if (!c.profile || c.issuerKeyId === null) {
    throw new ValidationError(`The certificate of key ${s.name} was imported; renew it with the CA that issued it and import it again.`, [{ field: 'keyId', message: 'imported certificate' }]);
  }
  return { profile: c.profile, issuerKeyId: c.issuerKeyId };
}

/** `reprofile` changes what the new certificate says (a node's TLS names after its hostname or SANs changed). */
export async function renewCertificate(ctx: RenewalContext, keyId: number, reason: 'renewed' | 'auto_renewed', reprofile?: (p: CertificateProfileData) => CertificateProfileData): Promise<number | null> {
  const s = await loadKey(ctx.store, keyId);
  const { profile, issuerKeyId } = renewable(s);
  const certificate = await issueFromProfile(ctx, keyId, keyRefOf(s), reprofile ? reprofile(profile) : profile, issuerKeyId);
  const r = await handleCommand(ctx.store, keyStream(keyId), keys, { type: 'RecordCertificate', keyId, certificate, reason, at: ctx.now.toISOString() }, { metadata: ctx.metadata, newId: ctx.newId });
  return r.lastPosition;
}

/** New key pair in the same provider; the certificate (if any) is issued again for it. The old key stays in the provider until the key is deleted. */
export async function rotateKey(ctx: RenewalContext, keyId: number): Promise<number | null> {
  const s = await loadKey(ctx.store, keyId);
  const provider = await ctx.services.providers.get(s.providerId!);
  const generated = await provider.generateKey(`key-${keyId}-r${ctx.now.getTime()}`, s.spec!);
  const material = {
    handle: generated.handle,
    publicKeyPem: generated.publicKeyPem,
    ethereumAddress: s.spec!.curve === 'secp256k1' ? ctx.services.ethereumAddress(generated.publicKeyPem) : null,
  };
  let certificate: CertificateRecord | null = null;
  if (s.certificate) {
    const { profile, issuerKeyId } = renewable(s);
    certificate = await issueFromProfile(ctx, keyId, { providerId: s.providerId!, handle: material.handle, spec: s.spec!, publicKeyPem: material.publicKeyPem }, profile, issuerKeyId);
  }
  const r = await handleCommand(ctx.store, keyStream(keyId), keys, { type: 'RotateKey', keyId, material, certificate, at: ctx.now.toISOString() }, { metadata: ctx.metadata, newId: ctx.newId });
  return r.lastPosition;
}
