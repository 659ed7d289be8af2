// The console's validator vote page on a real geth 1.13 Clique network (issue 38 item 2), in
// Chromium against the real server: three sealers made and started over the API; from the
// network page an ADMIN proposes a fourth signer, sees the answer with Clique's majority rule and
// the proposal pending on every running sealer; once the sealers' votes are sealed the fourth
// signer is listed under "Validators on the chain" (read from a node: clique_getSigners). New
// coverage: the page was not changed. Skipped, saying why, without Chromium or geth
// (LNM_GETH_BIN, else PATH).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Wallet } from 'ethers';
import type { Page } from 'playwright-core';
import { adminAuth, call, type TestServer } from '../../helpers/server.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { chromiumMissing } from '../../helpers/browser.ts';
import { gethMissing, gethServiceEnv } from '../../helpers/programs.ts';
import { startConsoleSession, type ConsoleSession } from '../../helpers/consoleSession.ts';
import { killLeftoverNodes, until } from '../evm/evmLifecycle.ts';

const it = requiresAll(test, ['chromium', chromiumMissing()], ['geth', gethMissing]);
let s: TestServer;
let ui: ConsoleSession;
let page: Page;
const net = { id: 0, signers: [] as string[] };
const api = (method: string, p: string, body?: unknown) => call(s.api, method, p, { headers: adminAuth(), body });

it.before(async () => {
  ui = await startConsoleSession({ server: { env: gethServiceEnv() } });
  ({ server: s, page } = ui);
  let r = await api('POST', '/networks', { name: 'console-clique', type: 'evm', validatorCount: 3, genesis: { chain_id: 43810, consensus: 'CLIQUE', block_time: 1 } });
  assert.is(r.status, 201, r.text);
  assert.is(r.json.client, 'geth', r.text);
  net.id = r.json.id;
  r = await api('POST', `/networks/${net.id}/start`);
  assert.is(r.status, 200, r.text);
  for (const n of r.json.nodes as Array<{ id: number }>) net.signers.push(String((await api('GET', `/nodes/${n.id}`)).json.validator_address).toLowerCase());
  assert.is(net.signers.length, 3);
});

it.after(async () => {
  await ui?.close();
  if (s) killLeftoverNodes(s.dataDir);
});

it('a fourth Clique signer proposed from the console: the rule, the pending proposal, then the signer listed', async () => {
  const fourth = Wallet.createRandom().address;
  await ui.signIn();
  await page.goto(`${s.url}/networks/evm/${net.id}`);
  const chainList = page.getByRole('table', { name: 'Validators on the chain' });
  await chainList.waitFor({ timeout: 60_000 });
  await until('the three sealers listed from the chain', async () => (await chainList.locator('tbody tr').count()) === 3, 60_000);
  assert.match((await page.getByTestId('validators-source').textContent()) ?? '', /^Read from node #\d+ just now\./);

  const form = page.getByRole('form', { name: 'Vote on a validator' });
  await form.getByLabel('Validator address').fill(fourth);
  await form.getByLabel('Vote').selectOption('add');
  await form.getByRole('button', { name: 'Cast vote' }).click();
  const verdict = form.getByRole('status');
  await verdict.waitFor({ timeout: 30_000 });
  const said = (await verdict.textContent()) ?? '';
  assert.match(said, /^3 votes cast, 2 needed, to add /, said);
  assert.ok(said.includes(fourth), said);
  assert.match(said, /\(3 validators now, 4 after\): it passes\./, said);
  assert.match(said, /more than half of the 3 signers \(2\)/, 'the Clique majority rule is said');

  // The proposal as each running sealer holds it (clique_proposals: geth keeps it until discarded).
  const pending = page.getByRole('table', { name: 'Pending validator votes' });
  const row = pending.getByRole('row').filter({ hasText: fourth });
  await row.waitFor({ timeout: 15_000 });
  assert.match((await row.textContent()) ?? '', /3 to add, 0 to remove \(of 3 running validators\)/);

  // Once a majority's votes are sealed the chain lists four signers; the page reads them again (every 10 s).
  await chainList.getByRole('row').filter({ hasText: fourth }).waitFor({ timeout: 90_000 });
  const listed = (await chainList.locator('tbody tr code').allTextContents()).map((a) => a.toLowerCase()).sort();
  assert.equal(listed, [...net.signers, fourth.toLowerCase()].sort());
  await ui.accessible('the vote page of a Clique network');
});

it.run();
