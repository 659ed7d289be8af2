import { Type } from '@sinclair/typebox';
import { defineRoute } from '../route.ts';
import { runCommand } from '../../application/commands.ts';
import { Page, PageQuery, page } from '../pagination.ts';
import { IdParam } from './schemas.ts';
import { keyStream, keys, type CertificateProfileData } from '../../domain/keys/keys.ts';
import { certificateRecord, keyRefOf, loadKey, renewCertificate, rotateKey } from '../../domain/keys/certificateRenewal.ts';
import { issuingCaCertificate, validityWithinCa } from '../../domain/keys/issuingCaChecks.ts';
import { NotFoundError, ValidationError } from '../../domain/shared/errors.ts';
import { findCertificate, getKey, listKeys } from '../../projections/keys.ts';
import { defaultKeyProviderId, getKeyProvider } from '../../projections/keyProviders.ts';
import { getOrganization } from '../../projections/organizations.ts';
import { networksUsingKey } from '../../projections/evm/evmNetworks.ts';
import { recordSecurityEvent } from '../auth/securityEvents.ts';
import { requestMetadata } from '../../application/commands.ts';
import { CreateKeyBody, KeySchema, createKeyFromBody, keyView } from '../keys/keyViews.ts';
import { caCrl, revokeCertificate } from '../../application/keys/certificateRevocation.ts';
import { keyUsageInfo, SignBody, SignDataBody, SignDataResponse } from '../keys/keySchemas.ts';
import type { RouteInput } from '../route.ts';

const tags = ['keys'];
const KeyIdParam = Type.Object({ keyId: Type.Integer({ minimum: 1 }) }, { additionalProperties: false });
const KeyIDParam = Type.Object({ keyID: Type.Integer({ minimum: 1 }) }, { additionalProperties: false });
const ListQuery = Type.Object({
  ...PageQuery,
  organizationId: Type.Optional(Type.Integer({ minimum: 1 })),
  providerId: Type.Optional(Type.Integer({ minimum: 1 })),
  keyProviderId: Type.Optional(Type.Integer({ minimum: 1 })),
  algorithm: Type.Optional(Type.String({ description: 'ECDSA/EC, RSA, Ed25519' })),
  curve: Type.Optional(Type.String()),
  purpose: Type.Optional(Type.String()),
  isCA: Type.Optional(Type.Boolean()),
}, { additionalProperties: false });

type Input = Pick<RouteInput<unknown, unknown, unknown>, 'identity' | 'requestId' | 'ctx' | 'deps'>;

async function keyOr404(input: Input, id: number) {
  const k = await getKey(input.deps.pool, id);
  if (!k) throw new NotFoundError('Key', id);
  return k;
}

const renewalContext = (input: Input) => ({ store: input.deps.store, services: input.deps.keys, now: input.deps.clock(), metadata: requestMetadata(input), newId: input.deps.newId });

function pemResponse(pem: string, filename: string) {
  return { body: pem, headers: { 'Content-Type': 'application/x-pem-file', 'Content-Disposition': `attachment; filename="${filename}"` } };
}

