// Vault and AWS KMS key providers over HTTP, registered through the API against the stand-ins of
// test/standins (no real Vault or KMS can run here): keys created and signing inside them,
// an organization whose CAs live in Vault verified by openssl, the provider support matrix.
// With VAULT_ADDR and VAULT_TOKEN set (KV v2 mount in VAULT_KV_MOUNT, default "secret"), the Vault
// tests run against that real server instead; the sealing test is then skipped.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createPublicKey, verify } from 'node:crypto';
import { keccak256, recoverAddress } from 'ethers';
import { adminAuth, call, startServer, type TestServer } from '../helpers/server.ts';
import { startVaultStandin, type VaultStandin } from '../standins/vaultStandin.ts';
import { startKmsStandin, type KmsStandin } from '../standins/kmsStandin.ts';
import { openssl } from '../adapters/x509/opensslCli.ts';

const t = suite('Vault and AWS KMS key providers end to end (stand-ins)');
let server: TestServer;
let vault: VaultStandin;
let kms: KmsStandin;
const auth = adminAuth();
const api = (method: string, path: string, body?: unknown) => call(server.api, method, path, { headers: auth, body });
const data = Buffer.from('provider signed data');
const realVault = Boolean(process.env.VAULT_ADDR && process.env.VAULT_TOKEN);
const kvMount = process.env.VAULT_KV_MOUNT ?? 'secret';
let vaultId: number;
let kmsId: number;

t.before(async () => {
  vault = realVault
    ? { address: process.env.VAULT_ADDR!, rootToken: process.env.VAULT_TOKEN!, unsealKeys: [], sealed: false, initialized: true, seal() {}, close: async () => {} }
    : await startVaultStandin({ initialized: true });
  kms = await startKmsStandin();
  server = await startServer({ env: { KEY_ENCRYPTION_KEY: 'providers-e2e-key-encryption-key' } });
});
t.after(async () => {
  await server?.stop();
  await vault?.close();
  await kms?.close();
});

t('the built-in database provider is listed as default', async () => {
  const r = await api('GET', '/key-providers');
  assert.is(r.status, 200);
  assert.equal({ id: r.json[0].id, type: r.json[0].type, isDefault: r.json[0].isDefault }, { id: 1, type: 'DATABASE', isDefault: true });
});

t('a Vault provider in IMPORT mode is registered, its token never shown; status reports reachable and unsealed', async () => {
  const r = await api('POST', '/key-providers', { name: 'vault', type: 'VAULT', vaultConfig: { operation: 'IMPORT', address: vault.address, token: vault.rootToken, mount: kvMount } });
  assert.is(r.status, 201, r.text);
  vaultId = r.json.id;
  assert.not.match(r.text, vault.rootToken!);
  assert.not.match((await api('GET', `/key-providers/${vaultId}`)).text, vault.rootToken!);
  const s = await api('GET', `/key-providers/${vaultId}/vault/status`);
  assert.equal(s.json, { vault_reachable: true, vault_initialized: true, sealed: false, container_running: false });
});

t('Vault: a P-256 key is created in transit and signs; secp256k1 and Ed25519 are refused with 400 naming what Vault supports', async () => {
  const k = await api('POST', '/keys', { name: 'vault-p256', algorithm: 'ECDSA', curve: 'P-256', keyProviderId: vaultId });
  assert.is(k.status, 201, k.text);
  assert.is(k.json.provider.type, 'VAULT');
  const s = await api('POST', `/keys/${k.json.id}/sign-data`, { data: data.toString('base64') });
  assert.is(s.status, 200, s.text);
  assert.ok(verify('sha256', data, { key: createPublicKey(k.json.publicKey), dsaEncoding: 'der' }, Buffer.from(s.json.signature, 'base64')));
  const k1 = await api('POST', '/keys', { name: 'vault-k1', curve: 'secp256k1', providerId: vaultId });
  assert.is(k1.status, 400);
  assert.match(k1.text, 'P-521');
  const ed = await api('POST', '/keys', { name: 'vault-ed', algorithm: 'Ed25519', providerId: vaultId });
  assert.is(ed.status, 400);
});

