// The console's network actions in Chromium against the real server:
// - EVM validator votes on a four-validator QBFT network of the besu stand-in (test/standins: no
//   real besu runs here; it answers qbft_ JSON-RPC as besu does): none pending, a vote cast from
//   the page (the verdict the API gives; each node's own qbft_getPendingVotes agreeing), listed,
//   withdrawn; an anvil network's page saying once what it is (a one-node development chain, no votes section);
// - a ledgerX network (its genesis block is built in-process: no Fabric-X program runs): the
//   genesis block downloaded from the page, byte for byte the API's; deleted after a
//   confirmation (Cancel first deletes nothing), the API agreeing;
// - a VIEWER sees the votes and the download, and no vote, withdraw or delete control.
// axe-core checks each page for serious and critical violations.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { startServer, ADMIN, adminAuth, call, type TestServer } from '../../helpers/server.ts';
import { requires } from '../../helpers/requirements.ts';
import { onGlobalTeardown } from '../../helpers/globalTeardown.ts';
import { freeGrpcBase } from '../../helpers/ports.ts';
import { installBesu } from '../../standins/besuStandinInstall.ts';
import { chromiumMissing } from '../../helpers/browser.ts';
import { startConsoleSession, type ConsoleSession } from '../../helpers/consoleSession.ts';

const t = requires(suite('console: validator votes, ledgerX genesis and delete (Chromium)'), 'chromium', chromiumMissing());
const VIEWER = { username: 'actions-viewer', password: 'actions-viewer-password-1' };
const CANDIDATE = '0x' + 'ab'.repeat(20);

let s: TestServer;
let ui: ConsoleSession;
let page: Page;
let qbftId = 0;
let ledgerxId = 0;

const api = (method: string, p: string, body?: unknown) => call(s.api, method, p, { headers: adminAuth(), ...(body === undefined ? {} : { body }) });

