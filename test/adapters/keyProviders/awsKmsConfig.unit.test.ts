import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseAwsKmsProviderConfig } from '../../../adapters/keyProviders/awsKmsConfig.ts';
import { ValidationError } from '../../../domain/shared/errors.ts';

function fails(body: Parameters<typeof parseAwsKmsProviderConfig>[0]): ValidationError {
  try {
    parseAwsKmsProviderConfig(body);
  } catch (err) {
    assert.instance(err, ValidationError);
    return err as ValidationError;
  }
  return assert.unreachable('expected a ValidationError') as never;
}

test('awsKmsConfig with region and prefix and no credentials uses the instance role (default chain)', () => {
  assert.equal(parseAwsKmsProviderConfig({ awsKmsConfig: { operation: 'IMPORT', awsRegion: 'eu-central-1', kmsKeyAliasPrefix: 'prod/' } }), {
    region: 'eu-central-1', aliasPrefix: 'alias/prod/', kmsKeyId: undefined, endpointUrl: undefined, auth: { method: 'INSTANCE_ROLE' },
  });
});

test('the alternative config shape with static keys; "alias/" in a prefix is not doubled; default prefix lnm/', () => {
  const s = parseAwsKmsProviderConfig({ config: { region: 'us-east-1', accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'sek', kmsKeyId: 'alias/existing' } });
  assert.equal(s.auth, { method: 'STATIC', accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'sek', sessionToken: undefined });
  assert.is(s.aliasPrefix, 'alias/lnm/');
  assert.is(s.kmsKeyId, 'alias/existing');
  assert.is(parseAwsKmsProviderConfig({ awsKmsConfig: { awsRegion: 'us-east-1', kmsKeyAliasPrefix: 'alias/x/' } }).aliasPrefix, 'alias/x/');
});

test('role assumption with external id, over static base credentials; a named profile; an emulator endpoint', () => {
  const role = parseAwsKmsProviderConfig({
    awsKmsConfig: { awsRegion: 'eu-west-1', authMethod: 'ASSUME_ROLE', roleArn: 'arn:aws:iam::123456789012:role/lnm-kms', externalId: 'ext-1', accessKeyId: 'AK', secretAccessKey: 'SK' },
  });
  assert.equal(role.auth, { method: 'ASSUME_ROLE', roleArn: 'arn:aws:iam::123456789012:role/lnm-kms', externalId: 'ext-1', roleSessionName: 'ledger-network-manager', stsEndpointUrl: undefined, base: { accessKeyId: 'AK', secretAccessKey: 'SK', sessionToken: undefined } });
  assert.equal(parseAwsKmsProviderConfig({ awsKmsConfig: { awsRegion: 'eu-west-1', profile: 'ops' } }).auth, { method: 'PROFILE', profile: 'ops' });
  assert.is(parseAwsKmsProviderConfig({ awsKmsConfig: { awsRegion: 'eu-west-1', endpointUrl: 'http://localhost:4566', accessKeyId: 'a', secretAccessKey: 'b' } }).endpointUrl, 'http://localhost:4566');
});

test('every problem is named by field, and a secret is never echoed', () => {
  const err = fails({ awsKmsConfig: { operation: 'CREATE', awsRegion: 'Frankfurt', kmsKeyAliasPrefix: 'bad prefix', authMethod: 'STATIC', secretAccessKey: 'TOPSECRETVALUE', endpointUrl: 'localhost' } });
  assert.equal(err.details?.map((d) => d.field).sort(), [
    'awsKmsConfig.accessKeyId', 'awsKmsConfig.awsRegion', 'awsKmsConfig.endpointUrl', 'awsKmsConfig.kmsKeyAliasPrefix', 'awsKmsConfig.operation',
  ]);
  assert.not.ok(JSON.stringify({ m: err.message, d: err.details }).includes('TOPSECRETVALUE'));
  assert.equal(fails({ config: { region: 'us-east-1', authMethod: 'ASSUME_ROLE', roleArn: 'role/x' } }).details?.map((d) => d.field), ['config.roleArn']);
  assert.equal(fails({ config: { region: 'us-east-1', authMethod: 'MAGIC' } }).details?.map((d) => d.field), ['config.authMethod']);
  assert.equal(fails({ config: {} }).details?.map((d) => d.field), ['config.region']);
});

test.run();
