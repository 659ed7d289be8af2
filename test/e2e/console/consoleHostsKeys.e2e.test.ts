// The console's node hosts, backup schedule actions, key signing and revocation, and settings
// pages in Chromium against the real server:
// - node hosts (with a second real Docker Engine, test/helpers/secondDockerHost.ts): the empty
//   state; a port nothing listens on refused with the API's reason and nothing recorded; a host
//   registered with its CA and certificate pasted and its client key read from a file, listed
//   as reachable with the engine's own version, the key nowhere on the page; its labels and
//   capacity changed; the node form's
//   "Where it runs" offering it, a placement by labels no host carries refused (409) with
//   nothing made; the engine stopped and the row turning unreachable without a reload; removed
//   after a confirmation;
// - backup schedules (s3rver and restic for the target): disable, enable and delete (a "Keep"
//   first deletes nothing), the API agreeing each time;
// - keys: a certificate issued for a key by a CA key picked on the page; data signed on the
//   page whose signature verifies with the key's public key (and not over other data); the
//   certificate revoked (again: the 409 said); the CA's and an organization's revocation lists
//   downloaded and read by openssl, the CA's naming the serial;
// - settings: two general settings changed (the API and the change history agreeing), a refused
//   value said beside its field, the audit settings changed, the defaults restored (PUT);
// - a VIEWER and an OPERATOR: no control they cannot use on these pages.
// axe-core checks each page for serious and critical violations.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { createPublicKey, verify } from 'node:crypto';
import type { Page } from 'playwright-core';
import { startServer, ADMIN, adminAuth, call, type TestServer } from '../../helpers/server.ts';
import { startS3Server, type S3Server } from '../../helpers/s3Server.ts';
import { requires } from '../../helpers/requirements.ts';
import { secondHostMissing, startSecondDockerHost, type SecondDockerHost } from '../../helpers/secondDockerHost.ts';
import { chromiumMissing, screenshot } from '../../helpers/browser.ts';
import { startConsoleSession, type ConsoleSession } from '../../helpers/consoleSession.ts';

const t = requires(suite('console: node hosts, schedules, key signing, settings (Chromium)'), 'chromium', chromiumMissing());
const withHost = requires(t, 'docker-host', secondHostMissing());
const VIEWER = { username: 'hosts-viewer', password: 'hosts-viewer-password-1' };
const OPERATOR = { username: 'hosts-operator', password: 'hosts-operator-password-1' };

let s: TestServer;
let s3: S3Server;
let ui: ConsoleSession;
let page: Page;
let host: SecondDockerHost | null = null;

const api = (method: string, p: string, body?: unknown) => call(s.api, method, p, { headers: adminAuth(), ...(body === undefined ? {} : { body }) });

t.before(async () => {
  s3 = await startS3Server(['schedules']);
  s = await startServer({ env: { KEY_ENCRYPTION_KEY: 'console-hosts-keys-key-encryption-key-0123', LNM_HOST_CHECK_SECONDS: '1' } });
  for (const [u, role] of [[VIEWER, 'VIEWER'], [OPERATOR, 'OPERATOR']] as const) {
    const r = await api('POST', '/users', { ...u, role });
    assert.is(r.status, 201, r.text);
  }
  ui = await startConsoleSession({ server: s, signIn: true });
  page = ui.page;
});

t.after(async () => {
  await ui?.close();
  await s?.stop();
  await host?.remove();
  await s3?.stop();
  s3?.remove();
});

