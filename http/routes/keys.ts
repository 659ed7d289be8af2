import { Type } from '@sinclair/typebox';
import { defineRoute } from '../route.ts';
import { runCommand } from '../../application/commands.ts';
import { Page, PageQuery, page, pageRequest } from '../pagination.ts';
import { IdParam } from './schemas.ts';
import { keyStream, keys } from '../../domain/keys/keys.ts';
import { keyRefOf, loadKey, renewCertificate, rotateKey } from '../../domain/keys/certificateRenewal.ts';
import { NotFoundError, ValidationError } from '../../domain/shared/errors.ts';
import { findCertificate, getKey, listKeys } from '../../projections/keys.ts';
import { getOrganization } from '../../projections/organizations.ts';
import { recordSecurityEvent } from '../../application/securityEvents.ts';
import { noteRecorded, requestMetadata } from '../../application/commands.ts';
import { CreateKeyBody, KeySchema, createKeyFromBody, keyView } from '../keys/keyViews.ts';
import { caCrl, revokeCertificate } from '../../application/keys/certificateRevocation.ts';
import { importCaKey } from '../../application/keys/keyImport.ts';
import { deleteKey } from '../../application/keys/keyDelete.ts';
import { deleteKeys } from '../../application/keys/keysBulkDelete.ts';
import { issueKeyCertificate } from '../../application/keys/certificateIssue.ts';
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
  unused: Type.Optional(Type.Boolean({ description: 'true: only keys nothing uses (no organization, node or evm network: used_by empty); false: only keys in use' })),
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
    method: 'get', path: '/keys', summary: 'List keys (filters: organizationId, providerId, algorithm, curve, purpose, isCA, unused)', tags, permission: 'KEY_READ',
    query: ListQuery,
    responses: { 200: { description: 'a page of keys (never private keys)', schema: Page(KeySchema) } },
    async handler({ deps, query }) {
      const { limit, offset } = pageRequest(deps.config, query);
      const alg = query.algorithm?.toUpperCase();
      const algorithm = alg === 'ECDSA' ? 'EC' : alg;
      const r = await listKeys(deps.pool, { organizationId: query.organizationId, providerId: query.providerId ?? query.keyProviderId, algorithm, curve: query.curve, purpose: query.purpose, isCA: query.isCA, unused: query.unused }, limit, offset);
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
      const { keyProviderId, providerId, type: _type, ...body } = input.body;
      const keyId = await importCaKey(input, { ...body, providerId: providerId ?? keyProviderId });
      return { status: 201, body: keyView((await getKey(input.deps.pool, keyId))!), headers: { Location: `/api/v1/keys/${keyId}` } };
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
    method: 'post', path: '/keys/delete', summary: 'Delete several keys at once (the unused ones: GET /keys?unused=true), each deletion audited', tags, permission: 'KEY_DELETE',
    description: 'Every key is checked first: one still used by an organization, a node or an evm network refuses the whole call with a 409 KEY_IN_USE naming each such key and its users (context.inUse), and an unknown id is a 404; nothing is deleted then. Otherwise each key is deleted as DELETE /keys/{id} does (its own audit entry, its provider material removed).',
    body: Type.Object({ ids: Type.Array(Type.Integer({ minimum: 1 }), { minItems: 1, maxItems: 500, description: 'the keys to delete' }) }, { additionalProperties: false }),
    responses: { 200: { description: 'the keys deleted', schema: Type.Object({ deleted: Type.Array(Type.Integer()) }) }, 404: { description: 'an id names no key (nothing deleted)' }, 409: { description: 'a key is in use (nothing deleted)' } },
    async handler(input) {
      return { body: { deleted: await deleteKeys(input, input.body.ids) } };
    },
  }),
  defineRoute({
    method: 'delete', path: '/keys/:id', summary: 'Delete a key (and its private key in the provider)', tags, permission: 'KEY_DELETE', params: IdParam,
    responses: { 204: { description: 'deleted' }, 404: { description: 'no such key' }, 409: { description: 'still used by an organization, a node or an evm network (named)' } },
    async handler(input) {
      await deleteKey(input, input.params.id);
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'post', path: '/keys/:keyID/sign', summary: 'Issue an X.509 certificate for this key, signed by a CA key', tags, permission: 'KEY_SIGN', params: KeyIDParam,
    description: `The certificate replaces the key's current one. caKeyId: the issuing CA key (default: the signing CA of the key's organization); caKeyId equal to the key itself with isCA gives a self-signed CA. The CA must hold a CA certificate that has not expired, and the certificate may not end after the CA's notAfter: an asked-for validityDays or notAfter past it is a 400 naming the latest allowed; the default validity (365 days), renewals and rotations are cut back to it instead. ${keyUsageInfo}`,
    body: SignBody,
    responses: { 200: { description: 'the key with its new certificate', schema: KeySchema }, 400: { description: 'invalid profile; the issuer is not a CA or its certificate expired; the validity ends after the CA\'s notAfter (the message names the latest allowed)' }, 404: { description: 'no such key' } },
    async handler(input) {
      const { params } = input;
      const issued = await issueKeyCertificate(input, params.keyID, input.body);
      await recordSecurityEvent(input, 'SensitiveRead', { action: 'SIGN', resourceType: 'key', resourceId: String(issued.caKeyId), resourceName: `certificate for key ${params.keyID}`, details: { operation: 'issue-certificate', subjectKeyId: params.keyID, serialNumber: issued.serialNumber } });
      return { body: keyView((await getKey(input.deps.pool, params.keyID))!) };
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
      if (pos !== null) {
        noteRecorded(input);
        await input.deps.projector.waitFor(pos);
      }
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
      if (pos !== null) {
        noteRecorded(input);
        await input.deps.projector.waitFor(pos);
      }
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
