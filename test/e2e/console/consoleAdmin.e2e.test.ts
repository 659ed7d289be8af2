// The console's administration controls in Chromium against the real server (and restic with an
// S3 server for backups): a user created, edited, given a generated password that signs in, and
// deleted; an organization edited, given a key, a certificate renewed with its new serial, and
// deleted; a backup target edited, refused deletion while a schedule uses it, then deleted; a
// backup's details and its deletion; a webhook edited and deleted; an EVM network deleted; the
// role table; a node's name and port; a plugin's descriptor replaced; a VIEWER sees none of
// these controls. Every step is checked
// against what the API then holds, not only against the page.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { ADMIN, adminAuth, basic, call, type TestServer } from '../../helpers/server.ts';
import { startS3Server, type S3Server } from '../../helpers/s3Server.ts';
import { requires } from '../../helpers/requirements.ts';
import { freePortBlock } from '../../helpers/ports.ts';
import { chromiumMissing, fillCodeEditor, screenshot } from '../../helpers/browser.ts';
import { pluginYaml, startConsoleSession, type ConsoleSession } from '../../helpers/consoleSession.ts';

const t = requires(suite('console: users, organizations, keys, backup targets, webhooks and networks administered (Chromium)'), 'chromium', chromiumMissing());
let server: TestServer;
let s3: S3Server;
let ui: ConsoleSession;
let page: Page;
const api = (method: string, path: string, body?: unknown) => call(server.api, method, path, { headers: adminAuth(), body });
/** Signs in as `user` (signing out whoever is in; the console returns to the dashboard), then opens `path`. */
async function openAs(user: { username: string; password: string }, path: string, heading: string) {
  await ui.signIn(user);
  await page.goto(server.url + path);
  await page.getByRole('heading', { name: heading, exact: true, level: 1 }).waitFor();
}

t.before(async () => {
  s3 = await startS3Server(['admin-backups']);
  ui = await startConsoleSession({ server: { embedded: true, env: { KEY_ENCRYPTION_KEY: 'console-admin-key-encryption-key-0123456789', LNM_ALLOW_PRIVATE_TARGETS: 'true' } } });
  ({ server, page } = ui);
});

t.after(async () => {
  await ui?.close();
  await s3?.stop();
  s3?.remove();
});

t('a user created, edited, given a generated password that signs in, and deleted', async () => {
  await openAs(ADMIN, '/users', 'Users and API keys');
  const create = page.getByRole('form', { name: 'New user' });
  await create.getByLabel('Username').fill('dora');
  await create.getByLabel('Password').fill('first-password-of-dora');
  await create.getByLabel('Role').selectOption('OPERATOR');
  await create.getByRole('button', { name: 'Create user' }).click();
  const users = page.getByRole('table', { name: 'Users' });
  await users.getByRole('button', { name: 'Edit user dora' }).click();
  const id = (await api('GET', '/users')).json.items.find((u: { username: string }) => u.username === 'dora').id;

  const edit = page.getByRole('form', { name: 'Edit user dora' });
  await edit.getByLabel('Username').fill('dora2');
  await edit.getByLabel('Email (optional)').fill('dora@example.test');
  await ui.accessible('edit user form');
  await edit.getByRole('button', { name: 'Save user' }).click();
  await users.getByRole('button', { name: 'Edit user dora2' }).waitFor();
  const edited = await api('GET', `/users/${id}`);
  assert.equal([edited.json.username, edited.json.email, edited.json.role], ['dora2', 'dora@example.test', 'OPERATOR']);

  await users.getByRole('button', { name: 'Reset password of dora2' }).click();
  const reset = page.getByRole('form', { name: 'Reset the password of dora2' });
  await reset.getByRole('button', { name: 'Generate one' }).click();
  await ui.accessible('reset password form');
  await reset.getByRole('button', { name: 'Set password' }).click();
  const shown = page.getByTestId('generated-password');
  await shown.waitFor();
  const generated = (await shown.textContent())!.trim();
  assert.ok(generated.length >= 20, generated);
  assert.is((await call(server.api, 'GET', '/auth/me', { headers: { authorization: basic('dora2', 'first-password-of-dora') } })).status, 401, 'the old password no longer works');
  assert.is((await call(server.api, 'GET', '/auth/me', { headers: { authorization: basic('dora2', generated) } })).status, 200, 'the generated password is the one set');
  await page.getByRole('button', { name: 'I have copied it' }).click();
  assert.is(await shown.count(), 0, 'the password is shown once');
  await ui.signIn({ username: 'dora2', password: generated });
  await openAs(ADMIN, '/users', 'Users and API keys');

  await users.getByRole('button', { name: 'Delete user dora2' }).click();
  await ui.accessible('delete user confirmation');
  await page.getByRole('button', { name: 'Yes, delete dora2' }).click();
  await users.getByRole('button', { name: 'Edit user dora2' }).waitFor({ state: 'detached' });
  assert.is((await api('GET', `/users/${id}`)).status, 404);
  assert.is((await call(server.api, 'GET', '/auth/me', { headers: { authorization: basic('dora2', generated) } })).status, 401);
});

