// The key as the API shows it (never a private key), the create body, and the shared
// create-from-body step of POST /keys and POST /organizations/{id}/keys.
import { Type, type Static } from '@sinclair/typebox';
import type { KeyRow } from '../../projections/keys.ts';
import { getKey } from '../../projections/keys.ts';
import { defaultKeyProviderId } from '../../projections/keyProviders.ts';
import type { RouteResult } from '../route.ts';
import { keySpecFromInput, algorithmLabel } from './keySpecInput.ts';
import { createKey, type CommandInput } from '../../application/keys/keyCreation.ts';

export const CertificateSchema = Type.Object({
  pem: Type.String(),
  serialNumber: Type.String({ description: 'upper-case hex' }),
  subject: Type.String(),
  notBefore: Type.String({ format: 'date-time' }),
  notAfter: Type.String({ format: 'date-time' }),
  isCA: Type.Boolean(),
  issuerKeyId: Type.Union([Type.Integer(), Type.Null()], { description: 'the CA key that signed it; the key itself when self-signed; null for an imported CA' }),
});

export const KeySchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  purpose: Type.String({ description: 'SIGN_CA, TLS_CA, ADMIN, CLIENT (a client identity: /organizations/{id}/identities), CA (imported or made with isCA), VALIDATOR (evm validator key), GENERAL, IDENTITY, TLS' }),
  algorithm: Type.String({ description: 'ECDSA, RSA or Ed25519' }),
  curve: Type.Union([Type.String(), Type.Null()]),
  keySize: Type.Union([Type.Integer(), Type.Null()]),
  providerId: Type.Integer(),
  keyProviderId: Type.Integer({ description: 'same as providerId' }),
  provider: Type.Object({ id: Type.Integer(), name: Type.String(), type: Type.String() }),
  organizationId: Type.Union([Type.Integer(), Type.Null()]),
  publicKey: Type.String({ description: 'SubjectPublicKeyInfo, PEM' }),
  ethereumAddress: Type.Union([Type.String(), Type.Null()], { description: 'secp256k1 keys: the EIP-55 checksummed address' }),
  certificate: Type.Union([CertificateSchema, Type.Null()]),
  expiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'notAfter of the current certificate' }),
  expiryStatus: Type.String({ description: 'valid, expiring (within 30 days) or expired' }),
  isCA: Type.Boolean(),
  imported: Type.Boolean(),
  rotation: Type.Object({ enabled: Type.Boolean(), intervalDays: Type.Union([Type.Integer(), Type.Null()]), lastRotatedAt: Type.Union([Type.String(), Type.Null()]) }),
  in_use: Type.Boolean({ description: 'an organization, a node or an evm network uses it (used_by); false: nothing does, it can go (GET /keys?unused=true, POST /keys/delete)' }),
  used_by: Type.Array(Type.Object({
    type: Type.Union([Type.Literal('organization'), Type.Literal('node'), Type.Literal('network')]),
    id: Type.Integer(),
    name: Type.String({ description: 'the organization\'s mspId, the node\'s or the evm network\'s name' }),
    as: Type.String({ description: 'what the key is to it: signing CA, TLS CA, admin, identity, TLS, validator' }),
  }), { description: 'what uses the key now, computed from the organizations, nodes and evm networks' }),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

export function keyView(k: KeyRow) {
  return {
    id: k.id, name: k.name, description: k.description, purpose: k.purpose, algorithm: algorithmLabel(k.algorithm), curve: k.curve, keySize: k.keySize,
    providerId: k.providerId, keyProviderId: k.providerId, provider: { id: k.providerId, name: k.providerName, type: k.providerType },
    organizationId: k.organizationId, publicKey: k.publicKey, ethereumAddress: k.ethereumAddress, certificate: k.certificate,
    expiresAt: k.expiresAt, expiryStatus: k.expiryStatus, isCA: k.isCA, imported: k.imported, rotation: k.rotation, in_use: k.usedBy.length > 0, used_by: k.usedBy, createdAt: k.createdAt, updatedAt: k.updatedAt,
  };
}

export const CreateKeyBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  description: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
  algorithm: Type.Optional(Type.String({ description: 'ECDSA (also written EC), RSA or Ed25519; default ECDSA' })),
  curve: Type.Optional(Type.String({ description: 'ECDSA: P-256 (default), P-384, P-521, secp256k1 — per provider: VAULT has no secp256k1, AWS_KMS no P-521, neither Ed25519' })),
  keySize: Type.Optional(Type.Integer({ description: 'RSA: 2048 (default) or 4096' })),
  keyProviderId: Type.Optional(Type.Integer({ minimum: 1 })),
  providerId: Type.Optional(Type.Integer({ minimum: 1, description: 'same as keyProviderId' })),
  organizationId: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
  isCA: Type.Optional(Type.Boolean({ description: 'make it a self-signed CA right away' })),
  commonName: Type.Optional(Type.String({ description: 'with isCA: the CA\'s common name (default: name)' })),
  validityDays: Type.Optional(Type.Integer({ minimum: 1, maximum: 36500 })),
}, { additionalProperties: false });

export async function createKeyFromBody(input: CommandInput, body: Static<typeof CreateKeyBody>, where: { organizationId: number | null; providerId?: number }): Promise<RouteResult> {
  const { deps } = input;
  const providerId = where.providerId ?? body.providerId ?? body.keyProviderId ?? (await defaultKeyProviderId(deps.pool));
  const spec = keySpecFromInput(body);
  const id = await createKey(input, {
    name: body.name, description: body.description ?? null, purpose: body.isCA ? 'CA' : 'GENERAL', providerId, organizationId: where.organizationId, spec,
    certificate: body.isCA ? { issuer: 'self', profile: { commonName: body.commonName ?? body.name, isCa: true, validityDays: body.validityDays ?? 3650, keyUsages: ['digitalSignature', 'keyCertSign', 'cRLSign'] } } : undefined,
  });
  return { status: 201, body: keyView((await getKey(deps.pool, id))!), headers: { Location: `/api/v1/keys/${id}` } };
}
