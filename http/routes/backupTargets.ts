// Backup targets: S3-compatible buckets, each holding one restic repository. Secrets (secret
// access key, repository password) are write-only: sealed under KEY_ENCRYPTION_KEY at rest and
// never in an answer, except a generated repository password, shown once at creation.
import { Type } from '@sinclair/typebox';
import { defineRoute, type RouteInput } from '../route.ts';
import { runCommand } from '../../application/commands.ts';
import { IdParam } from './schemas.ts';
import { Page, PageQuery, page, pageRequest } from '../pagination.ts';
import { backupTargetStream, backupTargets } from '../../domain/backups/backupTargets.ts';
import type { BackupServices, StoredTarget } from '../../domain/backups/backupPorts.ts';
import { ConflictError, EditionRequiredError, NotFoundError, UnavailableError, ValidationError } from '../../domain/shared/errors.ts';
import { backupTargetNamed, getBackupTarget, listBackupTargets, schedulesUsingTarget, type BackupTargetRow } from '../../projections/backups.ts';

const tags = ['backups'];

/** The backup machinery, or 503 naming what is missing (restic not on PATH) or why not (EVENT_STORE=eventstoredb). */
export async function backupServices(deps: RouteInput<unknown, unknown, unknown>['deps']): Promise<BackupServices> {
  if (!deps.backups) throw new UnavailableError('Backups are not available on this server.');
  const reason = await deps.backups.unavailableReason();
  if (reason) throw new UnavailableError(reason, /restic/.test(reason) ? { missing: 'restic' } : undefined);
  return deps.backups;
}

export const TargetSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  type: Type.Literal('S3'),
  provider: Type.Literal('S3'),
  endpoint: Type.Union([Type.String(), Type.Null()]),
  bucket_name: Type.String(),
  bucket_path: Type.String(),
  region: Type.String(),
  force_path_style: Type.Boolean(),
  auth_method: Type.String({ description: 'STATIC, INSTANCE_ROLE, ASSUME_ROLE or PROFILE' }),
  access_key_id: Type.Union([Type.String(), Type.Null()]),
  has_secret_access_key: Type.Boolean(),
  config: Type.Record(Type.String(), Type.Unknown(), { description: 'the nested spelling of the same settings (never a secret)' }),
  reachable: Type.Boolean({ description: 'false after the periodic connectivity check failed (system.s3.connection_issue)' }),
  last_error: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  repository_password: Type.Optional(Type.String({ description: 'only in the answer that created the target, when the service generated the password: keep it, restores need it' })),
});

export function targetView(t: BackupTargetRow) {
  const c = t.publicConfig;
  return {
    id: t.id, name: t.name, type: 'S3' as const, provider: 'S3' as const, endpoint: c.endpoint, bucket_name: c.bucketName, bucket_path: c.bucketPath, region: c.region,
    force_path_style: c.forcePathStyle, auth_method: c.authMethod, access_key_id: c.accessKeyId, has_secret_access_key: c.accessKeyId !== null,
    config: {
      bucketName: c.bucketName, region: c.region, bucketPath: c.bucketPath, endpoint: c.endpoint, useInstanceRole: c.authMethod === 'INSTANCE_ROLE', roleArn: c.roleArn,
      externalId: c.externalId, forcePathStyle: c.forcePathStyle, profile: c.profile, accessKeyId: c.accessKeyId, caCertificate: c.caCertificate,
    },
    reachable: t.reachable, last_error: t.lastError, created_at: t.createdAt, updated_at: t.updatedAt,
  };
}

const TargetBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  type: Type.Optional(Type.String({ description: 'S3 (the nested shape)' })),
  config: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'nested shape: bucketName, region, bucketPath, endpoint, useInstanceRole, roleArn, externalId, forcePathStyle, accessKeyId, secretAccessKey, profile, repositoryPassword, caCertificate' })),
  endpoint: Type.Optional(Type.String({ maxLength: 300 })),
  bucket_name: Type.Optional(Type.String({ maxLength: 63 })),
  bucket_path: Type.Optional(Type.String({ maxLength: 500 })),
  region: Type.Optional(Type.String({ maxLength: 40 })),
  access_key_id: Type.Optional(Type.String({ maxLength: 128 })),
  secret_access_key: Type.Optional(Type.String({ maxLength: 256, description: 'write-only' })),
  force_path_style: Type.Optional(Type.Boolean()),
  use_instance_role: Type.Optional(Type.Boolean()),
  role_arn: Type.Optional(Type.String({ maxLength: 2048 })),
  external_id: Type.Optional(Type.String({ maxLength: 1224 })),
  profile: Type.Optional(Type.String({ maxLength: 128 })),
  repository_password: Type.Optional(Type.String({ minLength: 8, maxLength: 1024, description: 'write-only; generated (and shown once) when left out' })),
  ca_certificate: Type.Optional(Type.String({ maxLength: 20000, description: 'PEM of the CA that signed the endpoint\'s certificate, for endpoints with a private CA' })),
}, { additionalProperties: false });