t('an organization edited, given a key, its admin certificate renewed, and deleted', async () => {
  const org = await api('POST', '/organizations', { name: 'AdminOrg', mspId: 'AdminOrgMSP' });
  assert.is(org.status, 201, org.text);
  await openAs(ADMIN, '/organizations', 'Organizations and keys');
  await page.getByRole('table', { name: 'Organizations' }).getByRole('link', { name: 'AdminOrg', exact: true }).click();
  await page.getByRole('heading', { name: 'Organization AdminOrg', level: 1 }).waitFor();
  await ui.accessible('organization page');

  await page.getByRole('button', { name: 'Edit', exact: true }).click();
  const edit = page.getByRole('form', { name: 'Edit the organization' });
  await edit.getByLabel('Name').fill('AdminOrg Renamed');
  await edit.getByLabel('Description (optional)').fill('the administered one');
  await ui.accessible('edit organization form');
  await edit.getByRole('button', { name: 'Save organization' }).click();
  await page.getByRole('heading', { name: 'Organization AdminOrg Renamed', level: 1 }).waitFor();
  const changed = await api('GET', `/organizations/${org.json.id}`);
  assert.equal([changed.json.name, changed.json.description, changed.json.mspId], ['AdminOrg Renamed', 'the administered one', 'AdminOrgMSP']);

  await page.getByRole('button', { name: 'Create a key' }).click();
  const keyForm = page.getByRole('form', { name: 'Create a key for AdminOrg Renamed' });
  await keyForm.getByLabel('Key name').fill('adminorg-extra');
  await ui.accessible('create organization key form');
  await keyForm.getByRole('button', { name: 'Create key' }).click();
  const keys = page.getByRole('table', { name: 'Keys of AdminOrg Renamed' });
  await keys.getByRole('cell', { name: 'adminorg-extra', exact: true }).waitFor();
  const orgKeys = (await api('GET', `/organizations/${org.json.id}/keys`)).json.items as Array<{ id: number; name: string; organizationId: number; certificate: { serialNumber: string; notAfter: string } | null }>;
  const extra = orgKeys.find((k) => k.name === 'adminorg-extra');
  assert.ok(extra && extra.organizationId === org.json.id, JSON.stringify(orgKeys.map((k) => k.name)));

  const admin = orgKeys.find((k) => k.id === org.json.adminKeyId)!;
  assert.ok(admin?.certificate, `the admin identity has a certificate: ${JSON.stringify(orgKeys.map((k) => [k.id, k.name, !!k.certificate]))}`);
  await keys.getByRole('button', { name: `Renew the certificate of ${admin.name}` }).click();
  await ui.accessible('renew certificate confirmation');
  await page.getByRole('button', { name: `Yes, renew ${admin.name}` }).click();
  const renewCard = page.getByRole('group', { name: `Renew the certificate of ${admin.name}` });
  await page.getByTestId('renewed-serial').or(renewCard.getByRole('alert')).first().waitFor();
  assert.is(await renewCard.getByRole('alert').count(), 0, (await renewCard.textContent()) ?? '');
  const serial = (await page.getByTestId('renewed-serial').textContent())!;
  const after = (await api('GET', `/keys/${admin.id}`)).json;
  assert.is(after.certificate.serialNumber, serial, 'the page shows the serial the API now holds');
  assert.is.not(serial, admin.certificate!.serialNumber, 'a new serial');
  assert.ok(new Date(after.certificate.notAfter) >= new Date(admin.certificate!.notAfter), 'valid at least as long');
  await screenshot(page, 'organization-key-renewed');
  await page.getByRole('button', { name: 'Close' }).click();
  await keys.getByText(serial, { exact: true }).waitFor();

  // A node of the organization (a real Fabric peer record): the deletion is refused and said so.
  const peer = await api('POST', '/nodes', { name: 'adminorg-peer', platform: 'CONSORTIUM', nodeType: 'CONSORTIUM_PEER', organizationId: org.json.id, config: {} });
  assert.is(peer.status, 201, peer.text);
  await page.getByRole('button', { name: 'Delete', exact: true }).click();
  await ui.accessible('delete organization confirmation');
  await page.getByRole('button', { name: 'Yes, delete AdminOrg Renamed' }).click();
  const refused = page.getByRole('alert').filter({ hasText: 'The organization is still in use and was not deleted (409).' });
  await refused.waitFor();
  assert.match((await refused.textContent()) ?? '', 'adminorg-peer');
  assert.ok(await page.getByRole('button', { name: 'Yes, delete AdminOrg Renamed' }).isDisabled());
  await ui.accessible('organization in use');
  assert.is((await api('GET', `/organizations/${org.json.id}`)).status, 200, 'still there');
  await page.getByRole('button', { name: 'Close' }).click();
  assert.is((await api('DELETE', `/nodes/${peer.json.id}`)).status, 204);
  for (let i = 0; i < 100 && (await api('GET', `/nodes/${peer.json.id}`)).status !== 404; i++) await new Promise((r) => setTimeout(r, 200));

  await page.getByRole('button', { name: 'Delete', exact: true }).click();
  await page.getByRole('button', { name: 'Yes, delete AdminOrg Renamed' }).click();
  await page.getByRole('heading', { name: 'Organizations and keys', level: 1 }).waitFor();
  assert.is((await api('GET', `/organizations/${org.json.id}`)).status, 404);
  assert.is((await api('GET', `/keys/${extra!.id}`)).status, 200, 'its keys stay, as the page said');
});

