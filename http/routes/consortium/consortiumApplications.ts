// What applications of an organization need: its connection profile (Fabric's common connection
// profile, JSON or YAML) and client identities issued by its signing CA (issue, list, read,
// revoke, and the explicit, audited download of an identity's private key).
import { Type } from '@sinclair/typebox';
import { stringify } from 'yaml';
import { defineRoute, type RouteResult } from '../../route.ts';
import { Page, PageQuery, page, pageRequest } from '../../pagination.ts';
import { connectionProfile } from '../../../application/consortium/consortiumConnectionProfile.ts';
import { exportClientIdentityKey, getClientIdentity, issueClientIdentity, listClientIdentities, revokeClientIdentity } from '../../../application/consortium/consortiumClientIdentities.ts';
import { CLIENT_IDENTITY_VALIDITY_DAYS, MAX_ATTRIBUTES } from '../../../domain/consortium/consortiumClientIdentity.ts';
import { pushOrganizationCrl } from '../../../application/consortium/consortiumOrgCrlPush.ts';
import { IdParam } from '../schemas.ts';

const tags = ['organizations'];
const IdentityParams = Type.Object({ id: Type.Integer({ minimum: 1, description: 'organization id' }), identityId: Type.Integer({ minimum: 1, description: 'client identity id (its key id)' }) }, { additionalProperties: false });

const ProfileNode = Type.Object({
  url: Type.String({ description: 'grpcs://<the node\'s external endpoint>' }),
  tlsCACerts: Type.Object({ pem: Type.String({ description: 'the TLS CA certificate of the node\'s organization' }) }),
  grpcOptions: Type.Object({ 'ssl-target-name-override': Type.String(), hostnameOverride: Type.String() }),
});

const ConnectionProfileSchema = Type.Object({
  name: Type.String(),
  version: Type.String(),
  client: Type.Object({ organization: Type.String({ description: 'the organization\'s mspId' }), connection: Type.Object({ timeout: Type.Object({ peer: Type.Object({ endorser: Type.String() }), orderer: Type.String() }) }) }),
  channels: Type.Optional(Type.Record(Type.String(), Type.Object({
    orderers: Type.Array(Type.String()),
    peers: Type.Record(Type.String(), Type.Object({ endorsingPeer: Type.Boolean(), chaincodeQuery: Type.Boolean(), ledgerQuery: Type.Boolean(), eventSource: Type.Boolean() })),
  }))),
  organizations: Type.Record(Type.String(), Type.Object({ mspid: Type.String(), peers: Type.Array(Type.String()), orderers: Type.Array(Type.String()), certificateAuthorities: Type.Array(Type.String()) })),
  peers: Type.Record(Type.String(), ProfileNode),
  orderers: Type.Record(Type.String(), ProfileNode),
  certificateAuthorities: Type.Record(Type.String(), Type.Object({ caName: Type.String(), tlsCACerts: Type.Object({ pem: Type.Array(Type.String()) }) })),
});

const ClientIdentitySchema = Type.Object({
  id: Type.Integer({ description: 'the identity\'s key id (GET /keys/{id} shows the key)' }),
  organizationId: Type.Integer(),
  mspId: Type.String(),
  name: Type.String({ description: 'the certificate\'s CN (and hf.EnrollmentID)' }),
  role: Type.Union([Type.Literal('client'), Type.Literal('admin')], { description: 'the NodeOU (OU) of the certificate' }),
  attributes: Type.Record(Type.String(), Type.String(), { description: 'Fabric attribute extension (OID 1.2.3.4.5.6.7.8.1), with hf.EnrollmentID, hf.Type and hf.Affiliation' }),
  keyProviderId: Type.Integer(),
  keyProviderType: Type.String({ description: 'DATABASE, VAULT or AWS_KMS: only DATABASE keys can be downloaded' }),
  certificate: Type.String({ description: 'PEM' }),
  serialNumber: Type.String(),
  subject: Type.String(),
  notBefore: Type.String({ format: 'date-time' }),
  notAfter: Type.String({ format: 'date-time' }),
  status: Type.Union([Type.Literal('active'), Type.Literal('revoked')]),
  revokedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  revocationReason: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
});

const CrlPushParams = Type.Object({ id: Type.Integer({ minimum: 1, description: 'consortium network id' }), organizationId: Type.Integer({ minimum: 1 }) }, { additionalProperties: false });
const CrlPushView = Type.Object({
  network_id: Type.Integer(), channel_name: Type.String(), organization_id: Type.Integer(), msp_id: Type.String(),
  status: Type.Union([Type.Literal('updated'), Type.Literal('unchanged')]), sequence: Type.Integer(), block_number: Type.Union([Type.Integer(), Type.Null()]), signed_by: Type.Array(Type.String()),
  crl_number: Type.Integer({ description: 'the CRL number of the CRL now in the channel' }), revoked_serials: Type.Array(Type.String(), { description: 'the serial numbers it lists' }),
});

