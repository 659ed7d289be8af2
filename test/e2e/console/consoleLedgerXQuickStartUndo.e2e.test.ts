// The ledgerX quick start page after a later step failed, in Chromium: the service runs Fabric-X
// "programs" written by the test that pass the check but exit at once (no Fabric-X needed), so
// the quick start fails at its first join. The page shows the failed step, lists what it made
// (organization, nodes, network) and its "Remove what was made" button removes all of it: the API
// then finds the organizations, nodes, keys and networks counted as before.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { ADMIN, type TestServer } from '../../helpers/server.ts';
import { requires } from '../../helpers/requirements.ts';
import { chromiumMissing } from '../../helpers/browser.ts';
import { startConsoleSession, type ConsoleSession } from '../../helpers/consoleSession.ts';
import { apiOf } from '../consortium/consortiumApi.ts';

const t = requires(suite('console: a failed ledgerX quick start is removed in one click (Chromium)'), 'chromium', chromiumMissing());
let server: TestServer;
const api = apiOf(() => server);
let ui: ConsoleSession;
let page: Page;
let bin: string;
const count = async (p: string) => (await api('GET', p)).json.total as number;
const counts = async () => ({ organizations: await count('/organizations?limit=1'), nodes: await count('/nodes?limit=1'), keys: await count('/keys?limit=1'), networks: await count('/networks/ledgerx?limit=1') });

t.before(async () => {
  bin = mkdtempSync(path.join(tmpdir(), 'lnm-console-undo-fabric-x-'));
  for (const p of ['arma', 'committer']) writeFileSync(path.join(bin, p), `#!/bin/sh\necho "broken ${p} on purpose" >&2\nexit 3\n`, { mode: 0o755 });
  ui = await startConsoleSession({ server: { env: { LNM_FABRIC_X_BIN: bin, LNM_NODE_ENGINE: 'process', LNM_LEDGERX_JOIN_TIMEOUT_SECONDS: '30', KEY_ENCRYPTION_KEY: 'ledgerx-console-undo-key' } } });
  ({ server, page } = ui);
});
t.after(async () => {
  await ui?.close();
  if (bin) rmSync(bin, { recursive: true, force: true });
});

t('the failed step, what it made, and "Remove what was made" removes it all', async () => {
  await ui.signIn(ADMIN);
  const before = await counts();
  await page.goto(server.url + '/networks/ledgerx/quick-start');
  await page.getByRole('heading', { name: 'Quick start: a ledgerX network' }).waitFor();
  await page.getByLabel('Network name', { exact: true }).fill('lxundo');
  await page.getByLabel('Organization 1 name').fill('LxUndo1');
  await page.getByLabel('Organization 1 MSP id').fill('LxUndo1MSP');
  await page.getByRole('button', { name: 'Create the network' }).click();
  await page.waitForURL(/\/networks\/ledgerx\/quick-start\/\d+$/);
  const panel = page.getByRole('region', { name: 'The quick start failed' });
  await panel.waitFor({ timeout: 120_000 });
  assert.match(await panel.innerText(), 'Failed step: join-orderer-group lxundo-orderer1');
  const made = await panel.getByRole('list', { name: 'Made by the quick start' }).locator('li').allInnerTexts();
  assert.is(made.length, 4, `organization, orderer group, committer, network: ${made.join(', ')}`);
  assert.ok(made.some((m) => m.startsWith('Organization #')) && made.some((m) => m.startsWith('Network #')), made.join(', '));
  await ui.accessible('ledgerX quick start failed, what it made listed');
  await panel.getByRole('button', { name: 'Remove what was made' }).click();
  await page.getByRole('heading', { name: 'What the quick start made is removed' }).waitFor({ timeout: 60_000 });
  assert.equal(await counts(), before, 'organizations, nodes, keys and networks as before');
});

t.run();
