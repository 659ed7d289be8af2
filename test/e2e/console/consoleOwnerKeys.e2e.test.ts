// The delete confirmation of an organization offers to delete its keys with it (issue 35 item 5):
// in Chromium, "Also delete its keys" ticked, the organization and its three keys are gone.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { adminAuth, call } from '../../helpers/server.ts';
import { requires } from '../../helpers/requirements.ts';
import { chromiumMissing } from '../../helpers/browser.ts';
import { startConsoleSession, type ConsoleSession } from '../../helpers/consoleSession.ts';

const t = requires(suite('console: deleting an organization with its keys (Chromium)'), 'chromium', chromiumMissing());
let ui: ConsoleSession;
const api = (method: string, p: string, body?: unknown) => call(ui.server.api, method, p, { headers: adminAuth(), body });

t.before(async () => {
  ui = await startConsoleSession({ signIn: true });
});
t.after(async () => {
  await ui?.close();
});

t('the organization delete confirmation\'s "Also delete its keys" deletes its keys with it', async () => {
  const org = await api('POST', '/organizations', { name: 'console-gone', mspId: 'ConsoleGoneMSP' });
  assert.is(org.status, 201, org.text);
  const keys = ((await api('GET', `/keys?organizationId=${org.json.id}`)).json.items as Array<{ id: number }>).map((k) => k.id);
  assert.is(keys.length, 3);
  const { page } = ui;
  await page.goto(`${ui.server.url}/organizations/${org.json.id}`);
  await page.getByRole('button', { name: 'Delete', exact: true }).click();
  await page.getByLabel(/Also delete its keys/).check();
  await page.getByRole('button', { name: 'Yes, delete console-gone' }).click();
  await page.waitForURL(/\/organizations$/);
  assert.is((await api('GET', `/organizations/${org.json.id}`)).status, 404);
  for (const id of keys) assert.is((await api('GET', `/keys/${id}`)).status, 404, `key ${id} deleted with the organization`);
});

t.run();