const reasons = ['unspecified', 'keyCompromise', 'affiliationChanged', 'superseded', 'cessationOfOperation', 'privilegeWithdrawn'] as const;

export const consortiumApplicationRoutes = [
  defineRoute({
    method: 'get', path: '/organizations/:id/connection-profile', summary: 'The organization\'s connection profile (Fabric common connection profile, JSON or YAML)', tags, permission: 'ORGANIZATION_READ', params: IdParam,
    description: 'What the Fabric gateway SDKs load as is: client.organization, organizations (mspid, peers, orderers, certificateAuthorities), peers and orderers (url grpcs://<external endpoint>, tlsCACerts.pem of the node\'s organization\'s TLS CA, grpcOptions ssl-target-name-override: the node\'s host name), certificateAuthorities (the signing CA: caName and TLS root; it has no url, as the service holds the CA as a key and a certificate and runs no Fabric CA server: identities are issued with POST /organizations/{id}/identities). Without channel: the organization\'s peers and orderers and the orderers of the channels its peers are in; with channel (a channel name): every organization of that channel, its peers and orderers this service runs, and a channels section. format=yaml answers YAML (application/yaml). Only certificates, no key.',
    query: Type.Object({
      format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('yaml')], { description: 'json (default) or yaml' })),
      channel: Type.Optional(Type.String({ minLength: 1, maxLength: 249, pattern: '^[a-z][a-z0-9.-]*$', description: 'a channel name: list that channel\'s members' })),
    }, { additionalProperties: false }),
    responses: { 200: { description: 'the connection profile', schema: ConnectionProfileSchema }, 400: { description: 'the organization is not a member of the channel' }, 404: { description: 'no such organization or channel' } },
    async handler({ deps, params, query }): Promise<RouteResult> {
      const profile = await connectionProfile(deps, params.id, query.channel);
      const file = `connection-${profile.client.organization}${query.channel ? `-${query.channel}` : ''}`;
      if (query.format === 'yaml') return { body: stringify(profile, { lineWidth: 0 }), headers: { 'Content-Type': 'application/yaml; charset=utf-8', 'Content-Disposition': `attachment; filename="${file}.yaml"` } };
      return { body: profile, headers: { 'Content-Disposition': `attachment; filename="${file}.json"` } };
    },
  }),
  defineRoute({
    method: 'post', path: '/organizations/:id/identities', summary: 'Issue a client identity from the organization\'s signing CA', tags, permission: 'KEY_CREATE', params: IdParam,
    description: `An ECDSA P-256 key made in the organization's key provider (its private key stays there) and a certificate of the signing CA: CN name, OU role (client or admin: the NodeOU the channel's MSP reads the role from), Fabric's attribute extension (OID 1.2.3.4.5.6.7.8.1, {"attrs":{...}}) with the attributes given and hf.EnrollmentID, hf.Type, hf.Affiliation as Fabric CA sets them. validityDays default ${CLIENT_IDENTITY_VALIDITY_DAYS}, never past the CA's end. 409 when the organization has an identity of that name.`,
    body: Type.Object({
      name: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$' }),
      role: Type.Union([Type.Literal('client'), Type.Literal('admin')]),
      attributes: Type.Optional(Type.Array(Type.Object({ name: Type.String({ minLength: 1, maxLength: 128 }), value: Type.String({ maxLength: 1024 }) }, { additionalProperties: false }), { maxItems: MAX_ATTRIBUTES })),
      validityDays: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650 })),
    }, { additionalProperties: false }),
    responses: { 201: { description: 'issued', schema: ClientIdentitySchema }, 400: { description: 'invalid name, role or attributes; a validity past the CA\'s end' }, 404: { description: 'no such organization' }, 409: { description: 'an identity of that name exists' } },
    async handler(input) {
      const identity = await issueClientIdentity(input, input.params.id, input.body);
      return { status: 201, body: identity, headers: { Location: `/api/v1/organizations/${input.params.id}/identities/${identity.id}` } };
    },
  }),
  defineRoute({
    method: 'get', path: '/organizations/:id/identities', summary: 'List the organization\'s client identities (never a private key)', tags, permission: 'KEY_READ', params: IdParam,
    query: Type.Object({ ...PageQuery }, { additionalProperties: false }),
    responses: { 200: { description: 'a page of client identities', schema: Page(ClientIdentitySchema) }, 404: { description: 'no such organization' } },
    async handler({ deps, params, query }) {
      const { limit, offset } = pageRequest(deps.config, query);
      const r = await listClientIdentities(deps, params.id, limit, offset);
      return { body: page(r.items, r.total, limit, offset) };
    },
  }),
  defineRoute({
    method: 'get', path: '/organizations/:id/identities/:identityId', summary: 'Read a client identity', tags, permission: 'KEY_READ', params: IdentityParams,
    responses: { 200: { description: 'the client identity', schema: ClientIdentitySchema }, 404: { description: 'no such organization or identity' } },
    async handler({ deps, params }) {
      return { body: await getClientIdentity(deps, params.id, params.identityId) };
    },
  }),
  defineRoute({
    method: 'post', path: '/organizations/:id/identities/:identityId/revoke', summary: 'Revoke a client identity: its certificate goes into the signing CA\'s CRL', tags, permission: 'KEY_ROTATE', params: IdentityParams,
    description: 'GET /organizations/{id}/crl lists it from then on; a channel refuses it once the CRL is in the organization\'s MSP of that channel (POST /networks/consortium/{id}/organizations/{organizationId}/crl).',
    body: Type.Optional(Type.Object({ reason: Type.Optional(Type.Union(reasons.map((r) => Type.Literal(r)))) }, { additionalProperties: false })),
    responses: { 200: { description: 'the revoked identity', schema: ClientIdentitySchema }, 404: { description: 'no such organization or identity' }, 409: { description: 'already revoked' } },
    async handler(input) {
      return { body: await revokeClientIdentity(input, input.params.id, input.params.identityId, input.body?.reason ?? 'unspecified') };
    },
  }),
  defineRoute({
    method: 'post', path: '/networks/consortium/:id/organizations/:organizationId/crl', summary: 'Put the organization\'s current CRL into the channel (its MSP\'s revocation_list)', tags: ['networks'], permission: 'NETWORK_UPDATE', params: CrlPushParams,
    description: 'The signing CA\'s current CRL (GET /organizations/{id}/crl: every certificate revoked so far, client identities among them) replaces the revocation_list of the organization\'s MSP in the channel config (Application and, where it is one, Orderer group), in one config update signed by the admins this service holds and sent to a joined orderer. From that config block on, peers and orderers refuse the revoked certificates. The CRL the channel already has (same CA, same CRL number) answers status unchanged and submits nothing.',
    responses: { 200: { description: 'the config update', schema: CrlPushView }, 400: { description: 'the organization is not in the channel' }, 404: { description: 'no such network or organization' }, 409: { description: 'no joined orderer running, or admin signatures missing (named)' } },
    async handler(input) {
      const r = await pushOrganizationCrl(input, input.params.id, input.params.organizationId);
      return { body: { network_id: r.network.id, channel_name: r.network.channelName, organization_id: input.params.organizationId, msp_id: r.mspId, status: r.status, sequence: r.sequence, block_number: r.blockNumber, signed_by: r.signedBy, crl_number: r.crlNumber, revoked_serials: r.revokedSerials } };
    },
  }),
  defineRoute({
    method: 'post', path: '/organizations/:id/identities/:identityId/key/export', summary: 'Download a client identity\'s private key (explicit, audited)', tags, permission: 'KEY_EXPORT', params: IdentityParams,
    description: 'The only answer that carries the private key (PKCS#8 PEM), with the certificate and mspId: what a Fabric gateway client needs. Every download is in the audit log (action READ, details export: private-key). The key then lives outside the key provider too: revoke the identity when it may be exposed. Only keys of the database provider can be given out (422 KEY_NOT_EXPORTABLE for Vault and AWS KMS); a revoked identity\'s key is refused (409).',
    responses: {
      200: { description: 'the identity with its private key', schema: Type.Object({ id: Type.Integer(), mspId: Type.String(), certificate: Type.String(), privateKey: Type.String({ description: 'PKCS#8 PEM' }) }) },
      404: { description: 'no such organization or identity' }, 409: { description: 'the identity is revoked' }, 422: { description: 'its key provider never gives a private key out' },
    },
    async handler(input) {
      const { identity, exported } = await exportClientIdentityKey(input, input.params.id, input.params.identityId);
      return { body: { id: identity.id, mspId: exported.mspId, certificate: exported.certificatePem, privateKey: exported.privateKeyPem }, headers: { 'Cache-Control': 'no-store' } };
    },
  }),
];