t('an organization in the Vault provider: its CAs are signed by transit and openssl verifies them', async () => {
  const o = await api('POST', '/organizations', { name: 'Vault Org', mspId: `VaultMSP${Date.now()}`, providerId: vaultId });
  assert.is(o.status, 201, o.text);
  assert.ok(openssl(['verify', '-CAfile', 'ca.pem', 'ca.pem'], { 'ca.pem': o.json.signCertificate }).ok);
  const admin = await api('GET', `/keys/${o.json.adminKeyId}`);
  assert.is(admin.json.providerId, vaultId);
  const v = openssl(['verify', '-CAfile', 'ca.pem', 'a.pem'], { 'ca.pem': o.json.signCertificate, 'a.pem': admin.json.certificate.pem });
  assert.ok(v.ok, v.output);
  assert.is((await api('DELETE', `/key-providers/${vaultId}`)).status, 409, 'a provider holding keys is kept');
  // Fabric reads node keys from files and Vault keys never leave Vault: such an organization has no nodes.
  const keysBefore = (await api('GET', '/keys/all')).json.length;
  const peer = await api('POST', '/nodes', { name: 'vault-peer', platform: 'CONSORTIUM', nodeType: 'CONSORTIUM_PEER', organizationId: o.json.id });
  assert.is(peer.status, 400, peer.text);
  assert.match(peer.json.message, 'VAULT');
  assert.is(peer.json.details[0].field, 'organizationId');
  assert.is((await api('GET', '/nodes/platform/CONSORTIUM')).json.total, 0, 'no node recorded');
  assert.is((await api('GET', '/keys/all')).json.length, keysBefore, 'no node key made');
});

t('a sealed Vault: status says so and signing fails with a clear error, not a 500', async () => {
  if (realVault) return; // never seal someone's real Vault
  const k = await api('GET', '/keys?providerId=' + vaultId);
  vault.seal();
  const s = await api('GET', `/key-providers/${vaultId}/vault/status`);
  assert.is(s.json.sealed, true);
  const r = await api('POST', `/keys/${k.json.items[0].id}/sign-data`, { data: data.toString('base64') });
  assert.ok(r.status >= 400 && r.status !== 500, `status ${r.status}`);
  assert.match(r.text.toLowerCase(), 'sealed');
});

t('Vault CREATE mode answers 503 naming the image and the engine it would need', async () => {
  const r = await api('POST', '/key-providers', { name: 'managed', type: 'VAULT', vaultConfig: { operation: 'CREATE', mode: 'docker', network: 'bridge', port: 8200, version: '1.17' } });
  assert.is(r.status, 503, r.text);
  assert.match(r.text, 'hashicorp/vault:1.17');
  assert.match(r.text, 'docker');
});

t('an AWS KMS provider with static credentials and an endpoint URL is registered; its secret key is never shown', async () => {
  const r = await api('POST', '/key-providers', { name: 'kms', type: 'AWS_KMS', awsKmsConfig: { operation: 'IMPORT', awsRegion: kms.region, kmsKeyAliasPrefix: 'lnm-e2e/', accessKeyId: kms.credentials.accessKeyId, secretAccessKey: kms.credentials.secretAccessKey, endpointUrl: kms.endpoint } });
  assert.is(r.status, 201, r.text);
  kmsId = r.json.id;
  assert.not.match(r.text, kms.credentials.secretAccessKey);
  const s = await api('GET', `/key-providers/${kmsId}/awskms/status`);
  assert.equal({ reachable: s.json.kms_reachable, creds: s.json.has_credentials, status: s.json.kms_status }, { reachable: true, creds: true, status: 'available' });
});

t('AWS KMS: a secp256k1 key signs Ethereum-style and recovers to its address; P-521 is refused with 400', async () => {
  const k = await api('POST', '/keys', { name: 'kms-validator', algorithm: 'ECDSA', curve: 'secp256k1', keyProviderId: kmsId });
  assert.is(k.status, 201, k.text);
  assert.ok(k.json.ethereumAddress);
  const s = await api('POST', `/keys/${k.json.id}/sign-data`, { data: data.toString('base64'), ethereum: 'keccak256' });
  assert.is(s.status, 200, s.text);
  assert.is(recoverAddress(keccak256(data), s.json.ethereum.signature), k.json.ethereumAddress);
  const rsa = await api('POST', '/keys', { name: 'kms-rsa', algorithm: 'RSA', keySize: 2048, keyProviderId: kmsId });
  assert.is(rsa.status, 201, rsa.text);
  const rs = await api('POST', `/keys/${rsa.json.id}/sign-data`, { data: data.toString('base64') });
  assert.ok(verify('sha256', data, createPublicKey(rsa.json.publicKey), Buffer.from(rs.json.signature, 'base64')));
  const p521 = await api('POST', '/keys', { name: 'kms-p521', curve: 'P-521', keyProviderId: kmsId });
  assert.is(p521.status, 400);
  assert.match(p521.text, 'secp256k1');
});

t('a KMS provider with wrong credentials is refused before it is saved, with the reason', async () => {
  const r = await api('POST', '/key-providers', { name: 'kms-bad', type: 'AWS_KMS', config: { region: kms.region, accessKeyId: 'AKIAWRONGWRONGWRONG1', secretAccessKey: 'wrong-secret-wrong-secret-wrong-secret00', endpointUrl: kms.endpoint } });
  assert.is(r.status, 400, r.text);
  assert.not.match(r.text, 'wrong-secret');
  assert.is((await api('GET', '/key-providers')).json.length, 3);
});

t.run();
