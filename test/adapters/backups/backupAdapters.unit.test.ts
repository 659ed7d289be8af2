import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseS3Target, resticRepository } from '../../../adapters/backups/s3TargetConfig.ts';
import { describeS3Failure } from '../../../adapters/backups/s3Connectivity.ts';
import { resticFailure } from '../../../adapters/backups/restic.ts';
import { createBackupServices } from '../../../adapters/backups/backupServices.ts';
import { cronIssue, nextCronRun } from '../../../adapters/backups/cronSchedule.ts';
import { ValidationError } from '../../../domain/shared/errors.ts';

const flat = { name: 'n', endpoint: 's3.example.com:9000', bucket_name: 'my-bucket', bucket_path: '/a/b/', region: 'eu-west-1', access_key_id: 'AK', secret_access_key: 'SK', force_path_style: true };

test('the flat and the nested shape give the same configuration', () => {
  const a = parseS3Target(flat, null);
  const b = parseS3Target({ name: 'n', type: 'S3', config: { endpoint: 'https://s3.example.com:9000', bucketName: 'my-bucket', bucketPath: 'a/b', region: 'eu-west-1', accessKeyId: 'AK', secretAccessKey: 'SK', forcePathStyle: true } }, null);
  assert.equal(a.config, b.config);
  assert.is(a.config.endpoint, 'https://s3.example.com:9000');
  assert.is(a.config.bucketPath, 'a/b');
  assert.is(resticRepository(a.config), 's3:https://s3.example.com:9000/my-bucket/a/b');
  assert.ok(a.generatedRepositoryPassword && a.generatedRepositoryPassword.length >= 30);
  assert.is(a.secrets.repositoryPassword, a.generatedRepositoryPassword);
});

test('authentication methods: instance role, role assumption with an external id, profile', () => {
  assert.is(parseS3Target({ name: 'n', type: 'S3', config: { bucketName: 'bkt', region: 'us-east-1', useInstanceRole: true } }, null).config.authMethod, 'INSTANCE_ROLE');
  const role = parseS3Target({ name: 'n', type: 'S3', config: { bucketName: 'bkt', region: 'us-east-1', roleArn: 'arn:aws:iam::123456789012:role/backup', externalId: 'ext' } }, null);
  assert.is(role.config.authMethod, 'ASSUME_ROLE');
  assert.is(role.config.externalId, 'ext');
  assert.is(role.secrets.secretAccessKey, null);
  assert.is(parseS3Target({ ...flat, access_key_id: undefined, secret_access_key: undefined, profile: 'backup' }, null).config.authMethod, 'PROFILE');
});

test('bad input names every field, never echoing a secret', () => {
  try {
    parseS3Target({ name: '', bucket_name: 'UPPER', region: 'x y', access_key_id: 'AK', endpoint: 'ftp://h/p', repository_password: 'short' }, null);
    assert.unreachable();
  } catch (err) {
    assert.instance(err, ValidationError);
    const fields = (err as ValidationError).details!.map((d) => d.field).sort();
    assert.equal(fields, ['bucket_name', 'endpoint', 'name', 'region', 'repository_password', 'secret_access_key']);
  }
  try {
    parseS3Target({ name: 'n', type: 'EBS_SNAPSHOT', config: { bucketName: 'bkt', region: 'us-east-1', externalId: 'x', useInstanceRole: true } }, null);
    assert.unreachable();
  } catch (err) {
    assert.equal((err as ValidationError).details!.map((d) => d.field).sort(), ['config.externalId', 'type']);
  }
});

test('an access key id that cannot go in an Authorization header is refused, named, in either shape (issue 36)', () => {
  for (const id of ['AK\u20acIA', 'AK IA', 'AK\r\nX: 1', 'AK\u00e9']) {
    for (const [body, field] of [[{ ...flat, access_key_id: id }, 'access_key_id'], [{ name: 'n', type: 'S3', config: { bucketName: 'my-bucket', region: 'eu-west-1', accessKeyId: id, secretAccessKey: 'SK' } }, 'config.accessKeyId']] as const) {
      try {
        parseS3Target(body, null);
        assert.unreachable(JSON.stringify(id));
      } catch (err) {
        assert.instance(err, ValidationError, JSON.stringify(id));
        assert.equal((err as ValidationError).details!.map((d) => d.field), [field]);
      }
    }
  }
  assert.is(parseS3Target({ ...flat, access_key_id: 'minio-user_01+/=' }, null).config.accessKeyId, 'minio-user_01+/=');
});

