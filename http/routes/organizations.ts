import { Type } from '@sinclair/typebox';
import { defineRoute } from '../route.ts';
import { runCommand } from '../../application/commands.ts';
import { Page, PageQuery, page, pageRequest } from '../pagination.ts';
import { CreationIdField, IdParam } from './schemas.ts';
import { organizationStream, organizations } from '../../domain/organizations/organizations.ts';
import { NotFoundError, ValidationError } from '../../domain/shared/errors.ts';
import { getOrganization, getOrganizationByMspId, listOrganizations } from '../../projections/organizations.ts';
import { defaultKeyProviderId } from '../../projections/keyProviders.ts';
import { getKey, listKeys } from '../../projections/keys.ts';
import { createOrganization } from '../../application/keys/organizationCreation.ts';
import { deleteOrganization } from '../../application/keys/organizationDelete.ts';
import { MAX_DOMAIN_LENGTH } from '../../domain/organizations/organizationCertificates.ts';
import { keySpecFromInput } from '../keys/keySpecInput.ts';
import { CreateKeyBody, KeySchema, createKeyFromBody, keyView } from '../keys/keyViews.ts';
import { organizationCrl } from '../../application/keys/certificateRevocation.ts';

const tags = ['organizations'];

const OrganizationSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  mspId: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  providerId: Type.Integer({ description: 'key provider holding every key of the organization' }),
  signKeyId: Type.Union([Type.Integer(), Type.Null()], { description: 'the signing CA key' }),
  tlsKeyId: Type.Union([Type.Integer(), Type.Null()], { description: 'the TLS CA key' }),
  adminKeyId: Type.Union([Type.Integer(), Type.Null()], { description: 'the admin identity key (certificate issued by the signing CA)' }),
  signCertificate: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  tlsCertificate: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

async function withCertificates(pool: import('pg').Pool, o: NonNullable<Awaited<ReturnType<typeof getOrganization>>>) {
  const sign = o.signKeyId ? await getKey(pool, o.signKeyId) : null;
  const tls = o.tlsKeyId ? await getKey(pool, o.tlsKeyId) : null;
  return { ...o, signCertificate: sign?.certificate?.pem ?? null, tlsCertificate: tls?.certificate?.pem ?? null };
}

