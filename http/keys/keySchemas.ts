// Request and response schemas of POST /keys/{keyID}/sign and /sign-data.
import { Type } from '@sinclair/typebox';

const keyUsages = ['digitalSignature', 'nonRepudiation', 'keyEncipherment', 'dataEncipherment', 'keyAgreement', 'keyCertSign', 'cRLSign', 'encipherOnly', 'decipherOnly'];

export const keyUsageInfo = `keyUsages: ${keyUsages.join(', ')} (default: digitalSignature; a CA gets digitalSignature, keyCertSign, cRLSign). extendedKeyUsages: serverAuth, clientAuth.`;

export const SignBody = Type.Object({
  caKeyId: Type.Optional(Type.Integer({ minimum: 1, description: 'issuing CA key; default the signing CA of the key\'s organization' })),
  commonName: Type.String({ minLength: 1, maxLength: 64 }),
  organization: Type.Optional(Type.String({ maxLength: 64 })),
  organizationalUnits: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 10 })),
  country: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$' })),
  province: Type.Optional(Type.String({ maxLength: 128 })),
  locality: Type.Optional(Type.String({ maxLength: 128 })),
  dnsNames: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 253 }), { maxItems: 100 })),
  ipAddresses: Type.Optional(Type.Array(Type.String({ minLength: 2, maxLength: 45 }), { maxItems: 100 })),
  validityDays: Type.Optional(Type.Integer({ minimum: 1, maximum: 36500, description: 'default 365' })),
  notBefore: Type.Optional(Type.String({ format: 'date-time' })),
  notAfter: Type.Optional(Type.String({ format: 'date-time' })),
  keyUsages: Type.Optional(Type.Array(Type.String(), { maxItems: 9 })),
  extendedKeyUsages: Type.Optional(Type.Array(Type.String(), { maxItems: 2 })),
  isCA: Type.Optional(Type.Boolean({ description: 'issue a CA certificate (basicConstraints CA:TRUE)' })),
}, { additionalProperties: false });

export const SignDataBody = Type.Object({
  data: Type.String({ description: 'the bytes to sign, base64 (standard alphabet, padded)', maxLength: 1_400_000 }),
  hash: Type.Optional(Type.Union([Type.Literal('sha256'), Type.Literal('sha384'), Type.Literal('sha512')], { description: 'ECDSA and RSA; default per algorithm (see description); ignored for Ed25519' })),
  ethereum: Type.Optional(Type.Union([Type.Literal('keccak256'), Type.Literal('personal')], { description: 'secp256k1 only: Ethereum-style recoverable signature over keccak256(data) or the EIP-191 personal_sign digest' })),
}, { additionalProperties: false });

export const SignDataResponse = Type.Object({
  algorithm: Type.String({ description: 'ECDSA, RSA or Ed25519' }),
  curve: Type.Optional(Type.String()),
  hash: Type.Union([Type.String(), Type.Null()]),
  signatureFormat: Type.String({ description: 'DER (ECDSA), PKCS1_V1_5 (RSA), ED25519 (64 raw bytes)' }),
  signature: Type.String({ description: 'base64' }),
  r: Type.Optional(Type.String({ description: 'hex, zero-padded to the curve size' })),
  s: Type.Optional(Type.String()),
  ethereumAddress: Type.Optional(Type.String()),
  ethereum: Type.Optional(Type.Object({ mode: Type.String(), digest: Type.String(), r: Type.String(), s: Type.String(), v: Type.Integer(), yParity: Type.Integer(), signature: Type.String() })),
});