async function rpc<T>(url: string, method: string): Promise<T> {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }) });
  const body = (await r.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

t.before(async () => {
  const besu = installBesu({ real: null });
  onGlobalTeardown(() => besu.remove());
  s = await startServer({ env: { PATH: `${besu.binDir}:${process.env.PATH ?? ''}`, KEY_ENCRYPTION_KEY: 'console-network-actions-key-encryption-key' } });
  const v = await api('POST', '/users', { ...VIEWER, role: 'VIEWER' });
  assert.is(v.status, 201, v.text);
  ui = await startConsoleSession({ server: s, signIn: true });
  page = ui.page;
});

t.after(async () => {
  await ui?.close();
  if (qbftId) await api('POST', `/networks/${qbftId}/stop`).catch(() => undefined);
  await s?.stop();
  s?.reapNodes();
});

t('validator votes: cast from the page (every validator agreeing), listed, withdrawn; anvil says it has none', async () => {
  let r = await api('POST', '/networks', { name: 'votes-qbft', type: 'evm', client: 'besu', validatorCount: 4, genesis: { chain_id: 43321, consensus: 'QBFT', block_time: 2 } });
  assert.is(r.status, 201, r.text);
  qbftId = r.json.id;
  r = await api('POST', `/networks/${qbftId}/start`);
  assert.is(r.status, 200, r.text);
  const validators: Array<{ endpoints: { rpc_http: string } }> = r.json.nodes;
  assert.is(validators.length, 4);

  await page.goto(`${s.url}/networks/evm/${qbftId}`);
  const votes = page.getByRole('region', { name: 'Validator votes' });
  await votes.getByText('No pending votes on any running validator.').waitFor({ timeout: 30_000 });
  const form = page.getByRole('form', { name: 'Vote on a validator' });
  await form.getByLabel('Validator address').fill(CANDIDATE);
  await form.getByLabel('Vote').selectOption('add');
  await ui.accessible('validator votes, none pending');
  await form.getByRole('button', { name: 'Cast vote' }).click();
  const verdict = form.getByRole('status');
  await verdict.waitFor({ timeout: 30_000 });
  const said = await verdict.innerText();
  assert.match(said, /^4 votes cast, 3 needed, to add 0x[0-9a-fA-F]{40} \(4 validators now, 5 after\): it passes\./, said);
  for (const v of validators) {
    const pending = await rpc<Record<string, boolean>>(v.endpoints.rpc_http, 'qbft_getPendingVotes');
    assert.equal(Object.entries(pending).map(([a, add]) => [a.toLowerCase(), add]), [[CANDIDATE, true]]);
  }
  const row = votes.getByRole('table', { name: 'Pending validator votes' }).getByRole('row', { name: new RegExp(CANDIDATE, 'i') });
  await row.getByText('4 to add, 0 to remove (of 4 running validators)').waitFor({ timeout: 30_000 });
  await ui.accessible('validator votes, one pending');

  // A VIEWER sees the pending vote, and no control.
  await ui.signIn(VIEWER);
  await page.goto(`${s.url}/networks/evm/${qbftId}`);
  await row.waitFor({ timeout: 30_000 });
  assert.is(await page.getByRole('button', { name: /^(Withdraw|Cast vote)/ }).count(), 0);
  assert.is(await page.getByRole('form', { name: 'Vote on a validator' }).count(), 0);
  await ui.signIn(ADMIN);

  await page.goto(`${s.url}/networks/evm/${qbftId}`);
  await row.getByRole('button', { name: new RegExp(`Withdraw the votes on ${CANDIDATE}`, 'i') }).click();
  await votes.getByText('No pending votes on any running validator.').waitFor({ timeout: 30_000 });
  for (const v of validators) assert.equal(await rpc(v.endpoints.rpc_http, 'qbft_getPendingVotes'), {});

  const anvil = await api('POST', '/networks/evm', { name: 'votes-anvil', client: 'anvil', genesis: { chain_id: 43322, consensus: 'QBFT' } });
  assert.is(anvil.status, 201, anvil.text);
  await page.goto(`${s.url}/networks/evm/${anvil.json.id}`);
  // Said once, as what it is: a one-node development chain, with no validator-set or voting sections.
  const what = page.getByTestId('runs-as');
  await what.waitFor({ timeout: 30_000 });
  const whatSaid = await what.innerText();
  assert.ok(/one-node development chain \(anvil\).*no validator set, no voting/.test(whatSaid), whatSaid);
  assert.is(await page.getByTestId('consensus').innerText(), 'none: a one-node development chain');
  assert.is(await page.getByRole('region', { name: 'Validator votes' }).count(), 0, 'no votes section where there is no voting');
  assert.is(await page.getByRole('form', { name: 'Vote on a validator' }).count(), 0, 'no vote form where there is no voting');
  await ui.accessible('anvil network without voting');
});

t('ledgerX network: the genesis block downloaded byte for byte; the network deleted after a confirmation', async () => {
  const org = await api('POST', '/organizations', { name: 'ActionsXOrg', mspId: 'ActionsXOrgMSP' });
  assert.is(org.status, 201, org.text);
  const group = await api('POST', '/nodes', { name: 'actions-xg', platform: 'LEDGERX', nodeType: 'LEDGERX_ORDERER_GROUP', organizationId: org.json.id, config: { grpcPort: await freeGrpcBase(4) } });
  assert.is(group.status, 201, group.text);
  const net = await api('POST', '/networks/ledgerx', { name: 'actions-xnet', channelName: 'actionsx', ordererGroupIds: [group.json.id] });
  assert.is(net.status, 201, net.text);
  ledgerxId = net.json.id;
  const expected = Buffer.from((await api('GET', `/networks/ledgerx/${ledgerxId}/genesis`)).json.block, 'base64');
  assert.ok(expected.length > 100);

  await page.goto(`${s.url}/networks/ledgerx/${ledgerxId}`);
  await page.getByRole('heading', { name: 'actions-xnet', level: 1 }).waitFor();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download genesis block' }).click()]);
  assert.is(download.suggestedFilename(), 'actionsx-genesis.block');
  assert.ok(readFileSync((await download.path())!).equals(expected), 'the file is the genesis block');
  await ui.accessible('ledgerX network with its actions');

  // A VIEWER can download it, not delete the network.
  await ui.signIn(VIEWER);
  await page.goto(`${s.url}/networks/ledgerx/${ledgerxId}`);
  await page.getByRole('button', { name: 'Download genesis block' }).waitFor();
  assert.is(await page.getByRole('button', { name: 'Delete network' }).count(), 0);
  await ui.signIn(ADMIN);

  await page.goto(`${s.url}/networks/ledgerx/${ledgerxId}`);
  await page.getByRole('button', { name: 'Delete network' }).click();
  const confirm = page.getByRole('group', { name: 'Delete the network actions-xnet?' });
  await ui.accessible('ledgerX delete confirmation');
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  assert.is((await api('GET', `/networks/ledgerx/${ledgerxId}`)).status, 200, 'Cancel deleted nothing');
  await page.getByRole('button', { name: 'Delete network' }).click();
  await confirm.getByRole('button', { name: 'Yes, delete actions-xnet' }).click();
  await page.waitForURL(/\/networks$/);
  assert.is((await api('GET', `/networks/ledgerx/${ledgerxId}`)).status, 404);
});

t.run();
