// Key provider backed by AWS KMS: asymmetric SIGN_VERIFY keys created in KMS (the private key
// never leaves it), named by aliases alias/<prefix><name>, signing with kms:Sign.
// Handle = the KMS key id. Creating a key whose alias already names a usable key of the same
// spec adopts it (a saga retrying after a crash gets the same key); another spec is a conflict.
// Configuration and authentication fields: see awsKmsConfig.ts.
import { createHash, createPublicKey } from 'node:crypto';
import {
  CreateAliasCommand,
  CreateKeyCommand,
  DeleteAliasCommand,
  DescribeKeyCommand,
  GetPublicKeyCommand,
  KMSClient,
  ListAliasesCommand,
  ListKeysCommand,
  ScheduleKeyDeletionCommand,
  SignCommand,
  type KeySpec as AwsKeySpec,
  type KMSClientConfig,
  type SigningAlgorithmSpec,
} from '@aws-sdk/client-kms';
import { fromIni, fromNodeProviderChain, fromTemporaryCredentials } from '@aws-sdk/credential-providers';
import type { GeneratedKey, KeyProvider, KeyProviderStatus, KeySpec, SignInput } from '../../domain/keys/keyProvider.ts';
import { ConflictError, ValidationError } from '../../domain/shared/errors.ts';
import { describeKeySpec } from './signingAlgorithms.ts';
import type { AwsKmsSettings } from './awsKmsConfig.ts';
import { classifyKmsError, mapKmsError, type KmsFailureKind } from './awsKmsErrors.ts';

export interface AwsKmsStatus extends KeyProviderStatus {
  kms_reachable: boolean;
  has_credentials: boolean;
  kms_status: 'available' | KmsFailureKind;
}

export interface AwsKmsKeyProvider extends KeyProvider {
  readonly type: 'AWS_KMS';
  aliasOf(name: string): string;
  status(): Promise<AwsKmsStatus>;
}

const SUPPORT = 'RSA 2048 and 4096; EC P-256, P-384 and secp256k1 (not P-521 or Ed25519)';
const RAW_LIMIT = 4096;

function awsKeySpec(spec: KeySpec): AwsKeySpec | null {
  if (spec.algorithm === 'RSA' && (spec.keySize === 2048 || spec.keySize === 4096)) return `RSA_${spec.keySize}`;
  if (spec.algorithm === 'EC' && spec.curve === 'P-256') return 'ECC_NIST_P256';
  if (spec.algorithm === 'EC' && spec.curve === 'P-384') return 'ECC_NIST_P384';
  if (spec.algorithm === 'EC' && spec.curve === 'secp256k1') return 'ECC_SECG_P256K1';
  return null;
}

export function credentialsFor(settings: AwsKmsSettings): KMSClientConfig['credentials'] {
  const auth = settings.auth;
  switch (auth.method) {
    case 'STATIC':
      return { accessKeyId: auth.accessKeyId, secretAccessKey: auth.secretAccessKey, sessionToken: auth.sessionToken };
    case 'PROFILE':
      return fromIni({ profile: auth.profile });
    case 'ASSUME_ROLE':
      return fromTemporaryCredentials({
        params: { RoleArn: auth.roleArn, RoleSessionName: auth.roleSessionName, ...(auth.externalId ? { ExternalId: auth.externalId } : {}) },
        ...(auth.base ? { masterCredentials: auth.base } : {}),
        clientConfig: { region: settings.region, ...(auth.stsEndpointUrl ? { endpoint: auth.stsEndpointUrl } : {}) },
      });
    case 'INSTANCE_ROLE':
      return fromNodeProviderChain();
  }
}

