// The console's plugin YAML editor, key deletion and downloads, and the managed Vault option, in
// Chromium against the real server: the editor (CodeMirror, its own chunk loaded only when the
// install form opens) names a syntax error by line, is typed into with the keyboard, lets Tab
// leave it, and installs the plugin; a key an organization uses is refused on delete with the
// 409 explained, a free key's public key, certificate and CA certificate download (the API's
// PEMs, never a private key) and it is deleted after a confirmation; a VIEWER sees neither delete
// nor certificate downloads; a managed Vault (the Vault stand-in image, through the real Docker
// Engine) is added from the provider form (a taken port refused with the 409 said), shows its
// status with its container running and is deleted with its container. axe-core checks each page.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import net from 'node:net';
import { readFileSync } from 'node:fs';
import Docker from 'dockerode';
import type { Page } from 'playwright-core';
import { ADMIN, adminAuth, call, type TestServer } from '../../helpers/server.ts';
import { requires, requiresAll } from '../../helpers/requirements.ts';
import { dockerSkipReason } from '../../helpers/dockerAvailability.ts';
import { chromiumMissing, screenshot } from '../../helpers/browser.ts';
import { startConsoleSession, type ConsoleSession } from '../../helpers/consoleSession.ts';
import { ensureVaultStandinImage } from '../../standins/vaultStandinImage.ts';
import { freePort } from '../../../adapters/postgres/embeddedPostgres.ts';

// Page functions run in the browser; the project's tsconfig has no DOM library.
declare const document: { activeElement: { closest(s: string): unknown } | null };

const it = requires(test, 'chromium', chromiumMissing());
const withDocker = requires(requiresAll(test, ['docker', await dockerSkipReason()]), 'chromium', chromiumMissing());
const VIEWER = { username: 'editor-viewer', password: 'editor-viewer-password-1' };
const PLUGIN_LINES = ['apiVersion: dev.platform/v1', 'kind: Plugin', 'metadata:', '  name: editor-plugin', '  version: 1.0.0', 'spec:', '  dockerCompose:', '    contents: |', '      services:', '        app:', '          image: nginx:alpine', '  parameters:', '    type: object', '    properties: {}'];

let s: TestServer;
let ui: ConsoleSession;
let page: Page;
let vaultImage: string | null = null;
const docker = new Docker();

const accessible = (what: string) => ui.accessible(what);

const signIn = (user: { username: string; password: string }) => ui.signIn(user);

const nav = (name: string) => ui.nav(name);
const api = (method: string, p: string, body?: unknown) => call(s.api, method, p, { headers: adminAuth(), ...(body === undefined ? {} : { body }) });

async function removeVaultContainers(): Promise<void> {
  if (!s) return;
  const left = await docker.listContainers({ all: true, filters: { label: [`lnm.data-dir=${s.dataDir}`] } }).catch(() => []);
  for (const c of left) await docker.getContainer(c.Id).remove({ force: true }).catch(() => undefined);
}

it.before(async () => {
  if (!(await dockerSkipReason())) vaultImage = await ensureVaultStandinImage();
  ui = await startConsoleSession({ server: { env: { KEY_ENCRYPTION_KEY: 'console-keys-editor-key-encryption-key-0123', ...(vaultImage ? { LNM_IMAGE_VAULT: vaultImage } : {}) } } });
  ({ server: s, page } = ui);
  const r = await api('POST', '/users', { ...VIEWER, role: 'VIEWER' });
  assert.is(r.status, 201, r.text);
});

it.after(async () => {
  await removeVaultContainers();
  await ui?.close();
});