const bodyNotes = 'Flat shape: name, endpoint, bucket_name, bucket_path, region, access_key_id, secret_access_key, force_path_style. Nested shape: name, type S3, config {bucketName, region, bucketPath, endpoint, useInstanceRole, roleArn, externalId, forcePathStyle}. ' +
  'Authentication: static keys; useInstanceRole (instance role / IRSA); roleArn (+ externalId) for role assumption over the static keys when given, else over the instance credentials; profile (named profile, SSO included, from the server\'s AWS_SHARED_CREDENTIALS_FILE / AWS_CONFIG_FILE). ' +
  'Credentials other than static keys are resolved first, within 10 s: a provider that fails (no such profile, no instance metadata service, STS unreachable or silent) is a 400 BACKUP_TARGET_UNREACHABLE naming the provider and the reason (details field "credentials"). Instance role and role assumption go through the AWS SDK\'s providers and were not verified against AWS. ' +
  'repository_password (or config.repositoryPassword) is the restic repository password; when left out one is generated and shown once in this answer. ca_certificate for endpoints with a private CA. ' +
  'The bucket is listed with the credentials and the restic repository opened (created when absent) before anything is saved: a failure is a 400 naming the reason (access denied, no such bucket, clock skew, unreachable endpoint, incorrect repository password).';

// SPEC's enterprise providers: block-volume and virtual-machine snapshots. This build has neither.
const SNAPSHOT_PROVIDERS = new Set(['EBS', 'EBS_SNAPSHOT', 'BLOCK_VOLUME', 'BLOCK_VOLUME_SNAPSHOT', 'VOLUME_SNAPSHOT', 'VM', 'VM_SNAPSHOT', 'VIRTUAL_MACHINE', 'VIRTUAL_MACHINE_SNAPSHOT']);

function refuseSnapshotProviders(type: string | undefined, edition: string) {
  if (!type || !SNAPSHOT_PROVIDERS.has(type.toUpperCase())) return;
  if (edition !== 'enterprise') throw new EditionRequiredError('Block-volume and virtual-machine snapshot backups', 'enterprise', edition);
  throw new ValidationError(`${type} backup targets are not available in this build: only S3 is.`, [{ field: 'type', message: 'only S3 is available in this build' }]);
}

async function saveChecked(services: BackupServices, prepared: { publicConfig: StoredTarget['publicConfig']; sealedSecrets: string }) {
  const reason = await services.checkTarget(prepared);
  // A credential provider that failed (profile, instance role, role assumption) is named in the reason.
  if (reason) throw new ValidationError(`The backup target does not work: ${reason}`, [{ field: reason.startsWith('no credentials from') ? 'credentials' : 'endpoint', message: reason }], 'BACKUP_TARGET_UNREACHABLE');
}

const listRoute = (path: string, summary: string) => defineRoute({
  method: 'get', path, summary, tags, permission: 'BACKUP_READ',
  query: Type.Object(PageQuery, { additionalProperties: false }),
  responses: { 200: { description: 'targets, oldest first', schema: Page(TargetSchema) } },
  async handler({ deps, query }) {
    const { limit, offset } = pageRequest(deps.config, query);
    const all = await listBackupTargets(deps.pool);
    return { body: page(all.slice(offset, offset + limit).map(targetView), all.length, limit, offset) };
  },
});

