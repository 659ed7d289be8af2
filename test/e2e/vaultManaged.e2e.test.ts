// Vault provider CREATE mode end to end, on the real Docker Engine: the service runs a managed
// Vault container, initializes and unseals it, and uses it like an IMPORT provider. No Vault
// image can be pulled here, so LNM_IMAGE_VAULT points at a local image of the Vault stand-in in
// server mode (test/standins/vaultStandinImage.ts), which takes the same command line and JSON
// configuration as `vault server` and comes back sealed after a restart.
// Skipped, saying why, where no Docker Engine answers or the image cannot be built.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import Docker from 'dockerode';
import pg from 'pg';
import net from 'node:net';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createPublicKey, verify } from 'node:crypto';
import { adminAuth, call, startServer, type TestServer } from '../helpers/server.ts';
import { freePort } from '../../adapters/postgres/embeddedPostgres.ts';
import { ensureVaultStandinImage } from '../standins/vaultStandinImage.ts';
import { createKeyEncryption } from '../../adapters/keyProviders/keyEncryption.ts';
import { openConfig } from '../../adapters/keyProviders/registrySealedConfig.ts';
import type { StoredVaultConfig } from '../../adapters/keyProviders/vaultManaged.ts';
import { onGlobalTeardown } from '../helpers/globalTeardown.ts';
import { dockerSkipReason } from '../helpers/dockerAvailability.ts';
import { requiresAll } from '../helpers/requirements.ts';

const KEK = 'managed-vault-e2e-key-encryption-key';
const t = requiresAll(suite('Vault CREATE mode: a managed Vault container (stand-in image)'), ['docker', await dockerSkipReason()]);
const docker = new Docker();
let server: TestServer;
let port: number;
let providerId: number;
let keyId: number;
let publicKeyPem: string;
const bodies: string[] = [];
/** Output of earlier runs of the service (the server is restarted once). */
const logs: string[] = [];
const data = Buffer.from('signed by a managed vault');

async function api(method: string, p: string, body?: unknown) {
  const r = await call(server.api, method, p, { headers: adminAuth(), body });
  bodies.push(r.text);
  return r;
}

const containerName = (p: number) => `lnm-vault-${p}`;
async function container(p: number) {
  try {
    return await docker.getContainer(containerName(p)).inspect();
  } catch {
    return null;
  }
}

async function vaultHealth(p: number): Promise<{ initialized: boolean; sealed: boolean } | null> {
  try {
    const r = await fetch(`http://127.0.0.1:${p}/v1/sys/health?standbyok=true&sealedcode=200&uninitcode=200`);
    return (await r.json()) as { initialized: boolean; sealed: boolean };
  } catch {
    return null;
  }
}

async function signs(): Promise<void> {
  const s = await api('POST', `/keys/${keyId}/sign-data`, { data: data.toString('base64') });
  assert.is(s.status, 200, s.text);
  assert.ok(verify('sha256', data, { key: createPublicKey(publicKeyPem), dsaEncoding: 'der' }, Buffer.from(s.json.signature, 'base64')));
}

/** docker restart, then wait until the restarted Vault answers: sealed, as every restarted Vault. */
async function restartVault(): Promise<void> {
  await docker.getContainer(containerName(port)).restart({ t: 5 });
  const deadline = Date.now() + 20_000;
  for (;;) {
    const h = await vaultHealth(port);
    if (h) {
      assert.equal(h, { ...h, initialized: true, sealed: true }, 'a restarted Vault comes back sealed');
      return;
    }
    if (Date.now() > deadline) throw new Error('the restarted Vault did not answer');
    await new Promise((r) => setTimeout(r, 100));
  }
}

t.before(async () => {
  // With a Docker Engine here the stand-in image must build: each test fails with why it did not.
  const image = await ensureVaultStandinImage();
  port = await freePort();
  server = await startServer({ env: { KEY_ENCRYPTION_KEY: KEK, LNM_IMAGE_VAULT: image } });
  onGlobalTeardown(removeContainers);
});