it('plugin YAML in the code editor: its own chunk, a syntax error named by line, keyboard typing, Tab leaves it, the plugin installs', async () => {
  const scripts: string[] = [];
  page.on('request', (r) => {
    if (r.resourceType() === 'script') scripts.push(r.url());
  });
  await signIn(ADMIN);
  await nav('Plugins').click();
  await page.getByText('No plugins installed.', { exact: false }).waitFor();
  assert.not.ok(scripts.some((u) => /YamlEditor/.test(u)), `the editor is not loaded before the form opens: ${scripts.join(', ')}`);
  await page.getByRole('button', { name: 'Install plugin' }).click();
  const editor = page.getByRole('textbox', { name: 'Descriptor (YAML)' });
  await editor.waitFor();
  assert.ok(scripts.some((u) => /YamlEditor-[\w-]+\.js$/.test(u)), `the editor came in its own chunk: ${scripts.join(', ')}`);
  assert.is(await page.locator('textarea').count(), 0, 'a code editor, not a text area');
  await page.getByText('The YAML is well formed.').waitFor();

  // Keyboard only: select all, type a broken document; the error is named with its line.
  await editor.focus();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.type('kind: Plugin\nmetadata: [\n');
  const problems = page.getByRole('list', { name: 'YAML syntax errors' });
  await problems.waitFor();
  assert.match(await problems.innerText(), /^Line \d+, column \d+: /);
  await page.locator('.cm-lintRange-error, .cm-lint-marker-error').first().waitFor();
  await page.getByRole('button', { name: 'Install', exact: true }).click();
  await page.locator('form').getByRole('alert').waitFor();
  await accessible('plugin editor with a syntax error');

  // Replace the text; Tab leaves the editor instead of being typed into it.
  await editor.focus();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(PLUGIN_LINES.join('\n') + '\n');
  await page.getByText('The YAML is well formed.').waitFor();
  assert.is(await problems.count(), 0);
  await page.keyboard.press('Tab');
  assert.not.ok(await page.evaluate(() => Boolean(document.activeElement?.closest('.cm-editor'))), 'Tab moved the focus out of the editor');
  assert.equal(((await editor.innerText()) ?? '').split('\n').filter(Boolean), PLUGIN_LINES, 'no tab character was typed into the text');
  await accessible('plugin editor');
  await screenshot(page, 'plugin-yaml-editor');
  await page.getByRole('button', { name: 'Install', exact: true }).click();
  await page.getByRole('table', { name: 'Installed plugins' }).getByText('editor-plugin', { exact: true }).waitFor().catch(async (e) => {
    throw new Error(`${(e as Error).message}; the form says: ${await page.locator('form').innerText().catch(() => '')}`);
  });
  const listed = await api('GET', '/plugins');
  assert.equal(listed.json.items.map((p: { name: string }) => p.name), ['editor-plugin']);
});

it('keys: a key in use is refused with the 409 explained; a free key downloads its public key and certificates, then is deleted after a confirmation', async () => {
  const org = await api('POST', '/organizations', { name: 'EditorOrg', mspId: 'EditorOrgMSP' });
  assert.is(org.status, 201, org.text);
  const ca = await api('POST', '/keys', { name: 'editor-free-ca', algorithm: 'ECDSA', curve: 'P-256', isCA: true, validityDays: 30 });
  assert.is(ca.status, 201, ca.text);
  const orgKeys = (await api('GET', '/keys?limit=100')).json.items.filter((k: { organizationId: number | null }) => k.organizationId === org.json.id);
  const used = orgKeys.find((k: { id: number }) => [org.json.signKeyId, org.json.tlsKeyId, org.json.adminKeyId].includes(k.id)) ?? orgKeys[0];
  assert.ok(used, 'the organization has keys');

  await nav('Organizations and keys').click();
  const keys = page.getByRole('table', { name: 'Keys' });
  await keys.getByRole('button', { name: `Delete key ${used.name}` }).click();
  const confirm = page.getByRole('group', { name: `Delete the key ${used.name}?` });
  await accessible('delete key confirmation');
  await confirm.getByRole('button', { name: `Yes, delete ${used.name}` }).click();
  const refused = confirm.getByRole('alert');
  await refused.getByText('The key is in use and was not deleted (409).').waitFor();
  assert.match(await refused.innerText(), /EditorOrgMSP/);
  assert.ok(await confirm.getByRole('button', { name: `Yes, delete ${used.name}` }).isDisabled());
  await accessible('key in use');
  assert.is((await api('GET', `/keys/${used.id}`)).status, 200, 'the key is still there');
  await confirm.getByRole('button', { name: 'Close' }).click();

  // Downloads: the public key (from the key's record) and the two certificates (audited routes).
  const row = keys.getByRole('row', { name: /editor-free-ca/ });
  const fetched = async (name: string) => {
    const [d] = await Promise.all([page.waitForEvent('download'), row.getByRole('link', { name }).click()]);
    return readFileSync((await d.path())!, 'utf8');
  };
  const publicKey = await fetched('Download the public key of editor-free-ca');
  assert.is(publicKey, ca.json.publicKey);
  assert.match(publicKey, /^-----BEGIN PUBLIC KEY-----/);
  const certificate = await fetched('Download the certificate of editor-free-ca');
  assert.is(certificate.trim(), ca.json.certificate.pem.trim());
  const caCertificate = await fetched('Download the CA certificate of editor-free-ca');
  assert.is(caCertificate.trim(), ca.json.certificate.pem.trim(), 'a self-signed CA: its own certificate');
  for (const pem of [publicKey, certificate, caCertificate]) assert.not.match(pem, /PRIVATE KEY/);
  assert.not.match(await page.content(), /PRIVATE KEY/);

  await row.getByRole('button', { name: 'Delete key editor-free-ca' }).click();
  const confirmFree = page.getByRole('group', { name: 'Delete the key editor-free-ca?' });
  await confirmFree.getByRole('button', { name: 'Cancel' }).click();
  assert.is((await api('GET', `/keys/${ca.json.id}`)).status, 200, 'cancel deletes nothing');
  await row.getByRole('button', { name: 'Delete key editor-free-ca' }).click();
  await confirmFree.getByRole('button', { name: 'Yes, delete editor-free-ca' }).click();
  await keys.getByRole('row', { name: /editor-free-ca/ }).waitFor({ state: 'detached' });
  assert.is((await api('GET', `/keys/${ca.json.id}`)).status, 404);
  await screenshot(page, 'keys-delete-download');
});

