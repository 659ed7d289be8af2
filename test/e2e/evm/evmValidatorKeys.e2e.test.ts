// Validator keys are ordinary keys of the network's key provider: listed under /keys (purpose
// VALIDATOR, secp256k1, the validator's address), kept while a network uses them, and for an
// AWS KMS provider (the stand-in of test/standins: no real KMS runs here) a contract deployed on
// a real anvil chain is signed inside KMS. Vault has no secp256k1, and besu cannot use a key
// that never leaves its provider: both are 400s that leave nothing behind.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { generateKeyPairSync } from 'node:crypto';
import { Contract, JsonRpcProvider } from 'ethers';
import { KMSClient, ListAliasesCommand } from '@aws-sdk/client-kms';
import { adminAuth, call, startServer, type TestServer } from '../../helpers/server.ts';
import { startKmsStandin, type KmsStandin } from '../../standins/kmsStandin.ts';
import { startVaultStandin, type VaultStandin } from '../../standins/vaultStandin.ts';
import { STORE_ABI, STORE_BYTECODE, until } from './evmLifecycle.ts';

const t = suite('evm validator keys in key providers');
let server: TestServer;
let kms: KmsStandin;
let vault: VaultStandin;
let kmsId: number;
let vaultId: number;
const api = (method: string, path: string, body?: unknown) => call(server.api, method, path, { headers: adminAuth(), body });

t.before(async () => {
  kms = await startKmsStandin();
  vault = await startVaultStandin({ initialized: true });
  server = await startServer({ env: { KEY_ENCRYPTION_KEY: 'validator-keys-e2e-key-encryption-key', LNM_EVM_CLIENT: 'auto' } });
  const k = await api('POST', '/key-providers', { name: 'kms', type: 'AWS_KMS', awsKmsConfig: { operation: 'IMPORT', awsRegion: kms.region, kmsKeyAliasPrefix: 'lnm-validators/', accessKeyId: kms.credentials.accessKeyId, secretAccessKey: kms.credentials.secretAccessKey, endpointUrl: kms.endpoint } });
  assert.is(k.status, 201, k.text);
  kmsId = k.json.id;
  const v = await api('POST', '/key-providers', { name: 'vault', type: 'VAULT', vaultConfig: { operation: 'IMPORT', address: vault.address, token: vault.rootToken, mount: 'secret' } });
  assert.is(v.status, 201, v.text);
  vaultId = v.json.id;
});
t.after(async () => {
  await server?.stop();
  await kms?.close();
  await vault?.close();
});

async function validatorKeys(): Promise<Array<{ id: number; name: string; ethereumAddress: string; providerId: number }>> {
  return (await api('GET', '/keys?purpose=VALIDATOR&limit=500')).json.items;
}

t('a generated validator key is listed under /keys with purpose VALIDATOR and the validator address, and is kept while the network uses it', async () => {
  const r = await api('POST', '/networks/evm', { name: 'vk-default', client: 'anvil', genesis: { chain_id: 42001, consensus: 'QBFT', block_time: 2 } });
  assert.is(r.status, 201, r.text);
  const v = r.json.validators[0];
  assert.equal({ held: v.key_held, provider: v.key_provider, providerId: v.key_provider_id }, { held: true, provider: 'DATABASE', providerId: 1 });
  const key = await api('GET', `/keys/${v.key_id}`);
  assert.is(key.status, 200, key.text);
  assert.equal(
    { purpose: key.json.purpose, curve: key.json.curve, address: key.json.ethereumAddress, name: key.json.name },
    { purpose: 'VALIDATOR', curve: 'secp256k1', address: v.address, name: 'vk-default-validator-1' },
  );
  const del = await api('DELETE', `/keys/${v.key_id}`);
  assert.is(del.status, 409, del.text);
  assert.match(del.text, 'vk-default');
  assert.is((await api('DELETE', `/networks/evm/${r.json.id}`)).status, 204);
  assert.is((await api('DELETE', `/keys/${v.key_id}`)).status, 204, 'free once the network is gone');
});