/** Whatever a failing test left running. */
async function removeContainers(): Promise<void> {
  if (!server) return;
  const left = await docker.listContainers({ all: true, filters: { label: [`lnm.data-dir=${server.dataDir}`] } }).catch(() => []);
  for (const c of left) await docker.getContainer(c.Id).remove({ force: true }).catch(() => undefined);
}

t.after(async () => {
  await server?.stop();
  await removeContainers();
});

t('CREATE runs, initializes and unseals a managed Vault; the response shows where it runs, never its token or unseal keys', async () => {
  const r = await api('POST', '/key-providers', { name: 'managed', type: 'VAULT', vaultConfig: { operation: 'CREATE', mode: 'docker', network: 'bridge', port, version: '1.17' } });
  assert.is(r.status, 201, r.text);
  providerId = r.json.id;
  assert.equal(
    { operation: r.json.config.operation, port: r.json.config.port, address: r.json.config.address, containerName: r.json.config.containerName, version: r.json.config.version },
    { operation: 'CREATE', port, address: `http://127.0.0.1:${port}`, containerName: containerName(port), version: '1.17' },
  );
  assert.not.ok('unsealKeys' in r.json.config);
  assert.not.ok('token' in r.json.config);
  const c = await container(port);
  assert.ok(c?.State.Running, 'the container runs');
  assert.equal(c!.Config.Cmd, ['server', `-config=${path.join(server.dataDir, 'nodes', `vault-${port}`, 'vault.json')}`]);
  assert.is(c!.HostConfig.NetworkMode, 'host');
});

t('status: reachable, initialized, unsealed and the container running', async () => {
  const s = await api('GET', `/key-providers/${providerId}/vault/status`);
  assert.equal(s.json, { vault_reachable: true, vault_initialized: true, sealed: false, container_running: true });
});

t('a P-256 key is created in the managed Vault and its signatures verify', async () => {
  const k = await api('POST', '/keys', { name: 'managed-p256', algorithm: 'ECDSA', curve: 'P-256', keyProviderId: providerId });
  assert.is(k.status, 201, k.text);
  assert.is(k.json.provider.type, 'VAULT');
  keyId = k.json.id;
  publicKeyPem = k.json.publicKey;
  await signs();
});

t('a restarted managed Vault comes back sealed and the status check unseals it with the stored keys; its keys survived', async () => {
  await restartVault();
  const s = await api('GET', `/key-providers/${providerId}/vault/status`);
  assert.equal(s.json, { vault_reachable: true, vault_initialized: true, sealed: false, container_running: true });
  await signs();
});

t('a signature asked of a sealed managed Vault unseals it and succeeds', async () => {
  await restartVault();
  await signs();
  assert.is((await vaultHealth(port))?.sealed, false);
});

t('a stopped managed Vault is started again by the next status check', async () => {
  await docker.getContainer(containerName(port)).stop({ t: 5 });
  const s = await api('GET', `/key-providers/${providerId}/vault/status`);
  assert.equal(s.json, { vault_reachable: true, vault_initialized: true, sealed: false, container_running: true });
  await signs();
});

t('the managed Vault outlives a restart of the service; restarted while the service was down, it is unsealed by the first signature after', async () => {
  logs.push(server.output());
  await server.stop();
  assert.ok((await container(port))?.State.Running, 'the container keeps running while the service is stopped');
  await restartVault();
  server = await startServer({ dataDir: server.dataDir, databaseUrl: server.databaseUrl!, port: server.port, env: server.env });
  await signs();
  const s = await api('GET', `/key-providers/${providerId}/vault/status`);
  assert.equal(s.json, { vault_reachable: true, vault_initialized: true, sealed: false, container_running: true });
});

