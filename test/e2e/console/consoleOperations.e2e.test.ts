// The console's keys, key providers, notifications and plugins pages in Chromium against the
// real server: a key created and a CA (made by openssl) imported on the page, a broken import
// refused with the reason, a rotation schedule set; Vault and AWS KMS providers (the test
// stand-ins) added on the page with their status endpoints' answers shown; an SMTP provider
// (smtp-server over STARTTLS with its own CA) added, tested (the mail arrives), edited with a
// wrong password (the test shows the server's refusal) and deleted; the shipped anvil-devchain
// plugin installed and deployed from the form its descriptor generates (Docker Compose), its log
// lines shown, stopped, resumed and removed; the rest-gateway form's x-source pickers offering
// the organization's admin key; what a VIEWER and an OPERATOR see. axe-core checks every page.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';
import type { Page } from 'playwright-core';
import { ADMIN, adminAuth, call, type TestServer } from '../../helpers/server.ts';
import { requires, requiresAll } from '../../helpers/requirements.ts';
import { composeMissing, dockerSkipReason } from '../../helpers/dockerAvailability.ts';
import { chromiumMissing, screenshot } from '../../helpers/browser.ts';
import { startConsoleSession, type ConsoleSession } from '../../helpers/consoleSession.ts';
import { selfSignedCertificate, startMailServer, type MailServer } from '../../helpers/mail.ts';
import { startVaultStandin, type VaultStandin } from '../../standins/vaultStandin.ts';
import { startKmsStandin, type KmsStandin } from '../../standins/kmsStandin.ts';
import { freePort } from '../../../adapters/postgres/embeddedPostgres.ts';

const it = requires(test, 'chromium', chromiumMissing());
const withCompose = requires(requiresAll(test, ['docker', await dockerSkipReason()], ['compose', composeMissing()]), 'chromium', chromiumMissing());
const HOST = `127.${10 + Math.floor(Math.random() * 200)}.${1 + Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`;
const SMTP = { user: 'console@lnm.test', password: 'console-smtp-password-5e1c' };
const VIEWER = { username: 'keys-viewer', password: 'keys-viewer-password-1' };
const OPERATOR = { username: 'keys-operator', password: 'keys-operator-password-1' };

let s: TestServer;
let ui: ConsoleSession;
let page: Page;
let mail: MailServer;
let cert: { key: string; cert: string };
let vault: VaultStandin;
let kms: KmsStandin;
let deployedHere = false;

const accessible = (what: string) => ui.accessible(what);

const signIn = (user: { username: string; password: string }) => ui.signIn(user);

const signOut = () => ui.signOut();

const nav = (name: string) => ui.nav(name);
const api = (method: string, p: string, body?: unknown) => call(s.api, method, p, { headers: adminAuth(), ...(body === undefined ? {} : { body }) });

