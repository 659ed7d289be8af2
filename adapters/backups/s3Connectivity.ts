// The connectivity check of a backup target: list one key under the target's prefix with the
// target's credentials, through @aws-sdk/client-s3, and say in words why that failed: access
// denied, no such bucket, clock skew, wrong credentials, unreachable endpoint, untrusted
// certificate. Never a secret in the message.
//
// Credentials other than static keys come from the AWS SDK's providers: a named profile
// (fromIni: AWS_SHARED_CREDENTIALS_FILE / AWS_CONFIG_FILE), the instance's role (the node
// provider chain: environment, web identity token, container endpoint, instance metadata
// service), or a role assumed through STS. They are resolved first, within
// CREDENTIALS_TIMEOUT_MS, so that a provider that fails (no metadata service, STS unreachable or
// silent, no such profile) is named with its reason instead of surfacing as an S3 error or a hang.
import https from 'node:https';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { fromIni, fromInstanceMetadata, fromNodeProviderChain, fromTemporaryCredentials } from '@aws-sdk/credential-providers';
import type { S3TargetPublic, S3TargetSecrets } from './s3TargetConfig.ts';

interface PlainCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** How long a credential provider may take (each of its requests is bounded too). */
export const CREDENTIALS_TIMEOUT_MS = 10_000;
const STS_REQUEST_TIMEOUT_MS = 5_000;

/** A credential provider of a target failed; the message names the provider and why. */
export class CredentialsUnavailableError extends Error {}

export function providerName(c: S3TargetPublic): string {
  switch (c.authMethod) {
    case 'STATIC': return 'static keys';
    case 'PROFILE': return `named profile "${c.profile}" (shared credentials and config files)`;
    case 'INSTANCE_ROLE': return 'instance role (environment, web identity token, container endpoint or instance metadata service)';
    case 'ASSUME_ROLE': return `role assumption of ${c.roleArn} through STS${c.accessKeyId ? ' (base credentials: the static keys)' : ' (base credentials: the instance role)'}`;
  }
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
        // Without throwOnRequestTimeout the SDK only warns about a request past requestTimeout and keeps waiting.
        clientConfig: { region: c.region, maxAttempts: 1, requestHandler: { connectionTimeout: STS_REQUEST_TIMEOUT_MS, requestTimeout: STS_REQUEST_TIMEOUT_MS, throwOnRequestTimeout: true } },
      });
  }
}

/** Why a provider failed, in words (the SDK's message, with the network reason when there is one). */
async function whyProviderFailed(c: S3TargetPublic, err: unknown): Promise<string> {
  const e = err as { name?: string; code?: string; message?: string; Code?: string };
  const msg = String(e?.message ?? err).replace(/\s+/g, ' ').slice(0, 300);
  if (c.authMethod === 'ASSUME_ROLE') {
    if (network.has(e?.code ?? '') || e?.name === 'TimeoutError' || /ECONNREFUSED|getaddrinfo|timed? ?out|requestTimeout/i.test(msg)) return `STS did not answer (${e?.code ?? e?.name ?? 'no response'}): ${msg}`;
    if (e?.name === 'AccessDenied' || e?.Code === 'AccessDenied') return `STS refused to let these credentials assume the role (access denied): ${msg}`;
    return `STS refused the role assumption: ${e?.Code ?? e?.name ?? 'error'}: ${msg}`;
  }
  if (c.authMethod === 'INSTANCE_ROLE') {
    // The chain's own error names no source; the instance metadata service, the one an instance
    // role comes from, says why it failed (bounded by its own 1 s timeout).
    const imds = await fromInstanceMetadata({ timeout: 1000, maxRetries: 0 })().then(() => null, (x: Error) => String(x?.message ?? x).replace(/\s+/g, ' ').slice(0, 200));
    return `${msg}${imds ? `; instance metadata service: ${imds}` : ''}`;
  }
  return msg;
}

function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`no answer within ${ms / 1000} s`), { name: 'TimeoutError' })), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/**
 * Plain credentials (for the connectivity check, and for restic, which reads them from its
 * environment), within timeoutMs; a provider's failure is a CredentialsUnavailableError naming it.
 */
export async function resolvedCredentials(c: S3TargetPublic, s: S3TargetSecrets, timeoutMs = CREDENTIALS_TIMEOUT_MS): Promise<PlainCredentials> {
  const cred = credentialsOf(c, s);
  if (typeof cred !== 'function') return cred;
  try {
    const r = await within(cred(), timeoutMs);
    return { accessKeyId: r.accessKeyId, secretAccessKey: r.secretAccessKey, ...(r.sessionToken ? { sessionToken: r.sessionToken } : {}) };
  } catch (err) {
    throw new CredentialsUnavailableError(`no credentials from the ${providerName(c)}: ${await whyProviderFailed(c, err)}`);
  }
}

export function s3ClientOf(c: S3TargetPublic, credentials: PlainCredentials, timeoutMs = 8_000): S3Client {
  return new S3Client({
    region: c.region,
    ...(c.endpoint ? { endpoint: c.endpoint } : {}),
    forcePathStyle: c.forcePathStyle,
    credentials,
    maxAttempts: 1,
    requestHandler: {
      connectionTimeout: timeoutMs,
      requestTimeout: timeoutMs,
      throwOnRequestTimeout: true,
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
  let credentials: PlainCredentials;
  try {
    credentials = await resolvedCredentials(c, s);
  } catch (err) {
    if (err instanceof CredentialsUnavailableError) return err.message;
    throw err;
  }
  const client = s3ClientOf(c, credentials);
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