export const organizationRoutes = [
  defineRoute({
    method: 'post', path: '/organizations', summary: 'Create an organization with its signing CA, TLS CA and admin identity', tags, permission: 'ORGANIZATION_CREATE',
    description: 'Creates, in the organization\'s key provider (providerId, else the default provider), a self-signed signing CA "ca.<domain>", a self-signed TLS CA "tlsca.<domain>" (ECDSA P-256 unless algorithm/curve/keySize say otherwise) and an admin identity "Admin@<domain>" issued by the signing CA. mspId is unique and case-sensitive (409 when taken).',
    body: Type.Object({
      name: Type.String({ minLength: 1, maxLength: 200 }),
      mspId: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$', description: 'membership service provider id; letters, digits, ".", "_", "-"' }),
      description: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
      providerId: Type.Optional(Type.Integer({ minimum: 1 })),
      keyProviderId: Type.Optional(Type.Integer({ minimum: 1, description: 'alias of providerId' })),
      domain: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$', maxLength: MAX_DOMAIN_LENGTH, description: `DNS-style domain for certificate names (CN ca.<domain>, tlsca.<domain>, Admin@<domain>; O <domain>), at most ${MAX_DOMAIN_LENGTH} characters so that every name fits X.509's 64; default derived from name (cut to that length)` })),
      algorithm: Type.Optional(Type.String({ description: 'ECDSA (or EC), RSA, Ed25519; default ECDSA' })),
      curve: Type.Optional(Type.String({ description: 'ECDSA: P-256 (default), P-384, P-521, secp256k1' })),
      keySize: Type.Optional(Type.Integer({ description: 'RSA: 2048 (default) or 4096' })),
      ...CreationIdField,
    }, { additionalProperties: false }),
    responses: { 201: { description: 'created', schema: OrganizationSchema }, 400: { description: 'invalid, or the provider does not support the algorithm' }, 409: { description: 'mspId taken' } },
    async handler(input) {
      const { deps, body } = input;
      const providerId = body.providerId ?? body.keyProviderId ?? (await defaultKeyProviderId(deps.pool));
      const id = await createOrganization(input, { name: body.name, mspId: body.mspId, description: body.description ?? null, providerId, domain: body.domain, spec: keySpecFromInput(body), creationId: body.creationId });
      const o = (await getOrganization(deps.pool, id))!;
      return { status: 201, body: await withCertificates(deps.pool, o), headers: { Location: `/api/v1/organizations/${id}` } };
    },
  }),
  defineRoute({
    method: 'get', path: '/organizations', summary: 'List organizations', tags, permission: 'ORGANIZATION_READ',
    query: Type.Object({ ...PageQuery }, { additionalProperties: false }),
    responses: { 200: { description: 'a page of organizations', schema: Page(OrganizationSchema) } },
    async handler({ deps, query }) {
      const { limit, offset } = pageRequest(deps.config, query);
      const r = await listOrganizations(deps.pool, limit, offset);
      return { body: page(r.items, r.total, limit, offset) };
    },
  }),
  defineRoute({
    method: 'get', path: '/organizations/by-mspid/:mspid', summary: 'Find an organization by its mspId (case-sensitive)', tags, permission: 'ORGANIZATION_READ',
    params: Type.Object({ mspid: Type.String({ minLength: 1 }) }),
    responses: { 200: { description: 'the organization', schema: OrganizationSchema }, 404: { description: 'no organization has this mspId' } },
    async handler({ deps, params }) {
      const o = await getOrganizationByMspId(deps.pool, params.mspid);
      if (!o) throw new NotFoundError('Organization with mspId', params.mspid);
      return { body: await withCertificates(deps.pool, o) };
    },
  }),
  defineRoute({
    method: 'get', path: '/organizations/:id', summary: 'Read an organization', tags, permission: 'ORGANIZATION_READ', params: IdParam,
    responses: { 200: { description: 'the organization', schema: OrganizationSchema }, 404: { description: 'no such organization' } },
    async handler({ deps, params }) {
      const o = await getOrganization(deps.pool, params.id);
      if (!o) throw new NotFoundError('Organization', params.id);
      return { body: await withCertificates(deps.pool, o) };
    },
  }),
  defineRoute({
    method: 'put', path: '/organizations/:id', summary: 'Change an organization\'s name or description', tags, permission: 'ORGANIZATION_UPDATE', params: IdParam,
    description: 'mspId and key provider are fixed once the organization exists (certificates carry them).',
    body: Type.Object({
      name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
      description: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
      mspId: Type.Optional(Type.String()),
    }, { additionalProperties: false }),
    responses: { 200: { description: 'the organization', schema: OrganizationSchema }, 404: { description: 'no such organization' } },
    async handler(input) {
      const { deps, params, body } = input;
      const o = await getOrganization(deps.pool, params.id);
      if (!o) throw new NotFoundError('Organization', params.id);
      if (body.mspId !== undefined && body.mspId !== o.mspId) throw new ValidationError('mspId cannot change once the organization exists.', [{ field: 'mspId', message: 'fixed' }]);
      await runCommand(input, organizationStream(params.id), organizations, { type: 'UpdateOrganization', organizationId: params.id, name: body.name, description: body.description, at: deps.clock().toISOString() });
      return { body: await withCertificates(deps.pool, (await getOrganization(deps.pool, params.id))!) };
    },
  }),
  defineRoute({
    method: 'delete', path: '/organizations/:id', summary: 'Delete an organization no node or network uses', tags, permission: 'ORGANIZATION_DELETE', params: IdParam,
    description: '409 naming the nodes and networks that still use it. Its keys stay (they may have signed certificates still in use) unless deleteKeys=true: then its keys (signing CA, TLS CA, admin, and the keys of its deleted nodes) are deleted with it, each deletion audited; that also needs KEY_DELETE (403 before anything is deleted otherwise), and a key something else still uses is kept.',
    query: Type.Object({ deleteKeys: Type.Optional(Type.Boolean({ description: 'also delete the organization\'s keys (needs KEY_DELETE)' })) }, { additionalProperties: false }),
    responses: { 204: { description: 'deleted' }, 403: { description: 'deleteKeys=true without KEY_DELETE' }, 404: { description: 'no such organization' }, 409: { description: 'still used' } },
    async handler(input) {
      await deleteOrganization(input, input.params.id, { deleteKeys: input.query.deleteKeys === true });
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'get', path: '/organizations/:id/keys', summary: 'List the keys of an organization', tags, permission: 'KEY_READ', params: IdParam,
    query: Type.Object({ ...PageQuery }, { additionalProperties: false }),
    responses: { 200: { description: 'a page of keys', schema: Page(KeySchema) }, 404: { description: 'no such organization' } },
    async handler({ deps, params, query }) {
      if (!(await getOrganization(deps.pool, params.id))) throw new NotFoundError('Organization', params.id);
      const { limit, offset } = pageRequest(deps.config, query);
      const r = await listKeys(deps.pool, { organizationId: params.id }, limit, offset);
      return { body: page(r.items.map(keyView), r.total, limit, offset) };
    },
  }),
  defineRoute({
    method: 'post', path: '/organizations/:id/keys', summary: 'Create a key for an organization (in its key provider)', tags, permission: 'KEY_CREATE', params: IdParam,
    body: CreateKeyBody,
    responses: { 201: { description: 'created', schema: KeySchema }, 400: { description: 'invalid, or not supported by the provider' }, 404: { description: 'no such organization' } },
    async handler(input) {
      const o = await getOrganization(input.deps.pool, input.params.id);
      if (!o) throw new NotFoundError('Organization', input.params.id);
      return createKeyFromBody(input, input.body, { organizationId: o.id, providerId: input.body.providerId ?? input.body.keyProviderId ?? o.providerId });
    },
  }),
  defineRoute({
    method: 'get', path: '/organizations/:id/crl', summary: 'The certificate revocation list of the organization\'s signing CA (PEM)', tags, permission: 'ORGANIZATION_READ', params: IdParam,
    description: 'A v2 CRL signed by the signing CA key inside its provider, valid for 7 days from its thisUpdate. The same CRL (same CRL number and entries) is served until a revocation, a new CA certificate or key, or one day has passed; then the next one gets the next CRL number (a per-CA counter that only grows, RFC 5280 5.2.3). ?format=der for DER.',
    query: Type.Object({ format: Type.Optional(Type.Union([Type.Literal('pem'), Type.Literal('der')])) }, { additionalProperties: false }),
    responses: { 200: { description: 'the CRL', contentType: 'application/pkix-crl' }, 404: { description: 'no such organization' } },
    async handler(input) {
      const { deps, params, query } = input;
      const o = await getOrganization(deps.pool, params.id);
      if (!o) throw new NotFoundError('Organization', params.id);
      const pem = await organizationCrl(input, o);
      if (query.format === 'der') {
        const der = Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
        return { body: der, headers: { 'Content-Type': 'application/pkix-crl', 'Content-Disposition': `attachment; filename="${o.mspId}.crl"` } };
      }
      return { body: pem, headers: { 'Content-Type': 'application/x-pem-file', 'Content-Disposition': `attachment; filename="${o.mspId}-crl.pem"` } };
    },
  }),
];
