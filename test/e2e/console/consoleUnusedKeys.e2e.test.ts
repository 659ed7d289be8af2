// Keys outlive their owners (issue 35 item 5), in Chromium: a node's delete confirmation offers
// "Also delete its keys"; once a node and an organization are deleted without theirs, the keys
// list says which keys are Unused (and what uses the others), filters on it, and "Delete unused
// keys" deletes exactly those after a confirmation naming them. The consortium nodes run an
// orderer and a peer program written by the test that exit at once: their keys are made as for
// real ones, no Fabric needed. axe-core checks the page.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { adminAuth, call } from '../../helpers/server.ts';
import { requires } from '../../helpers/requirements.ts';
import { axeViolations, chromiumMissing, describeViolations } from '../../helpers/browser.ts';
import { startConsoleSession, type ConsoleSession } from '../../helpers/consoleSession.ts';

const t = requires(suite('console: unused keys marked, filtered, deleted together (Chromium)'), 'chromium', chromiumMissing());
let ui: ConsoleSession;
let bin: string;
const api = (method: string, p: string, body?: unknown) => call(ui.server.api, method, p, { headers: adminAuth(), body });
const keysOf = async (q: string) => (await api('GET', `/keys?limit=500${q}`)).json.items as Array<{ id: number; name: string; used_by: Array<{ type: string; id: number }> }>;

t.before(async () => {
  bin = mkdtempSync(path.join(tmpdir(), 'lnm-console-unused-keys-'));
  for (const p of ['orderer', 'peer']) writeFileSync(path.join(bin, p), '#!/bin/sh\necho "not a real fabric program" >&2\nexit 3\n', { mode: 0o755 });
  ui = await startConsoleSession({ signIn: true, server: { env: { LNM_FABRIC_BIN: bin, LNM_NODE_ENGINE: 'process' } } });
});
t.after(async () => {
  await ui?.close();
  if (bin) rmSync(bin, { recursive: true, force: true });
});

t('a node deleted with its keys; the rest marked Unused, filtered, and deleted together; keys in use kept', async () => {
  const { page } = ui;
  const keeper = await api('POST', '/organizations', { name: 'keeper', mspId: 'KeeperMSP' });
  const org = await api('POST', '/organizations', { name: 'leaver', mspId: 'LeaverMSP' });
  assert.is(org.status, 201, org.text);
  const nodes: Record<string, number> = {};
  for (const [name, nodeType] of [['leaver-orderer', 'CONSORTIUM_ORDERER'], ['leaver-peer', 'CONSORTIUM_PEER']] as const) {
    const n = await api('POST', '/nodes', { name, platform: 'CONSORTIUM', nodeType, organizationId: org.json.id, config: {} });
    assert.is(n.status, 201, n.text);
    nodes[name] = n.json.id;
  }
  const orgKeys = await keysOf(`&organizationId=${org.json.id}`);
  const peerKeys = orgKeys.filter((k) => k.used_by.some((u) => u.type === 'node' && u.id === nodes['leaver-peer'])).map((k) => k.id);
  assert.is(peerKeys.length, 2);

  // The node's delete confirmation: "Also delete its keys".
  await page.goto(`${ui.server.url}/nodes/${nodes['leaver-peer']}`);
  await page.getByRole('button', { name: 'Delete node leaver-peer' }).click();
  await page.getByLabel(/Also delete its keys/).check();
  await page.getByRole('button', { name: 'Confirm delete of node leaver-peer' }).click();
  for (const id of peerKeys) {
    for (let i = 0; i < 40 && (await api('GET', `/keys/${id}`)).status !== 404; i++) await new Promise((r) => setTimeout(r, 250));
    assert.is((await api('GET', `/keys/${id}`)).status, 404, `the peer's key ${id} deleted with it`);
  }
  // The orderer and the organization deleted without their keys: five keys nothing uses.
  assert.is((await api('DELETE', `/nodes/${nodes['leaver-orderer']}`)).status, 204);
  assert.is((await api('DELETE', `/organizations/${org.json.id}`)).status, 204);
  const unused = (await keysOf('&unused=true')).map((k) => k.id).sort((a, b) => a - b);
  assert.equal(unused, orgKeys.map((k) => k.id).filter((id) => !peerKeys.includes(id)).sort((a, b) => a - b));

  await page.goto(`${ui.server.url}/organizations`);
  const table = page.getByRole('table', { name: 'Keys' });
  await table.getByRole('row', { name: /KeeperMSP-ca/ }).waitFor();
  assert.match(await table.getByRole('row', { name: /KeeperMSP-ca / }).innerText(), 'In use: organization KeeperMSP (signing CA)');
  assert.match(await table.getByRole('row', { name: /LeaverMSP-ca / }).innerText(), 'Unused');
  await page.getByLabel('Show').selectOption('unused');
  await table.getByRole('row', { name: /KeeperMSP-ca/ }).waitFor({ state: 'detached' });
  // The filtered listing is a new query: the table may be between two renders when the kept row
  // goes (a CI run counted 0 rows there). Wait for a row the filter keeps, then count.
  await table.getByRole('row', { name: /LeaverMSP-ca / }).waitFor();
  assert.is(await table.getByRole('row').count(), 1 + unused.length, 'the header and the five unused keys');
  await page.getByLabel('Show').selectOption('in-use');
  await table.getByRole('row', { name: /LeaverMSP-ca/ }).waitFor({ state: 'detached' });
  await table.getByRole('row', { name: /KeeperMSP-ca/ }).waitFor();
  assert.is(await table.getByRole('row', { name: /KeeperMSP-ca/ }).count(), 1);
  const v = await axeViolations(page);
  assert.is(v.length, 0, describeViolations(v));

  await page.getByRole('button', { name: 'Delete unused keys' }).click();
  // The confirmation lists the keys from its own query (allInnerTexts does not wait): a loaded CI
  // emulation (2026-12-01) read the list before that query had answered and counted 0.
  const items = page.getByRole('list', { name: 'Unused keys to delete' }).getByRole('listitem');
  await items.first().waitFor();
  const listed = await items.allInnerTexts();
  assert.is(listed.length, unused.length, listed.join(' | '));
  await page.getByRole('button', { name: `Yes, delete ${unused.length} unused keys` }).click();
  await page.getByRole('list', { name: 'Unused keys to delete' }).waitFor({ state: 'detached' });
  for (const id of unused) assert.is((await api('GET', `/keys/${id}`)).status, 404, `unused key ${id} deleted`);
  assert.is((await keysOf(`&organizationId=${keeper.json.id}`)).length, 3, 'the keys in use are kept');
  assert.equal((await keysOf('&unused=true')).length, 0);
});

t.run();
