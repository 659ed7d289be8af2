import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startVaultStandin, type VaultStandin } from './vaultStandin.ts';
import { configPaths, loadServerConfig } from './vaultStandinServer.ts';

// Server mode of the stand-in: what a real `vault server` with file storage does across restarts,
// and the configuration checks it makes at start.
const test = suite<{ dir: string }>('vault stand-in in server mode', { dir: '' });
test.before((ctx) => {
  ctx.dir = mkdtempSync(path.join(tmpdir(), 'lnm-vault-standin-'));
});
const opened: VaultStandin[] = [];
test.after(async (ctx) => {
  await Promise.all(opened.map((v) => v.close().catch(() => undefined)));
  rmSync(ctx.dir, { recursive: true, force: true });
});

async function call(address: string, method: string, p: string, body?: unknown, token?: string) {
  const res = await fetch(`${address}/v1/${p}`, { method, headers: { ...(token ? { 'X-Vault-Token': token } : {}), 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

test('with file storage a restart comes back initialized and sealed; the unseal key of the first run brings back keys and tokens; the file holds no key in clear', async ({ dir }) => {
  const storageDir = path.join(dir, 'data');
  const first = await startVaultStandin({ storageDir });
  opened.push(first);
  const init = (await call(first.address, 'POST', 'sys/init', { secret_shares: 3, secret_threshold: 2 })).body;
  for (const key of init.keys.slice(0, 2)) await call(first.address, 'POST', 'sys/unseal', { key });
  assert.is((await call(first.address, 'POST', 'sys/mounts/transit', { type: 'transit' }, init.root_token)).status, 204);
  const created = await call(first.address, 'POST', 'transit/keys/k1', { type: 'ecdsa-p256' }, init.root_token);
  const publicKey = created.body.data.keys['1'].public_key;
  await first.close();
  opened.pop();

  const second = await startVaultStandin({ storageDir });
  opened.push(second);
  assert.equal([second.initialized, second.sealed], [true, true]);
  assert.is((await call(second.address, 'GET', 'transit/keys/k1', undefined, init.root_token)).status, 503);
  assert.is((await call(second.address, 'POST', 'sys/unseal', { key: 'ab'.repeat(33) })).body.sealed, true, 'one share is below the threshold');
  const wrong = await call(second.address, 'POST', 'sys/unseal', { key: init.keys[2] });
  assert.equal([wrong.status, wrong.body.errors], [400, ['Error unsealing: cipher: message authentication failed']]);
  assert.is((await call(second.address, 'POST', 'sys/unseal', { key: init.keys[1] })).body.sealed, true);
  assert.is((await call(second.address, 'POST', 'sys/unseal', { key: init.keys[2] })).body.sealed, false);
  const read = await call(second.address, 'GET', 'transit/keys/k1', undefined, init.root_token);
  assert.is(read.status, 200);
  assert.is(read.body.data.keys['1'].public_key, publicKey);
  const signed = await call(second.address, 'POST', 'transit/sign/k1', { input: Buffer.from('x').toString('base64') }, init.root_token);
  assert.match(signed.body.data.signature, /^vault:v1:/);
  await second.close();
  const stored = readFileSync(path.join(storageDir, 'standin-vault.json'), 'utf8');
  assert.not.match(stored, init.root_token);
  assert.not.match(stored, 'PRIVATE KEY');
});

test('server command line and configuration: -config file or directory, file storage and a tcp listener required, mlock refused without disable_mlock, dev mode refused', ({ dir }) => {
  const file = path.join(dir, 'vault.json');
  writeFileSync(file, JSON.stringify({ storage: { file: { path: '/data' } }, listener: { tcp: { address: '127.0.0.1:18200', tls_disable: true } }, disable_mlock: true }));
  assert.equal(configPaths(['server', `-config=${file}`, '-dev-root-token-id=', '-dev-listen-address=0.0.0.0:8200']), [file]);
  assert.equal(loadServerConfig([dir]), { host: '127.0.0.1', port: 18200, storageDir: '/data' });
  assert.throws(() => configPaths(['server', '-dev']), /dev mode/);
  assert.throws(() => configPaths(['server']), /config file must be specified/);
  writeFileSync(file, JSON.stringify({ listener: { tcp: { address: '127.0.0.1:18200', tls_disable: 1 } }, disable_mlock: true }));
  assert.throws(() => loadServerConfig([file]), /storage backend must be specified/);
  writeFileSync(file, JSON.stringify({ storage: { file: { path: '/data' } }, listener: { tcp: { address: '127.0.0.1:18200', tls_disable: 'true' } } }));
  assert.throws(() => loadServerConfig([file]), /Failed to lock memory/);
  writeFileSync(file, JSON.stringify({ storage: { file: { path: '/data' } }, listener: { tcp: { address: '127.0.0.1:18200' } }, disable_mlock: true }));
  assert.throws(() => loadServerConfig([file]), /tls_cert_file/);
});

test.run();
