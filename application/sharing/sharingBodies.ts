// What travels between instances, as schemas: every body the sharing listener takes and every
// answer this instance reads from a peer is checked against one of these before anything is
// done with it (400 naming the fields on the listener; 502 PEER_INVALID_ANSWER for an answer),
// and only the fields they name are kept. Strings are bounded and hold no control characters,
// lists are bounded, extra fields are refused.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { AppError, ValidationError, type FieldIssue } from '../../domain/shared/errors.ts';
import type { PeerMetadata, SharedNetwork, SharedNode, SharedOrganization } from '../../domain/sharing/nodeSharing.ts';

/** Printable text: no C0/C1 control characters (a NUL cannot be stored), no lone surrogates. */
const TEXT = '^[^\\u0000-\\u001f\\u007f-\\u009f]*$';
const Text = (maxLength: number, minLength = 0) => Type.String({ minLength, maxLength, pattern: TEXT });
const Pem = Type.String({ minLength: 1, maxLength: 20_000, pattern: '^\\s*-----BEGIN CERTIFICATE-----[A-Za-z0-9+/=\\s]+-----END CERTIFICATE-----\\s*$' });
const MspId = Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$' });
const Id = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
const Port = Type.Integer({ minimum: 0, maximum: 65_535 });
const Endpoint = Type.String({ minLength: 1, maxLength: 300, pattern: '^[A-Za-z0-9.:\\[\\]_-]+$' });

export const SharedNodeSchema = Type.Object({
  id: Id,
  name: Text(200, 1),
  platform: Type.String({ minLength: 1, maxLength: 32, pattern: '^[A-Z_]+$' }),
  nodeType: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_]+$' }),
  role: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }),
  status: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }),
  mspId: Type.Union([MspId, Type.Null()]),
  host: Type.String({ minLength: 1, maxLength: 253, pattern: '^[A-Za-z0-9.:\\[\\]_-]+$' }),
  ports: Type.Record(Type.String({ pattern: '^[A-Za-z][A-Za-z0-9_]{0,63}$' }), Port, { maxProperties: 32 }),
  endpoint: Type.Union([Endpoint, Type.Null()]),
  tlsCertificate: Type.Union([Pem, Type.Null()]),
  identityCertificate: Type.Union([Pem, Type.Null()]),
  validatorAddress: Type.Union([Type.String({ pattern: '^0x[0-9a-fA-F]{40}$' }), Type.Null()]),
}, { additionalProperties: false });

export const SharedOrganizationSchema = Type.Object({ mspId: MspId, signCaCertPem: Pem, tlsCaCertPem: Pem, adminCertPem: Pem }, { additionalProperties: false });

export const SharedNetworkSchema = Type.Object({
  networkId: Id,
  name: Text(64, 1),
  channelName: Type.String({ minLength: 1, maxLength: 249, pattern: '^[a-z][a-z0-9.-]*$' }),
  genesisBlock: Type.String({ minLength: 1, maxLength: 4_000_000, pattern: '^[A-Za-z0-9+/]*={0,2}$' }),
  ordererEndpoints: Type.Array(Endpoint, { maxItems: 100 }),
  organizations: Type.Array(MspId, { maxItems: 1000 }),
  ordererOrganizations: Type.Array(MspId, { maxItems: 1000 }),
}, { additionalProperties: false });

const metadata = {
  nodes: Type.Array(SharedNodeSchema, { maxItems: 10_000 }),
  organizations: Type.Optional(Type.Array(SharedOrganizationSchema, { maxItems: 1000 })),
  networks: Type.Optional(Type.Array(SharedNetworkSchema, { maxItems: 1000 })),
};
export const MetadataBody = Type.Object(metadata, { additionalProperties: false });

/** An EC P-256 public key, nothing private (a `d` is an extra field, refused). */
export const PublicJwk = Type.Object({ kty: Type.Literal('EC'), crv: Type.Literal('P-256'), x: Type.String({ pattern: '^[A-Za-z0-9_-]{43}$' }), y: Type.String({ pattern: '^[A-Za-z0-9_-]{43}$' }) }, { additionalProperties: false });

export const InstanceSchema = Type.Object({
  instanceId: Text(128, 1),
  url: Type.String({ minLength: 9, maxLength: 2048, pattern: '^https://[^\\s]+$' }),
  tlsCertificate: Pem,
  publicJwk: PublicJwk,
}, { additionalProperties: false });

export const AcceptBody = Type.Object({ invitation_jwt: Type.String({ minLength: 1, maxLength: 20_000, pattern: '^[A-Za-z0-9_.-]+$' }), instance: InstanceSchema, ...metadata }, { additionalProperties: false });
export const AcceptAnswer = Type.Object({ instance: InstanceSchema, ...metadata }, { additionalProperties: false });

