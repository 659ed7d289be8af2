// The console's node hosts page registering a Kubernetes cluster (issue 39), in Chromium against
// the real server and the cluster of test/k8s/cluster.sh up (counted skips, saying why, without
// Chromium or the cluster):
// - the kind picked, the API server URL, its CA (pasted), the token, namespace and storage class;
//   a namespace that does not exist refused with the cluster check's reason beside the namespace
//   field, nothing recorded;
// - the namespace corrected: the row reachable with the cluster's version, its namespace and
//   storage class shown, its check's findings (nodes 1/1 Ready, no permission missing), the
//   token nowhere on the page (and never in the API's answer);
// - removed after a confirmation.
// axe-core checks the form and the list for serious and critical violations.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { startServer, adminAuth, call, type TestServer } from '../../helpers/server.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { chromiumMissing } from '../../helpers/browser.ts';
import { startConsoleSession, type ConsoleSession } from '../../helpers/consoleSession.ts';
import { kubernetesSkipReason, testCluster } from '../../helpers/kubernetes.ts';

const t = requiresAll(suite('console: a Kubernetes cluster as a node host (Chromium)'), ['chromium', chromiumMissing()], ['kubernetes', await kubernetesSkipReason()]);
const cluster = testCluster();
const c = () => cluster!.connection;
let s: TestServer;
let ui: ConsoleSession;
let page: Page;
const api = (method: string, p: string) => call(s.api, method, p, { headers: adminAuth() });

t.before(async () => {
  s = await startServer({ env: { KEY_ENCRYPTION_KEY: 'console-k8s-host-key-encryption-key-01234', LNM_HOST_CHECK_SECONDS: '2' } });
  ui = await startConsoleSession({ server: s, signIn: true });
  page = ui.page;
});

t.after(async () => {
  await ui?.close();
  await s?.stop();
});

t('a cluster registered on the page: a missing namespace refused beside its field, then reachable with its version, the token never shown, removed', async () => {
  await ui.nav('Node hosts').click();
  await page.getByText('No node hosts registered.', { exact: false }).waitFor();
  await page.getByRole('button', { name: 'Register host' }).click();
  const form = page.getByRole('form', { name: 'Register a node host' });
  await form.getByLabel('Host name').fill('cluster-a');
  await form.getByLabel('Kind').selectOption('kubernetes');
  assert.is(await form.getByLabel('Docker Engine URL').count(), 0, 'no Docker Engine fields for a cluster');
  await form.getByLabel('API server URL').fill(c().server);
  await form.getByLabel('External address (optional)').fill(c().nodeAddress);
  await form.getByRole('textbox', { name: 'CA certificate of the API server (PEM)' }).fill(c().caCertificate);
  await form.getByLabel('Bearer token').fill(c().token!);
  await form.getByLabel('Namespace').fill('lnm-no-such-namespace');
  await form.getByLabel('Storage class').fill(c().storageClass);
  await ui.accessible('register a kubernetes host form');
  await form.getByRole('button', { name: 'Register host' }).click();
  await form.getByTestId('field-error-kubernetes.namespace').getByText(/lnm-no-such-namespace does not exist/).waitFor({ timeout: 30_000 });
  assert.is((await api('GET', '/hosts')).json.total, 0, 'a refused cluster is not recorded');

  // (The refusal also says beside the token that it may not act in that namespace.)
  await form.getByRole('textbox', { name: /^Namespace/ }).fill(c().namespace);
  await form.getByRole('button', { name: 'Register host' }).click();
  const row = page.getByRole('table', { name: 'Node hosts' }).locator('tr[data-host="cluster-a"]');
  await row.getByText('Reachable', { exact: true }).waitFor({ timeout: 30_000 });
  assert.is(await form.count(), 0, 'the form is gone, and the token with it');
  const text = await row.innerText();
  assert.ok(text.includes(c().server) && /v1\.\d+/.test(text) && text.includes(`namespace ${c().namespace}`) && text.includes(`storage class ${c().storageClass}`), text);
  const findings = row.getByTestId('cluster-findings');
  assert.is(await findings.innerText(), 'Nodes Ready: 1/1\nNo permission missing', 'the cluster check\'s findings on the row');
  assert.not.ok((await page.content()).includes(c().token!), 'the token is nowhere on the page');
  const listed = await api('GET', '/hosts');
  assert.is(listed.json.items[0].kind, 'kubernetes');
  assert.equal(listed.json.items[0].kubernetes, { namespace: c().namespace, storageClass: c().storageClass, hasToken: true });
  assert.not.ok(listed.text.includes(c().token!));
  await ui.accessible('hosts, a kubernetes cluster');

  await row.getByRole('button', { name: 'Remove host cluster-a' }).click();
  await page.getByRole('group', { name: 'Remove the host cluster-a?' }).getByRole('button', { name: 'Yes, remove cluster-a' }).click();
  await page.getByText('No node hosts registered.', { exact: false }).waitFor();
  assert.is((await api('GET', '/hosts')).json.total, 0);
});

t.run();