t('validator keys in AWS KMS: the key lives in KMS and a contract deployed on a running anvil chain is signed by it', async () => {
  const r = await api('POST', '/networks/evm', {
    name: 'vk-kms', client: 'anvil', providerId: kmsId, validatorBalance: '1000000000000000000000',
    genesis: { chain_id: 42002, consensus: 'QBFT', block_time: 1 },
  });
  assert.is(r.status, 201, r.text);
  const v = r.json.validators[0];
  assert.equal({ provider: v.key_provider, providerId: v.key_provider_id }, { provider: 'AWS_KMS', providerId: kmsId });
  const key = (await api('GET', `/keys/${v.key_id}`)).json;
  assert.equal({ providerId: key.providerId, address: key.ethereumAddress }, { providerId: kmsId, address: v.address });
  const client = new KMSClient({ region: kms.region, endpoint: kms.endpoint, credentials: kms.credentials });
  const aliases = ((await client.send(new ListAliasesCommand({}))).Aliases ?? []).map((a) => a.AliasName ?? '');
  client.destroy();
  assert.ok(aliases.some((a) => a.startsWith('alias/lnm-validators/vk-kms-validator-1')), `KMS aliases: ${aliases.join(', ')}`);

  const start = await api('POST', `/networks/${r.json.id}/start`);
  assert.is(start.status, 200, start.text);
  assert.is(start.json.nodes[0].status, 'running', JSON.stringify(start.json.nodes[0]));
  const d = await api('POST', '/sc/evm/deploy', { networkId: r.json.id, bytecode: STORE_BYTECODE, abi: STORE_ABI, args: [77] });
  assert.is(d.status, 200, d.text);
  assert.is(d.json.from, v.address);
  const rpc = new JsonRpcProvider(start.json.nodes[0].endpoints.rpc_http, 42002, { staticNetwork: true });
  try {
    const tx = await rpc.getTransaction(d.json.transaction_hash);
    // The private key exists only inside KMS: the chain recovering its address proves KMS signed.
    assert.is(tx?.from, v.address, 'the chain recovered the KMS key address from the signature');
    assert.is(await new Contract(d.json.address, STORE_ABI, rpc).get(), 77n);
  } finally {
    rpc.destroy();
  }
  await api('DELETE', `/networks/evm/${r.json.id}`);
  await until('node removed', async () => (await api('GET', `/networks/evm/${r.json.id}`)).status === 404);
});

t('a PoW network on anvil gets a funded miner key the service holds, so contracts can be deployed from it', async () => {
  const r = await api('POST', '/networks/evm', { name: 'vk-pow', client: 'anvil', validatorBalance: '1000000000000000000000', genesis: { chain_id: 42006, consensus: 'PoW', block_time: 1 } });
  assert.is(r.status, 201, r.text);
  assert.is(r.json.consensus, 'POW');
  assert.is(r.json.validators.length, 1);
  const miner = r.json.validators[0];
  assert.is((await api('GET', `/keys/${miner.key_id}`)).json.purpose, 'VALIDATOR');
  const start = await api('POST', `/networks/${r.json.id}/start`);
  assert.is(start.status, 200, start.text);
  assert.is(start.json.nodes[0].status, 'running', JSON.stringify(start.json.nodes[0]));
  const d = await api('POST', '/sc/evm/deploy', { networkId: r.json.id, bytecode: STORE_BYTECODE, abi: STORE_ABI, args: [5] });
  assert.is(d.status, 200, d.text);
  assert.is(d.json.from, miner.address);
  await api('DELETE', `/networks/evm/${r.json.id}`);
});

t('Vault cannot hold validator keys (no secp256k1): 400 naming what it supports, and no key or network is left', async () => {
  const before = (await validatorKeys()).length;
  const r = await api('POST', '/networks/evm', { name: 'vk-vault', client: 'anvil', keyProviderId: vaultId, genesis: { chain_id: 42003, consensus: 'QBFT' } });
  assert.is(r.status, 400, r.text);
  assert.match(r.text, 'secp256k1');
  assert.is(r.json.details[0].field, 'keyProviderId');
  assert.is((await validatorKeys()).length, before);
  assert.is((await api('GET', '/networks/evm')).json.items.filter((n: { name: string }) => n.name === 'vk-vault').length, 0);
});

t('besu with validator keys in KMS is a 400: besu reads its node key from a file and KMS keys never leave KMS', async () => {
  const before = (await validatorKeys()).length;
  const r = await api('POST', '/networks/evm', { name: 'vk-besu-kms', client: 'besu', providerId: kmsId, validatorCount: 4, genesis: { chain_id: 42004, consensus: 'QBFT' } });
  assert.is(r.status, 400, r.text);
  assert.match(r.text, 'database provider');
  assert.is((await validatorKeys()).length, before);
});

t('imported validator keys of the wrong curve are a 400 naming each one, before any key is stored', async () => {
  const before = (await validatorKeys()).length;
  const p256 = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const k1 = generateKeyPairSync('ec', { namedCurve: 'secp256k1' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const r = await api('POST', '/networks/evm', { name: 'vk-import', validatorKeys: [k1, p256], genesis: { chain_id: 42005, consensus: 'QBFT' } });
  assert.is(r.status, 400, r.text);
  // Two validators also need besu, which is not here: every problem is said in the one refusal.
  assert.equal(r.json.details.map((d: { field: string }) => d.field), ['client', 'validatorKeys[1]']);
  assert.not.match(r.text, 'PRIVATE KEY');
  assert.is((await validatorKeys()).length, before, 'the good key of the pair was not stored either');
});

t.run();