export const ProposalBody = Type.Object({
  proposalId: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_-]+$' }),
  channelName: Type.String({ minLength: 1, maxLength: 249, pattern: '^[a-z][a-z0-9.-]*$' }),
  update: Type.String({ minLength: 1, maxLength: 4_000_000, pattern: '^[A-Za-z0-9+/]*={0,2}$' }),
  missingOrganizations: Type.Array(MspId, { minItems: 1, maxItems: 100 }),
  description: Type.Optional(Type.String({ maxLength: 10_000 })),
}, { additionalProperties: false });

export const SignaturesBody = Type.Object({
  proposalId: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_-]+$' }),
  signatures: Type.Array(Type.Object({ mspId: MspId, signatureHeader: Type.String({ minLength: 1, maxLength: 100_000, pattern: '^[A-Za-z0-9+/]*={0,2}$' }), signature: Type.String({ minLength: 1, maxLength: 10_000, pattern: '^[A-Za-z0-9+/]*={0,2}$' }) }, { additionalProperties: false }), { minItems: 1, maxItems: 100 }),
}, { additionalProperties: false });

export const ChaincodeCommittedBody = Type.Object({ chaincodeId: Id, sequence: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647 })) }, { additionalProperties: false });

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Field issues of a value against a schema ([] when it fits): at most 20, each naming its field. */
export function schemaIssues(schema: TSchema, value: unknown, prefix = ''): FieldIssue[] {
  const issues: FieldIssue[] = [];
  if (!Value.Check(schema, value)) {
    for (const e of Value.Errors(schema, value)) {
      const field = `${prefix}${e.path.replace(/^\//, '').replace(/\//g, '.')}` || '(body)';
      if (!issues.some((i) => i.field === field)) issues.push({ field, message: e.message });
      if (issues.length >= 20) break;
    }
    return issues;
  }
  // The schema bounds the depth, so this walk is bounded too.
  const walk = (v: unknown, at: string) => {
    if (typeof v === 'string' && LONE_SURROGATE.test(v)) issues.push({ field: at || '(body)', message: 'holds a lone UTF-16 surrogate' });
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, at ? `${at}.${k}` : k);
  };
  walk(value, prefix.replace(/\.$/, ''));
  return issues;
}

/** A listener body checked against its schema: 400 VALIDATION_FAILED naming the fields. */
export function checkedBody<T extends TSchema>(schema: T, value: unknown, what: string): Static<T> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new ValidationError(`The body of ${what} must be a JSON object.`, [{ field: '(body)', message: 'a JSON object' }]);
  const issues = schemaIssues(schema, value);
  if (issues.length) throw new ValidationError(`The body of ${what} is not valid.`, issues);
  return value as Static<T>;
}

/** A peer's answer checked against its schema: 502 PEER_INVALID_ANSWER naming the fields (nothing is recorded). */
export function checkedAnswer<T extends TSchema>(schema: T, value: unknown, what: string): Static<T> {
  const issues = value !== null && typeof value === 'object' && !Array.isArray(value) ? schemaIssues(schema, value) : [{ field: '(body)', message: 'a JSON object' }];
  if (issues.length) throw new AppError(502, 'PEER_INVALID_ANSWER', `The peer instance's answer to ${what} is not valid: ${issues.slice(0, 5).map((i) => `${i.field} ${i.message}`).join('; ')}.`, { details: issues, expose: true });
  return value as Static<T>;
}

/** Exactly the schema's fields of checked metadata: nothing else a peer sent is kept. */
export function receivedMetadata(body: Static<typeof MetadataBody>): Required<PeerMetadata> {
  const nodes: SharedNode[] = body.nodes.map((n) => ({
    id: n.id, name: n.name, platform: n.platform, nodeType: n.nodeType, role: n.role, status: n.status, mspId: n.mspId, host: n.host,
    ports: Object.fromEntries(Object.entries(n.ports)), endpoint: n.endpoint, tlsCertificate: n.tlsCertificate, identityCertificate: n.identityCertificate, validatorAddress: n.validatorAddress,
  }));
  const organizations: SharedOrganization[] = (body.organizations ?? []).map((o) => ({ mspId: o.mspId, signCaCertPem: o.signCaCertPem, tlsCaCertPem: o.tlsCaCertPem, adminCertPem: o.adminCertPem }));
  const networks: SharedNetwork[] = (body.networks ?? []).map((n) => ({
    networkId: n.networkId, name: n.name, channelName: n.channelName, genesisBlock: n.genesisBlock, ordererEndpoints: [...n.ordererEndpoints], organizations: [...n.organizations], ordererOrganizations: [...n.ordererOrganizations],
  }));
  return { nodes, organizations, networks };
}