test('an update keeps the secret key while the access key id stays, and the repository password always', () => {
  const first = parseS3Target({ ...flat, repository_password: 'repository-pw' }, null);
  const again = parseS3Target({ ...flat, secret_access_key: undefined }, first);
  assert.is(again.secrets.secretAccessKey, 'SK');
  assert.is(again.secrets.repositoryPassword, 'repository-pw');
  assert.is(again.generatedRepositoryPassword, null);
  assert.throws(() => parseS3Target({ ...flat, access_key_id: 'OTHER', secret_access_key: undefined }, first), /not valid/);
});

test('S3 failures are named: no such bucket, access denied, clock skew, unreachable, untrusted certificate', () => {
  const c = parseS3Target(flat, null).config;
  const cases: Array<[unknown, RegExp]> = [
    [{ name: 'NoSuchBucket', message: 'The specified bucket does not exist' }, /^no such bucket: my-bucket/],
    [{ name: 'AccessDenied', message: 'Access Denied', $metadata: { httpStatusCode: 403 } }, /^access denied/],
    [{ name: 'InvalidAccessKeyId' }, /^access denied: the access key id/],
    [{ name: 'SignatureDoesNotMatch' }, /^access denied: the secret access key/],
    [{ name: 'RequestTimeTooSkewed', message: 'The difference between the request time and the current time is too large.' }, /^clock skew/],
    [{ name: 'Error', code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:9' }, /^unreachable endpoint/],
    [{ name: 'Error', code: 'DEPTH_ZERO_SELF_SIGNED_CERT', message: 'self-signed certificate' }, /^untrusted certificate/],
  ];
  for (const [err, re] of cases) assert.match(describeS3Failure(err, c), re);
});

test("restic's errors: wrong password and damaged data in SPEC's words, secrets blanked", () => {
  assert.match(resticFailure({ code: 1, stdout: '', stderr: 'Fatal: wrong password or no key found\n' }, []), /^incorrect repository password/);
  assert.match(resticFailure({ code: 1, stdout: '', stderr: 'ignoring error for /x: decrypting blob 1234 failed: ciphertext verification failed\nFatal: There were 3 errors\n' }, []), /^checksum error/);
  assert.not.match(resticFailure({ code: 1, stdout: '', stderr: 'Fatal: error with sekrit-value inside\n' }, ['sekrit-value']), /sekrit/);
});

test('cron expressions: six fields, seconds first; the reason when not', () => {
  assert.is(cronIssue('*/5 * * * * *'), null);
  assert.match(cronIssue('*/5 * * * *')!, /six space-separated fields/);
  assert.match(cronIssue('61 * * * * *')!, /out of range/);
  assert.is(nextCronRun('*/5 * * * * *', new Date('2026-01-01T00:00:01Z')).toISOString(), '2026-01-01T00:00:05.000Z');
});

test('with EVENT_STORE=eventstoredb backups are unavailable (503), never a COMPLETED backup without the events', async () => {
  const services = createBackupServices({ pool: null as never, dataDir: '/nonexistent', encryption: null as never, includeAuditLogs: async () => true, auditOnlyEventTypes: [], eventStoreKind: 'eventstoredb' });
  assert.match(String(await services.unavailableReason()), /not available with EVENT_STORE=eventstoredb.*EventStoreDB/);
  try {
    await services.runBackup(null as never, { backupId: 1, scheduleId: null, nodeIds: null });
    assert.unreachable('a backup ran on EventStoreDB');
  } catch (err) {
    assert.match((err as Error).message, /EVENT_STORE=eventstoredb/);
  }
});

test.run();