withHost('node hosts: refused with the reason, registered with a key from a file (never shown), offered to nodes, unreachable when the engine stops, removed', async () => {
  host = await startSecondDockerHost();
  const version = host.docker(['version', '--format', '{{.Server.Version}}']).trim();
  await ui.nav('Node hosts').click();
  await page.getByText('No node hosts registered.', { exact: false }).waitFor();
  await ui.accessible('hosts, empty');

  await page.getByRole('button', { name: 'Register host' }).click();
  const form = page.getByRole('form', { name: 'Register a node host' });
  await form.getByLabel('Host name').fill('rack-2');
  await form.getByLabel('Docker Engine URL').fill(`tcp://${host.address}:2399`);
  await form.getByLabel('Labels (optional)').fill('zone=b, rack=7');
  await form.getByLabel('Most nodes on this host (optional)').fill('4');
  await form.getByRole('textbox', { name: 'CA certificate of the engine (PEM)' }).fill(host.pki.caCertificate);
  await form.getByRole('textbox', { name: 'Client certificate (PEM)' }).fill(host.pki.clientCertificate);
  await form.getByLabel('Client key (PEM): read from a file').setInputFiles({ name: 'client-key.pem', mimeType: 'text/plain', buffer: Buffer.from(host.pki.clientKey) });
  const keyArea = form.getByRole('textbox', { name: 'Client key (PEM)' });
  for (let i = 0; i < 50 && (await keyArea.inputValue()) !== host.pki.clientKey; i++) await page.waitForTimeout(100);
  assert.is(await keyArea.inputValue(), host.pki.clientKey, 'the file was read into the form');
  await ui.accessible('register host form');
  await form.getByRole('button', { name: 'Register host' }).click();
  // The engine's refusal is the URL field's (details field url): said beside it, the banner points there.
  await form.getByTestId('field-error-url').getByText(/connection refused/).waitFor({ timeout: 30_000 });
  await form.getByRole('alert').getByText('see the field marked above', { exact: false }).waitFor();
  assert.is((await api('GET', '/hosts')).json.total, 0, 'a refused host is not recorded');

  await form.getByLabel('Docker Engine URL').fill(host.url);
  await form.getByRole('button', { name: 'Register host' }).click();
  const row = page.getByRole('table', { name: 'Node hosts' }).locator('tr[data-host="rack-2"]');
  await row.getByText('Reachable', { exact: true }).waitFor({ timeout: 30_000 });
  assert.is(await form.count(), 0, 'the form is gone, and the key with it');
  const text = await row.innerText();
  assert.ok(text.includes(host.url) && text.includes(version) && text.includes('rack=7') && text.includes('zone=b') && text.includes('4 nodes'), text);
  const html = await page.content();
  assert.not.ok(html.includes(host.pki.clientKey.split('\n')[1]) || html.includes('PRIVATE KEY'), 'the client key is nowhere on the page');
  const listed = await api('GET', '/hosts');
  assert.is(listed.json.total, 1);
  assert.equal(listed.json.items[0].labels, { zone: 'b', rack: '7' });
  assert.equal(listed.json.items[0].capacity, { maxNodes: 4 });
  assert.is(listed.json.items[0].tls.hasClientKey, true);
  await ui.accessible('hosts, one reachable');
  await screenshot(page, 'node-hosts');

  // Its labels and capacity changed on the page, the API agreeing.
  await row.getByRole('button', { name: 'Change host rack-2' }).click();
  const edit = page.getByRole('form', { name: 'Change the host rack-2' });
  await edit.getByLabel('Labels').fill('zone=c');
  await edit.getByLabel('Most nodes on this host (empty: no limit)').fill('');
  await ui.accessible('change host form');
  await edit.getByRole('button', { name: 'Save host' }).click();
  await row.getByText('no limit', { exact: true }).waitFor();
  const changed = (await api('GET', '/hosts')).json.items[0];
  assert.equal([changed.labels, changed.capacity, changed.url], [{ zone: 'c' }, { maxNodes: null }, host.url]);

  // The node form offers the host; a placement by labels no host carries is refused, nothing made.
  const org = await api('POST', '/organizations', { name: 'HostsOrg', mspId: 'HostsOrgMSP' });
  assert.is(org.status, 201, org.text);
  await ui.nav('Nodes').click();
  await page.getByRole('button', { name: 'Create node' }).click();
  const nodeForm = page.getByRole('form', { name: 'New node' });
  await nodeForm.getByLabel('Name', { exact: true }).fill('placed-peer');
  await nodeForm.getByLabel('Kind').selectOption('CONSORTIUM_PEER');
  await nodeForm.getByLabel('Organization').selectOption({ label: 'HostsOrg (HostsOrgMSP)' });
  const where = nodeForm.getByLabel('Where it runs');
  assert.ok((await where.innerText()).includes('Host rack-2 (reachable)'), await where.innerText());
  await where.selectOption('labels');
  await nodeForm.getByLabel('Host labels').fill('zone=nowhere');
  await ui.accessible('node form with a host picker');
  await nodeForm.getByRole('button', { name: 'Create node' }).click();
  await nodeForm.getByRole('alert').getByText(/zone/).waitFor({ timeout: 30_000 });
  assert.is((await api('GET', '/nodes')).json.total, 0, 'no node was made');
  await nodeForm.getByRole('button', { name: 'Cancel' }).click();

  // The engine goes away: the row says so without a reload.
  await ui.nav('Node hosts').click();
  await row.getByText('Reachable', { exact: true }).waitFor();
  await host.stop();
  await row.getByText('Unreachable', { exact: true }).waitFor({ timeout: 30_000 });
  assert.is((await api('GET', '/hosts')).json.items[0].status.reachable, false);

  // Removed after a confirmation; Cancel first removes nothing.
  await row.getByRole('button', { name: 'Remove host rack-2' }).click();
  const confirm = page.getByRole('group', { name: 'Remove the host rack-2?' });
  await ui.accessible('remove host confirmation');
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  assert.is((await api('GET', '/hosts')).json.total, 1);
  await row.getByRole('button', { name: 'Remove host rack-2' }).click();
  await confirm.getByRole('button', { name: 'Yes, remove rack-2' }).click();
  await page.getByText('No node hosts registered.', { exact: false }).waitFor();
  assert.is((await api('GET', '/hosts')).json.total, 0);
});