/** A CA certificate and its private key, made by openssl. */
function opensslCa(cn: string): { certificate: string; privateKey: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'lnm-console-ca-'));
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '30', '-subj', `/CN=${cn}`,
      '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem')], { stdio: 'ignore' });
    return { certificate: readFileSync(path.join(dir, 'cert.pem'), 'utf8'), privateKey: readFileSync(path.join(dir, 'key.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

it.before(async () => {
  cert = selfSignedCertificate(HOST);
  mail = await startMailServer({ host: HOST, port: 587, secure: false, user: SMTP.user, password: SMTP.password, ...cert });
  vault = await startVaultStandin({ initialized: true });
  kms = await startKmsStandin();
  ui = await startConsoleSession({ server: { env: { KEY_ENCRYPTION_KEY: 'console-operations-key-encryption-key-0123456789', LNM_ALLOW_PRIVATE_TARGETS: 'true' } } });
  ({ server: s, page } = ui);
  for (const [u, role] of [[VIEWER, 'VIEWER'], [OPERATOR, 'OPERATOR']] as const) {
    const r = await api('POST', '/users', { ...u, role });
    assert.is(r.status, 201, r.text);
  }
});

it.after(async () => {
  // A deploy test that failed midway leaves no plugin container behind (only then: another run's
  // containers are not ours to remove).
  const docker = new Docker();
  if (deployedHere) for (const c of await docker.listContainers({ all: true, filters: { label: ['com.docker.compose.project=lnm-plugin-anvil-devchain'] } }).catch(() => [])) await docker.getContainer(c.Id).remove({ force: true }).catch(() => undefined);
  await ui?.close();
  await mail?.close();
  await vault?.close();
  await kms?.close();
});

it('a key is created and a CA imported on the page (a broken import says why), and a rotation schedule is set', async () => {
  await signIn(ADMIN);
  await nav('Organizations and keys').click();
  await page.getByText('No keys yet.').waitFor();
  await page.getByRole('button', { name: 'Create key' }).click();
  const create = page.getByRole('form', { name: 'Create a key' });
  await create.getByLabel('Key name').fill('console-signer');
  await create.getByLabel('Curve').selectOption('secp256k1');
  await accessible('create key');
  await create.getByRole('button', { name: 'Create key' }).click();
  const keys = page.getByRole('table', { name: 'Keys' });
  await keys.getByRole('row', { name: /console-signer/ }).getByText('ECDSA secp256k1').waitFor();
  let listed = (await api('GET', '/keys')).json.items as Array<{ id: number; name: string; curve: string; imported: boolean; rotation: { enabled: boolean; intervalDays: number | null } }>;
  assert.is(listed.find((k) => k.name === 'console-signer')?.curve, 'secp256k1');

  const ca = opensslCa('console-imported-ca');
  await page.getByRole('button', { name: 'Import CA key' }).click();
  const imp = page.getByRole('form', { name: 'Import a CA certificate and its private key' });
  await imp.getByLabel('Key name').fill('console-imported');
  await imp.getByLabel('CA certificate (PEM)').fill(ca.certificate);
  await imp.getByLabel(/^Private key/).fill(opensslCa('another-ca').privateKey);
  await imp.getByRole('button', { name: 'Import key' }).click();
  // The mismatch is the private key field's (details privateKey): said beside it, the banner points there.
  await imp.getByTestId('field-error-privateKey').getByText(/does not match/).waitFor();
  await imp.getByRole('alert').getByText('see the field marked above', { exact: false }).waitFor();
  await imp.getByLabel(/^Private key/).fill(ca.privateKey);
  await accessible('import key');
  await imp.getByRole('button', { name: 'Import key' }).click();
  await keys.getByRole('row', { name: /console-imported/ }).getByText('CA (imported)').waitFor();
  const pageText = (await page.content()) ?? '';
  assert.not.ok(pageText.includes(ca.privateKey.split('\n')[1]), 'the private key is not on the page after the import');

  await keys.getByRole('button', { name: 'Rotation of console-signer' }).click();
  const rot = page.getByRole('form', { name: 'Rotation of console-signer' });
  await rot.getByLabel('Rotate on a schedule').check();
  await rot.getByLabel('Every (days)').fill('30');
  await accessible('rotation');
  await rot.getByRole('button', { name: 'Save rotation' }).click();
  await keys.getByRole('row', { name: /console-signer/ }).getByText('every 30 days').waitFor();
  listed = (await api('GET', '/keys')).json.items;
  assert.equal(listed.find((k) => k.name === 'console-signer')?.rotation.enabled, true);
  assert.equal(listed.find((k) => k.name === 'console-signer')?.rotation.intervalDays, 30);
});

it('Vault and AWS KMS providers are added on the page and show what their status endpoints answer', async () => {
  const providers = page.getByRole('table', { name: 'Key providers' });
  await providers.getByRole('row', { name: /DATABASE/ }).getByText('Available').waitFor();
  await page.getByRole('button', { name: 'Add key provider' }).click();
  let form = page.getByRole('form', { name: 'Add a key provider' });
  await form.getByLabel('Provider name').fill('console-vault');
  await form.getByLabel('Vault address').fill('http://127.0.0.1:1');
  await form.getByLabel('Vault token').fill(vault.rootToken!);
  await form.getByRole('button', { name: 'Add provider' }).click();
  await form.getByRole('alert').waitFor({ timeout: 30_000 });
  await form.getByLabel('Vault address').fill(vault.address);
  await accessible('add key provider');
  await form.getByRole('button', { name: 'Add provider' }).click();
  const vaultRow = providers.getByRole('row', { name: /console-vault/ });
  await vaultRow.getByText('Ready').waitFor({ timeout: 30_000 });
  await vaultRow.getByText(/reachable yes, initialized yes, sealed no/).waitFor();
  assert.not.ok((await page.content()).includes(vault.rootToken!), 'the Vault token is never shown');

  await page.getByRole('button', { name: 'Add key provider' }).click();
  form = page.getByRole('form', { name: 'Add a key provider' });
  await form.getByLabel('Provider type').selectOption('AWS_KMS');
  await form.getByLabel('Provider name').fill('console-kms');
  await form.getByLabel('AWS region').fill(kms.region);
  await form.getByLabel('Access key id').fill(kms.credentials.accessKeyId);
  await form.getByLabel('Secret access key').fill(kms.credentials.secretAccessKey);
  await form.getByLabel(/^Endpoint URL/).fill(kms.endpoint);
  await form.getByRole('button', { name: 'Add provider' }).click();
  const kmsRow = providers.getByRole('row', { name: /console-kms/ });
  await kmsRow.getByText(/reachable yes, credentials yes/).waitFor({ timeout: 30_000 });
  const status = await api('GET', `/key-providers/${(await api('GET', '/key-providers')).json.find((p: { name: string }) => p.name === 'console-kms').id}/awskms/status`);
  assert.ok(((await kmsRow.textContent()) ?? '').includes(status.json.kms_status), `${await kmsRow.textContent()} shows ${status.text}`);
  await accessible('key providers');
  await screenshot(page, 'keys');

  // An empty provider can be deleted.
  await kmsRow.getByRole('button', { name: 'Delete console-kms' }).click();
  await kmsRow.getByRole('button', { name: 'Yes, delete console-kms' }).click();
  await providers.getByRole('row', { name: /console-kms/ }).waitFor({ state: 'detached' });
  assert.not.ok((await api('GET', '/key-providers')).json.some((p: { name: string }) => p.name === 'console-kms'));
});

it('an SMTP notification provider is added, tested (the mail arrives), edited with a wrong password (the refusal shown) and deleted', async () => {
  await nav('Notifications').click();
  await page.getByText('No notification providers.', { exact: false }).waitFor();
  await accessible('notifications (empty)');
  await page.getByRole('button', { name: 'Add notification provider' }).click();
  const form = page.getByRole('form', { name: 'New notification provider' });
  await form.getByLabel('Name', { exact: true }).fill('console-mail');
  await form.getByLabel('SMTP host', { exact: true }).fill(HOST);
  await form.getByLabel(/^Port/).selectOption('587');
  await form.getByLabel('SMTP username', { exact: true }).fill(SMTP.user);
  await form.getByLabel('SMTP password', { exact: true }).fill(SMTP.password);
  await form.getByLabel('From address', { exact: true }).fill('lnm@lnm.test');
  await form.getByLabel(/^Recipients/).fill('oncall@lnm.test');
  await form.getByLabel(/CA certificate/).fill(cert.cert);
  await form.getByLabel('Backup failed').check();
  await accessible('notification provider form');
  await form.getByRole('button', { name: 'Add provider' }).click();
  const table = page.getByRole('table', { name: 'Notification providers' });
  const row = table.getByRole('row', { name: /console-mail/ });
  await row.getByText(`oncall@lnm.test via ${HOST}:587`).waitFor();
  await row.getByText('Node downtime and recovery, Backup failed').waitFor();

  await row.getByRole('button', { name: 'Send test through console-mail' }).click();
  await page.getByTestId('test-outcome').getByText('Test of console-mail: sent').waitFor({ timeout: 30_000 });
  assert.is(mail.received.length, 1);
  assert.equal(mail.received[0].to, ['oncall@lnm.test']);
  assert.is(mail.received[0].user, SMTP.user);
  await screenshot(page, 'notifications');

  await row.getByRole('button', { name: 'Edit console-mail' }).click();
  const edit = page.getByRole('form', { name: 'Edit console-mail' });
  await edit.getByLabel(/^SMTP password \(empty: keep/).fill('not-the-password');
  await edit.getByRole('button', { name: 'Save changes' }).click();
  await edit.waitFor({ state: 'detached' });
  await row.getByRole('button', { name: 'Send test through console-mail' }).click();
  const outcome = page.getByTestId('test-outcome');
  await outcome.getByText('Test of console-mail: failed').waitFor({ timeout: 30_000 });
  assert.match((await outcome.textContent()) ?? '', /auth|535|credentials/i);
  assert.is(mail.received.length, 1, 'no second mail');
  assert.not.ok((await page.content()).includes(SMTP.password), 'the password is never shown');
  await accessible('notifications');

  await row.getByRole('button', { name: 'Delete console-mail' }).click();
  await row.getByRole('button', { name: 'Yes, delete console-mail' }).click();
  await page.getByText('No notification providers.', { exact: false }).waitFor();
  assert.is((await api('GET', '/notifications/providers')).json.items.length, 0);
});

it("the rest-gateway's deploy form offers the organization's admin key and the consortium peers as x-source pickers; a required field is said so", async () => {
  const org = await api('POST', '/organizations', { name: 'console-org', mspId: 'ConsoleMSP' });
  assert.is(org.status, 201, org.text);
  await nav('Plugins').click();
  await page.getByRole('table', { name: 'Plugins shipped with the service' }).waitFor();
  await accessible('plugins');
  await page.getByRole('button', { name: 'Install rest-gateway' }).click();
  await page.getByRole('table', { name: 'Installed plugins' }).getByRole('link', { name: 'rest-gateway' }).click();
  const form = page.getByRole('form', { name: 'Deploy' });
  const identity = form.getByLabel(/^Identity/);
  await identity.locator('option', { hasText: 'ConsoleMSP' }).waitFor({ state: 'attached' });
  const options = await identity.locator('option').allTextContents();
  assert.ok(options.some((o) => o.includes('admin') && o.includes('ConsoleMSP')), options.join(' | '));
  assert.ok(options.every((o) => !o.includes('console-signer')), 'a key that is no client identity is not offered');
  const peers = form.getByLabel(/^Peers/);
  assert.is(await peers.evaluate((e) => (e as unknown as { multiple: boolean }).multiple), true, 'peers: a list');
  await form.getByRole('button', { name: 'Deploy' }).click();
  await form.getByText('required: pick one', { exact: true }).first().waitFor();
  await accessible('plugin deploy form');
});

withCompose('the shipped anvil-devchain plugin is deployed from its generated form, its logs followed live, stopped, resumed and removed', async () => {
  await nav('Plugins').click();
  await page.getByRole('button', { name: 'Install anvil-devchain' }).click();
  await page.getByRole('table', { name: 'Installed plugins' }).getByRole('link', { name: 'anvil-devchain' }).click();
  const form = page.getByRole('form', { name: 'Deploy' });
  await form.getByLabel('Chain id (optional)').waitFor();
  assert.is(await form.getByLabel('Block time (seconds) (optional)').inputValue(), '1', 'the default filled in');
  await form.getByLabel('JSON-RPC port').fill('80');
  await form.getByRole('button', { name: 'Deploy' }).click();
  await form.getByText(/1024/).first().waitFor();
  const port = await freePort();
  await form.getByLabel('JSON-RPC port').fill(String(port));
  await form.getByLabel('Chain id (optional)').fill('31911');
  deployedHere = true;
  await form.getByRole('button', { name: 'Deploy' }).click();
  await page.getByTestId('plugin-status').getByText('Running').waitFor({ timeout: 120_000 });
  const p = await api('GET', '/plugins/anvil-devchain');
  assert.equal(p.json.parameters, { port, chainId: 31911, blockTime: 1, image: 'lnm-anvil:local' });
  await page.getByLabel('Output of anvil').getByText(`Listening on 127.0.0.1:${port}`, { exact: false }).waitFor({ timeout: 60_000 });
  // Followed live (WebSocket): a line anvil prints as it is called appears without a reload.
  await page.getByRole('status').filter({ hasText: 'Live' }).first().waitFor();
  await fetch(`http://127.0.0.1:${port}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }) });
  await page.getByLabel('Output of anvil').getByText('eth_chainId').first().waitFor({ timeout: 15_000 });
  await accessible('plugin deployed');
  await screenshot(page, 'plugin-deploy');
  await page.getByRole('button', { name: 'Stop', exact: true }).click();
  await page.getByTestId('plugin-status').getByText('Stopped').waitFor({ timeout: 60_000 });
  await page.getByRole('button', { name: 'Resume', exact: true }).click();
  await page.getByTestId('plugin-status').getByText('Running').waitFor({ timeout: 60_000 });
  await page.getByRole('button', { name: 'Remove plugin' }).click();
  await page.getByRole('button', { name: 'Yes, remove' }).click();
  await page.getByRole('heading', { name: 'Plugins', exact: true }).waitFor();
  assert.is((await api('GET', '/plugins/anvil-devchain')).status, 404);
  const left = await new Docker().listContainers({ all: true, filters: { label: ['com.docker.compose.project=lnm-plugin-anvil-devchain'] } });
  assert.is(left.length, 0);
  deployedHere = false;
});

it('a VIEWER sees keys and providers but no control; an OPERATOR creates keys and deploys plugins but adds no provider and installs nothing', async () => {
  await signOut();
  await signIn(VIEWER);
  assert.is(await nav('Notifications').count(), 0);
  await nav('Organizations and keys').click();
  await page.getByRole('table', { name: 'Keys' }).getByText('console-signer').waitFor();
  await page.getByRole('table', { name: 'Key providers' }).getByText('console-vault').waitFor();
  for (const name of ['Create key', 'Import CA key', 'Add key provider', 'Create organization']) assert.is(await page.getByRole('button', { name }).count(), 0, name);
  assert.is(await page.getByRole('button', { name: /^Rotation of|^Delete / }).count(), 0);
  await accessible('keys (viewer)');
  await nav('Plugins').click();
  await page.getByRole('link', { name: 'rest-gateway' }).click();
  await page.getByTestId('plugin-status').waitFor();
  assert.is(await page.getByRole('form', { name: 'Deploy' }).count(), 0);
  assert.is(await page.getByRole('button', { name: /Remove|Stop|Resume|Install/ }).count(), 0);
  await page.goto(s.url + '/notifications');
  await page.getByRole('heading', { name: 'Permission denied (403)', exact: true }).waitFor();
  assert.is(await page.getByRole('button', { name: 'Add notification provider' }).count(), 0);
  await accessible('notifications (viewer)');
  await signOut();

  await signIn(OPERATOR);
  await nav('Organizations and keys').click();
  await page.getByRole('table', { name: 'Key providers' }).getByText('console-vault').waitFor();
  await page.getByRole('button', { name: 'Create key' }).waitFor();
  await page.getByRole('button', { name: 'Rotation of console-signer' }).waitFor();
  assert.is(await page.getByRole('button', { name: 'Add key provider' }).count(), 0);
  // An OPERATOR deletes keys (KEY_DELETE) but not key providers.
  assert.is(await page.getByRole('table', { name: 'Key providers' }).getByRole('button', { name: /^Delete / }).count(), 0);
  await page.getByRole('button', { name: 'Delete key console-signer' }).waitFor();
  await nav('Notifications').click();
  await page.getByRole('heading', { name: 'Notifications', exact: true }).waitFor();
  await page.getByText('No notification providers.', { exact: false }).waitFor();
  assert.is(await page.getByRole('button', { name: 'Add notification provider' }).count(), 0);
  await nav('Plugins').click();
  await page.getByRole('link', { name: 'rest-gateway' }).click();
  await page.getByRole('form', { name: 'Deploy' }).waitFor();
  assert.is(await page.getByRole('button', { name: 'Remove plugin' }).count(), 0);
  await accessible('plugin (operator)');
});

it.run();
