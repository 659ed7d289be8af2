import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { verify } from 'node:crypto';
import { bootstrapVault, ensureUnsealed } from '../../../adapters/keyProviders/vaultBootstrap.ts';
import { createVaultKeyProvider } from '../../../adapters/keyProviders/vaultKeyProvider.ts';
import { AppError, ConflictError, PreconditionFailedError, UnavailableError } from '../../../domain/shared/errors.ts';
import { startVaultStandin, type VaultStandin } from '../../standins/vaultStandin.ts';

// CREATE mode against a fresh (uninitialized, sealed) Vault. A real Vault cannot be re-initialized,
// so these run on the stand-in only.
const test = suite<{ vaults: VaultStandin[] }>('vault bootstrap for a managed Vault', { vaults: [] });

async function fresh(ctx: { vaults: VaultStandin[] }): Promise<VaultStandin> {
  const v = await startVaultStandin();
  ctx.vaults.push(v);
  return v;
}

async function rejection(p: Promise<unknown>): Promise<AppError> {
  let caught: unknown;
  try {
    await p;
  } catch (err) {
    caught = err;
  }
  if (caught === undefined) assert.unreachable('expected a rejection');
  assert.ok(caught instanceof AppError, String(caught));
  return caught as AppError;
}

test.after(async (ctx) => {
  for (const v of ctx.vaults) await v.close();
});

test('bootstraps a fresh Vault: initialized, unsealed, transit and KV v2 ready for the key provider', async (ctx) => {
  const vault = await fresh(ctx);
  const before = createVaultKeyProvider({ address: vault.address, token: 'none', transitPath: 'transit', kvPath: 'secret' });
  assert.equal(await before.status(), { reachable: true, vault_reachable: true, vault_initialized: false, sealed: true, detail: 'Vault is not initialized.' });

  const { rootToken, unsealKeys } = await bootstrapVault(vault.address);
  assert.is(unsealKeys.length, 1);
  assert.is(rootToken, vault.rootToken);
  const provider = createVaultKeyProvider({ address: vault.address, token: rootToken, transitPath: 'transit', kvPath: 'secret' });
  assert.equal(await provider.status(), { reachable: true, vault_reachable: true, vault_initialized: true, sealed: false });
  const key = await provider.generateKey('org1-ca', { algorithm: 'EC', curve: 'P-256' });
  const sig = await provider.sign(key.handle, { algorithm: 'EC', curve: 'P-256' }, { data: Buffer.from('x'), hash: 'sha256' });
  assert.ok(verify('sha256', Buffer.from('x'), key.publicKeyPem, sig));
  await provider.putCertificate('org1-ca', 'pem');
  assert.is(await provider.getCertificate('org1-ca'), 'pem');
});

test('custom shares, threshold and mount paths; ensureUnsealed brings it back after a restart', async (ctx) => {
  const vault = await fresh(ctx);
  const { rootToken, unsealKeys } = await bootstrapVault(vault.address, { secretShares: 3, secretThreshold: 2, transitPath: 'lnm-transit', kvPath: 'lnm-kv' });
  assert.is(unsealKeys.length, 3);
  const provider = createVaultKeyProvider({ address: vault.address, token: rootToken, transitPath: 'lnm-transit', kvPath: 'lnm-kv' });
  const key = await provider.generateKey('node1-tls', { algorithm: 'RSA', keySize: 2048 });

  vault.seal();
  assert.is((await provider.status()).sealed, true);
  assert.equal(await ensureUnsealed(vault.address, unsealKeys.slice(1)), { wasSealed: true });
  assert.is(vault.sealed, false);
  const sig = await provider.sign(key.handle, { algorithm: 'RSA', keySize: 2048 }, { data: Buffer.from('y'), hash: 'sha256' });
  assert.ok(verify('sha256', Buffer.from('y'), key.publicKeyPem, sig));
  assert.equal(await ensureUnsealed(vault.address, unsealKeys), { wasSealed: false });
});

test('refuses to bootstrap a Vault that is already initialized (409)', async (ctx) => {
  const vault = await fresh(ctx);
  await bootstrapVault(vault.address);
  const err = await rejection(bootstrapVault(vault.address));
  assert.instance(err, ConflictError);
  assert.match(err.message, /already initialized/);
});

test('wrong unseal keys leave it sealed with a 503 that does not repeat the keys', async (ctx) => {
  const vault = await fresh(ctx);
  const { unsealKeys } = await bootstrapVault(vault.address);
  vault.seal();
  const wrong = 'ab'.repeat(33);
  const err = await rejection(ensureUnsealed(vault.address, [wrong]));
  assert.instance(err, UnavailableError);
  assert.match(err.message, /refused the stored unseal keys/);
  assert.not.ok(err.message.includes(wrong) || err.message.includes(unsealKeys[0]));
  assert.is(vault.sealed, true);
});

test('ensureUnsealed on a Vault never initialized is a 412', async (ctx) => {
  const vault = await fresh(ctx);
  const err = await rejection(ensureUnsealed(vault.address, ['00']));
  assert.instance(err, PreconditionFailedError);
});

test('an address where nothing answers gives 503 after the wait', async (ctx) => {
  const vault = await fresh(ctx);
  await vault.close();
  const err = await rejection(bootstrapVault(vault.address, { waitMs: 300 }));
  assert.instance(err, UnavailableError);
  assert.match(err.message, /is not reachable/);
});

test.run();