t('backup schedules: disabled, enabled and deleted from the list', async () => {
  const target = await api('POST', '/backups/targets', { name: 'sched-s3', endpoint: s3.endpoint, bucket_name: 'schedules', bucket_path: 'lnm', region: 'us-east-1', access_key_id: s3.accessKeyId, secret_access_key: s3.secretAccessKey, force_path_style: true, repository_password: 'schedules-repository-password', ca_certificate: s3.caPem });
  assert.is(target.status, 201, target.text);
  const made = await api('POST', '/backups/schedules', { name: 'new-year', cron_expression: '0 0 3 1 1 *', target_id: target.json.id });
  assert.is(made.status, 201, made.text);
  const id = made.json.id;
  const enabled = async () => (await api('GET', `/backups/schedules/${id}`)).json.enabled;
  assert.is(await enabled(), true);

  await ui.nav('Backups').click();
  const row = page.getByRole('table', { name: 'Backup schedules' }).getByRole('row', { name: /new-year/ });
  await row.getByRole('button', { name: 'Disable schedule new-year' }).click();
  await row.getByRole('button', { name: 'Enable schedule new-year' }).waitFor();
  assert.ok((await row.innerText()).includes('disabled'), 'no next runs while disabled');
  assert.is(await enabled(), false);
  await row.getByRole('button', { name: 'Enable schedule new-year' }).click();
  await row.getByRole('button', { name: 'Disable schedule new-year' }).waitFor();
  assert.is(await enabled(), true);
  await row.getByRole('button', { name: 'Delete schedule new-year' }).click();
  await ui.accessible('schedule delete confirmation');
  await row.getByRole('button', { name: 'Keep' }).click();
  assert.is((await api('GET', `/backups/schedules/${id}`)).status, 200, 'Keep deleted nothing');
  await row.getByRole('button', { name: 'Delete schedule new-year' }).click();
  await row.getByRole('button', { name: 'Yes, delete schedule new-year' }).click();
  await page.getByText('No schedules.', { exact: false }).waitFor();
  assert.is((await api('GET', `/backups/schedules/${id}`)).status, 404);
});

