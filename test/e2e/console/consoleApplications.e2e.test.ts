// An organization's applications in the console (issue 37 items 8 and 9), in Chromium: the
// connection profile downloaded as JSON and YAML, a client identity issued with attributes and
// listed, its private key downloaded only after the warning is acknowledged (and audited), and
// the identity revoked. Pushing the CRL into a channel needs a channel: the Fabric-gated
// consortiumApplicationsFabric test covers the route, the control is only shown with a channel.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { X509Certificate, createPrivateKey, createPublicKey } from 'node:crypto';
import { parse as parseYaml } from 'yaml';
import { adminAuth, call } from '../../helpers/server.ts';
import { requires } from '../../helpers/requirements.ts';
import { chromiumMissing } from '../../helpers/browser.ts';
import { startConsoleSession, type ConsoleSession } from '../../helpers/consoleSession.ts';

const t = requires(suite('console: connection profile and client identities (Chromium)'), 'chromium', chromiumMissing());
let ui: ConsoleSession;
const api = (method: string, p: string, body?: unknown) => call(ui.server.api, method, p, { headers: adminAuth(), body });
let org: any;

t.before(async () => {
  ui = await startConsoleSession({ signIn: true });
});
t.after(async () => {
  await ui?.close();
});

t('the organization page downloads the connection profile as JSON and as YAML', async () => {
  org = (await api('POST', '/organizations', { name: 'console-apps', mspId: 'ConsoleAppsMSP' })).json;
  const { page } = ui;
  await page.goto(`${ui.server.url}/organizations/${org.id}`);
  await page.getByRole('heading', { name: 'Connection profile' }).waitFor();
  const save = async (name: RegExp) => {
    const [d] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name }).click()]);
    return { name: d.suggestedFilename(), text: readFileSync((await d.path())!, 'utf8') };
  };
  const json = await save(/connection profile of console-apps as JSON/);
  assert.is(json.name, 'connection-ConsoleAppsMSP.json');
  const profile = JSON.parse(json.text);
  assert.is(profile.client.organization, 'ConsoleAppsMSP');
  assert.equal(profile.certificateAuthorities['ca.console-apps'].tlsCACerts.pem, [org.tlsCertificate]);
  const yaml = await save(/connection profile of console-apps as YAML/);
  assert.is(yaml.name, 'connection-ConsoleAppsMSP.yaml');
  assert.equal(parseYaml(yaml.text), profile);
  await ui.accessible('organization page with its applications');
});

t('a client identity issued with attributes is listed; its key downloads only after the warning is acknowledged; revoked, it shows so', async () => {
  const { page } = ui;
  await page.getByRole('button', { name: 'Issue a client identity' }).click();
  const form = page.getByRole('form', { name: /New client identity/ });
  await form.getByLabel('Name', { exact: true }).fill('web app');
  await form.getByLabel(/Role/).selectOption('admin');
  await form.getByLabel(/Attributes/).fill('department=sales\nlevel=3');
  await form.getByRole('button', { name: 'Issue identity' }).click();
  // A name with a space is refused at its field; the form stays.
  await form.getByTestId('field-error-name').waitFor();
  assert.is(await form.getByLabel('Name', { exact: true }).getAttribute('aria-invalid'), 'true');
  await form.getByLabel('Name', { exact: true }).fill('webapp');
  await form.getByRole('button', { name: 'Issue identity' }).click();
  const table = page.getByRole('table', { name: 'Client identities of console-apps' });
  const row = table.getByRole('row').filter({ hasText: 'webapp' });
  await row.waitFor();
  assert.match(await row.innerText(), 'admin');
  assert.match(await row.innerText(), 'department=sales, level=3');
  const listed = (await api('GET', `/organizations/${org.id}/identities`)).json.items;
  assert.is(listed.length, 1);
  const identity = listed[0];
  assert.match(new X509Certificate(identity.certificate).subject, 'OU=admin');

  await row.getByRole('button', { name: 'Download the private key of webapp' }).click();
  const warning = page.getByRole('form', { name: /Download the private key of webapp/ });
  await warning.getByText(/leaves the key provider/).waitFor();
  const download = warning.getByRole('button', { name: 'Download private key' });
  assert.ok(await download.isDisabled(), 'no download before the warning is acknowledged');
  await warning.getByLabel(/I understand/).check();
  const files = new Map<string, string>();
  page.on('download', async (d) => files.set(d.suggestedFilename(), readFileSync((await d.path())!, 'utf8')));
  await download.click();
  await warning.waitFor({ state: 'detached' });
  for (let i = 0; i < 50 && files.size < 2; i++) await page.waitForTimeout(100);
  const key = files.get('webapp@ConsoleAppsMSP-key.pem');
  assert.ok(key, [...files.keys()].join());
  assert.is(createPublicKey(createPrivateKey(key!)).export({ type: 'spki', format: 'pem' }), new X509Certificate(identity.certificate).publicKey.export({ type: 'spki', format: 'pem' }));
  assert.is(files.get('webapp@ConsoleAppsMSP-cert.pem'), identity.certificate);
  const audit = (await api('GET', '/audit-logs?limit=200')).json.items.filter((e: any) => e.resource_id === String(identity.id) && JSON.stringify(e.details ?? {}).includes('private-key'));
  assert.is(audit.length, 1, 'the download is in the audit log');

  await row.getByRole('button', { name: 'Revoke webapp' }).click();
  await page.getByRole('form', { name: 'Revoke webapp?' }).getByRole('button', { name: 'Revoke webapp' }).click();
  await row.getByText(/revoked/).waitFor();
  assert.is((await api('GET', `/organizations/${org.id}/identities/${identity.id}`)).json.status, 'revoked');
  assert.is(await row.getByRole('button', { name: 'Download the private key of webapp' }).count(), 0);
});

t.run();
