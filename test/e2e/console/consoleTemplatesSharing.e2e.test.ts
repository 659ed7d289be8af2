// The console's templates and node sharing pages in Chromium against two real servers (pro, with
// their sharing listeners): an EVM network exported as a template on the page and opened in the
// import form, a validator bound to a P-256 key refused (WRONG_BINDING_TYPE shown), bound to a
// secp256k1 key found valid and imported (the new network's validator is that key, on anvil);
// an invitation made on instance A's page, previewed on instance B's page, a wrong fingerprint
// refused there and the right one accepted, both sides listing the other as a peer; what a
// VIEWER sees; once A is down, B's sync shows the 502's reason. axe-core checks every page.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { startServer, ADMIN, adminAuth, call, type TestServer } from '../../helpers/server.ts';
import { requires } from '../../helpers/requirements.ts';
import { chromiumMissing, screenshot } from '../../helpers/browser.ts';
import { startConsoleSession, type ConsoleSession } from '../../helpers/consoleSession.ts';
import { killLeftoverNodes } from '../evm/evmLifecycle.ts';

const it = requires(test, 'chromium', chromiumMissing());
const env = { LNM_SHARING_PORT: '0', KEY_ENCRYPTION_KEY: 'console-sharing-key-encryption-key-0123456789' };
const VIEWER = { username: 'tpl-viewer', password: 'tpl-viewer-password-1' };

let a: TestServer;
let b: TestServer;
let ui: ConsoleSession;
let page: Page;
// B is opened as localhost, A as 127.0.0.1: the two session cookies do not meet.
const bUrl = () => b.url.replace('127.0.0.1', 'localhost');

const accessible = (what: string) => ui.accessible(what);

const signIn = (url: string, user: { username: string; password: string }) => ui.signIn(user, { url });

const nav = (name: string) => ui.nav(name);
const api = (s: TestServer, method: string, p: string, body?: unknown) => call(s.api, method, p, { headers: adminAuth(), ...(body === undefined ? {} : { body }) });

it.before(async () => {
  [a, b] = await Promise.all([startServer({ env }), startServer({ env })]);
  const r = await api(a, 'POST', '/users', { ...VIEWER, role: 'VIEWER' });
  assert.is(r.status, 201, r.text);
  ui = await startConsoleSession({ server: a });
  ({ page } = ui);
});

it.after(async () => {
  await ui?.close();
  await Promise.all([a?.stop(), b?.stop()]);
  for (const s of [a, b]) if (s) killLeftoverNodes(s.dataDir);
});

it('an EVM network exported on the page, a wrong binding refused by validate, the right one imported', async () => {
  let r = await api(a, 'POST', '/networks/evm', { name: 'tpl-source', genesis: { chain_id: 4343, consensus: 'QBFT', block_time: 1 } });
  assert.is(r.status, 201, r.text);
  r = await api(a, 'POST', '/keys', { name: 'tpl-validator', algorithm: 'ECDSA', curve: 'secp256k1' });
  assert.is(r.status, 201, r.text);
  const validator = r.json;
  assert.is((await api(a, 'POST', '/keys', { name: 'tpl-p256', algorithm: 'ECDSA', curve: 'P-256' })).status, 201);

  await signIn(a.url, ADMIN);
  await nav('Templates').click();
  await page.getByRole('heading', { name: 'Network templates' }).waitFor();
  const exp = page.getByRole('article', { name: 'Export' });
  await exp.getByLabel('Network to export').locator('option', { hasText: 'tpl-source (EVM)' }).waitFor({ state: 'attached' });
  await exp.getByLabel('Network to export').selectOption({ label: 'tpl-source (EVM)' });
  const download = exp.getByRole('link', { name: 'Download template' });
  assert.match((await download.getAttribute('href')) ?? '', /^\/api\/v1\/networks\/templates\/export\/\d+$/);
  await exp.getByRole('button', { name: 'Open in the import form' }).click();
  const form = page.getByRole('form', { name: 'Validate and import' });
  const textarea = form.getByLabel('Template (JSON)');
  await form.getByText('EVM template tpl-source, version 2.0.0').waitFor();
  const template = JSON.parse(await textarea.inputValue());
  assert.equal(template.variables.map((v: { name: string }) => v.name), ['validator1']);
  assert.not.match(await textarea.inputValue(), /PRIVATE KEY|BEGIN CERTIFICATE/);

  const binding = form.getByLabel(/^validator1 \(key\)/);
  await binding.selectOption({ label: 'tpl-p256 (ECDSA P-256)' });
  await form.getByRole('button', { name: 'Validate' }).click();
  const verdict = page.getByTestId('template-validation');
  await verdict.getByText('Not valid').waitFor();
  await verdict.getByText('WRONG_BINDING_TYPE').waitFor();
  await accessible('template not valid');

  await binding.selectOption({ label: `tpl-validator (ECDSA secp256k1, ${validator.ethereumAddress})` });
  await form.getByRole('button', { name: 'Validate' }).click();
  await verdict.getByText('Valid', { exact: true }).waitFor();
  await form.getByLabel(/^Network name/).fill('tpl-copy');
  await screenshot(page, 'templates');
  await form.getByRole('button', { name: 'Import' }).click();
  await form.getByRole('link', { name: 'tpl-copy' }).waitFor({ timeout: 120_000 });
  const nets = (await api(a, 'GET', '/networks/evm')).json.items as Array<{ id: number; name: string }>;
  const copy = nets.find((n) => n.name === 'tpl-copy');
  assert.ok(copy, JSON.stringify(nets));
  const detail = await api(a, 'GET', `/networks/evm/${copy!.id}`);
  assert.equal(detail.json.validators.map((v: { address: string }) => v.address.toLowerCase()), [validator.ethereumAddress.toLowerCase()], detail.text);
  await accessible('template imported');
});