export const keyRoutes = [
  defineRoute({
    method: 'get', path: '/keys', summary: 'List keys (filters: organizationId, providerId, algorithm, curve, purpose, isCA)', tags, permission: 'KEY_READ',
    query: ListQuery,
    responses: { 200: { description: 'a page of keys (never private keys)', schema: Page(KeySchema) } },
    async handler({ deps, query }) {
      const limit = query.limit ?? deps.config.defaultPageSize;
      const offset = query.offset ?? 0;
      const alg = query.algorithm?.toUpperCase();
      const algorithm = alg === 'ECDSA' ? 'EC' : alg;
      const r = await listKeys(deps.pool, { organizationId: query.organizationId, providerId: query.providerId ?? query.keyProviderId, algorithm, curve: query.curve, purpose: query.purpose, isCA: query.isCA }, limit, offset);
      return { body: page(r.items.map(keyView), r.total, limit, offset) };
    },
  }),
  defineRoute({
    method: 'get', path: '/keys/all', summary: 'Every key, unpaginated', tags, permission: 'KEY_READ',
    responses: { 200: { description: 'all keys', schema: Type.Array(KeySchema) } },
    async handler({ deps }) {
      const r = await listKeys(deps.pool, {}, 100_000, 0);
      return { body: r.items.map(keyView) };
    },
  }),
  defineRoute({
    method: 'post', path: '/keys', summary: 'Create a key in a key provider', tags, permission: 'KEY_CREATE',
    description: 'The provider (keyProviderId or providerId, else the default) must support the algorithm: 400 names what it supports. DATABASE: ECDSA P-256/P-384/P-521/secp256k1, RSA 2048/4096, Ed25519. VAULT: RSA, ECDSA P-256/P-384/P-521. AWS_KMS: RSA, ECDSA P-256/P-384/secp256k1.',
    body: CreateKeyBody,
    responses: { 201: { description: 'created', schema: KeySchema }, 400: { description: 'invalid, or not supported by the provider' } },
    async handler(input) {
      const { body, deps } = input;
      if (body.organizationId && !(await getOrganization(deps.pool, body.organizationId))) throw new ValidationError(`Organization ${body.organizationId} does not exist.`, [{ field: 'organizationId', message: 'no such organization' }]);
      return createKeyFromBody(input, body, { organizationId: body.organizationId ?? null });
    },
  }),
  defineRoute({
    method: 'post', path: '/keys/import', summary: 'Import a CA certificate and its private key (PEM)', tags, permission: 'KEY_IMPORT',
    description: 'The private key goes straight into the provider (the database provider encrypts it; Vault imports it wrapped) and is never shown again. 400 listing every problem: malformed PEM, an expired or not-yet-valid certificate, a certificate that is not a CA (basicConstraints CA:TRUE, keyCertSign), an encrypted or unsupported key, a key that does not match the certificate.',
    body: Type.Object({
      name: Type.String({ minLength: 1, maxLength: 200 }),
      type: Type.Optional(Type.Literal('CA')),
      organizationId: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
      certificate: Type.String({ description: 'PEM certificate of the CA' }),
      privateKey: Type.String({ description: 'PEM private key (PKCS#8, SEC1 or PKCS#1), unencrypted; write-only' }),
      keyProviderId: Type.Optional(Type.Integer({ minimum: 1 })),
      providerId: Type.Optional(Type.Integer({ minimum: 1 })),
      description: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
    }, { additionalProperties: false }),
    responses: { 201: { description: 'imported', schema: KeySchema }, 400: { description: 'invalid certificate or key' } },
    async handler(input) {
      const { deps, body } = input;
      const org = body.organizationId ? await getOrganization(deps.pool, body.organizationId) : null;
      if (body.organizationId && !org) throw new ValidationError(`Organization ${body.organizationId} does not exist.`, [{ field: 'organizationId', message: 'no such organization' }]);
      const providerId = body.providerId ?? body.keyProviderId ?? org?.providerId ?? (await defaultKeyProviderId(deps.pool));
      if (!(await getKeyProvider(deps.pool, providerId))) throw new ValidationError(`Key provider ${providerId} does not exist.`, [{ field: 'providerId', message: 'no such key provider' }]);
      const keyId = await deps.nextId('key');
      const now = deps.clock();
      const imported = await deps.keys.importCa(providerId, `${body.name.replace(/[^A-Za-z0-9_-]+/g, '-').slice(0, 48)}-${keyId}`, { certificate: body.certificate, privateKey: body.privateKey }, now);
      await runCommand(input, keyStream(keyId), keys, {
        type: 'CreateKey', keyId, name: body.name, description: body.description ?? null, purpose: 'CA', providerId, organizationId: body.organizationId ?? null, spec: imported.spec,
        material: { handle: imported.handle, publicKeyPem: imported.publicKeyPem, ethereumAddress: imported.spec.curve === 'secp256k1' ? deps.keys.ethereumAddress(imported.publicKeyPem) : null },
        imported: true, certificate: certificateRecord(imported.certificate, null, null), at: now.toISOString(),
      });
      return { status: 201, body: keyView((await getKey(deps.pool, keyId))!), headers: { Location: `/api/v1/keys/${keyId}` } };
    },
  }),
  defineRoute({
    method: 'get', path: '/keys/:id', summary: 'Read a key: public key, certificate, expiry, algorithm, provider (never the private key)', tags, permission: 'KEY_READ', params: IdParam,
    responses: { 200: { description: 'the key', schema: KeySchema }, 404: { description: 'no such key' } },
    async handler(input) {
      return { body: keyView(await keyOr404(input, input.params.id)) };
    },
  }),
  defineRoute({
    method: 'delete', path: '/keys/:id', summary: 'Delete a key (and its private key in the provider)', tags, permission: 'KEY_DELETE', params: IdParam,
    responses: { 204: { description: 'deleted' }, 404: { description: 'no such key' }, 409: { description: 'still used by an organization' } },
    async handler(input) {
      const { deps, params } = input;
      const k = await keyOr404(input, params.id);
      const usedBy: string[] = [];
      if (k.organizationId) {
        const o = await getOrganization(deps.pool, k.organizationId);
        if (o && [o.signKeyId, o.tlsKeyId, o.adminKeyId].includes(k.id)) usedBy.push(`organization ${o.mspId} (${k.purpose})`);
      }
      for (const name of await networksUsingKey(deps.pool, k.id)) usedBy.push(`evm network ${name} (validator key)`);
      const r = await runCommand(input, keyStream(params.id), keys, { type: 'DeleteKey', keyId: params.id, usedBy, at: deps.clock().toISOString() });
      const deleted = r.events.find((e) => e.type === 'KeyDeleted');
      if (deleted) {
        const provider = await deps.keys.providers.get(k.providerId);
        await provider.deleteKey(String(deleted.data.handle)).catch((err) => deps.log.warn({ keyId: k.id, err: (err as Error).message }, 'provider could not delete the key material'));
      }
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'post', path: '/keys/:keyID/sign', summary: 'Issue an X.509 certificate for this key, signed by a CA key', tags, permission: 'KEY_SIGN', params: KeyIDParam,
    description: `The certificate replaces the key's current one. caKeyId: the issuing CA key (default: the signing CA of the key's organization); caKeyId equal to the key itself with isCA gives a self-signed CA. The CA must hold a CA certificate that has not expired, and the certificate may not end after the CA's notAfter: an asked-for validityDays or notAfter past it is a 400 naming the latest allowed; the default validity (365 days), renewals and rotations are cut back to it instead. ${keyUsageInfo}`,
    body: SignBody,
    responses: { 200: { description: 'the key with its new certificate', schema: KeySchema }, 400: { description: 'invalid profile; the issuer is not a CA or its certificate expired; the validity ends after the CA\'s notAfter (the message names the latest allowed)' }, 404: { description: 'no such key' } },
    async handler(input) {
      const { deps, params, body } = input;
      const subject = await loadKey(deps.store, params.keyID);
      let caKeyId = body.caKeyId;
      if (caKeyId === undefined && subject.organizationId) caKeyId = (await getOrganization(deps.pool, subject.organizationId))?.signKeyId ?? undefined;
      if (caKeyId === undefined) throw new ValidationError('caKeyId is required: the key belongs to no organization whose signing CA could sign.', [{ field: 'caKeyId', message: 'required' }]);
      const now = deps.clock();
      const notBefore = body.notBefore ? new Date(body.notBefore) : new Date(now.getTime() - 60_000);
      const notAfter = body.notAfter ? new Date(body.notAfter) : new Date(notBefore.getTime() + (body.validityDays ?? 365) * 86_400_000);
      const isCa = body.isCA ?? false;
      const profile: CertificateProfileData = {
        commonName: body.commonName, organization: body.organization, organizationalUnits: body.organizationalUnits, country: body.country, province: body.province, locality: body.locality,
        dnsNames: body.dnsNames, ipAddresses: body.ipAddresses, keyUsages: body.keyUsages, extendedKeyUsages: body.extendedKeyUsages, isCa,
        validityDays: Math.max(1, Math.round((notAfter.getTime() - notBefore.getTime()) / 86_400_000)),
      };
      const request = { ...profile, notBefore, notAfter };
      let details;
      if (caKeyId === params.keyID) {
        if (!isCa) throw new ValidationError('A key can only sign its own certificate as a self-signed CA (isCA: true).', [{ field: 'caKeyId', message: 'self-signing needs isCA' }]);
        details = await deps.keys.selfSignedCa(keyRefOf(subject), request);
      } else {
        const issuerId = caKeyId;
        const ca = await loadKey(deps.store, issuerId).catch(() => {
          throw new ValidationError(`CA key ${issuerId} does not exist.`, [{ field: 'caKeyId', message: 'no such key' }]);
        });
        const caCertificate = issuingCaCertificate(ca, issuerId, now);
        // A validity the caller asked for is refused past the CA's end, not silently shortened;
        // the default (365 days) is only a default, so it is cut to the CA's end.
        const asked = body.notAfter !== undefined || body.validityDays !== undefined;
        const window = validityWithinCa(caCertificate, request, asked ? 'reject' : 'clamp', body.notAfter ? 'notAfter' : 'validityDays');
        details = await deps.keys.issueCertificate(subject.material!.publicKeyPem, { ...request, ...window }, { key: keyRefOf(ca), certificatePem: caCertificate.certificatePem });
      }
      await runCommand(input, keyStream(params.keyID), keys, { type: 'RecordCertificate', keyId: params.keyID, certificate: certificateRecord(details, caKeyId, profile), reason: 'signed', at: now.toISOString() });
      await recordSecurityEvent(input, 'SensitiveRead', { action: 'SIGN', resourceType: 'key', resourceId: String(caKeyId), resourceName: `certificate for key ${params.keyID}`, details: { operation: 'issue-certificate', subjectKeyId: params.keyID, serialNumber: details.serialNumber } });
      return { body: keyView((await getKey(deps.pool, params.keyID))!) };
    },
  }),
  defineRoute({
    method: 'post', path: '/keys/:keyID/sign-data', summary: 'Sign data with the key (audited)', tags, permission: 'KEY_SIGN', params: KeyIDParam,
    description: 'data is base64. ECDSA: hash = request hash or the curve\'s own (P-256, secp256k1: sha256; P-384: sha384; P-521: sha512); signature = DER ECDSA-Sig-Value (base64), also r and s (hex). RSA: RSASSA-PKCS1-v1_5 with hash (default sha256). Ed25519: pure Ed25519 over the data (no pre-hash; hash is null), 64 bytes. secp256k1 keys also return ethereumAddress; with ethereum "keccak256" (keccak256(data)) or "personal" (EIP-191 personal_sign) the response has ethereum {mode, digest, r, s (low-s), v (27/28), yParity, signature (0x r||s||v)}, recoverable with ethers.recoverAddress.',
    body: SignDataBody,
    responses: { 200: { description: 'the signature', schema: SignDataResponse }, 400: { description: 'invalid input' }, 404: { description: 'no such key' } },
    async handler(input) {
      const { deps, params, body } = input;
      const k = await loadKey(deps.store, params.keyID);
      const result = await deps.keys.signData(keyRefOf(k), body);
      await recordSecurityEvent(input, 'SensitiveRead', { action: 'SIGN', resourceType: 'key', resourceId: String(params.keyID), resourceName: k.name ?? null, details: { operation: 'sign-data', bytes: Buffer.byteLength(body.data, 'base64'), hash: (result.hash as string | null) ?? null, ethereum: body.ethereum ?? null } });
      return { body: result };
    },
  }),
  defineRoute({
    method: 'get', path: '/keys/:keyId/certificate', summary: 'The key\'s certificate, PEM (audited)', tags, permission: 'KEY_CERTIFICATE_READ', params: KeyIdParam,
    responses: { 200: { description: 'PEM certificate', contentType: 'application/x-pem-file' }, 404: { description: 'no such key, or it has no certificate' } },
    async handler(input) {
      const k = await keyOr404(input, input.params.keyId);
      if (!k.certificate) throw new NotFoundError('Certificate of key', input.params.keyId);
      await recordSecurityEvent(input, 'SensitiveRead', { action: 'READ', resourceType: 'key', resourceId: String(k.id), resourceName: k.name, details: { download: 'certificate', serialNumber: k.certificate.serialNumber } });
      return pemResponse(k.certificate.pem, `key-${k.id}.pem`);
    },
  }),
  defineRoute({
    method: 'get', path: '/keys/:keyId/ca-certificate', summary: 'The certificate of the CA that issued the key\'s certificate, PEM (audited)', tags, permission: 'KEY_CERTIFICATE_READ', params: KeyIdParam,
    description: 'For a self-signed or imported CA, its own certificate.',
    responses: { 200: { description: 'PEM certificate', contentType: 'application/x-pem-file' }, 404: { description: 'no such key, or no certificate' } },
    async handler(input) {
      const k = await keyOr404(input, input.params.keyId);
      if (!k.certificate) throw new NotFoundError('Certificate of key', input.params.keyId);
      const issuerId = k.certificate.issuerKeyId ?? k.id;
      const issuer = issuerId === k.id ? k : await getKey(input.deps.pool, issuerId);
      if (!issuer?.certificate) throw new NotFoundError('CA certificate of key', input.params.keyId);
      await recordSecurityEvent(input, 'SensitiveRead', { action: 'READ', resourceType: 'key', resourceId: String(k.id), resourceName: k.name, details: { download: 'ca-certificate', caKeyId: issuer.id } });
      return pemResponse(issuer.certificate.pem, `key-${k.id}-ca.pem`);
    },
  }),
  defineRoute({
    method: 'get', path: '/keys/:keyId/crl', summary: 'The certificate revocation list of a CA key (PEM)', tags, permission: 'KEY_READ', params: KeyIdParam,
    description: 'For any CA key: an organization\'s TLS CA, an imported CA, a CA made with POST /keys. Same CRL and numbering as /organizations/{id}/crl (which serves the signing CA\'s). ?format=der for DER.',
    query: Type.Object({ format: Type.Optional(Type.Union([Type.Literal('pem'), Type.Literal('der')])) }, { additionalProperties: false }),
    responses: { 200: { description: 'the CRL', contentType: 'application/pkix-crl' }, 400: { description: 'the key is not a CA' }, 404: { description: 'no such key' } },
    async handler(input) {
      const k = await keyOr404(input, input.params.keyId);
      const pem = await caCrl(input, k.id);
      if (input.query.format === 'der') {
        const der = Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
        return { body: der, headers: { 'Content-Type': 'application/pkix-crl', 'Content-Disposition': `attachment; filename="key-${k.id}.crl"` } };
      }
      return pemResponse(pem, `key-${k.id}-crl.pem`);
    },
  }),
  defineRoute({
    method: 'put', path: '/keys/:keyId/rotation', summary: 'Set the key\'s rotation schedule', tags, permission: 'KEY_ROTATE', params: KeyIdParam,
    description: 'When enabled, every intervalDays the certificate is issued again (certificate.auto_renewed, or certificate.renewal_failed).',
    body: Type.Object({ enabled: Type.Boolean(), intervalDays: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 3650 }), Type.Null()])) }, { additionalProperties: false }),
    responses: { 200: { description: 'the key', schema: KeySchema }, 400: { description: 'invalid' }, 404: { description: 'no such key' } },
    async handler(input) {
      const { deps, params, body } = input;
      await keyOr404(input, params.keyId);
      await runCommand(input, keyStream(params.keyId), keys, { type: 'ConfigureRotation', keyId: params.keyId, enabled: body.enabled, intervalDays: body.intervalDays ?? null, at: deps.clock().toISOString() });
      return { body: keyView((await getKey(deps.pool, params.keyId))!) };
    },
  }),
  defineRoute({
    method: 'post', path: '/keys/:keyId/rotate', summary: 'Rotate the key: new key pair in the same provider, certificate issued again', tags, permission: 'KEY_ROTATE', params: KeyIdParam,
    description: 'The key keeps its id; its public key (and Ethereum address) change. Nodes using it must be restarted. Rotating a CA key means certificates it issued no longer chain to it.',
    responses: { 200: { description: 'the rotated key', schema: KeySchema }, 404: { description: 'no such key' } },
    async handler(input) {
      await keyOr404(input, input.params.keyId);
      const pos = await rotateKey(renewalContext(input), input.params.keyId);
      if (pos !== null) await input.deps.projector.waitFor(pos);
      return { body: keyView((await getKey(input.deps.pool, input.params.keyId))!) };
    },
  }),
  defineRoute({
    method: 'post', path: '/keys/:keyId/renew', summary: 'Renew the key\'s certificate (same key, new validity)', tags, permission: 'CERTIFICATE_RENEW', params: KeyIdParam,
    description: 'Issued again with the same profile by the same CA; emits certificate.renewed. Nodes using it must be restarted.',
    responses: { 200: { description: 'the key with its renewed certificate', schema: KeySchema }, 400: { description: 'no certificate, or an imported one' }, 404: { description: 'no such key' } },
    async handler(input) {
      await keyOr404(input, input.params.keyId);
      const pos = await renewCertificate(renewalContext(input), input.params.keyId, 'renewed');
      if (pos !== null) await input.deps.projector.waitFor(pos);
      return { body: keyView((await getKey(input.deps.pool, input.params.keyId))!) };
    },
  }),
  defineRoute({
    method: 'post', path: '/keys/:keyId/revoke', summary: 'Revoke the key\'s certificate (or a serial number) at the CA that issued it', tags, permission: 'KEY_ROTATE', params: KeyIdParam,
    description: 'Without serialNumber: revokes this key\'s current certificate at its issuing CA. With serialNumber: this key must be the CA, and the serial one it issued. The CA\'s CRL (/organizations/{id}/crl) lists it from then on.',
    body: Type.Object({
      serialNumber: Type.Optional(Type.String({ pattern: '^[0-9A-Fa-f:]+$' })),
      reason: Type.Optional(Type.Union(['unspecified', 'keyCompromise', 'cACompromise', 'affiliationChanged', 'superseded', 'cessationOfOperation', 'certificateHold', 'privilegeWithdrawn'].map((r) => Type.Literal(r)))),
    }, { additionalProperties: false }),
    responses: { 200: { description: 'revoked', schema: Type.Object({ caKeyId: Type.Integer(), serialNumber: Type.String(), reason: Type.String(), revokedAt: Type.String() }) }, 400: { description: 'nothing to revoke' }, 404: { description: 'no such key' }, 409: { description: 'already revoked' } },
    async handler(input) {
      const { deps, params, body } = input;
      const k = await keyOr404(input, params.keyId);
      const reason = body.reason ?? 'unspecified';
      let caKeyId: number;
      let serial: string;
      let subjectKeyId: number | null;
      if (body.serialNumber) {
        serial = body.serialNumber.replace(/:/g, '').toUpperCase();
        const found = await findCertificate(deps.pool, serial);
        if (!found || found.issuerKeyId !== k.id) throw new ValidationError(`Key ${k.name} did not issue a certificate with serial ${serial}.`, [{ field: 'serialNumber', message: 'not issued by this CA key' }]);
        caKeyId = k.id;
        subjectKeyId = found.keyId;
      } else {
        if (!k.certificate) throw new ValidationError(`Key ${k.name} has no certificate to revoke.`, [{ field: 'keyId', message: 'no certificate' }]);
        if (k.certificate.issuerKeyId === null || k.certificate.issuerKeyId === k.id) throw new ValidationError(`The certificate of key ${k.name} is self-signed or imported; no CA of this server can revoke it.`, [{ field: 'keyId', message: 'self-signed' }]);
        caKeyId = k.certificate.issuerKeyId;
        serial = k.certificate.serialNumber;
        subjectKeyId = k.id;
      }
      await revokeCertificate(input, caKeyId, serial, subjectKeyId, reason);
      return { body: { caKeyId, serialNumber: serial, reason, revokedAt: deps.clock().toISOString() } };
    },
  }),
];
