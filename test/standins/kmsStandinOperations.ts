// The KMS operations of the stand-in, asymmetric signing keys only, with the checks and the
// error codes AWS KMS documents for each operation (NotFoundException, KMSInvalidStateException,
// InvalidKeyUsageException, AlreadyExistsException, ValidationException, KMSInvalidSignatureException).
import { generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import {
  ecdsaSignDigest,
  ecdsaVerifyDigest,
  hashBytes,
  rsaPkcs1SignDigest,
  rsaPkcs1VerifyDigest,
  rsaPssSignDigest,
  rsaPssVerifyDigest,
} from './vaultKmsDigestSigning.ts';

export class KmsError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

interface KmsKey {
  keyId: string;
  arn: string;
  keySpec: string;
  keyUsage: string;
  state: 'Enabled' | 'PendingDeletion';
  created: number;
  deletionDate?: number;
  description: string;
  tags: Map<string, string>;
  privateKey: KeyObject;
  publicKey: KeyObject;
}
interface KmsAlias {
  name: string;
  keyId: string;
  created: number;
}

const keySpecs: Record<string, { gen: () => { privateKey: KeyObject; publicKey: KeyObject }; algorithms: string[] }> = {
  ECC_NIST_P256: { gen: () => generateKeyPairSync('ec', { namedCurve: 'prime256v1' }), algorithms: ['ECDSA_SHA_256'] },
  ECC_NIST_P384: { gen: () => generateKeyPairSync('ec', { namedCurve: 'secp384r1' }), algorithms: ['ECDSA_SHA_384'] },
  ECC_NIST_P521: { gen: () => generateKeyPairSync('ec', { namedCurve: 'secp521r1' }), algorithms: ['ECDSA_SHA_512'] },
  ECC_SECG_P256K1: { gen: () => generateKeyPairSync('ec', { namedCurve: 'secp256k1' }), algorithms: ['ECDSA_SHA_256'] },
  RSA_2048: { gen: () => generateKeyPairSync('rsa', { modulusLength: 2048 }), algorithms: rsaAlgorithms() },
  RSA_3072: { gen: () => generateKeyPairSync('rsa', { modulusLength: 3072 }), algorithms: rsaAlgorithms() },
  RSA_4096: { gen: () => generateKeyPairSync('rsa', { modulusLength: 4096 }), algorithms: rsaAlgorithms() },
};
const allKeySpecs = ['RSA_2048', 'RSA_3072', 'RSA_4096', 'ECC_NIST_P256', 'ECC_NIST_P384', 'ECC_NIST_P521', 'ECC_SECG_P256K1', 'SYMMETRIC_DEFAULT', 'HMAC_224', 'HMAC_256', 'HMAC_384', 'HMAC_512', 'SM2'];
const allSigningAlgorithms = [...rsaAlgorithms(), 'ECDSA_SHA_256', 'ECDSA_SHA_384', 'ECDSA_SHA_512', 'SM2DSA'];

function rsaAlgorithms(): string[] {
  return ['RSASSA_PSS_SHA_256', 'RSASSA_PSS_SHA_384', 'RSASSA_PSS_SHA_512', 'RSASSA_PKCS1_V1_5_SHA_256', 'RSASSA_PKCS1_V1_5_SHA_384', 'RSASSA_PKCS1_V1_5_SHA_512'];
}
const hashOf = (alg: string) => `sha${alg.slice(-3)}`;

function enumCheck(field: string, value: unknown, allowed: string[]): void {
  if (typeof value !== 'string' || !allowed.includes(value)) {
    throw new KmsError('ValidationException', `1 validation error detected: Value '${String(value)}' at '${field}' failed to satisfy constraint: Member must satisfy enum value set: [${allowed.join(', ')}]`);
  }
}

function blob(field: string, value: unknown, max = 4096): Buffer {
  if (typeof value !== 'string' || value === '') throw new KmsError('ValidationException', `1 validation error detected: Value at '${field}' failed to satisfy constraint: Member must not be null`);
  const b = Buffer.from(value, 'base64');
  if (b.length < 1 || b.length > max) throw new KmsError('ValidationException', `1 validation error detected: Value at '${field}' failed to satisfy constraint: Member must have length less than or equal to ${max}`);
  return b;
}

export function createKmsOperations(region: string, accountId: string) {
  const keys = new Map<string, KmsKey>();
  const aliases = new Map<string, KmsAlias>();
  const arnPrefix = `arn:aws:kms:${region}:${accountId}:`;

  function metadata(k: KmsKey) {
    return {
      AWSAccountId: accountId, KeyId: k.keyId, Arn: k.arn, CreationDate: k.created, Enabled: k.state === 'Enabled', Description: k.description,
      KeyUsage: k.keyUsage, KeyState: k.state, ...(k.deletionDate ? { DeletionDate: k.deletionDate } : {}), Origin: 'AWS_KMS', KeyManager: 'CUSTOMER',
      CustomerMasterKeySpec: k.keySpec, KeySpec: k.keySpec, SigningAlgorithms: keySpecs[k.keySpec].algorithms, MultiRegion: false,
    };
  }

  /** Key id, key ARN, alias name or alias ARN, as KMS accepts them. */
  function resolve(id: unknown, { allowAlias = true } = {}): KmsKey {
    if (typeof id !== 'string' || !id) throw new KmsError('ValidationException', "1 validation error detected: Value null at 'keyId' failed to satisfy constraint: Member must not be null");
    let keyId = id;
    if (id.startsWith('arn:aws:kms:')) {
      if (!id.startsWith(arnPrefix)) throw new KmsError('NotFoundException', `Invalid arn ${id}`);
      keyId = id.slice(arnPrefix.length);
    }
    if (keyId.startsWith('alias/')) {
      const a = allowAlias ? aliases.get(keyId) : undefined;
      if (!a) throw new KmsError('NotFoundException', `Alias ${arnPrefix}${keyId} is not found.`);
      keyId = a.keyId;
    } else if (keyId.startsWith('key/')) keyId = keyId.slice(4);
    const k = keys.get(keyId);
    if (!k) throw new KmsError('NotFoundException', `Key '${arnPrefix}key/${keyId}' does not exist`);
    return k;
  }

  function usable(k: KmsKey): KmsKey {
    if (k.state === 'PendingDeletion') throw new KmsError('KMSInvalidStateException', `${k.arn} is pending deletion.`);
    return k;
  }

  function signingKey(body: Record<string, unknown>): { k: KmsKey; alg: string; digest: Buffer } {
    const k = usable(resolve(body.KeyId));
    enumCheck('signingAlgorithm', body.SigningAlgorithm, allSigningAlgorithms);
    const alg = body.SigningAlgorithm as string;
    const messageType = (body.MessageType as string | undefined) ?? 'RAW';
    enumCheck('messageType', messageType, ['RAW', 'DIGEST', 'EXTERNAL_MU']);
    if (k.keyUsage !== 'SIGN_VERIFY') throw new KmsError('InvalidKeyUsageException', `${k.arn} key usage is ${k.keyUsage} which is not valid for ${body.Signature === undefined ? 'Sign' : 'Verify'}.`);
    if (!keySpecs[k.keySpec].algorithms.includes(alg)) throw new KmsError('InvalidKeyUsageException', `Signing algorithm ${alg} is not compatible with the key spec ${k.keySpec} of ${k.arn}.`);
    const message = blob('message', body.Message);
    const hash = hashOf(alg);
    if (messageType === 'DIGEST') {
      if (message.length !== hashBytes(hash, Buffer.alloc(0)).length) throw new KmsError('ValidationException', `Digest is invalid length for algorithm ${alg}.`);
      return { k, alg, digest: message };
    }
    if (messageType !== 'RAW') throw new KmsError('ValidationException', `MessageType ${messageType} is not supported for ${k.keySpec}.`);
    return { k, alg, digest: hashBytes(hash, message) };
  }

  const ops: Record<string, (body: Record<string, unknown>) => unknown> = {
    CreateKey(body) {
      const keySpec = (body.KeySpec as string | undefined) ?? (body.CustomerMasterKeySpec as string | undefined) ?? 'SYMMETRIC_DEFAULT';
      enumCheck('keySpec', keySpec, allKeySpecs);
      if (!keySpecs[keySpec]) throw new KmsError('UnsupportedOperationException', `stand-in: KeySpec ${keySpec} exists in KMS but this stand-in implements asymmetric signing keys only.`);
      const keyUsage = (body.KeyUsage as string | undefined) ?? 'ENCRYPT_DECRYPT';
      enumCheck('keyUsage', keyUsage, ['SIGN_VERIFY', 'ENCRYPT_DECRYPT', 'GENERATE_VERIFY_MAC', 'KEY_AGREEMENT']);
      const okUsage = keySpec.startsWith('RSA_') ? ['SIGN_VERIFY', 'ENCRYPT_DECRYPT'] : ['SIGN_VERIFY', 'KEY_AGREEMENT'];
      if (!okUsage.includes(keyUsage)) throw new KmsError('ValidationException', `KeyUsage ${keyUsage} is not compatible with KeySpec ${keySpec}.`);
      const keyId = randomUUID();
      const k: KmsKey = {
        keyId, arn: `${arnPrefix}key/${keyId}`, keySpec, keyUsage, state: 'Enabled', created: Date.now() / 1000, description: String(body.Description ?? ''),
        tags: new Map(((body.Tags as Array<{ TagKey: string; TagValue: string }>) ?? []).map((t) => [t.TagKey, t.TagValue])), ...keySpecs[keySpec].gen(),
      };
      keys.set(keyId, k);
      return { KeyMetadata: metadata(k) };
    },
    DescribeKey: (body) => ({ KeyMetadata: metadata(resolve(body.KeyId)) }),
    CreateAlias(body) {
      const name = body.AliasName;
      if (typeof name !== 'string' || !/^alias\/[a-zA-Z0-9/_-]+$/.test(name) || name.length > 256) {
        throw new KmsError('ValidationException', `1 validation error detected: Value '${String(name)}' at 'aliasName' failed to satisfy constraint: Member must satisfy regular expression pattern: ^alias/[a-zA-Z0-9/_-]+$`);
      }
      if (name.startsWith('alias/aws/')) throw new KmsError('NotAuthorizedException', 'Cannot create alias with prefix alias/aws/');
      const k = usable(resolve(body.TargetKeyId, { allowAlias: false }));
      if (aliases.has(name)) throw new KmsError('AlreadyExistsException', `An alias with the name ${arnPrefix}${name} already exists`);
      aliases.set(name, { name, keyId: k.keyId, created: Date.now() / 1000 });
      return {};
    },
    DeleteAlias(body) {
      const name = String(body.AliasName ?? '');
      if (!aliases.delete(name)) throw new KmsError('NotFoundException', `Alias ${arnPrefix}${name} is not found.`);
      return {};
    },
    GetPublicKey(body) {
      const k = usable(resolve(body.KeyId));
      return {
        KeyId: k.arn, PublicKey: k.publicKey.export({ format: 'der', type: 'spki' }).toString('base64'), CustomerMasterKeySpec: k.keySpec, KeySpec: k.keySpec,
        KeyUsage: k.keyUsage, SigningAlgorithms: keySpecs[k.keySpec].algorithms,
      };
    },
    Sign(body) {
      const { k, alg, digest } = signingKey(body);
      const hash = hashOf(alg);
      let sig: Buffer;
      if (alg.startsWith('ECDSA_')) sig = ecdsaSignDigest(k.privateKey, digest, 'der');
      else if (alg.startsWith('RSASSA_PKCS1_V1_5_')) sig = rsaPkcs1SignDigest(k.privateKey, hash, digest);
      else sig = rsaPssSignDigest(k.privateKey, hash, digest, digest.length);
      return { KeyId: k.arn, Signature: sig.toString('base64'), SigningAlgorithm: alg };
    },
    Verify(body) {
      const { k, alg, digest } = signingKey(body);
      const sig = blob('signature', body.Signature, 6144);
      const hash = hashOf(alg);
      const valid = alg.startsWith('ECDSA_')
        ? ecdsaVerifyDigest(k.publicKey, digest, sig, 'der')
        : alg.startsWith('RSASSA_PKCS1_V1_5_')
          ? rsaPkcs1VerifyDigest(k.publicKey, hash, digest, sig)
          : rsaPssVerifyDigest(k.publicKey, hash, digest, sig);
      if (!valid) throw new KmsError('KMSInvalidSignatureException', '');
      return { KeyId: k.arn, SignatureValid: true, SigningAlgorithm: alg };
    },
    ListAliases(body) {
      const filter = body.KeyId === undefined ? null : resolve(body.KeyId, { allowAlias: false }).keyId;
      const all = [...aliases.values()].filter((a) => !filter || a.keyId === filter).map((a) => ({ AliasName: a.name, AliasArn: `${arnPrefix}${a.name}`, TargetKeyId: a.keyId, CreationDate: a.created }));
      return page(all, body, 'Aliases');
    },
    ListKeys: (body) => page([...keys.values()].map((k) => ({ KeyId: k.keyId, KeyArn: k.arn })), body, 'Keys'),
    TagResource(body) {
      const k = usable(resolve(body.KeyId, { allowAlias: false }));
      for (const t of (body.Tags as Array<{ TagKey: string; TagValue: string }>) ?? []) k.tags.set(t.TagKey, t.TagValue);
      return {};
    },
    ListResourceTags(body) {
      const k = resolve(body.KeyId, { allowAlias: false });
      return { Tags: [...k.tags].map(([TagKey, TagValue]) => ({ TagKey, TagValue })), Truncated: false };
    },
    ScheduleKeyDeletion(body) {
      const k = usable(resolve(body.KeyId, { allowAlias: false }));
      const days = body.PendingWindowInDays === undefined ? 30 : Number(body.PendingWindowInDays);
      if (!Number.isInteger(days) || days < 7 || days > 30) {
        throw new KmsError('ValidationException', `1 validation error detected: Value '${days}' at 'pendingWindowInDays' failed to satisfy constraint: Member must have value between 7 and 30`);
      }
      k.state = 'PendingDeletion';
      k.deletionDate = Date.now() / 1000 + days * 86400;
      return { KeyId: k.arn, DeletionDate: k.deletionDate, KeyState: k.state, PendingWindowInDays: days };
    },
  };

  function page<T>(all: T[], body: Record<string, unknown>, field: string) {
    const limit = body.Limit === undefined ? 100 : Number(body.Limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new KmsError('ValidationException', `1 validation error detected: Value '${limit}' at 'limit' failed to satisfy constraint: Member must have value between 1 and 1000`);
    const start = body.Marker === undefined ? 0 : Number(Buffer.from(String(body.Marker), 'base64').toString());
    const items = all.slice(start, start + limit);
    const truncated = start + limit < all.length;
    return { [field]: items, Truncated: truncated, ...(truncated ? { NextMarker: Buffer.from(String(start + limit)).toString('base64') } : {}) };
  }

  /** The ARN a denied request names as its resource. */
  function resourceOf(op: string, body: Record<string, unknown>): string {
    if (op === 'CreateKey' || op === 'ListKeys' || op === 'ListAliases') return '*';
    try {
      return resolve(body.KeyId ?? body.TargetKeyId).arn;
    } catch {
      return `${arnPrefix}key/*`;
    }
  }

  return { ops, resourceOf };
}