export function createAwsKmsKeyProvider(settings: AwsKmsSettings, opts: { maxAttempts?: number; timeoutMs?: number; pendingWindowDays?: number } = {}): AwsKmsKeyProvider {
  const client = new KMSClient({
    region: settings.region,
    ...(settings.endpointUrl ? { endpoint: settings.endpointUrl } : {}),
    credentials: credentialsFor(settings),
    maxAttempts: opts.maxAttempts ?? 3,
    requestHandler: { connectionTimeout: opts.timeoutMs ?? 5_000, requestTimeout: opts.timeoutMs ?? 15_000 },
  });

  async function call<T>(operation: string, keyRef: string | undefined, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw mapKmsError(err, { region: settings.region, endpointUrl: settings.endpointUrl, operation, keyRef });
    }
  }

  function aliasOf(name: string): string {
    if (!/^[a-zA-Z0-9/_-]+$/.test(name)) {
      throw new ValidationError(`Key name "${name}" cannot be part of an AWS KMS alias: use letters, digits, "/", "_" and "-".`, [{ field: 'name', message: 'letters, digits, "/", "_", "-" only' }]);
    }
    const alias = `${settings.aliasPrefix}${name}`;
    if (alias.length > 256) throw new ValidationError(`The alias ${alias} is longer than the 256 characters AWS KMS allows.`, [{ field: 'name', message: 'too long' }]);
    return alias;
  }

  function unsupported(spec: KeySpec): ValidationError {
    return new ValidationError(`The AWS KMS key provider cannot hold ${describeKeySpec(spec)} keys. Supported: ${SUPPORT}.`, [
      { field: spec.algorithm === 'EC' ? 'curve' : 'algorithm', message: `${describeKeySpec(spec)} is not supported by AWS KMS here` },
    ]);
  }

  async function publicKeyPem(keyId: string): Promise<string> {
    const res = await call('GetPublicKey', keyId, () => client.send(new GetPublicKeyCommand({ KeyId: keyId })));
    return createPublicKey({ key: Buffer.from(res.PublicKey!), format: 'der', type: 'spki' }).export({ format: 'pem', type: 'spki' }) as string;
  }

  /** The key an alias names, or null when the alias does not exist. */
  async function existingByAlias(alias: string) {
    try {
      return (await client.send(new DescribeKeyCommand({ KeyId: alias }))).KeyMetadata ?? null;
    } catch (err) {
      if ((err as { name?: string }).name === 'NotFoundException') return null;
      throw mapKmsError(err, { region: settings.region, endpointUrl: settings.endpointUrl, operation: 'DescribeKey', keyRef: alias });
    }
  }

  async function generateKey(name: string, spec: KeySpec): Promise<GeneratedKey> {
    const keySpec = awsKeySpec(spec);
    if (!keySpec) throw unsupported(spec);
    const alias = aliasOf(name);
    const existing = await existingByAlias(alias);
    if (existing) {
      if (existing.KeyState !== 'Enabled' || existing.KeySpec !== keySpec || existing.KeyUsage !== 'SIGN_VERIFY') {
        throw new ConflictError(`The alias ${alias} already names a KMS key (${existing.KeySpec}, ${existing.KeyUsage}, ${existing.KeyState}); delete the alias or choose another name.`, { alias });
      }
      return { handle: existing.KeyId!, publicKeyPem: await publicKeyPem(existing.KeyId!) };
    }
    const created = await call('CreateKey', alias, () =>
      client.send(new CreateKeyCommand({
        KeySpec: keySpec,
        KeyUsage: 'SIGN_VERIFY',
        Description: `ledger network manager key ${name}`,
        Tags: [{ TagKey: 'lnm:name', TagValue: name }, { TagKey: 'lnm:managed-by', TagValue: 'ledger-network-manager' }],
      })),
    );
    const keyId = created.KeyMetadata!.KeyId!;
    try {
      await call('CreateAlias', alias, () => client.send(new CreateAliasCommand({ AliasName: alias, TargetKeyId: keyId })));
    } catch (err) {
      // Do not leave an unnamed key behind (someone took the alias between the check and now).
      await client.send(new ScheduleKeyDeletionCommand({ KeyId: keyId, PendingWindowInDays: 7 })).catch(() => undefined);
      throw err;
    }
    return { handle: keyId, publicKeyPem: await publicKeyPem(keyId) };
  }

  function signingRequest(spec: KeySpec, input: SignInput): { SigningAlgorithm: SigningAlgorithmSpec; Message: Buffer; MessageType: 'RAW' | 'DIGEST' } {
    const hash = input.hash;
    if (spec.algorithm === 'RSA') {
      if (hash === 'keccak256') throw new ValidationError('RSA keys cannot sign keccak-256 digests; use an EC key.', [{ field: 'hash', message: 'keccak256 needs an EC key' }]);
      const alg = `RSASSA_PKCS1_V1_5_SHA_${hash.slice(3)}` as SigningAlgorithmSpec;
      return 'data' in input ? rawOrDigest(alg, hash, input.data) : { SigningAlgorithm: alg, Message: input.digest, MessageType: 'DIGEST' };
    }
    // KMS ties each curve to one hash: P-256 and secp256k1 to SHA-256, P-384 to SHA-384.
    const curveHash = spec.curve === 'P-384' ? 'sha384' : 'sha256';
    const alg = `ECDSA_SHA_${curveHash.slice(3)}` as SigningAlgorithmSpec;
    const ok = hash === curveHash || (hash === 'keccak256' && curveHash === 'sha256' && !('data' in input));
    if (!ok) {
      throw new ValidationError(`An AWS KMS ${describeKeySpec(spec)} key signs ${curveHash.toUpperCase()} digests only, not ${hash}.`, [{ field: 'hash', message: `use ${curveHash}` }]);
    }
    return 'data' in input ? rawOrDigest(alg, curveHash, input.data) : { SigningAlgorithm: alg, Message: input.digest, MessageType: 'DIGEST' };
  }

  function rawOrDigest(alg: SigningAlgorithmSpec, hash: string, data: Buffer) {
    // KMS takes at most 4096 bytes of message; longer data is hashed here, which is the same signature.
    if (data.length <= RAW_LIMIT && data.length > 0) return { SigningAlgorithm: alg, Message: data, MessageType: 'RAW' as const };
    return { SigningAlgorithm: alg, Message: createHash(hash).update(data).digest(), MessageType: 'DIGEST' as const };
  }

  async function sign(handle: string, spec: KeySpec, input: SignInput): Promise<Buffer> {
    if (!awsKeySpec(spec)) throw unsupported(spec);
    const req = signingRequest(spec, input);
    const res = await call('Sign', handle, () => client.send(new SignCommand({ KeyId: handle, ...req })));
    return Buffer.from(res.Signature!);
  }

  async function deleteKey(handle: string): Promise<void> {
    try {
      const aliases = await client.send(new ListAliasesCommand({ KeyId: handle }));
      for (const a of aliases.Aliases ?? []) await client.send(new DeleteAliasCommand({ AliasName: a.AliasName! }));
      await client.send(new ScheduleKeyDeletionCommand({ KeyId: handle, PendingWindowInDays: opts.pendingWindowDays ?? 7 }));
    } catch (err) {
      // Already gone or already scheduled: the deletion is done.
      if (classifyKmsError(err) === 'key_not_found') return;
      throw mapKmsError(err, { region: settings.region, endpointUrl: settings.endpointUrl, operation: 'ScheduleKeyDeletion', keyRef: handle });
    }
  }

  async function status(): Promise<AwsKmsStatus> {
    let hasCredentials = true;
    try {
      await client.config.credentials();
    } catch {
      hasCredentials = false;
    }
    try {
      if (settings.kmsKeyId) await client.send(new DescribeKeyCommand({ KeyId: settings.kmsKeyId }));
      else await client.send(new ListKeysCommand({ Limit: 1 }));
      return { reachable: true, kms_reachable: true, has_credentials: hasCredentials, kms_status: 'available' };
    } catch (err) {
      const kind = classifyKmsError(err);
      // These answers come from KMS itself, so it is reachable.
      const answered = ['access_denied', 'invalid_credentials', 'key_not_found', 'invalid_request', 'conflict'].includes(kind);
      const detail = mapKmsError(err, { region: settings.region, endpointUrl: settings.endpointUrl, operation: settings.kmsKeyId ? 'DescribeKey' : 'ListKeys', keyRef: settings.kmsKeyId }).message;
      return { reachable: answered, kms_reachable: answered, has_credentials: hasCredentials && kind !== 'no_credentials', kms_status: kind, detail };
    }
  }

  return {
    type: 'AWS_KMS',
    describeSupport: () => SUPPORT,
    supports: (spec) => awsKeySpec(spec) !== null,
    generateKey,
    importKey: async () => {
      throw new ValidationError(
        'The AWS KMS key provider does not import private keys: its keys are created inside AWS KMS and never leave it. Import the key into the database provider instead.',
        [{ field: 'privateKey', message: 'not accepted by an AWS KMS provider' }],
      );
    },
    sign,
    deleteKey,
    status,
    aliasOf,
  };
}