t('a backup target edited, refused deletion while a schedule uses it, then deleted; a backup shown and deleted', async () => {
  const made = await api('POST', '/backups/targets', {
    name: 'admin-s3', endpoint: s3.endpoint, bucket_name: 'admin-backups', bucket_path: 'one', region: 'us-east-1', access_key_id: s3.accessKeyId, secret_access_key: s3.secretAccessKey, repository_password: 'admin-repository-password', ca_certificate: s3.caPem, force_path_style: true,
  });
  assert.is(made.status, 201, made.text);
  const targetId = made.json.id;
  await openAs(ADMIN, '/backups', 'Backups');
  const targets = page.getByRole('table', { name: 'Backup targets' });
  await targets.getByRole('button', { name: 'Edit target admin-s3' }).click();
  const edit = page.getByRole('form', { name: 'Edit the backup target admin-s3' });
  assert.is(await edit.getByLabel('Bucket', { exact: true }).inputValue(), 'admin-backups', 'the form holds the target as the API has it');
  assert.is(await edit.getByLabel(/^Secret access key/).inputValue(), '', 'never the secret');
  await edit.getByLabel('Name', { exact: true }).fill('admin-s3-renamed');
  await ui.accessible('edit target form');
  await edit.getByRole('button', { name: 'Save target' }).click();
  await targets.getByRole('button', { name: 'Edit target admin-s3-renamed' }).waitFor({ timeout: 60_000 });
  const changed = await api('GET', `/backups/targets/${targetId}`);
  assert.equal([changed.json.name, changed.json.bucket_path, changed.json.has_secret_access_key, changed.json.access_key_id], ['admin-s3-renamed', 'one', true, s3.accessKeyId], 'renamed, the secret kept');

  // A backup, shown in detail and deleted (its snapshot goes with it).
  const b = await api('POST', '/backups', { target_id: targetId });
  assert.is(b.status, 201, b.text);
  for (let i = 0; i < 240 && (await api('GET', `/backups/${b.json.id}`)).json.status === 'IN_PROGRESS'; i++) await new Promise((r) => setTimeout(r, 500));
  assert.is((await api('GET', `/backups/${b.json.id}`)).json.status, 'COMPLETED');
  await page.reload();
  const backups = page.getByRole('table', { name: 'Backups, newest first' });
  await backups.getByRole('button', { name: `Details of backup #${b.json.id}` }).click();
  const details = page.getByRole('group', { name: `Backup #${b.json.id}` });
  const snapshot = (await api('GET', `/backups/${b.json.id}`)).json.snapshot_id;
  await details.getByText(snapshot, { exact: true }).waitFor();
  await ui.accessible('backup details');
  await details.getByRole('button', { name: 'Close' }).click();
  await backups.getByRole('button', { name: `Delete backup #${b.json.id}` }).click();
  await page.getByRole('button', { name: `Yes, delete backup #${b.json.id}` }).click();
  await backups.getByRole('button', { name: `Details of backup #${b.json.id}` }).waitFor({ state: 'detached', timeout: 60_000 });
  assert.is((await api('GET', `/backups/${b.json.id}`)).status, 404);

  // A schedule uses the target: the deletion is refused and said so; without it, deleted.
  const schedule = await api('POST', '/backups/schedules', { name: 'keeps-target', cron_expression: '0 0 3 * * *', target_id: targetId });
  assert.is(schedule.status, 201, schedule.text);
  await targets.getByRole('button', { name: 'Delete target admin-s3-renamed' }).click();
  await page.getByRole('button', { name: 'Yes, delete admin-s3-renamed' }).click();
  await page.getByText('Schedules still use this target; it was not deleted (409).').waitFor();
  await ui.accessible('target deletion refused');
  await screenshot(page, 'backup-target-in-use');
  assert.is((await api('GET', `/backups/targets/${targetId}`)).status, 200, 'still there');
  await page.getByRole('button', { name: 'Close' }).click();
  assert.is((await api('DELETE', `/backups/schedules/${schedule.json.id}`)).status, 204);
  await targets.getByRole('button', { name: 'Delete target admin-s3-renamed' }).click();
  await page.getByRole('button', { name: 'Yes, delete admin-s3-renamed' }).click();
  await targets.getByRole('button', { name: 'Edit target admin-s3-renamed' }).waitFor({ state: 'detached' });
  assert.is((await api('GET', `/backups/targets/${targetId}`)).status, 404);
});