it('an invitation made on A is previewed on B, a wrong fingerprint refused, the right one accepted; both list the other', async () => {
  await nav('Node sharing').click();
  await page.getByText('No peer instances yet.', { exact: false }).waitFor();
  await accessible('sharing (empty)');
  const invite = page.getByRole('form', { name: 'Invite another instance' });
  await invite.getByRole('button', { name: 'Create invitation' }).click();
  const fingerprint = ((await page.getByTestId('invitation-fingerprint').textContent()) ?? '').trim();
  const jwt = await invite.getByLabel(/^Invitation/).inputValue();
  assert.match(jwt, /^[\w-]+\.[\w-]+\.[\w-]+$/);
  assert.ok(fingerprint.length > 20, fingerprint);
  await accessible('invitation');

  await signIn(bUrl(), ADMIN);
  await nav('Node sharing').click();
  const accept = page.getByRole('form', { name: 'Accept an invitation' });
  await accept.getByLabel('Invitation from the other instance').fill(jwt);
  await accept.getByRole('button', { name: 'Check invitation' }).click();
  const preview = page.getByTestId('invitation-preview');
  await preview.getByText(fingerprint).waitFor();
  await accept.getByLabel('The key fingerprint the inviter told you').fill('not-the-fingerprint');
  await accept.getByText('do not accept', { exact: false }).waitFor();
  assert.ok(await accept.getByRole('button', { name: 'Accept invitation' }).isDisabled());
  await accept.getByLabel('The key fingerprint the inviter told you').fill(fingerprint);
  await accessible('invitation preview');
  await accept.getByRole('button', { name: 'Accept invitation' }).click();
  await page.getByText(/Now sharing with/).waitFor({ timeout: 30_000 });
  const peersB = page.getByRole('table', { name: 'Peer instances' });
  await peersB.getByText('it invited us').waitFor();
  const listedB = (await api(b, 'GET', '/nodesharing/peers')).json.items;
  assert.is(listedB.length, 1);
  const before = listedB[0].last_sync_at;
  await peersB.getByRole('button', { name: `Sync with ${listedB[0].instance_id}` }).click();
  for (let i = 0; i < 100 && (await api(b, 'GET', '/nodesharing/peers')).json.items[0].last_sync_at === before; i++) await new Promise((r) => setTimeout(r, 100));
  assert.is.not((await api(b, 'GET', '/nodesharing/peers')).json.items[0].last_sync_at, before, 'the sync ran');
  assert.is(await page.getByRole('alert').count(), 0);
  await screenshot(page, 'sharing');
  await accessible('sharing peers');

  await page.goto(a.url + '/sharing');
  await page.getByRole('table', { name: 'Peer instances' }).getByText('we invited it').waitFor();
  assert.is((await api(a, 'GET', '/nodesharing/peers')).json.items.length, 1);
});

