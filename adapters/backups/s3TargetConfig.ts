// A backup target's body, in either shape of SPEC, to one stored configuration.
//   flat:   name, endpoint, bucket_name, bucket_path?, region, access_key_id, secret_access_key, force_path_style
//   nested: name, type S3, config { bucketName, region, bucketPath?, endpoint?, useInstanceRole?, roleArn?,
//           externalId?, forcePathStyle?, accessKeyId?, secretAccessKey?, profile? }
// Either shape may add repository_password / repositoryPassword (else one is generated and shown
// once) and ca_certificate / caCertificate (PEM of the CA of an endpoint with a private CA).
// Authentication: STATIC (keys), INSTANCE_ROLE, ASSUME_ROLE (roleArn, externalId; base credentials
// are the static keys when given, else the instance's), PROFILE (named profile, SSO included).
import { X509Certificate, randomBytes } from 'node:crypto';
import { ValidationError, type FieldIssue } from '../../domain/shared/errors.ts';
import type { JsonObject } from '../../domain/shared/eventStore.ts';

export type S3AuthMethod = 'STATIC' | 'INSTANCE_ROLE' | 'ASSUME_ROLE' | 'PROFILE';

export interface S3TargetPublic {
  endpoint: string | null;
  bucketName: string;
  bucketPath: string;
  region: string;
  forcePathStyle: boolean;
  authMethod: S3AuthMethod;
  accessKeyId: string | null;
  roleArn: string | null;
  externalId: string | null;
  profile: string | null;
  caCertificate: string | null;
}

export interface S3TargetSecrets {
  secretAccessKey: string | null;
  repositoryPassword: string;
}

const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const REGION = /^[a-z0-9-]{2,40}$/;

export interface ParsedTarget {
  name: string;
  config: S3TargetPublic;
  secrets: S3TargetSecrets;
  generatedRepositoryPassword: string | null;
}