t('a webhook edited and deleted, an EVM network deleted, and the role table the API answers', async () => {
  const hook = await api('POST', '/webhooks', { name: 'admin-hook', url: 'http://127.0.0.1:9/hook', events: ['node.created'], secret: 'admin-hook-secret-0123456789' });
  assert.is(hook.status, 201, hook.text);
  await openAs(ADMIN, `/webhooks/${hook.json.id}`, 'admin-hook');
  await page.getByRole('button', { name: 'Edit', exact: true }).click();
  const edit = page.getByRole('form', { name: 'Edit the webhook admin-hook' });
  await edit.getByLabel('Name').fill('admin-hook-2');
  await edit.getByLabel('Retries after a failed delivery').fill('1');
  await edit.getByLabel('node.deleted').check();
  await ui.accessible('edit webhook form');
  await edit.getByRole('button', { name: 'Save webhook' }).click();
  await page.getByRole('heading', { name: 'admin-hook-2', level: 1 }).waitFor();
  const changed = (await api('GET', `/webhooks/${hook.json.id}`)).json;
  assert.equal([changed.name, changed.maxRetries, [...changed.events].sort(), changed.hasSecret], ['admin-hook-2', 1, ['node.created', 'node.deleted'], true], 'changed, the secret kept');
  await page.getByRole('button', { name: 'Delete', exact: true }).click();
  await ui.accessible('delete webhook confirmation');
  await page.getByRole('button', { name: 'Yes, delete admin-hook-2' }).click();
  await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
  assert.is((await api('GET', `/webhooks/${hook.json.id}`)).status, 404);

  const net = await api('POST', '/networks/evm', { name: 'admin-evm', genesis: { chain_id: 43399, consensus: 'QBFT' } });
  assert.is(net.status, 201, net.text);
  await page.goto(`${server.url}/networks/evm/${net.json.id}`);
  await page.getByTestId('runs-as').waitFor();
  await page.getByRole('button', { name: 'Delete network' }).click();
  await ui.accessible('delete EVM network confirmation');
  await page.getByRole('button', { name: 'Yes, delete admin-evm' }).click();
  await page.waitForURL(/\/networks$/);
  assert.is((await api('GET', `/networks/evm/${net.json.id}`)).status, 404);

  await page.goto(`${server.url}/users`);
  const roles = page.getByRole('table', { name: 'What each role may do' });
  const table = (await api('GET', '/permissions')).json as { permissions: Array<{ name: string; roles: string[] }> };
  const resetRow = roles.getByRole('row', { name: /USER_PASSWORD_RESET/ });
  await resetRow.waitFor();
  const expected = table.permissions.find((p) => p.name === 'USER_PASSWORD_RESET')!.roles;
  assert.equal(await resetRow.getByRole('cell', { name: 'yes', exact: true }).count(), expected.length, 'the page says what the API says');
  assert.is(await roles.getByRole('row').count(), table.permissions.length + 1);
});