it('a VIEWER sees the export, the peers and the proposals, but no import, invitation, accept or proposal control', async () => {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await signIn(a.url, VIEWER);
  await nav('Templates').click();
  const exp = page.getByRole('article', { name: 'Export' });
  await exp.getByLabel('Network to export').locator('option', { hasText: 'tpl-source (EVM)' }).waitFor({ state: 'attached' });
  await exp.getByLabel('Network to export').selectOption({ label: 'tpl-source (EVM)' });
  await exp.getByRole('link', { name: 'Download template' }).waitFor();
  assert.is(await exp.getByRole('button', { name: 'Open in the import form' }).count(), 0);
  assert.is(await page.getByRole('form', { name: 'Validate and import' }).count(), 0);
  await nav('Node sharing').click();
  await page.getByRole('table', { name: 'Peer instances' }).waitFor();
  assert.is(await page.getByRole('form').count(), 0);
  assert.is(await page.getByRole('button', { name: /Sync|Revoke/ }).count(), 0);
  // Proposals are listed (SHARING_READ) but there is nothing to propose, sign or submit (NETWORK_UPDATE).
  await page.getByRole('heading', { name: 'Config update proposals' }).waitFor();
  await page.getByText('No proposals sent or received yet.').waitFor();
  assert.is(await page.getByRole('button', { name: /Propose|Sign proposal|Submit proposal/ }).count(), 0);
  await accessible('sharing (viewer)');
});

it('on a community server, templates, node sharing, Vault and KMS providers, webhook notifications and API keys say they need the pro edition', async () => {
  const c = await startServer({ env: { EDITION: 'community' } });
  try {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(c.url.replace('127.0.0.1', 'localhost'), ADMIN);
    await nav('Templates (needs the pro edition)').click();
    await page.getByText('Network templates need the pro edition; this server runs the community edition.').waitFor();
    assert.is(await page.getByRole('form').count(), 0);
    await accessible('templates (community)');
    await nav('Node sharing (needs the pro edition)').click();
    await page.getByText('Node sharing needs the pro edition; this server runs the community edition.').waitFor();
    await nav('Organizations and keys').click();
    await page.getByText('Vault and AWS KMS key providers need the pro edition', { exact: false }).waitFor();
    assert.ok(await page.getByRole('button', { name: 'Add key provider' }).isDisabled());
    await accessible('key providers (community)');
    await nav('Notifications').click();
    await page.getByRole('button', { name: 'Add notification provider' }).click();
    const form = page.getByRole('form', { name: 'New notification provider' });
    await form.getByLabel(/^Type/).selectOption('WEBHOOK');
    await form.getByText('Webhook notification providers need the pro edition; this server runs the community edition.').waitFor();
    assert.ok(await form.getByRole('button', { name: 'Add provider' }).isDisabled());
    await accessible('notifications (community)');
    await nav('Users and API keys').click();
    await page.getByText('API keys need the pro edition; this server runs the community edition.', { exact: false }).waitFor();
    assert.is(await page.getByRole('form', { name: 'New API key' }).count(), 0);
  } finally {
    await c.stop();
  }
});

it('a peer instance that does not answer: the sync\'s 502 is shown with the service\'s reason (its address, the connection refused), not a generic text', async () => {
  const peer = (await api(b, 'GET', '/nodesharing/peers')).json.items[0];
  await a.stop();
  // The community test signed in on another server at localhost: B's session cookie is gone.
  await signIn(bUrl(), ADMIN);
  await nav('Node sharing').click();
  await page.getByRole('table', { name: 'Peer instances' }).getByRole('button', { name: `Sync with ${peer.instance_id}` }).click();
  const refused = page.getByRole('alert');
  await refused.waitFor({ timeout: 60_000 });
  const shown = await refused.innerText();
  assert.match(shown, new RegExp(`^The peer instance at ${peer.url.replace(/[.]/g, '\\.')} could not be reached over TLS with its pinned certificate: .+`), shown);
  assert.not.match(shown, /could not complete the request/);
  const r = await api(b, 'POST', '/nodesharing/sync', { peer_node_id: peer.id });
  assert.is(r.status, 502, r.text);
  assert.is(r.json.code, 'PEER_UNREACHABLE');
  await accessible('sharing, a peer refused');
});

it.run();