export const backupTargetRoutes = [
  listRoute('/backups/targets', 'List backup targets (never their secrets)'),
  listRoute('/backup-targets', 'List backup targets (alias of /backups/targets)'),
  defineRoute({
    method: 'post', path: '/backups/targets', summary: 'Add an S3 backup target', description: bodyNotes, tags, permission: 'BACKUP_TARGET_MANAGE', body: TargetBody,
    responses: { 201: { description: 'created (repository_password only when generated)', schema: TargetSchema }, 403: { description: 'EDITION_REQUIRED: type names a block-volume or virtual-machine snapshot provider (enterprise; not in this build either)' }, 400: { description: 'invalid, or the bucket or repository does not work (the reason is named)' }, 409: { description: 'name taken' }, 503: { description: 'restic is not installed' } },
    async handler(input) {
      const { deps, body } = input;
      refuseSnapshotProviders(body.type, deps.config.edition);
      const services = await backupServices(deps);
      if ((await backupTargetNamed(deps.pool, body.name.trim())) !== null) throw new ConflictError(`A backup target named ${body.name} exists already.`, { field: 'name' });
      const prepared = await services.prepareTarget(body as Record<string, unknown>, null);
      await saveChecked(services, prepared);
      const targetId = await deps.nextId('backup_target');
      await runCommand(input, backupTargetStream(targetId), backupTargets, { type: 'CreateBackupTarget', targetId, name: body.name.trim(), publicConfig: prepared.publicConfig, sealedSecrets: prepared.sealedSecrets, at: deps.clock().toISOString() });
      const row = (await getBackupTarget(deps.pool, targetId))!;
      return { status: 201, body: { ...targetView(row), ...(prepared.generatedRepositoryPassword ? { repository_password: prepared.generatedRepositoryPassword } : {}) }, headers: { Location: `/api/v1/backups/targets/${targetId}` } };
    },
  }),
  defineRoute({
    method: 'get', path: '/backups/targets/:id', summary: 'Read a backup target (never its secrets)', tags, permission: 'BACKUP_READ', params: IdParam,
    responses: { 200: { description: 'the target', schema: TargetSchema }, 404: { description: 'no such target' } },
    async handler({ deps, params }) {
      const t = await getBackupTarget(deps.pool, params.id);
      if (!t) throw new NotFoundError('Backup target', params.id);
      return { body: targetView(t) };
    },
  }),
  defineRoute({
    method: 'put', path: '/backups/targets/:id', summary: 'Change a backup target', description: `${bodyNotes} Secrets left out are kept (the secret key only while the access key id stays the same).`, tags, permission: 'BACKUP_TARGET_MANAGE', params: IdParam, body: TargetBody,
    responses: { 200: { description: 'changed', schema: TargetSchema }, 400: { description: 'invalid, or the bucket or repository does not work' }, 404: { description: 'no such target' }, 409: { description: 'name taken' }, 503: { description: 'restic is not installed' } },
    async handler(input) {
      const { deps, body, params } = input;
      refuseSnapshotProviders(body.type, deps.config.edition);
      const services = await backupServices(deps);
      const before = await getBackupTarget(deps.pool, params.id);
      if (!before) throw new NotFoundError('Backup target', params.id);
      const named = await backupTargetNamed(deps.pool, body.name.trim());
      if (named !== null && named !== params.id) throw new ConflictError(`A backup target named ${body.name} exists already.`, { field: 'name' });
      const prepared = await services.prepareTarget(body as Record<string, unknown>, { targetId: before.id, name: before.name, publicConfig: before.publicConfig, sealedSecrets: before.sealedSecrets });
      await saveChecked(services, prepared);
      await runCommand(input, backupTargetStream(params.id), backupTargets, { type: 'UpdateBackupTarget', targetId: params.id, name: body.name.trim(), publicConfig: prepared.publicConfig, sealedSecrets: prepared.sealedSecrets, at: deps.clock().toISOString() });
      return { body: targetView((await getBackupTarget(deps.pool, params.id))!) };
    },
  }),
  defineRoute({
    method: 'delete', path: '/backups/targets/:id', summary: 'Delete a backup target (its repository and snapshots stay in the bucket)', tags, permission: 'BACKUP_TARGET_MANAGE', params: IdParam,
    responses: { 204: { description: 'deleted' }, 404: { description: 'no such target' }, 409: { description: 'schedules still use it' } },
    async handler(input) {
      const { deps, params } = input;
      await runCommand(input, backupTargetStream(params.id), backupTargets, { type: 'DeleteBackupTarget', targetId: params.id, schedulesUsingIt: await schedulesUsingTarget(deps.pool, params.id), at: deps.clock().toISOString() });
      return { status: 204 };
    },
  }),
];