t("a stopped EVM node's name and JSON-RPC port changed on its page, which a running node does not offer", async () => {
  const net = await api('POST', '/networks', { name: 'admin-anvil', type: 'evm', genesis: { chain_id: 43398, consensus: 'QBFT', block_time: 1 } });
  assert.is(net.status, 201, net.text);
  const started = await api('POST', `/networks/${net.json.id}/start`);
  assert.is(started.json.nodes[0].status, 'running', started.text);
  const nodeId = started.json.nodes[0].id;
  await page.goto(`${server.url}/nodes/${nodeId}`);
  const change = page.getByRole('button', { name: 'Change name or ports' });
  await page.getByTestId('node-status').getByText('running').waitFor();
  assert.ok(await change.isDisabled(), 'a running node cannot change');
  assert.is((await api('POST', `/nodes/${nodeId}/stop`)).status, 200);
  await page.getByTestId('node-status').getByText('stopped').waitFor();
  await change.click();
  const form = page.getByRole('form', { name: /^Name and ports of / });
  const port = await freePortBlock([0]);
  await form.getByLabel('Node name').fill('admin-anvil-renamed');
  await form.getByLabel('JSON-RPC HTTP port').fill(String(port));
  await ui.accessible('node name and ports form');
  await form.getByRole('button', { name: 'Save node' }).click();
  await page.getByRole('heading', { name: /admin-anvil-renamed/, level: 1 }).waitFor();
  const node = (await api('GET', `/nodes/${nodeId}`)).json;
  assert.equal([node.name, node.config.rpcHttpPort], ['admin-anvil-renamed', port]);
  await api('DELETE', `/networks/evm/${net.json.id}`);
});

t("an installed plugin's descriptor opened as YAML and replaced on its page", async () => {
  const yaml = (description: string) => pluginYaml('admin-plugin', description);
  const installed = await api('POST', '/plugins', { descriptor: yaml('As installed') });
  assert.is(installed.status, 201, installed.text);
  await page.goto(`${server.url}/plugins/admin-plugin`);
  await page.getByRole('button', { name: 'Edit descriptor' }).click();
  const editor = page.getByLabel('Descriptor (YAML)');
  await editor.getByText('description: As installed').waitFor();
  await fillCodeEditor(editor, yaml('Replaced on its page'));
  await ui.accessible('plugin descriptor editor');
  await page.getByRole('button', { name: 'Save descriptor' }).click();
  await page.getByRole('button', { name: 'Edit descriptor' }).waitFor();
  const after = (await api('GET', '/plugins/admin-plugin')).json;
  assert.is(after.description, 'Replaced on its page');
  assert.is(after.descriptor.metadata.description, 'Replaced on its page');
});

t('a VIEWER sees none of these controls', async () => {
  const viewer = { username: 'vera', password: 'viewer-password-vera' };
  assert.is((await api('POST', '/users', { ...viewer, role: 'VIEWER' })).status, 201);
  const org = await api('POST', '/organizations', { name: 'ViewedOrg', mspId: 'ViewedOrgMSP' });
  assert.is((await api('POST', '/backups/targets', { name: 'viewed-s3', endpoint: s3.endpoint, bucket_name: 'admin-backups', bucket_path: 'viewed', region: 'us-east-1', access_key_id: s3.accessKeyId, secret_access_key: s3.secretAccessKey, ca_certificate: s3.caPem, force_path_style: true })).status, 201);
  await openAs(viewer, `/organizations/${org.json.id}`, 'Organization ViewedOrg');
  for (const name of ['Edit', 'Delete', 'Create a key', 'Renew']) assert.is(await page.getByRole('button', { name, exact: true }).count(), 0, `no ${name} on the organization page`);
  await ui.accessible('organization page as a VIEWER');
  await page.goto(server.url + '/backups');
  await page.getByRole('table', { name: 'Backup targets' }).getByRole('cell', { name: 'viewed-s3', exact: true }).waitFor();
  for (const name of ['Edit target viewed-s3', 'Delete target viewed-s3']) assert.is(await page.getByRole('button', { name }).count(), 0, `no ${name}`);
  await page.goto(server.url + '/users');
  await page.getByRole('heading', { name: 'Users and API keys', level: 1 }).waitFor();
  assert.is(await page.getByRole('button', { name: /^(Edit user|Delete user|Reset password)/ }).count(), 0);
  await ui.signOut();
});

t.run();