t('keys: a certificate issued by a picked CA, data signed (the signature verifies), the certificate revoked, the revocation lists downloaded', async () => {
  const ca = await api('POST', '/keys', { name: 'console-ca', algorithm: 'ECDSA', curve: 'P-256', isCA: true, validityDays: 30 });
  assert.is(ca.status, 201, ca.text);
  const leaf = await api('POST', '/keys', { name: 'console-leaf', algorithm: 'ECDSA', curve: 'P-256' });
  assert.is(leaf.status, 201, leaf.text);
  const org = (await api('GET', '/organizations')).json.items.find((o: { mspId: string }) => o.mspId === 'HostsOrgMSP') ?? (await api('POST', '/organizations', { name: 'KeysOrg', mspId: 'KeysOrgMSP' })).json;

  await ui.nav('Organizations and keys').click();
  const keys = page.getByRole('table', { name: 'Keys' });
  assert.is(await keys.getByRole('button', { name: 'Revoke a certificate of console-leaf' }).count(), 0, 'nothing to revoke before a certificate is issued');

  // Issue a certificate, the CA picked on the page.
  await keys.getByRole('button', { name: 'Issue certificate for console-leaf' }).click();
  const issue = page.getByRole('form', { name: 'Issue certificate for console-leaf' });
  await issue.getByLabel('Issuing CA key').selectOption({ label: 'console-ca' });
  await issue.getByLabel('Common name').fill('console-leaf.example');
  await issue.getByLabel('Validity (days)').fill('10');
  await ui.accessible('issue certificate form');
  await issue.getByRole('button', { name: 'Issue certificate' }).click();
  const issued = issue.getByRole('status');
  await issued.waitFor({ timeout: 30_000 });
  const after = (await api('GET', `/keys/${leaf.json.id}`)).json;
  assert.is(after.certificate.issuerKeyId, ca.json.id);
  assert.match(after.certificate.subject, /console-leaf\.example/);
  const serial: string = after.certificate.serialNumber;
  assert.ok((await issued.innerText()).includes(serial), await issued.innerText());
  await issue.getByRole('button', { name: 'Close' }).click();

  // Sign data; the signature verifies with the key's public key, and not over other data.
  await keys.getByRole('button', { name: 'Sign data with console-leaf' }).click();
  const sign = page.getByRole('form', { name: 'Sign data with console-leaf' });
  await sign.getByLabel('Data to sign').fill('hello from the console');
  await sign.getByRole('button', { name: 'Sign', exact: true }).click();
  const sig = Buffer.from((await sign.getByTestId('signature-base64').innerText()).trim(), 'base64');
  const pub = createPublicKey(after.publicKey);
  assert.ok(verify('sha256', Buffer.from('hello from the console'), { key: pub, dsaEncoding: 'der' }, sig), 'the signature verifies');
  assert.not.ok(verify('sha256', Buffer.from('hello from the consolE'), { key: pub, dsaEncoding: 'der' }, sig), 'and only over the data signed');
  assert.ok((await sign.getByTestId('signature').innerText()).includes('sha256'));
  await ui.accessible('signature shown');
  await screenshot(page, 'key-sign-data');
  await sign.getByRole('button', { name: 'Close' }).click();

  // Revoke; a second time is the 409 said.
  await keys.getByRole('button', { name: 'Revoke a certificate of console-leaf' }).click();
  const revoke = page.getByRole('form', { name: 'Revoke a certificate of console-leaf' });
  await revoke.getByLabel('Reason').selectOption('keyCompromise');
  await ui.accessible('revoke form');
  await revoke.getByRole('button', { name: 'Revoke', exact: true }).click();
  await revoke.getByRole('status').getByText(serial).waitFor({ timeout: 30_000 });
  await revoke.getByRole('button', { name: 'Revoke', exact: true }).click();
  await revoke.getByRole('alert').getByText(/Already revoked \(409\)/).waitFor();
  await revoke.getByRole('button', { name: 'Cancel' }).click();

  // The CA's revocation list names the serial; the organization's is a CRL too.
  const crlText = async (link: ReturnType<Page['getByRole']>) => {
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    const file = await download.path();
    return execFileSync('openssl', ['crl', '-noout', '-text', '-in', file!]).toString();
  };
  const caCrl = await crlText(keys.getByRole('link', { name: 'Download the CRL of console-ca' }));
  assert.match(caCrl, new RegExp(`Serial Number: 0*${serial.replace(/^0+/, '')}\\s`, 'i'), caCrl);
  assert.match(caCrl, /Key Compromise/);
  const orgCrl = await crlText(page.getByRole('table', { name: 'Organizations' }).getByRole('link', { name: `Download the CRL of ${org.name}` }));
  assert.match(orgCrl, /Certificate Revocation List/);
  assert.match(orgCrl, /No Revoked Certificates/, 'nothing revoked at the organization\'s CA');
});

