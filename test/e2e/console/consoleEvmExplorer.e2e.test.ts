// The EVM network page's explorer in Chromium against the real server and anvil: a contract
// deployed and invoked over the API, then on the page the blocks newest first, the search box
// finding the invoke's transaction (status, gas, the log decoded with the contract's name and event),
// a reverted one with the contract's reason, its block from the transaction, the sender's account from the transaction (balance as the node
// tells it), a contract address found by search, and a term that is nothing a 400 said on the page.
// axe-core checks the page.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { ADMIN, adminAuth, call, type TestServer } from '../../helpers/server.ts';
import { requires } from '../../helpers/requirements.ts';
import { chromiumMissing } from '../../helpers/browser.ts';
import { startConsoleSession, type ConsoleSession } from '../../helpers/consoleSession.ts';
import { killLeftoverNodes } from '../evm/evmLifecycle.ts';
import { COUNTER_ABI, COUNTER_BYTECODE } from '../evm/counterContract.ts';

const it = requires(test, 'chromium', chromiumMissing());

let s: TestServer;
let ui: ConsoleSession;
let page: Page;
const net = { id: 0, rpcUrl: '', address: '', from: '', tx: '', block: 0, reverted: '' };
const api = (method: string, p: string, body?: unknown) => call(s.api, method, p, { headers: adminAuth(), body });

it.before(async () => {
  ui = await startConsoleSession();
  ({ server: s, page } = ui);
  let r = await api('POST', '/networks', { name: 'console-explorer', type: 'evm', genesis: { chain_id: 31998, consensus: 'QBFT', block_time: 1 } });
  assert.is(r.status, 201, r.text);
  net.id = r.json.id;
  r = await api('POST', `/networks/${net.id}/start`);
  assert.is(r.json.nodes[0].status, 'running', r.text);
  net.rpcUrl = (await api('GET', `/nodes/${r.json.nodes[0].id}`)).json.endpoints.rpc_http;
  r = await api('POST', '/sc/evm/deploy', { networkId: net.id, name: 'counter', bytecode: COUNTER_BYTECODE, abi: COUNTER_ABI });
  assert.is(r.status, 200, r.text);
  net.address = r.json.address;
  r = await api('POST', '/sc/evm/invoke', { networkId: net.id, address: net.address, abi: COUNTER_ABI, function: 'set', args: [31337] });
  assert.is(r.status, 200, r.text);
  Object.assign(net, { tx: r.json.transaction_hash, block: r.json.block_number, from: r.json.from });
  // A transaction that is mined and reverts (a gas limit given: sent without estimating).
  r = await api('POST', '/sc/evm/invoke', { networkId: net.id, address: net.address, abi: COUNTER_ABI, function: 'set', args: [0], gasLimit: 100000 });
  assert.is(r.status, 400, r.text);
  net.reverted = /0x[0-9a-f]{64}/.exec(r.json.message)![0];
});

it.after(async () => {
  await ui?.close();
  if (s) killLeftoverNodes(s.dataDir);
});

it('the explorer on the EVM network page: blocks, search, a transaction with its decoded log, its block, an account', async () => {
  await ui.signIn(ADMIN);
  await page.goto(`${s.url}/networks/evm/${net.id}`);
  await page.getByRole('heading', { name: 'Explorer', exact: true }).waitFor();
  await page.getByRole('table', { name: 'Blocks, newest first' }).waitFor();
  const firstBlock = await page.getByRole('table', { name: 'Blocks, newest first' }).locator('tbody tr').first().locator('td').first().textContent();
  assert.ok(Number(firstBlock?.replace('#', '')) >= net.block, `newest first: ${firstBlock}`);

  const search = page.getByRole('form', { name: 'Search the chain' });
  await search.getByLabel('Block number, hash or address').fill(net.tx);
  await search.getByRole('button', { name: 'Search' }).click();
  const tx = page.getByRole('article', { name: 'Transaction' });
  await tx.getByTestId('evm-tx-status').getByText('success').waitFor();
  await tx.getByTestId('evm-tx-logs').getByText('counter: Changed(value: 31337)').waitFor();
  const receipt = await (await fetch(net.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getTransactionReceipt', params: [net.tx] }) })).json() as { result: { gasUsed: string } };
  assert.match((await tx.getByTestId('evm-tx-gas').textContent()) ?? '', new RegExp(`^${BigInt(receipt.result.gasUsed)} / `));

  await tx.getByRole('button', { name: `#${net.block}` }).click();
  const block = page.getByRole('article', { name: `Block ${net.block}` });
  await block.getByRole('button', { name: net.tx }).waitFor();
  await block.getByText('Transactions root').waitFor();

  await tx.getByRole('button', { name: net.from }).click();
  const account = page.getByRole('article', { name: 'Account' });
  const balance = await (await fetch(net.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [net.from, 'latest'] }) })).json() as { result: string };
  await account.getByTestId('evm-account-balance').getByText(BigInt(balance.result).toString(), { exact: true }).waitFor();
  await account.getByText(/deployment of counter/).waitFor();
  await ui.accessible('evm explorer');

  await search.getByLabel('Block number, hash or address').fill(net.address);
  await search.getByRole('button', { name: 'Search' }).click();
  await page.getByRole('article', { name: 'Account' }).getByTestId('evm-account-code').getByText(/bytes \(contract counter\)/).waitFor();

  await search.getByLabel('Block number, hash or address').fill(net.reverted);
  await search.getByRole('button', { name: 'Search' }).click();
  await tx.getByTestId('evm-tx-status').getByText('reverted').waitFor();
  await tx.getByTestId('evm-tx-revert').getByText('zero', { exact: true }).waitFor();

  await search.getByLabel('Block number, hash or address').fill('not-a-thing');
  await search.getByRole('button', { name: 'Search' }).click();
  // Beside the search box its field's short reason; under it the API's message, which says more.
  await search.getByTestId('field-error-q').getByText(/a block number, a 0x hash/).waitFor();
  await page.getByRole('alert').getByText(/q must be a block number/).waitFor();
});

test.run();