it('a VIEWER sees the public key download but no delete and no certificate download', async () => {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await signIn(VIEWER);
  await nav('Organizations and keys').click();
  const keys = page.getByRole('table', { name: 'Keys' });
  await keys.getByRole('link', { name: /^Download the public key of / }).first().waitFor();
  assert.is(await keys.getByRole('button', { name: /^Delete key / }).count(), 0);
  assert.is(await keys.getByRole('link', { name: /certificate of/ }).count(), 0);
  assert.is(await page.getByRole('button', { name: 'Add key provider' }).count(), 0);
  await accessible('keys (viewer)');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await signIn(ADMIN);
});

withDocker('a managed Vault from the provider form: a taken port is refused (409), then it runs, shows its status and is deleted with its container', async () => {
  await nav('Organizations and keys').click();
  const holder = net.createServer();
  const taken = await freePort();
  await new Promise<void>((res) => holder.listen(taken, '127.0.0.1', () => res()));
  const port = await freePort();
  try {
    await page.getByRole('button', { name: 'Add key provider' }).click();
    const form = page.getByRole('form', { name: 'Add a key provider' });
    await form.getByLabel('Provider type').selectOption({ label: 'HashiCorp Vault run by this service (managed container)' });
    await form.getByLabel('Provider name').fill('editor-managed-vault');
    await form.getByLabel('Port on 127.0.0.1').fill(String(taken));
    await form.getByLabel('Vault version (image tag)').fill('1.17');
    assert.is(await form.getByLabel('Vault token').count(), 0, 'a managed Vault asks for no token');
    await accessible('managed Vault form');
    await form.getByRole('button', { name: 'Add provider' }).click();
    await form.getByRole('alert').waitFor({ timeout: 60_000 });
    assert.match(await form.getByRole('alert').innerText(), new RegExp(String(taken)));
    await form.getByLabel('Port on 127.0.0.1').fill(String(port));
    await form.getByRole('button', { name: 'Add provider' }).click();
    const providers = page.getByRole('table', { name: 'Key providers' });
    const row = providers.getByRole('row', { name: /editor-managed-vault/ });
    await row.waitFor({ timeout: 120_000 });
    await row.getByText(`http://127.0.0.1:${port} (managed by this service`, { exact: false }).waitFor();
    await row.getByText('Ready').waitFor({ timeout: 30_000 });
    await row.getByText(/managed container running/).waitFor();
    await accessible('managed Vault provider');
    await screenshot(page, 'key-providers-managed-vault');
    const listed = (await api('GET', '/key-providers')).json as Array<{ id: number; name: string; config: Record<string, unknown> }>;
    const p = listed.find((x) => x.name === 'editor-managed-vault')!;
    assert.is(p.config.operation, 'CREATE');
    assert.is((await api('GET', `/key-providers/${p.id}/vault/status`)).json.container_running, true);
    const containers = await docker.listContainers({ all: true, filters: { label: [`lnm.data-dir=${s.dataDir}`] } });
    assert.is(containers.length, 1, 'one managed container');

    await row.getByRole('button', { name: 'Delete editor-managed-vault' }).click();
    await row.getByRole('button', { name: 'Yes, delete editor-managed-vault' }).click();
    await row.waitFor({ state: 'detached', timeout: 60_000 });
    assert.is((await docker.listContainers({ all: true, filters: { label: [`lnm.data-dir=${s.dataDir}`] } })).length, 0, 'its container is removed');
  } finally {
    holder.close();
  }
});

it.run();
