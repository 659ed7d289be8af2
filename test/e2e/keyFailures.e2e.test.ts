// Key providers failing under a running server, over HTTP: tampered ciphertext in the database
// provider, a Vault that goes away, a Vault that is sealed. Each gives a clear error (its own
// code or status, never a bare 500, never key material), nothing half-made is recorded, and once
// the cause is gone the same keys sign again with the same public keys: nothing is lost.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createPublicKey, verify } from 'node:crypto';
import { adminAuth, call, startServer, type TestServer } from '../helpers/server.ts';
import { startVaultStandin, type VaultStandin } from '../standins/vaultStandin.ts';
import { freePort } from '../../adapters/postgres/embeddedPostgres.ts';

const t = suite('key provider failures end to end: clear errors, nothing lost');
let server: TestServer;
let vault: VaultStandin;
let vaultPort: number;
let vaultId: number;
/** The unseal keys of the first run: a restarted Vault is unsealed with them. */
let unsealKeys: string[] = [];
const storageDir = mkdtempSync(path.join(tmpdir(), 'lnm-vault-outage-'));
const auth = adminAuth();
const api = (method: string, p: string, body?: unknown) => call(server.api, method, p, { headers: auth, body });
const data = Buffer.from('still here after the outage');
const b64 = data.toString('base64');

t.before(async () => {
  vaultPort = await freePort();
  vault = await startVaultStandin({ initialized: true, storageDir, listen: { host: '127.0.0.1', port: vaultPort } });
  server = await startServer({ env: { KEY_ENCRYPTION_KEY: KEK } });
});
t.after(async () => {
  await server?.stop();
  await vault?.close();
  rmSync(storageDir, { recursive: true, force: true });
});

function verifies(publicKey: string, signatureB64: string): boolean {
  return verify('sha256', data, { key: createPublicKey(publicKey), dsaEncoding: 'der' }, Buffer.from(signatureB64, 'base64'));
}

const KEK = 'key-failures-e2e-key-encryption-key';
async function restartServer(): Promise<void> {
  await server.stop();
  server = await startServer({ databaseUrl: server.databaseUrl!, dataDir: server.dataDir, port: server.port, env: { KEY_ENCRYPTION_KEY: KEK } });
}

async function keyTotal(): Promise<number> {
  return (await api('GET', '/keys?limit=1')).json.total;
}

t('tampered ciphertext in the database provider: that key fails with KEY_DECRYPTION_FAILED saying what to check, other keys sign, the key is still readable, and restoring the row heals it', async () => {
  const victim = await api('POST', '/keys', { name: 'victim' });
  const bystander = await api('POST', '/keys', { name: 'bystander' });
  assert.is(victim.status, 201, victim.text);
  const client = new pg.Client({ connectionString: server.databaseUrl! });
  await client.connect();
  try {
    const row = (await client.query('SELECT id, ciphertext FROM key_material WHERE name = $1', [`victim-${victim.json.id}`])).rows[0];
    assert.ok(row, 'the victim key is in key_material');
    const bad = Buffer.from(row.ciphertext as Buffer);
    bad[bad.length - 1] ^= 0xff;
    await client.query('UPDATE key_material SET ciphertext = $2 WHERE id = $1', [row.id, bad]);
    // Decrypted keys are cached by the running server: a restart makes it read the altered row.
    await restartServer();
    const probe = await api('POST', `/keys/${victim.json.id}/sign-data`, { data: b64 });
    // A server-side integrity failure, not the caller's fault: 500, but with its own code and a message saying what to check.
    assert.is(probe.status, 500, probe.text);
    assert.is(probe.json.code, 'KEY_DECRYPTION_FAILED');
    assert.match(probe.json.message, 'altered, or KEY_ENCRYPTION_KEY is not the key');
    assert.not.match(probe.text, /PRIVATE KEY-----/);
    const other = await api('POST', `/keys/${bystander.json.id}/sign-data`, { data: b64 });
    assert.is(other.status, 200, 'another key keeps signing');
    assert.ok(verifies(bystander.json.publicKey, other.json.signature));
    assert.is((await api('GET', `/keys/${victim.json.id}`)).json.publicKey, victim.json.publicKey);
    await client.query('UPDATE key_material SET ciphertext = $2 WHERE id = $1', [row.id, row.ciphertext]);
    const healed = await api('POST', `/keys/${victim.json.id}/sign-data`, { data: b64 });
    assert.is(healed.status, 200, 'with the ciphertext restored the key signs again: nothing was overwritten');
    assert.ok(verifies(victim.json.publicKey, healed.json.signature));
  } finally {
    await client.end();
  }
});

