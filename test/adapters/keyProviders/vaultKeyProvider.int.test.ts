import { suite, type Test } from 'uvu';
import { requires } from '../../helpers/requirements.ts';
import * as assert from 'uvu/assert';
import { createHash, createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { p256 } from '@noble/curves/nist.js';
import { keccak256 } from 'ethers';
import { createVaultKeyProvider, type VaultKeyProvider } from '../../../adapters/keyProviders/vaultKeyProvider.ts';
import { createVaultClient } from '../../../adapters/keyProviders/vaultClient.ts';
import { ensureUnsealed } from '../../../adapters/keyProviders/vaultBootstrap.ts';
import type { VaultConnection } from '../../../adapters/keyProviders/vaultConfig.ts';
import type { KeySpec } from '../../../domain/keys/keyProvider.ts';
import { AppError, ConflictError, UnavailableError, ValidationError } from '../../../domain/shared/errors.ts';
import { startVaultStandin, type VaultStandin } from '../../standins/vaultStandin.ts';
import { rejects } from '../../helpers/rejects.ts';

interface Ctx {
  conn: VaultConnection;
  provider: VaultKeyProvider;
  created: string[];
}

const run = `t${process.pid}x${Date.now().toString(36)}`;
const keyName = (n: string) => `${run}-${n}`;
const data = Buffer.from('a certificate signing request, say');

const supported: Array<{ spec: KeySpec; hash: 'sha256' | 'sha384' | 'sha512'; nodeType: string }> = [
  { spec: { algorithm: 'EC', curve: 'P-256' }, hash: 'sha256', nodeType: 'ec' },
  { spec: { algorithm: 'EC', curve: 'P-384' }, hash: 'sha384', nodeType: 'ec' },
  { spec: { algorithm: 'EC', curve: 'P-521' }, hash: 'sha512', nodeType: 'ec' },
  { spec: { algorithm: 'RSA', keySize: 2048 }, hash: 'sha256', nodeType: 'rsa' },
  { spec: { algorithm: 'RSA', keySize: 4096 }, hash: 'sha384', nodeType: 'rsa' },
];

/** Behaviour every Vault must show, stand-in or real. */
function contract(test: Test<Ctx>) {
  for (const { spec, hash, nodeType } of supported) {
    const label = spec.algorithm === 'EC' ? `EC ${spec.curve}` : `RSA ${spec.keySize}`;
    test(`creates a ${label} transit key whose signatures verify with node:crypto against the returned public key`, async (ctx) => {
      const name = keyName(label.replace(/\W+/g, '').toLowerCase());
      const key = await ctx.provider.generateKey(name, spec);
      ctx.created.push(key.handle);
      const pub = createPublicKey(key.publicKeyPem);
      assert.is(pub.asymmetricKeyType, nodeType);
      if (spec.algorithm === 'RSA') assert.is(pub.asymmetricKeyDetails?.modulusLength, spec.keySize);
      const sig = await ctx.provider.sign(key.handle, spec, { data, hash });
      assert.ok(verify(hash, data, pub, sig), 'signature over data verifies');
      const overDigest = await ctx.provider.sign(key.handle, spec, { digest: createHash(hash).update(data).digest(), hash });
      assert.ok(verify(hash, data, pub, overDigest), 'signature over a precomputed digest verifies as a signature over the data');
      assert.not.ok(verify(hash, Buffer.from('something else'), pub, sig), 'and not over other data');
    });
  }

  test('an EC P-256 key signs a keccak-256 digest as given (ethereum style)', async (ctx) => {
    const spec: KeySpec = { algorithm: 'EC', curve: 'P-256' };
    const key = await ctx.provider.generateKey(keyName('keccak'), spec);
    ctx.created.push(key.handle);
    const digest = Buffer.from(keccak256(data).slice(2), 'hex');
    const sig = await ctx.provider.sign(key.handle, spec, { digest, hash: 'keccak256' });
    const jwk = createPublicKey(key.publicKeyPem).export({ format: 'jwk' });
    const point = Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')]);
    assert.ok(p256.verify(sig, digest, point, { prehash: false, lowS: false, format: 'der' }));
  });

  for (const spec of [{ algorithm: 'EC', curve: 'secp256k1' }, { algorithm: 'ED25519' }] as KeySpec[]) {
    test(`refuses ${spec.curve ?? spec.algorithm} with a 400 naming what Vault supports`, async (ctx) => {
      assert.not.ok(ctx.provider.supports(spec));
      await rejects(ctx.provider.generateKey(keyName('nope'), spec), AppError, (err) => {
        assert.instance(err, ValidationError);
        assert.match(err.message, /RSA 2048 and 4096; EC P-256, P-384 and P-521/);
      });
    });
  }

  test('a second creation with the same name and type returns the same key; another type is a conflict', async (ctx) => {
    const name = keyName('twice');
    const first = await ctx.provider.generateKey(name, { algorithm: 'EC', curve: 'P-256' });
    ctx.created.push(name);
    const again = await ctx.provider.generateKey(name, { algorithm: 'EC', curve: 'P-256' });
    assert.is(again.publicKeyPem, first.publicKeyPem);
    await rejects(ctx.provider.generateKey(name, { algorithm: 'RSA', keySize: 2048 }), AppError, (err) => {
      assert.instance(err, ConflictError);
      assert.match(err.message, /already exists with type ecdsa-p256/);
    });
  });

  test('stores a certificate in KV v2 by key name and removes it with the key', async (ctx) => {
    const name = keyName('withcert');
    const spec: KeySpec = { algorithm: 'EC', curve: 'P-384' };
    await ctx.provider.generateKey(name, spec);
    const pem = '-----BEGIN CERTIFICATE-----\nMIIBstandin\n-----END CERTIFICATE-----\n';
    assert.is(await ctx.provider.getCertificate(name), null);
    await ctx.provider.putCertificate(name, pem);
    assert.is(await ctx.provider.getCertificate(name), pem);
    await ctx.provider.deleteKey(name);
    assert.is(await ctx.provider.getCertificate(name), null);
    await rejects(ctx.provider.sign(name, spec, { data, hash: 'sha384' }), AppError, (err) => {
      assert.is(err.status, 404);
      assert.match(err.message, new RegExp(`transit key ${name} was not found`));
    });
    await ctx.provider.deleteKey(name); // deleting twice is not an error
  });

  test('a wrong token gives 403 permission denied, naming the policy and never the token', async (ctx) => {
    const wrongToken = 'hvs.wrongwrongwrongwrongwrong';
    const other = createVaultKeyProvider({ ...ctx.conn, token: wrongToken });
    const err = await rejects(other.generateKey(keyName('denied'), { algorithm: 'EC', curve: 'P-256' }), AppError, (e) => {
      assert.is(e.status, 403);
      assert.match(e.message, /permission denied/);
      assert.match(e.message, /policy/);
    });
    assert.not.ok(JSON.stringify({ m: err.message, x: err.extra }).includes(wrongToken));
    assert.not.ok(err.message.includes(ctx.conn.token));
  });

  test('a token whose policy covers only KV cannot create transit keys (403 naming the transit path)', async (ctx) => {
    const admin = createVaultClient({ address: ctx.conn.address, token: ctx.conn.token });
    const policy = `${run}-kv-only`;
    await admin.write(`sys/policies/acl/${policy}`, { policy: `path "${ctx.conn.kvPath}/*" { capabilities = ["create", "read", "update", "delete", "list"] }` });
    const created = await admin.write('auth/token/create', { policies: [policy], ttl: '10m' });
    const limited = createVaultKeyProvider({ ...ctx.conn, token: created.auth.client_token });
    await rejects(limited.generateKey(keyName('limited'), { algorithm: 'EC', curve: 'P-256' }), AppError, (e) => {
      assert.is(e.status, 403);
      assert.match(e.message, new RegExp(`${ctx.conn.transitPath}/keys/`));
    });
    await limited.putCertificate(keyName('limited'), 'x'); // what the policy allows still works
    const check = await limited.checkTokenPolicy();
    assert.is(check.ok, false);
    assert.ok(check.missing.includes(`update on ${ctx.conn.transitPath}/sign/*`), check.missing.join(', '));
    assert.not.ok(check.missing.some((m) => m.includes(`${ctx.conn.kvPath}/data`)), 'the KV grants are seen');
    assert.equal(await ctx.provider.checkTokenPolicy(), { ok: true, missing: [] });
    await admin.delete(`sys/policies/acl/${policy}`);
  });

  test('status of a running, unsealed Vault', async (ctx) => {
    assert.equal(await ctx.provider.status(), { reachable: true, vault_reachable: true, vault_initialized: true, sealed: false });
  });

  test('imports an existing private key through transit BYOK wrapping; it signs as the original key would', async (ctx) => {
    for (const [label, pair, spec, hash] of [
      ['ec', generateKeyPairSync('ec', { namedCurve: 'secp384r1' }), { algorithm: 'EC', curve: 'P-384' }, 'sha384'],
      ['rsa', generateKeyPairSync('rsa', { modulusLength: 2048 }), { algorithm: 'RSA', keySize: 2048 }, 'sha256'],
    ] as const) {
      const name = keyName(`imported-${label}`);
      const pem = pair.privateKey.export({ format: 'pem', type: label === 'ec' ? 'sec1' : 'pkcs1' }) as string;
      const key = await ctx.provider.importKey(name, pem);
      ctx.created.push(key.handle);
      assert.is(key.publicKeyPem, pair.publicKey.export({ format: 'pem', type: 'spki' }));
      const sig = await ctx.provider.sign(key.handle, spec, { data, hash });
      assert.ok(verify(hash, data, pair.publicKey, sig));
      assert.equal(await ctx.provider.importKey(name, pem), key, 'importing the same key again adopts it');
    }
    const other = generateKeyPairSync('ec', { namedCurve: 'secp384r1' }).privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
    await rejects(ctx.provider.importKey(keyName('imported-ec'), other), AppError, (e) => assert.instance(e, ConflictError));
  });

  test('refuses to import a secp256k1 key (400 naming what Vault holds) or text that is not a key, without echoing it', async (ctx) => {
    const k1 = generateKeyPairSync('ec', { namedCurve: 'secp256k1' }).privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
    await rejects(ctx.provider.importKey(keyName('k1'), k1), AppError, (e) => {
      assert.instance(e, ValidationError);
      assert.match(e.message, /RSA 2048 and 4096; EC P-256, P-384 and P-521/);
    });
    const garbage = '-----BEGIN PRIVATE KEY-----\nTUlJQ2RnSUJBREFOQmdrcWhraUc5dzBCQVFFRkFBU0NBbUF3Z2dKY0FnRUFB\n-----END PRIVATE KEY-----\n';
    const err = await rejects(ctx.provider.importKey(keyName('garbage'), garbage), AppError, (e) => assert.equal(e.details?.[0].field, 'privateKey'));
    assert.not.ok(JSON.stringify({ m: err.message, d: err.details }).includes('TUlJQ2Rn'));
  });
}

function cleanup(test: Test<Ctx>) {
  test.after(async (ctx) => {
    for (const name of ctx.created ?? []) await ctx.provider.deleteKey(name).catch(() => undefined);
  });
}

// --- against the stand-in -------------------------------------------------------------------
const standin = suite<Ctx & { vault: VaultStandin }>('vault key provider against the Vault stand-in', {} as Ctx & { vault: VaultStandin });
standin.before(async (ctx) => {
  ctx.vault = await startVaultStandin({ initialized: true });
  ctx.conn = { address: ctx.vault.address, token: ctx.vault.rootToken!, transitPath: 'transit', kvPath: 'secret' };
  // The stand-in makes RSA 4096 keys in this process: on a loaded machine that outlasts the 10 s default.
  ctx.provider = createVaultKeyProvider(ctx.conn, { timeoutMs: 120_000 });
  ctx.created = [];
});
contract(standin as unknown as Test<Ctx>);

standin('a sealed Vault gives 503 "sealed"; after ensureUnsealed the same key signs again', async (ctx) => {
  const spec: KeySpec = { algorithm: 'EC', curve: 'P-256' };
  const key = await ctx.provider.generateKey(keyName('sealed'), spec);
  ctx.vault.seal();
  await rejects(ctx.provider.sign(key.handle, spec, { data, hash: 'sha256' }), AppError, (e) => {
    assert.instance(e, UnavailableError);
    assert.match(e.message, /is sealed/);
    assert.equal(e.extra?.sealed, true);
  });
  assert.equal(await ctx.provider.status(), { reachable: true, vault_reachable: true, vault_initialized: true, sealed: true, detail: 'Vault is sealed.' });
  assert.equal(await ensureUnsealed(ctx.vault.address, ctx.vault.unsealKeys), { wasSealed: true });
  const sig = await ctx.provider.sign(key.handle, spec, { data, hash: 'sha256' });
  assert.ok(verify('sha256', data, key.publicKeyPem, sig));
});

standin('a provider whose transit path is not mounted says which engine is missing', async (ctx) => {
  const misconfigured = createVaultKeyProvider({ ...ctx.conn, transitPath: 'keys-transit' });
  await rejects(misconfigured.generateKey(keyName('nomount'), { algorithm: 'EC', curve: 'P-256' }), AppError, (e) => {
    assert.is(e.status, 503);
    assert.match(e.message, /no secrets engine mounted at keys-transit\/.*transit engine/);
  });
});

standin('an unreachable Vault gives 503 naming the address (not the token), and status reachable false', async (ctx) => {
  await ctx.vault.close();
  const err = await rejects(ctx.provider.generateKey(keyName('gone'), { algorithm: 'EC', curve: 'P-256' }), AppError, (e) => {
    assert.instance(e, UnavailableError);
    assert.match(e.message, new RegExp(`Vault at ${ctx.vault.address} is not reachable`));
  });
  assert.not.ok(err.message.includes(ctx.conn.token));
  assert.equal((await ctx.provider.status()).vault_reachable, false);
  assert.is((await ctx.provider.status()).reachable, false);
});
standin.after(async (ctx) => ctx.vault.close());
standin.run();

// --- against a real Vault, when one is configured ----------------------------------------------
const address = process.env.VAULT_ADDR;
const token = process.env.VAULT_TOKEN;
const real = requires(suite<Ctx>('vault key provider against the Vault at VAULT_ADDR', {} as Ctx), 'vault', address && token ? undefined : 'VAULT_ADDR and VAULT_TOKEN are not set (no Vault server can run here)');
real.before((ctx) => {
  if (!address || !token) return;
  ctx.conn = { address, token, transitPath: process.env.VAULT_TRANSIT_PATH ?? 'transit', kvPath: process.env.VAULT_KV_PATH ?? 'secret' };
  ctx.provider = createVaultKeyProvider(ctx.conn);
  ctx.created = [];
});
cleanup(real);
contract(real);
real.run();
