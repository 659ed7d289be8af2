// The connectivity check of a backup target: list one key under the target's prefix with the
// target's credentials, through @aws-sdk/client-s3, and say in words why that failed: access
// denied, no such bucket, clock skew, wrong credentials, unreachable endpoint, untrusted
// certificate. Never a secret in the message.
import https from 'node:https';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { fromIni, fromNodeProviderChain, fromTemporaryCredentials } from '@aws-sdk/credential-providers';
import type { S3TargetPublic, S3TargetSecrets } from './s3TargetConfig.ts';

interface PlainCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export function credentialsOf(c: S3TargetPublic, s: S3TargetSecrets): PlainCredentials | (() => Promise<PlainCredentials>) {
  const statics = c.accessKeyId && s.secretAccessKey ? { accessKeyId: c.accessKeyId, secretAccessKey: s.secretAccessKey } : null;
  switch (c.authMethod) {
    case 'STATIC':
      return statics!;
    case 'PROFILE':
      return fromIni({ profile: c.profile! });
    case 'INSTANCE_ROLE':
      return fromNodeProviderChain();
    case 'ASSUME_ROLE':
      return fromTemporaryCredentials({
        params: { RoleArn: c.roleArn!, RoleSessionName: 'lnm-backup', ...(c.externalId ? { ExternalId: c.externalId } : {}) },
        ...(statics ? { masterCredentials: statics } : {}),
        clientConfig: { region: c.region },
      });
  }
}

/** Plain credentials for restic (which reads them from its environment). */
export async function resolvedCredentials(c: S3TargetPublic, s: S3TargetSecrets): Promise<PlainCredentials> {
  const cred = credentialsOf(c, s);
  return typeof cred === 'function' ? cred() : cred;
}

export function s3ClientOf(c: S3TargetPublic, s: S3TargetSecrets, timeoutMs = 8_000): S3Client {
  return new S3Client({
    region: c.region,
    ...(c.endpoint ? { endpoint: c.endpoint } : {}),
    forcePathStyle: c.forcePathStyle,
    credentials: credentialsOf(c, s),
    maxAttempts: 1,
    requestHandler: {
      connectionTimeout: timeoutMs,
      requestTimeout: timeoutMs,
      ...(c.caCertificate ? { httpsAgent: new https.Agent({ ca: c.caCertificate }) } : {}),
    },
  });
}

const network = new Set(['ECONNREFUSED', 'ENOTFOUND', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'EPIPE']);
const tls = /certificate|self[- ]signed|CERT_|UNABLE_TO_VERIFY/i;

/** Why an S3 call failed, in words an operator can act on. */
export function describeS3Failure(err: unknown, c: S3TargetPublic): string {
  const e = err as { name?: string; Code?: string; code?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  const name = e?.Code ?? e?.name ?? '';
  const msg = String(e?.message ?? '').slice(0, 300);
  const where = c.endpoint ?? `s3.${c.region}.amazonaws.com`;
  if (network.has(e?.code ?? '') || name === 'TimeoutError' || /ECONNREFUSED|getaddrinfo|socket hang up|timed out/i.test(msg)) return `unreachable endpoint: ${where} did not answer (${e?.code ?? name ?? 'no response'})`;
  if (tls.test(e?.code ?? '') || tls.test(msg)) return `untrusted certificate: ${where} presented a certificate this server does not trust (give the target its CA certificate): ${msg}`;
  if (name === 'NoSuchBucket' || (name === 'NotFound' && e?.$metadata?.httpStatusCode === 404)) return `no such bucket: ${c.bucketName} does not exist at ${where}`;
  if (name === 'RequestTimeTooSkewed' || /skew/i.test(msg)) return `clock skew: this server's clock differs too much from the storage's (${msg})`;
  if (name === 'InvalidAccessKeyId') return 'access denied: the access key id is not known to the storage';
  if (name === 'SignatureDoesNotMatch') return 'access denied: the secret access key does not match the access key id';
  if (name === 'AccessDenied' || name === 'Forbidden' || e?.$metadata?.httpStatusCode === 403) return `access denied: the credentials may not list ${c.bucketName}${c.bucketPath ? '/' + c.bucketPath : ''} (${msg || name})`;
  if (name === 'PermanentRedirect' || name === 'AuthorizationHeaderMalformed') return `wrong region: ${c.bucketName} is not in ${c.region} (${msg})`;
  if (name === 'CredentialsProviderError' || /Could not load credentials/i.test(msg)) return `no credentials: ${msg}`;
  return `the storage refused the listing: ${name || 'error'}${msg ? ': ' + msg : ''}`;
}

export async function checkS3Target(c: S3TargetPublic, s: S3TargetSecrets): Promise<string | null> {
  const client = s3ClientOf(c, s);
  try {
    // The prefix of restic's config object: a listing that is never truncated (s3rver 3.7
    // answers InternalError to a truncated listing), and still needs ListBucket.
    await client.send(new ListObjectsV2Command({ Bucket: c.bucketName, Prefix: c.bucketPath ? `${c.bucketPath}/config` : 'config' }));
    return null;
  } catch (err) {
    return describeS3Failure(err, c);
  } finally {
    client.destroy();
  }
}
