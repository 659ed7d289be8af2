import { suite, type Test } from 'uvu';
import { requires } from '../../helpers/requirements.ts';
import * as assert from 'uvu/assert';
import { createHash, createPublicKey, verify } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak256 } from 'ethers';
import { DescribeKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { createAwsKmsKeyProvider, type AwsKmsKeyProvider } from '../../../adapters/keyProviders/awsKmsKeyProvider.ts';
import type { AwsKmsSettings } from '../../../adapters/keyProviders/awsKmsConfig.ts';
import type { KeySpec } from '../../../domain/keys/keyProvider.ts';
import { AppError, ConflictError, UnavailableError, ValidationError } from '../../../domain/shared/errors.ts';
import { startKmsStandin, type KmsStandin } from '../../standins/kmsStandin.ts';
import { rejects } from '../../helpers/rejects.ts';

interface Ctx {
  settings: AwsKmsSettings;
  provider: AwsKmsKeyProvider;
  raw: KMSClient;
  created: string[];
}

const run = `t${process.pid}x${Date.now().toString(36)}`;
const keyName = (n: string) => `${run}-${n}`;
const data = Buffer.from('a certificate signing request, say');

const supported: Array<{ spec: KeySpec; hash: 'sha256' | 'sha384' | 'sha512'; label: string }> = [
  { spec: { algorithm: 'EC', curve: 'P-256' }, hash: 'sha256', label: 'EC P-256' },
  { spec: { algorithm: 'EC', curve: 'P-384' }, hash: 'sha384', label: 'EC P-384' },
  { spec: { algorithm: 'EC', curve: 'secp256k1' }, hash: 'sha256', label: 'EC secp256k1' },
  { spec: { algorithm: 'RSA', keySize: 2048 }, hash: 'sha256', label: 'RSA 2048' },
  { spec: { algorithm: 'RSA', keySize: 4096 }, hash: 'sha512', label: 'RSA 4096' },
];

function contract(test: Test<Ctx>) {
  for (const { spec, hash, label } of supported) {
    test(`creates a ${label} key under alias/<prefix><name>; its signatures verify with node:crypto against the returned public key`, async (ctx) => {
      const name = keyName(label.replace(/\W+/g, '').toLowerCase());
      const key = await ctx.provider.generateKey(name, spec);
      ctx.created.push(key.handle);
      const described = await ctx.raw.send(new DescribeKeyCommand({ KeyId: `${ctx.settings.aliasPrefix}${name}` }));
      assert.is(described.KeyMetadata?.KeyId, key.handle);
      assert.is(described.KeyMetadata?.KeyUsage, 'SIGN_VERIFY');
      const pub = createPublicKey(key.publicKeyPem);
      assert.is(pub.asymmetricKeyType, spec.algorithm === 'RSA' ? 'rsa' : 'ec');
      const sig = await ctx.provider.sign(key.handle, spec, { data, hash });
      assert.ok(verify(hash, data, pub, sig), 'signature over data verifies');
      const overDigest = await ctx.provider.sign(key.handle, spec, { digest: createHash(hash).update(data).digest(), hash });
      assert.ok(verify(hash, data, pub, overDigest), 'signature over a digest verifies as one over the data');
      assert.not.ok(verify(hash, Buffer.from('other'), pub, sig));
    });
  }

  test('a secp256k1 key signs a keccak-256 digest as given (ethereum validator keys)', async (ctx) => {
    const spec: KeySpec = { algorithm: 'EC', curve: 'secp256k1' };
    const key = await ctx.provider.generateKey(keyName('validator'), spec);
    ctx.created.push(key.handle);
    const digest = Buffer.from(keccak256(data).slice(2), 'hex');
    const sig = await ctx.provider.sign(key.handle, spec, { digest, hash: 'keccak256' });
    const jwk = createPublicKey(key.publicKeyPem).export({ format: 'jwk' });
    const point = Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')]);
    assert.ok(secp256k1.verify(sig, digest, point, { prehash: false, lowS: false, format: 'der' }));
  });

  test('signs data longer than the 4096 bytes KMS takes as a message', async (ctx) => {
    const spec: KeySpec = { algorithm: 'RSA', keySize: 2048 };
    const key = await ctx.provider.generateKey(keyName('bigdata'), spec);
    ctx.created.push(key.handle);
    const big = Buffer.alloc(10_000, 7);
    assert.ok(verify('sha256', big, key.publicKeyPem, await ctx.provider.sign(key.handle, spec, { data: big, hash: 'sha256' })));
  });

  for (const spec of [{ algorithm: 'EC', curve: 'P-521' }, { algorithm: 'ED25519' }] as KeySpec[]) {
    test(`refuses ${spec.curve ?? spec.algorithm} with a 400 naming what AWS KMS supports`, async (ctx) => {
      assert.not.ok(ctx.provider.supports(spec));
      await rejects(ctx.provider.generateKey(keyName('nope'), spec), AppError, (err) => {
        assert.instance(err, ValidationError);
        assert.match(err.message, /RSA 2048 and 4096; EC P-256, P-384 and secp256k1/);
      });
    });
  }

  test('a P-384 key asked to sign with SHA-256 is a 400 naming the hash it needs', async (ctx) => {
    await rejects(ctx.provider.sign('any', { algorithm: 'EC', curve: 'P-384' }, { data, hash: 'sha256' }), AppError, (err) => {
      assert.instance(err, ValidationError);
      assert.match(err.message, /SHA384 digests only/);
    });
  });

  test('creating the same name twice returns the same key; another spec under that alias is a conflict', async (ctx) => {
    const name = keyName('twice');
    const first = await ctx.provider.generateKey(name, { algorithm: 'EC', curve: 'P-256' });
    ctx.created.push(first.handle);
    const again = await ctx.provider.generateKey(name, { algorithm: 'EC', curve: 'P-256' });
    assert.is(again.handle, first.handle);
    assert.is(again.publicKeyPem, first.publicKeyPem);
    await rejects(ctx.provider.generateKey(name, { algorithm: 'RSA', keySize: 2048 }), AppError, (err) => assert.instance(err, ConflictError));
  });

  test('a deleted key is pending deletion: signing with it is "key not found ... pending deletion", and the name is free again', async (ctx) => {
    const spec: KeySpec = { algorithm: 'EC', curve: 'P-256' };
    const name = keyName('deleted');
    const key = await ctx.provider.generateKey(name, spec);
    await ctx.provider.deleteKey(key.handle);
    const described = await ctx.raw.send(new DescribeKeyCommand({ KeyId: key.handle }));
    assert.is(described.KeyMetadata?.KeyState, 'PendingDeletion');
    await rejects(ctx.provider.sign(key.handle, spec, { data, hash: 'sha256' }), AppError, (err) => {
      assert.is(err.status, 404);
      assert.match(err.message, /not found or not usable.*pending deletion/);
    });
    await ctx.provider.deleteKey(key.handle); // a second delete is not an error
    const fresh = await ctx.provider.generateKey(name, spec);
    ctx.created.push(fresh.handle);
    assert.is.not(fresh.handle, key.handle);
  });

  test('an unknown key id is a 404 that points at prefix, region and pending deletion', async (ctx) => {
    await rejects(ctx.provider.sign('1234abcd-12ab-34cd-56ef-1234567890ab', { algorithm: 'EC', curve: 'P-256' }, { data, hash: 'sha256' }), AppError, (err) => {
      assert.is(err.status, 404);
      assert.match(err.message, /check the alias prefix, the region, or whether the key is pending deletion/);
    });
  });

  test('status of a reachable KMS with valid credentials', async (ctx) => {
    assert.equal(await ctx.provider.status(), { reachable: true, kms_reachable: true, has_credentials: true, kms_status: 'available' });
  });

  test('does not import private keys (400 that says why)', async (ctx) => {
    await rejects(ctx.provider.importKey(keyName('imp'), 'pem'), AppError, (e) => assert.match(e.message, /never leave/));
  });
}

// --- against the stand-in -------------------------------------------------------------------
type StandinCtx = Ctx & { kms: KmsStandin };
const limitedUser = { userName: 'signer-only', accessKeyId: 'AKIASTANDINSIGNONLY1', secretAccessKey: 'limited-secret-000000000000000000000000', allowedActions: ['kms:DescribeKey', 'kms:GetPublicKey', 'kms:Sign', 'kms:ListKeys'] };
const roleArn = 'arn:aws:iam::111122223333:role/lnm-kms';
const standin = suite<StandinCtx>('aws kms key provider against the KMS stand-in', {} as StandinCtx);
standin.before(async (ctx) => {
  ctx.kms = await startKmsStandin({
    principals: [{ userName: 'lnm', accessKeyId: 'AKIASTANDIN000000001', secretAccessKey: 'standin-secret-0000000000000000000000000' }, limitedUser],
    roles: [{ roleArn, trustedAccessKeyIds: ['AKIASTANDIN000000001'], externalId: 'ext-42' }],
  });
  ctx.settings = { region: ctx.kms.region, aliasPrefix: 'alias/lnm/test/', endpointUrl: ctx.kms.endpoint, auth: { method: 'STATIC', ...ctx.kms.credentials } };
  ctx.provider = createAwsKmsKeyProvider(ctx.settings, { maxAttempts: 1 });
  ctx.raw = new KMSClient({ region: ctx.kms.region, endpoint: ctx.kms.endpoint, credentials: ctx.kms.credentials });
  ctx.created = [];
});
contract(standin as unknown as Test<Ctx>);

standin('a wrong secret access key is rejected by the SigV4 check: 403 without the secret in the message', async (ctx) => {
  const secret = 'this-is-not-the-right-secret-0000000000';
  const other = createAwsKmsKeyProvider({ ...ctx.settings, auth: { method: 'STATIC', accessKeyId: ctx.kms.credentials.accessKeyId, secretAccessKey: secret } }, { maxAttempts: 1 });
  const err = await rejects(other.generateKey(keyName('badsecret'), { algorithm: 'EC', curve: 'P-256' }), AppError, (e) => {
    assert.is(e.status, 403);
    assert.is(e.code, 'KEY_PROVIDER_ACCESS_DENIED');
    assert.match(e.message, /rejected the credentials/);
  });
  assert.not.ok(err.message.includes(secret));
  assert.equal(await other.status(), {
    reachable: true, kms_reachable: true, has_credentials: true, kms_status: 'invalid_credentials',
    detail: 'AWS KMS rejected the credentials for ListKeys: the access key id is unknown, the secret access key is wrong, or the session token expired.',
  });
});

standin('an unknown access key id is rejected too', async (ctx) => {
  const other = createAwsKmsKeyProvider({ ...ctx.settings, auth: { method: 'STATIC', accessKeyId: 'AKIAUNKNOWN000000000', secretAccessKey: 'x' } }, { maxAttempts: 1 });
  await rejects(other.sign('whatever', { algorithm: 'EC', curve: 'P-256' }, { data, hash: 'sha256' }), AppError, (e) => assert.match(e.message, /rejected the credentials/));
});

standin('an identity without kms:CreateKey gets 403 "access denied" naming the permission', async (ctx) => {
  const limited = createAwsKmsKeyProvider({ ...ctx.settings, auth: { method: 'STATIC', accessKeyId: limitedUser.accessKeyId, secretAccessKey: limitedUser.secretAccessKey } }, { maxAttempts: 1 });
  await rejects(limited.generateKey(keyName('limited'), { algorithm: 'EC', curve: 'P-256' }), AppError, (e) => {
    assert.is(e.status, 403);
    assert.match(e.message, /access denied for kms:CreateKey.*needs kms:CreateKey/);
  });
  assert.is((await limited.status()).kms_status, 'available'); // ListKeys is allowed
});

standin('role assumption with the right external id gets temporary credentials that KMS accepts', async (ctx) => {
  const assumed = createAwsKmsKeyProvider(
    { ...ctx.settings, auth: { method: 'ASSUME_ROLE', roleArn, externalId: 'ext-42', roleSessionName: 'lnm-test', stsEndpointUrl: ctx.kms.endpoint, base: ctx.kms.credentials } },
    { maxAttempts: 1 },
  );
  const spec: KeySpec = { algorithm: 'EC', curve: 'P-256' };
  const key = await assumed.generateKey(keyName('assumed'), spec);
  ctx.created.push(key.handle);
  assert.ok(verify('sha256', data, key.publicKeyPem, await assumed.sign(key.handle, spec, { data, hash: 'sha256' })));
  assert.is((await assumed.status()).kms_status, 'available');
});

standin('role assumption with a wrong external id is refused with a 403 about the trust policy', async (ctx) => {
  const assumed = createAwsKmsKeyProvider(
    { ...ctx.settings, auth: { method: 'ASSUME_ROLE', roleArn, externalId: 'wrong', roleSessionName: 'lnm-test', stsEndpointUrl: ctx.kms.endpoint, base: ctx.kms.credentials } },
    { maxAttempts: 1 },
  );
  await rejects(assumed.sign('k', { algorithm: 'EC', curve: 'P-256' }, { data, hash: 'sha256' }), AppError, (e) => {
    assert.is(e.status, 403);
    assert.match(e.message, /refused to let the provider assume its role: check the role's trust policy and the externalId/);
  });
});

/** Runs `fn` with some environment variables replaced, then puts them back. */
async function withEnv(vars: Record<string, string | undefined>, fn: () => Promise<void>): Promise<void> {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const apply = (v: Record<string, string | undefined>) => {
    for (const [k, x] of Object.entries(v)) {
      if (x === undefined) delete process.env[k];
      else process.env[k] = x;
    }
  };
  apply(vars);
  try {
    await fn();
  } finally {
    apply(saved);
  }
}

standin('a named profile from the shared credentials file is used; a missing profile means has_credentials false and a 503', async (ctx) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'lnm-aws-profile-'));
  try {
    const credentialsFile = path.join(dir, 'credentials');
    await writeFile(credentialsFile, `[ops]\naws_access_key_id = ${ctx.kms.credentials.accessKeyId}\naws_secret_access_key = ${ctx.kms.credentials.secretAccessKey}\n`);
    await writeFile(path.join(dir, 'config'), '');
    await withEnv({ AWS_SHARED_CREDENTIALS_FILE: credentialsFile, AWS_CONFIG_FILE: path.join(dir, 'config'), AWS_PROFILE: undefined }, async () => {
      const byProfile = createAwsKmsKeyProvider({ ...ctx.settings, auth: { method: 'PROFILE', profile: 'ops' } }, { maxAttempts: 1 });
      const spec: KeySpec = { algorithm: 'EC', curve: 'P-256' };
      const key = await byProfile.generateKey(keyName('profile'), spec);
      ctx.created.push(key.handle);
      assert.ok(verify('sha256', data, key.publicKeyPem, await byProfile.sign(key.handle, spec, { data, hash: 'sha256' })));

      const missing = createAwsKmsKeyProvider({ ...ctx.settings, auth: { method: 'PROFILE', profile: 'nobody' } }, { maxAttempts: 1 });
      const s = await missing.status();
      assert.equal([s.has_credentials, s.kms_reachable, s.kms_status], [false, false, 'no_credentials']);
      await rejects(missing.sign(key.handle, spec, { data, hash: 'sha256' }), AppError, (e) => {
        assert.instance(e, UnavailableError);
        assert.match(e.message, /No AWS credentials could be loaded/);
      });
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

standin('the instance-role mode takes the default chain (here: the environment variables)', async (ctx) => {
  await withEnv({ AWS_ACCESS_KEY_ID: ctx.kms.credentials.accessKeyId, AWS_SECRET_ACCESS_KEY: ctx.kms.credentials.secretAccessKey, AWS_SESSION_TOKEN: undefined, AWS_PROFILE: undefined }, async () => {
    const chained = createAwsKmsKeyProvider({ ...ctx.settings, auth: { method: 'INSTANCE_ROLE' } }, { maxAttempts: 1 });
    assert.equal(await chained.status(), { reachable: true, kms_reachable: true, has_credentials: true, kms_status: 'available' });
  });
});

standin('a region the endpoint does not serve is a 503 naming the region', async (ctx) => {
  const other = createAwsKmsKeyProvider({ ...ctx.settings, region: 'ap-southeast-2' }, { maxAttempts: 1 });
  await rejects(other.generateKey(keyName('region'), { algorithm: 'EC', curve: 'P-256' }), AppError, (e) => {
    assert.instance(e, UnavailableError);
    assert.match(e.message, /does not serve region ap-southeast-2/);
  });
  const s = await other.status();
  assert.equal([s.kms_reachable, s.kms_status], [false, 'wrong_region']);
});

standin('status with a configured kmsKeyId that does not exist reports key_not_found', async (ctx) => {
  const other = createAwsKmsKeyProvider({ ...ctx.settings, kmsKeyId: 'alias/lnm/does-not-exist' }, { maxAttempts: 1 });
  const s = await other.status();
  assert.equal([s.kms_reachable, s.has_credentials, s.kms_status], [true, true, 'key_not_found']);
});

standin('an unreachable endpoint is a 503 and status kms_reachable false', async (ctx) => {
  await ctx.kms.close();
  await rejects(ctx.provider.sign('k', { algorithm: 'EC', curve: 'P-256' }, { data, hash: 'sha256' }), AppError, (e) => {
    assert.instance(e, UnavailableError);
    assert.match(e.message, new RegExp(`AWS KMS is not reachable at ${ctx.kms.endpoint}`));
  });
  const s = await ctx.provider.status();
  assert.equal([s.reachable, s.kms_reachable, s.has_credentials, s.kms_status], [false, false, true, 'unreachable']);
});
standin.after(async (ctx) => ctx.kms.close());
standin.run();

// --- against a real KMS (or an emulator), when one is configured -------------------------------
const endpoint = process.env.KMS_ENDPOINT;
const accessKeyId = process.env.AWS_ACCESS_KEY_ID;
const secretAccessKey = process.env.AWS_SECRET_ACCESS_KEY;
const enabled = !!(endpoint && accessKeyId && secretAccessKey);
const real = requires(suite<Ctx>('aws kms key provider against KMS_ENDPOINT', {} as Ctx), 'kms', enabled ? undefined : 'KMS_ENDPOINT and AWS credentials are not set (no AWS KMS is reachable here)');
real.before((ctx) => {
  if (!enabled) return;
  const region = process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? 'us-east-1';
  const credentials = { accessKeyId: accessKeyId!, secretAccessKey: secretAccessKey!, sessionToken: process.env.AWS_SESSION_TOKEN };
  ctx.settings = { region, aliasPrefix: `alias/lnm-test/${run}/`, endpointUrl: endpoint, auth: { method: 'STATIC', ...credentials } };
  ctx.provider = createAwsKmsKeyProvider(ctx.settings);
  ctx.raw = new KMSClient({ region, endpoint, credentials });
  ctx.created = [];
});
real.after(async (ctx) => {
  for (const handle of ctx.created ?? []) await ctx.provider.deleteKey(handle).catch(() => undefined);
});
contract(real);
real.run();
