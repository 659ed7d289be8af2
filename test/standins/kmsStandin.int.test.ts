import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import {
  CreateAliasCommand,
  CreateKeyCommand,
  GetPublicKeyCommand,
  KMSClient,
  ListAliasesCommand,
  ScheduleKeyDeletionCommand,
  SignCommand,
  VerifyCommand,
} from '@aws-sdk/client-kms';
import { startKmsStandin, type KmsStandin } from './kmsStandin.ts';

// The stand-in must refuse what KMS refuses, seen through the real SDK (its exception classes).
const test = suite<{ kms: KmsStandin; client: KMSClient }>('kms stand-in checks what AWS KMS checks', {} as { kms: KmsStandin; client: KMSClient });

async function awsError(p: Promise<unknown>): Promise<{ name: string; message: string; status?: number }> {
  try {
    await p;
  } catch (err) {
    const e = err as { name: string; message: string; $metadata?: { httpStatusCode?: number } };
    return { name: e.name, message: e.message, status: e.$metadata?.httpStatusCode };
  }
  return assert.unreachable('expected an AWS error') as never;
}

test.before(async (ctx) => {
  ctx.kms = await startKmsStandin();
  ctx.client = new KMSClient({ region: ctx.kms.region, endpoint: ctx.kms.endpoint, credentials: ctx.kms.credentials, maxAttempts: 1 });
});
test.after(async (ctx) => ctx.kms.close());

test('Verify accepts the signature Sign made and raises KMSInvalidSignatureException for another message', async ({ client }) => {
  const key = (await client.send(new CreateKeyCommand({ KeySpec: 'ECC_NIST_P384', KeyUsage: 'SIGN_VERIFY' }))).KeyMetadata!;
  const sig = (await client.send(new SignCommand({ KeyId: key.Arn, Message: Buffer.from('m'), SigningAlgorithm: 'ECDSA_SHA_384' }))).Signature!;
  const ok = await client.send(new VerifyCommand({ KeyId: key.KeyId, Message: Buffer.from('m'), Signature: sig, SigningAlgorithm: 'ECDSA_SHA_384' }));
  assert.is(ok.SignatureValid, true);
  const digest = createHash('sha384').update('m').digest();
  assert.is((await client.send(new VerifyCommand({ KeyId: key.KeyId, Message: digest, MessageType: 'DIGEST', Signature: sig, SigningAlgorithm: 'ECDSA_SHA_384' }))).SignatureValid, true);
  const bad = await awsError(client.send(new VerifyCommand({ KeyId: key.KeyId, Message: Buffer.from('n'), Signature: sig, SigningAlgorithm: 'ECDSA_SHA_384' })));
  assert.is(bad.name, 'KMSInvalidSignatureException');
});

test('an algorithm the key spec does not take is InvalidKeyUsageException; a digest of the wrong length is ValidationException', async ({ client }) => {
  const key = (await client.send(new CreateKeyCommand({ KeySpec: 'ECC_NIST_P256', KeyUsage: 'SIGN_VERIFY' }))).KeyMetadata!;
  assert.is((await awsError(client.send(new SignCommand({ KeyId: key.KeyId, Message: Buffer.from('m'), SigningAlgorithm: 'ECDSA_SHA_384' })))).name, 'InvalidKeyUsageException');
  const short = await awsError(client.send(new SignCommand({ KeyId: key.KeyId, Message: Buffer.alloc(20), MessageType: 'DIGEST', SigningAlgorithm: 'ECDSA_SHA_256' })));
  assert.equal([short.name, short.message, short.status], ['ValidationException', 'Digest is invalid length for algorithm ECDSA_SHA_256.', 400]);
  const enc = (await client.send(new CreateKeyCommand({ KeySpec: 'RSA_2048', KeyUsage: 'ENCRYPT_DECRYPT' }))).KeyMetadata!;
  assert.is((await awsError(client.send(new SignCommand({ KeyId: enc.KeyId, Message: Buffer.from('m'), SigningAlgorithm: 'RSASSA_PKCS1_V1_5_SHA_256' })))).name, 'InvalidKeyUsageException');
  assert.is((await awsError(client.send(new CreateKeyCommand({ KeySpec: 'ECC_NIST_P256' })))).name, 'ValidationException', 'EC keys cannot be ENCRYPT_DECRYPT');
});

test('deletion: window of 7 to 30 days, then the key is unusable (KMSInvalidStateException) and cannot take an alias', async ({ client }) => {
  const key = (await client.send(new CreateKeyCommand({ KeySpec: 'ECC_SECG_P256K1', KeyUsage: 'SIGN_VERIFY' }))).KeyMetadata!;
  assert.is((await awsError(client.send(new ScheduleKeyDeletionCommand({ KeyId: key.KeyId, PendingWindowInDays: 3 })))).name, 'ValidationException');
  const scheduled = await client.send(new ScheduleKeyDeletionCommand({ KeyId: key.KeyId, PendingWindowInDays: 7 }));
  assert.is(scheduled.KeyState, 'PendingDeletion');
  const pending = await awsError(client.send(new GetPublicKeyCommand({ KeyId: key.KeyId })));
  assert.equal([pending.name, pending.message], ['KMSInvalidStateException', `${key.Arn} is pending deletion.`]);
  assert.is((await awsError(client.send(new CreateAliasCommand({ AliasName: 'alias/late', TargetKeyId: key.KeyId })))).name, 'KMSInvalidStateException');
});

test('aliases: the alias/ pattern, no duplicates, and ListAliases pages with a marker', async ({ client }) => {
  const key = (await client.send(new CreateKeyCommand({ KeySpec: 'RSA_2048', KeyUsage: 'SIGN_VERIFY' }))).KeyMetadata!;
  assert.is((await awsError(client.send(new CreateAliasCommand({ AliasName: 'no-prefix', TargetKeyId: key.KeyId })))).name, 'ValidationException');
  await client.send(new CreateAliasCommand({ AliasName: 'alias/page/a', TargetKeyId: key.KeyId }));
  await client.send(new CreateAliasCommand({ AliasName: 'alias/page/b', TargetKeyId: key.KeyId }));
  assert.is((await awsError(client.send(new CreateAliasCommand({ AliasName: 'alias/page/a', TargetKeyId: key.KeyId })))).name, 'AlreadyExistsException');
  const first = await client.send(new ListAliasesCommand({ KeyId: key.KeyId, Limit: 1 }));
  assert.equal([first.Aliases?.map((a) => a.AliasName), first.Truncated], [['alias/page/a'], true]);
  const second = await client.send(new ListAliasesCommand({ KeyId: key.KeyId, Limit: 1, Marker: first.NextMarker }));
  assert.equal([second.Aliases?.map((a) => a.AliasName), second.Truncated], [['alias/page/b'], false]);
});

test('a request signed with a clock 10 minutes off is refused as an expired signature', async ({ kms }) => {
  const skewed = new KMSClient({ region: kms.region, endpoint: kms.endpoint, credentials: kms.credentials, maxAttempts: 1, systemClockOffset: -10 * 60_000 });
  const err = await awsError(skewed.send(new ListAliasesCommand({})));
  assert.is(err.name, 'InvalidSignatureException');
  assert.match(err.message, /Signature expired/);
});

test.run();