/** `previous`: on update, secrets not sent again are kept. */
export function parseS3Target(body: Record<string, unknown>, previous: { config: S3TargetPublic; secrets: S3TargetSecrets } | null): ParsedTarget {
  const issues: FieldIssue[] = [];
  const nested = body.config !== undefined;
  const src = (nested ? body.config : body) as Record<string, unknown>;
  if (nested && (typeof src !== 'object' || src === null || Array.isArray(src))) throw new ValidationError('config must be an object.', [{ field: 'config', message: 'must be an object' }]);
  if (nested && body.type !== undefined && body.type !== 'S3') issues.push({ field: 'type', message: 'only S3 is available in this build (block-volume and virtual-machine snapshots are enterprise providers that this build does not have)' });
  const f = (flat: string, camel: string) => (nested ? `config.${camel}` : flat);
  const pick = (flat: string, camel: string): unknown => (nested ? src[camel] ?? src[flat] : src[flat] ?? src[camel]);
  const str = (flat: string, camel: string, opts: { required?: boolean; max?: number } = {}): string | null => {
    const v = pick(flat, camel);
    if (v === undefined || v === null || v === '') {
      if (opts.required) issues.push({ field: f(flat, camel), message: 'is required' });
      return null;
    }
    if (typeof v !== 'string') {
      issues.push({ field: f(flat, camel), message: 'must be a string' });
      return null;
    }
    if (v.length > (opts.max ?? 500)) issues.push({ field: f(flat, camel), message: `must be at most ${opts.max ?? 500} characters` });
    return v;
  };
  const bool = (flat: string, camel: string): boolean | null => {
    const v = pick(flat, camel);
    if (v === undefined || v === null) return null;
    if (typeof v !== 'boolean') {
      issues.push({ field: f(flat, camel), message: 'must be a boolean' });
      return null;
    }
    return v;
  };
  const name = typeof body.name === 'string' ? body.name.trim() : '';
  if (!name || name.length > 100) issues.push({ field: 'name', message: 'is required, 1-100 characters' });

  const bucketName = str('bucket_name', 'bucketName', { required: true, max: 63 });
  if (bucketName && !BUCKET.test(bucketName)) issues.push({ field: f('bucket_name', 'bucketName'), message: 'must be 3-63 lower-case letters, digits, dots or hyphens' });
  const region = str('region', 'region', { required: true, max: 40 });
  if (region && !REGION.test(region)) issues.push({ field: f('region', 'region'), message: 'must be a region name such as us-east-1' });
  const rawPath = str('bucket_path', 'bucketPath') ?? '';
  const bucketPath = rawPath.replace(/^\/+|\/+$/g, '');
  if (/(^|\/)\.\.?(\/|$)/.test(bucketPath) || /[\s\\]/.test(bucketPath)) issues.push({ field: f('bucket_path', 'bucketPath'), message: 'must be a plain key prefix (no spaces, backslashes, "." or ".." parts)' });
  let endpoint = str('endpoint', 'endpoint', { max: 300 });
  if (endpoint) {
    if (!/^[a-z]+:\/\//i.test(endpoint)) endpoint = `https://${endpoint}`;
    try {
      const u = new URL(endpoint);
      if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error('scheme');
      if (u.pathname !== '/' || u.search || u.username) throw new Error('path');
      endpoint = `${u.protocol}//${u.host}`;
    } catch {
      issues.push({ field: f('endpoint', 'endpoint'), message: 'must be an http(s) URL or host[:port] without a path' });
    }
  }
  const forcePathStyle = bool('force_path_style', 'forcePathStyle') ?? false;
  const useInstanceRole = bool('use_instance_role', 'useInstanceRole') ?? false;
  const accessKeyId = str('access_key_id', 'accessKeyId', { max: 128 });
  // It goes in the Authorization header of every S3 request: a character Node will not put in a
  // header made every check and backup fail (ERR_INVALID_CHAR) for a target saved as fine.
  if (accessKeyId && !/^[\x21-\x7e]+$/.test(accessKeyId)) issues.push({ field: f('access_key_id', 'accessKeyId'), message: 'must be printable ASCII without spaces (it is sent in the Authorization header)' });
  let secretAccessKey = str('secret_access_key', 'secretAccessKey', { max: 256 });
  const roleArn = str('role_arn', 'roleArn', { max: 2048 });
  if (roleArn && !/^arn:aws[a-z-]*:iam::\d{12}:role\/.+$/.test(roleArn)) issues.push({ field: f('role_arn', 'roleArn'), message: 'must be an IAM role ARN (arn:aws:iam::<account>:role/<name>)' });
  const externalId = str('external_id', 'externalId', { max: 1224 });
  if (externalId && !roleArn) issues.push({ field: f('external_id', 'externalId'), message: 'only goes with roleArn (role assumption)' });
  const profile = str('profile', 'profile', { max: 128 });
  let repositoryPassword = str('repository_password', 'repositoryPassword', { max: 1024 });
  if (repositoryPassword !== null && repositoryPassword.length < 8) issues.push({ field: f('repository_password', 'repositoryPassword'), message: 'must be at least 8 characters' });
  const caCertificate = str('ca_certificate', 'caCertificate', { max: 20_000 });
  if (caCertificate) {
    try {
      new X509Certificate(caCertificate);
    } catch {
      issues.push({ field: f('ca_certificate', 'caCertificate'), message: 'must be a PEM certificate' });
    }
  }

  let authMethod: S3AuthMethod;
  if (profile) authMethod = 'PROFILE';
  else if (roleArn) authMethod = 'ASSUME_ROLE';
  else if (useInstanceRole) authMethod = 'INSTANCE_ROLE';
  else authMethod = 'STATIC';
  if (authMethod === 'STATIC') {
    if (!accessKeyId) issues.push({ field: f('access_key_id', 'accessKeyId'), message: 'is required with static credentials (or set useInstanceRole, roleArn or profile)' });
    const keptSecret = previous && previous.config.accessKeyId === accessKeyId ? previous.secrets.secretAccessKey : null;
    secretAccessKey ??= keptSecret;
    if (!secretAccessKey) issues.push({ field: f('secret_access_key', 'secretAccessKey'), message: 'is required with static credentials' });
  }
  if (authMethod === 'ASSUME_ROLE' && accessKeyId && !secretAccessKey) {
    secretAccessKey = previous && previous.config.accessKeyId === accessKeyId ? previous.secrets.secretAccessKey : null;
    if (!secretAccessKey) issues.push({ field: f('secret_access_key', 'secretAccessKey'), message: 'is required when accessKeyId gives the base credentials of the role assumption' });
  }
  if (issues.length) throw new ValidationError('The backup target is not valid.', issues);

  let generated: string | null = null;
  if (!repositoryPassword) {
    if (previous) repositoryPassword = previous.secrets.repositoryPassword;
    else repositoryPassword = generated = randomBytes(24).toString('base64url');
  }
  const keysUsed = authMethod === 'STATIC' || (authMethod === 'ASSUME_ROLE' && accessKeyId);
  return {
    name,
    config: {
      endpoint, bucketName: bucketName!, bucketPath, region: region!, forcePathStyle, authMethod,
      accessKeyId: keysUsed ? accessKeyId : null, roleArn, externalId, profile, caCertificate,
    },
    secrets: { secretAccessKey: keysUsed ? secretAccessKey : null, repositoryPassword },
    generatedRepositoryPassword: generated,
  };
}

/** The restic repository of a target: s3:<endpoint>/<bucket>/<path>. */
export function resticRepository(c: S3TargetPublic): string {
  const endpoint = c.endpoint ?? `https://s3.${c.region}.amazonaws.com`;
  return `s3:${endpoint}/${c.bucketName}${c.bucketPath ? '/' + c.bucketPath : ''}`;
}

export const targetPublicJson = (c: S3TargetPublic): JsonObject => ({ ...c });