t('settings: general settings changed (the history says what), a refused value beside its field, audit settings changed, the defaults restored', async () => {
  await ui.nav('Settings').click();
  const general = page.getByRole('form', { name: 'General' });
  await general.getByLabel('Session idle timeout (minutes)').fill('45');
  await general.getByLabel("Who may read the service's own Prometheus metrics").selectOption('loopback');
  await ui.accessible('settings form');
  await general.getByRole('button', { name: 'Save 2 changes' }).click();
  await general.getByRole('button', { name: 'No changes' }).waitFor();
  let now = (await api('GET', '/settings')).json;
  assert.is(now.general.sessionIdleTimeoutMinutes, 45);
  assert.is(now.general.metricsAccess, 'loopback');
  const history = page.getByRole('table', { name: 'Settings changes, newest first' });
  await history.getByText(/sessionIdleTimeoutMinutes: 30 → 45/).waitFor();
  assert.ok((await history.innerText()).includes('admin'));

  // A soft limit above the hard limit: the API's 400, said beside the field; nothing changes.
  await general.getByLabel('Failed logins before slowing down (attempts)').fill('50');
  await general.getByRole('button', { name: 'Save 1 change' }).click();
  await general.getByTestId('field-error-loginSoftLimit').getByText(/must be below loginHardLimit/).waitFor();
  assert.is((await api('GET', '/settings')).json.general.loginSoftLimit, 5);

  const audit = page.getByRole('form', { name: 'Audit' });
  await audit.getByLabel('Archive audit entries after (days)').fill('30');
  await audit.getByLabel('Include audit-only entries in backups').uncheck();
  await audit.getByRole('button', { name: 'Save audit settings' }).click();
  await history.getByText(/archive_after_days: 90 → 30/).waitFor();
  now = (await api('GET', '/settings')).json;
  assert.equal(now.audit, { retention_days: now.audit.retention_days, archive_after_days: 30, include_in_backups: false });

  await general.getByRole('button', { name: 'Restore the defaults' }).click();
  await general.getByRole('button', { name: 'Yes, restore the defaults' }).click();
  await history.getByText(/sessionIdleTimeoutMinutes: 45 → 30/).waitFor();
  now = (await api('GET', '/settings')).json;
  assert.is(now.general.sessionIdleTimeoutMinutes, 30);
  assert.is(now.general.metricsAccess, 'authenticated');
  assert.is(await general.getByLabel('Session idle timeout (minutes)').inputValue(), '30');
  await ui.accessible('settings after changes');
  await screenshot(page, 'settings');
});

t('a VIEWER and an OPERATOR see no control they cannot use', async () => {
  const target = (await api('GET', '/backups/targets')).json.items[0];
  const sched = await api('POST', '/backups/schedules', { name: 'viewer-sees', cron_expression: '0 0 4 1 1 *', target_id: target.id });
  assert.is(sched.status, 201, sched.text);

  await ui.signIn(VIEWER);
  await ui.nav('Node hosts').click();
  await page.getByRole('heading', { name: 'Node hosts', level: 1 }).waitFor();
  await page.getByRole('table', { name: 'Node hosts' }).or(page.getByText('No node hosts registered.', { exact: false })).first().waitFor();
  assert.is(await page.getByRole('button', { name: 'Register host' }).count(), 0);
  assert.is(await page.getByRole('button', { name: /^Remove host/ }).count(), 0);
  await ui.nav('Backups').click();
  await page.getByRole('table', { name: 'Backup schedules' }).getByRole('row', { name: /viewer-sees/ }).waitFor();
  assert.is(await page.getByRole('button', { name: /schedule viewer-sees/ }).count(), 0, 'no enable, disable or delete');
  await ui.nav('Organizations and keys').click();
  const keys = page.getByRole('table', { name: 'Keys' });
  await keys.getByRole('link', { name: 'Download the CRL of console-ca' }).waitFor();
  assert.is(await keys.getByRole('button', { name: /^(Sign data|Issue certificate|Revoke a certificate)/ }).count(), 0);
  await ui.accessible('keys as a VIEWER');

  await ui.signIn(OPERATOR);
  await ui.nav('Settings').click();
  await page.getByRole('heading', { name: 'General', level: 2 }).waitFor();
  assert.is(await page.getByRole('spinbutton').count(), 0, 'no number inputs');
  assert.is(await page.getByRole('button', { name: /^(Save|Restore|No changes)/ }).count(), 0);
  assert.ok((await page.locator('main').innerText()).includes('sessionIdleTimeoutMinutes'));
  await ui.accessible('settings as an OPERATOR');
  await ui.nav('Organizations and keys').click();
  await page.getByRole('table', { name: 'Keys' }).getByRole('button', { name: 'Sign data with console-leaf' }).waitFor();
  await ui.signIn(ADMIN);
});

t.run();