t('a Vault that goes away: signing and creating give 503 naming the address, nothing is recorded, status says unreachable; after it returns (sealed, then unsealed) the same key signs with the same public key', async () => {
  const p = await api('POST', '/key-providers', { name: 'outage-vault', type: 'VAULT', vaultConfig: { operation: 'IMPORT', address: vault.address, token: vault.rootToken, mount: 'secret' } });
  assert.is(p.status, 201, p.text);
  vaultId = p.json.id;
  const key = await api('POST', '/keys', { name: 'vault-key', providerId: vaultId });
  assert.is(key.status, 201, key.text);
  unsealKeys = [...vault.unsealKeys];

  await vault.close();
  const sign = await api('POST', `/keys/${key.json.id}/sign-data`, { data: b64 });
  assert.is(sign.status, 503, sign.text);
  assert.match(sign.text, vault.address);
  assert.not.match(sign.text, vault.rootToken!);
  const total = await keyTotal();
  const create = await api('POST', '/keys', { name: 'during-outage', providerId: vaultId });
  assert.is(create.status, 503, create.text);
  assert.is(await keyTotal(), total, 'no key recorded for a failed creation');
  const status = await api('GET', `/key-providers/${vaultId}/vault/status`);
  assert.is(status.status, 200, status.text);
  assert.is(status.json.vault_reachable, false);
  assert.is((await api('GET', `/keys/${key.json.id}`)).json.publicKey, key.json.publicKey, 'the key is still listed');

  // Vault restarts from its storage: initialized but sealed, as a real one does.
  vault = await startVaultStandin({ storageDir, listen: { host: '127.0.0.1', port: vaultPort } });
  assert.ok(vault.sealed);
  const sealed = await api('POST', `/keys/${key.json.id}/sign-data`, { data: b64 });
  assert.ok(sealed.status >= 400 && sealed.status !== 500, `status ${sealed.status}`);
  assert.match(sealed.text.toLowerCase(), 'sealed');
  const sealedStatus = (await api('GET', `/key-providers/${vaultId}/vault/status`)).json;
  assert.is(sealedStatus.sealed, true);
  const r = await fetch(`${vault.address}/v1/sys/unseal`, { method: 'POST', body: JSON.stringify({ key: unsealKeys[0] }), headers: { 'content-type': 'application/json' } });
  assert.is(r.status, 200, await r.text());
  assert.not.ok(vault.sealed);
  const back = await api('POST', `/keys/${key.json.id}/sign-data`, { data: b64 });
  assert.is(back.status, 200, back.text);
  assert.ok(verifies(key.json.publicKey, back.json.signature), 'the same transit key signs: nothing was lost');
});

t('a Vault sealed by its operator: 4xx/5xx saying sealed (not a 500); unsealed, the same key signs again', async () => {
  const keys = (await api('GET', `/keys?providerId=${vaultId}`)).json.items;
  const key = keys[0];
  vault.seal();
  const sealed = await api('POST', `/keys/${key.id}/sign-data`, { data: b64 });
  assert.ok(sealed.status >= 400 && sealed.status !== 500, `status ${sealed.status}`);
  assert.match(sealed.text.toLowerCase(), 'sealed');
  const r = await fetch(`${vault.address}/v1/sys/unseal`, { method: 'POST', body: JSON.stringify({ key: unsealKeys[0] }), headers: { 'content-type': 'application/json' } });
  assert.is(r.status, 200);
  const back = await api('POST', `/keys/${key.id}/sign-data`, { data: b64 });
  assert.is(back.status, 200, back.text);
  assert.ok(verifies(key.publicKey, back.json.signature));
});

t('a provider failing halfway through creating an organization leaves nothing behind: no key records, no key material in Vault, the mspId free again', async () => {
  const root = { 'X-Vault-Token': vault.rootToken!, 'content-type': 'application/json' };
  const v = (p: string, init: { method?: string; body?: unknown } = {}) =>
    fetch(`${vault.address}/v1/${p}`, { method: init.method ?? 'GET', headers: root, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
  // Keys may be made anywhere, but only the signing CA's keys may sign: the TLS CA's self-signature
  // fails. (The stand-in asks "create" for transit/sign where Vault asks "update"; both are granted.)
  const policy = [
    'path "transit/keys/*" { capabilities = ["create", "read", "update", "delete", "list"] }',
    'path "transit/sign/OrphMSP-ca-*" { capabilities = ["create", "update"] }',
    'path "secret/*" { capabilities = ["create", "read", "update", "delete", "list"] }',
  ].join('\n');
  assert.ok((await v('sys/policies/acl/orph', { method: 'POST', body: { policy } })).ok);
  const token = ((await (await v("auth/token/create", { method: "POST", body: { policies: ["orph"], ttl: "10m" } })).json()) as { auth: { client_token: string } }).auth.client_token;
  const p = await api('POST', '/key-providers', { name: 'half-vault', type: 'VAULT', vaultConfig: { operation: 'IMPORT', address: vault.address, token, mount: 'secret' } });
  assert.is(p.status, 201, p.text);
  const transitKeys = async () => {
    const r = await v('transit/keys?list=true');
    return r.status === 404 ? [] : ((await r.json()) as { data: { keys: string[] } }).data.keys;
  };
  const before = await transitKeys();
  const keysBefore = await keyTotal();

  const o = await api('POST', '/organizations', { name: 'Orphans', mspId: 'OrphMSP', providerId: p.json.id });
  assert.ok(o.status >= 400 && o.status < 500, `status ${o.status}: ${o.text}`);
  assert.match(o.text, 'transit/sign/OrphMSP-tlsca');
  assert.not.match(o.text, token);
  assert.is(await keyTotal(), keysBefore, 'no key record is left');
  assert.equal((await transitKeys()).filter((k) => k.startsWith('OrphMSP')), [], 'no key material is left in Vault');
  assert.ok((await transitKeys()).length === before.length);
  assert.is((await api('GET', '/organizations/by-mspid/OrphMSP')).status, 404);
  const again = await api('POST', '/organizations', { name: 'Orphans', mspId: 'OrphMSP', providerId: vaultId });
  assert.is(again.status, 201, 'the mspId is free again: ' + again.text);
});

t.run();