t('CREATE on a port in use is a 409 and leaves no container and no provider', async () => {
  const busy = net.createServer();
  const taken = await freePort();
  await new Promise<void>((r) => busy.listen(taken, '127.0.0.1', r));
  try {
    const before = (await api('GET', '/key-providers')).json.length;
    const r = await api('POST', '/key-providers', { name: 'busy', type: 'VAULT', vaultConfig: { operation: 'CREATE', port: taken, version: '1.17' } });
    assert.is(r.status, 409, r.text);
    assert.match(r.text, String(taken));
    assert.is(await container(taken), null);
    assert.is((await api('GET', '/key-providers')).json.length, before);
  } finally {
    busy.close();
  }
  const same = await api('POST', '/key-providers', { name: 'same-port', type: 'VAULT', vaultConfig: { operation: 'CREATE', port, version: '1.17' } });
  assert.is(same.status, 409, same.text);
  assert.match(same.text, 'managed');
  assert.ok((await container(port))?.State.Running, 'the running managed Vault is left alone');
});

t('CREATE failing midway (a transit path Vault refuses) removes its container and data and saves nothing', async () => {
  const other = await freePort();
  const r = await api('POST', '/key-providers', { name: 'broken', type: 'VAULT', vaultConfig: { operation: 'CREATE', port: other, version: '1.17', transitPath: 'sys' } });
  assert.ok(r.status >= 400 && r.status < 500, `${r.status} ${r.text}`);
  assert.is(await container(other), null);
  assert.not.ok(existsSync(path.join(server.dataDir, 'nodes', `vault-${other}`)));
  assert.not.ok((await api('GET', '/key-providers')).json.some((p: { name: string }) => p.name === 'broken'));
});

t('deleting the provider is refused while it holds a key; once the key is deleted, the provider and its container and data are removed', async () => {
  assert.is((await api('DELETE', `/key-providers/${providerId}`)).status, 409);
  assert.ok((await container(port))?.State.Running);
  const dk = await api('DELETE', `/keys/${keyId}`);
  assert.ok(dk.status === 204 || dk.status === 200, dk.text);
  assert.is((await api('DELETE', `/key-providers/${providerId}`)).status, 204);
  assert.is(await container(port), null);
  assert.not.ok(existsSync(path.join(server.dataDir, 'nodes', `vault-${port}`)));
  assert.is((await api('GET', `/key-providers/${providerId}`)).status, 404);
});

t('no response and no log line holds the root token or an unseal key', async () => {
  // The secrets are read back from the events, where they are stored encrypted.
  const db = new pg.Client({ connectionString: server.databaseUrl! });
  await db.connect();
  try {
    const { rows } = await db.query("SELECT data FROM events WHERE type = 'KeyProviderCreated' AND data->>'name' = 'managed'");
    assert.is(rows.length, 1);
    const stored = await openConfig<StoredVaultConfig>(createKeyEncryption(KEK), rows[0].data.sealedConfig);
    const secrets = [stored.token, ...(stored.managed?.unsealKeys ?? [])];
    assert.ok(secrets.length >= 2 && secrets.every((s) => s.length > 8));
    const log = [...logs, server.output()].join('\n');
    for (const secret of secrets) {
      assert.not.ok(bodies.some((b) => b.includes(secret)), 'a response holds a secret');
      assert.not.ok(log.includes(secret), 'the log holds a secret');
    }
  } finally {
    await db.end();
  }
});

t('without a Docker Engine CREATE answers 503 naming what is missing, and saves nothing', async () => {
  const noDocker = await startServer({ env: { KEY_ENCRYPTION_KEY: KEK, DOCKER_HOST: 'unix:///nonexistent/docker.sock', LNM_IMAGE_VAULT: 'lnm-vault-standin:local' } });
  try {
    const r = await call(noDocker.api, 'POST', '/key-providers', { headers: adminAuth(), body: { name: 'nowhere', type: 'VAULT', vaultConfig: { operation: 'CREATE', port: await freePort(), version: '1.17' } } });
    assert.is(r.status, 503, r.text);
    assert.match(r.text, 'no Docker Engine answers');
    assert.match(r.text, 'lnm-vault-standin:local');
    assert.is((await call(noDocker.api, 'GET', '/key-providers', { headers: adminAuth() })).json.length, 1);
  } finally {
    await noDocker.stop();
  }
});

t.run();
