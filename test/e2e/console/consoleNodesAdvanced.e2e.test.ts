// The console's node configuration and EVM network pages in Chromium against the real server:
// an EVM full node created with the Advanced section's ports (read back from the API, and the
// running node itself listening on them: its JSON-RPC answers on the port given and reports the
// peer-to-peer port given, its metrics port serves /metrics), a field the page or the API refuses
// shown beside that field; its port changed from its page while stopped; a consortium peer's
// fields filled from its defaults endpoint and a real Fabric peer running on the ports given
// (its operations /healthz); a bootnode added to an existing besu network from its page; the
// network map listing validator, bootnode and full node with their links; a contract deployed
// over the API called from the network page by pasting its address and ABI (a bad ABI refused
// with the reason); a refresh of the page that fails keeping the page and what was typed in it
// (a notice until the next refresh answers); a VIEWER sees the map and none of these controls. besu is the stand-in of
// test/standins (or a real besu on PATH); the contract runs on a real anvil.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { adminAuth, call, type TestServer } from '../../helpers/server.ts';
import { requires } from '../../helpers/requirements.ts';
import { chromiumMissing } from '../../helpers/browser.ts';
import { startConsoleSession, type ConsoleSession } from '../../helpers/consoleSession.ts';
import { freePortBlock } from '../../helpers/ports.ts';
import { onGlobalTeardown } from '../../helpers/globalTeardown.ts';
import { installBesu, type InstalledBesu } from '../../standins/besuStandinInstall.ts';
import { killLeftoverNodes, until } from '../evm/evmLifecycle.ts';
import { COUNTER_ABI, COUNTER_BYTECODE } from '../evm/counterContract.ts';
import { fabricMissing } from '../../helpers/fabric.ts';
import { consortiumEnv } from '../consortium/consortiumApi.ts';

const it = requires(test, 'chromium', chromiumMissing());
const withFabric = requires(it, 'fabric', fabricMissing);
const VIEWER = { username: 'adv-viewer', password: 'adv-viewer-password-1' };

let s: TestServer;
let ui: ConsoleSession;
let page: Page;
let besu: InstalledBesu;
const besuNet = { id: 0, validatorId: 0, validatorP2p: 0 };
const anvilNet = { id: 0, address: '' };
const api = (method: string, p: string, body?: unknown) => call(s.api, method, p, { headers: adminAuth(), body });

function realBesu(): string | null {
  for (const dir of (process.env.PATH ?? '').split(':').filter(Boolean)) {
    try {
      accessSync(path.join(dir, 'besu'), constants.X_OK);
      return path.join(dir, 'besu');
    } catch {
      /* next */
    }
  }
  return null;
}

async function rpc<T>(url: string, method: string): Promise<T> {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }) });
  const body = (await r.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

it.before(async () => {
  besu = installBesu({ real: realBesu() });
  onGlobalTeardown(() => besu.remove());
  ui = await startConsoleSession({ server: { env: consortiumEnv({ PATH: `${besu.binDir}:${process.env.PATH ?? ''}` }) } });
  ({ server: s, page } = ui);
  let r = await api('POST', '/networks', { name: 'adv-besu', type: 'evm', client: 'besu', validatorCount: 1, genesis: { chain_id: 43299, consensus: 'QBFT', block_time: 2 } });
  assert.is(r.status, 201, r.text);
  besuNet.id = r.json.id;
  r = await api('POST', `/networks/${besuNet.id}/start`);
  assert.is(r.json.nodes[0]?.status, 'running', r.text);
  besuNet.validatorId = r.json.nodes[0].id;
  besuNet.validatorP2p = (await api('GET', `/nodes/${besuNet.validatorId}`)).json.config.p2pPort;
  r = await api('POST', '/networks', { name: 'adv-anvil', type: 'evm', client: 'anvil', genesis: { chain_id: 43298, consensus: 'QBFT', block_time: 1 } });
  assert.is(r.status, 201, r.text);
  anvilNet.id = r.json.id;
  r = await api('POST', `/networks/${anvilNet.id}/start`);
  assert.is(r.json.nodes[0]?.status, 'running', r.text);
  r = await api('POST', '/sc/evm/deploy', { networkId: anvilNet.id, name: 'counter', bytecode: COUNTER_BYTECODE, abi: COUNTER_ABI, args: [] });
  assert.is(r.status, 200, r.text);
  anvilNet.address = r.json.address;
  r = await api('POST', '/users', { ...VIEWER, role: 'VIEWER' });
  assert.is(r.status, 201, r.text);
  await ui.signIn();
});

it.after(async () => {
  await ui?.close();
  if (s) killLeftoverNodes(s.dataDir);
});

it('an EVM full node created with advanced ports runs on them; a refused field is said beside it', async () => {
  const base = await freePortBlock([0, 1, 2, 3]);
  await ui.nav('Nodes').click();
  await page.getByRole('button', { name: 'Create node' }).click();
  const form = page.getByRole('form', { name: 'New node' });
  await form.getByLabel('Name', { exact: true }).fill('adv-full');
  await form.getByLabel('EVM network').selectOption({ label: 'adv-besu (chain 43299)' });
  await form.getByText(/^Advanced/).click();
  // The defaults endpoint's starting ports are the placeholders.
  assert.match((await form.getByLabel('Peer-to-peer port').getAttribute('placeholder')) ?? '', /^30303 or the next free one$/);
  await ui.accessible('node create form, Advanced open');
  // Checked before sending: not a port, and the same port twice.
  await form.getByLabel('Peer-to-peer port').fill('80');
  await form.getByLabel('JSON-RPC HTTP port').fill(String(base + 1));
  await form.getByLabel('Metrics port').fill(String(base + 1));
  await form.getByRole('button', { name: 'Create node' }).click();
  await form.getByTestId('field-error-p2pPort').getByText('a port from 1024 to 65535').waitFor();
  await form.getByTestId('field-error-metricsPort').getByText(/the same port as JSON-RPC HTTP port/).waitFor();
  // Refused by the API: the validator's peer-to-peer port is taken (409 naming config.p2pPort).
  await form.getByLabel('Peer-to-peer port').fill(String(besuNet.validatorP2p));
  await form.getByLabel('Metrics port').fill(String(base + 3));
  await form.getByRole('button', { name: 'Create node' }).click();
  await form.getByTestId('field-error-p2pPort').getByText(/already assigned to node/).waitFor();
  assert.is((await api('GET', '/nodes?platform=EVM')).json.items.filter((n: { name: string }) => n.name === 'adv-full').length, 0, 'nothing made');
  await ui.accessible('node create form with field errors');

  await form.getByLabel('Peer-to-peer port').fill(String(base));
  await form.getByLabel('JSON-RPC WebSocket port').fill(String(base + 2));
  await form.getByRole('button', { name: 'Create node' }).click();
  await page.getByRole('heading', { name: /^adv-full/, level: 1 }).waitFor({ timeout: 60_000 });
  const id = Number(new URL(page.url()).pathname.split('/').pop());
  const node = (await api('GET', `/nodes/${id}`)).json;
  assert.equal([node.role, node.status, node.network_id], ['fullnode', 'running', besuNet.id], JSON.stringify(node));
  assert.equal([node.config.p2pPort, node.config.rpcHttpPort, node.config.rpcWsPort, node.config.metricsPort], [base, base + 1, base + 2, base + 3]);
  // The running node itself: JSON-RPC on the port given, reporting the peer-to-peer port given; metrics served.
  const info = await rpc<{ ports: { listener: number } }>(`http://127.0.0.1:${base + 1}`, 'admin_nodeInfo');
  assert.is(info.ports.listener, base);
  assert.is(await rpc<string>(`http://127.0.0.1:${base + 1}`, 'eth_chainId'), '0x' + (43299).toString(16));
  assert.is((await fetch(`http://127.0.0.1:${base + 3}/metrics`)).status, 200);
  // The node page shows what it runs with.
  await page.locator('[data-config="rpcHttpPort"]').getByText(String(base + 1)).waitFor();
  await ui.accessible('node page with its configuration');
});

it('a bootnode is added to an existing network from its page, and the map shows every node and link', async () => {
  const port = await freePortBlock([0]);
  await page.goto(`${s.url}/networks/evm/${besuNet.id}`);
  await page.getByRole('button', { name: 'Add a validator or bootnode' }).click();
  const form = page.getByRole('form', { name: 'Add a node to this network' });
  await form.getByLabel('Name', { exact: true }).fill('adv-boot');
  await form.getByLabel('Type').selectOption('bootnode');
  await form.getByLabel('JSON-RPC HTTP port').fill(String(port + 1));
  await form.getByRole('button', { name: 'Add node' }).click();
  await form.getByText('a bootnode has a peer-to-peer port only').waitFor();
  await form.getByLabel('JSON-RPC HTTP port').fill('');
  await form.getByLabel('Peer-to-peer port').fill(String(port));
  await ui.accessible('add node form');
  await form.getByRole('button', { name: 'Add node' }).click();
  await form.waitFor({ state: 'detached', timeout: 60_000 });
  const boot = (await api('GET', `/networks/evm/${besuNet.id}/nodes`)).json.items.find((n: { name: string }) => n.name === 'adv-boot');
  assert.ok(boot, 'the bootnode is a node of the network');
  assert.equal([boot.role, boot.config.p2pPort], ['bootnode', port]);
  await until('the bootnode running', async () => (await api('GET', `/nodes/${boot.id}`)).json.status === 'running', 30_000);

  const map = (await api('GET', `/networks/evm/${besuNet.id}/map`)).json;
  assert.equal(map.nodes.map((n: { role: string }) => n.role).sort(), ['bootnode', 'fullnode', 'validator']);
  assert.ok(map.links.length > 0, JSON.stringify(map.links));
  const mapCard = page.getByTestId('evm-map');
  const rows = mapCard.getByRole('table', { name: 'Nodes on the map' }).getByRole('row');
  await until('three nodes on the map', async () => ((await rows.count()) === 4 ? true : null), 20_000);
  for (const [name, role] of [['adv-boot', 'bootnode'], ['adv-full', 'fullnode']]) await rows.filter({ hasText: name }).getByRole('cell', { name: role, exact: true }).waitFor();
  const links = mapCard.getByRole('table', { name: /^Links/ }).getByRole('row');
  assert.is((await links.count()) - 1, map.links.length);
  const names = new Map<number, string>(map.nodes.map((n: { id: number; name: string }) => [n.id, n.name]));
  for (const l of map.links as Array<{ from: number; to: number }>) await links.filter({ hasText: names.get(l.from)! }).filter({ hasText: names.get(l.to)! }).first().waitFor();
  await ui.accessible('EVM network with its map');
});

it('a contract at an address is called with a pasted ABI; a bad ABI is refused with the reason', async () => {
  await page.goto(`${s.url}/networks/evm/${anvilNet.id}`);
  await page.getByRole('button', { name: 'Use a deployed contract' }).click();
  const form = page.getByRole('form', { name: 'Contract address and ABI' });
  await form.getByLabel('Address').fill(anvilNet.address);
  await form.getByLabel('ABI (JSON)').fill('[{"type": "function", "name": "get"');
  await form.getByRole('button', { name: 'Use this contract' }).click();
  await form.getByTestId('abi-error').getByText(/^The ABI is not JSON/).waitFor();
  await form.getByLabel('ABI (JSON)').fill('{"abi": []}');
  await form.getByTestId('abi-error').getByText(/must be a JSON array/).waitFor();
  await ui.accessible('contract at an address, bad ABI');
  // An ABI the page reads but the API cannot (a type that does not exist): the API's 400 is shown.
  await form.getByLabel('ABI (JSON)').fill(JSON.stringify([{ type: 'function', name: 'get', stateMutability: 'view', inputs: [], outputs: [{ type: 'uint999' }] }]));
  await form.getByRole('button', { name: 'Use this contract' }).click();
  const card = page.getByRole('region', { name: 'Use a deployed contract' });
  await card.getByRole('button', { name: 'Query get' }).click();
  await card.getByRole('alert').getByText(/ABI cannot be read/).waitFor();

  await form.getByLabel('ABI (JSON)').fill(JSON.stringify(COUNTER_ABI));
  await form.getByRole('button', { name: 'Use this contract' }).click();
  await card.getByLabel('Function').selectOption('set(uint256)');
  await card.getByLabel(/value|argument 1/).fill('4242');
  await card.getByRole('button', { name: 'Send set transaction' }).click();
  await card.getByTestId('call-block').waitFor({ timeout: 60_000 });
  await card.getByLabel('Function').selectOption('get()');
  await card.getByRole('button', { name: 'Query get' }).click();
  await card.getByTestId('call-result').getByText('4242', { exact: true }).waitFor();
  await ui.accessible('contract at an address, called');
  // The chain agrees, and nothing was recorded for it.
  const r = await api('POST', '/sc/evm/query', { networkId: anvilNet.id, address: anvilNet.address, abi: COUNTER_ABI, function: 'get' });
  assert.equal(r.json.result, ['4242']);
  assert.is((await api('GET', `/networks/evm/${anvilNet.id}/contracts`)).json.total, 1);
});

it('a refresh that fails keeps the page and what was typed in it, under a notice, until the next refresh answers', async () => {
  await page.goto(`${s.url}/networks/evm/${anvilNet.id}`);
  await page.getByRole('button', { name: 'Use a deployed contract' }).click();
  const form = page.getByRole('form', { name: 'Contract address and ABI' });
  await form.getByLabel('Address').fill(anvilNet.address);
  // From now on the network's own GET (polled every 5 s) loses its connection, as through a
  // proxy or a server restart; the page's other requests still answer.
  const networkUrl = new RegExp(`/api/v1/networks/evm/${anvilNet.id}$`);
  let dropped = 0;
  await page.route(networkUrl, (route) => {
    dropped++;
    return route.abort('connectionreset');
  });
  try {
    await page.getByTestId('refresh-failed').waitFor({ timeout: 90_000 });
    assert.ok(dropped >= 1, `${dropped} requests dropped`);
    assert.is(await form.getByLabel('Address').inputValue(), anvilNet.address, 'what was typed is still there');
    await page.getByRole('heading', { name: 'Something went wrong' }).waitFor({ state: 'detached', timeout: 1_000 });
    await ui.accessible('a page whose refresh failed');
  } finally {
    await page.unroute(networkUrl);
  }
  await page.getByTestId('refresh-failed').getByRole('button', { name: 'Try again now' }).click();
  await page.getByTestId('refresh-failed').waitFor({ state: 'detached', timeout: 30_000 });
  assert.is(await form.getByLabel('Address').inputValue(), anvilNet.address);
});

it('a stopped node\'s ports are changed from its page (PUT /nodes/{id}) and it runs on the new one', async () => {
  const full = (await api('GET', '/nodes/platform/EVM')).json.items.find((n: { name: string }) => n.name === 'adv-full');
  const port = await freePortBlock([0]);
  await page.goto(`${s.url}/nodes/${full.id}`);
  await page.getByTestId('node-config').waitFor();
  await page.getByText('Stop the node to change its name or configuration.').waitFor();
  await page.getByRole('button', { name: 'Stop node adv-full', exact: true }).click();
  await page.getByTestId('node-status').getByText('stopped').waitFor({ timeout: 30_000 });
  await page.getByRole('button', { name: 'Change configuration' }).click();
  const form = page.getByRole('form', { name: "Change the node's configuration" });
  await form.getByLabel('JSON-RPC HTTP port').fill(String(besuNet.validatorP2p));
  await form.getByRole('button', { name: 'Save' }).click();
  await form.getByTestId('field-error-rpcHttpPort').getByText(/already assigned/).waitFor();
  await ui.accessible('node configuration form with a refused port');
  await form.getByLabel('JSON-RPC HTTP port').fill(String(port));
  await form.getByRole('button', { name: 'Save' }).click();
  await page.locator('[data-config="rpcHttpPort"]').getByText(String(port), { exact: true }).waitFor();
  assert.is((await api('GET', `/nodes/${full.id}`)).json.config.rpcHttpPort, port);
  await page.getByRole('button', { name: 'Start node adv-full', exact: true }).click();
  await page.getByTestId('node-status').getByText('running').waitFor({ timeout: 60_000 });
  assert.is(await rpc<string>(`http://127.0.0.1:${port}`, 'eth_chainId'), '0x' + (43299).toString(16), 'the node answers on the new port');
});

withFabric('a consortium peer\'s Advanced fields come from the defaults endpoint; the real peer runs on the ports given', async () => {
  const org = await api('POST', '/organizations', { name: 'AdvOrg', mspId: 'AdvOrgMSP' });
  assert.is(org.status, 201, org.text);
  await ui.signIn();
  await ui.nav('Nodes').click();
  await page.getByRole('button', { name: 'Create node' }).click();
  const form = page.getByRole('form', { name: 'New node' });
  await form.getByLabel('Name', { exact: true }).fill('adv-peer');
  await form.getByLabel('Kind').selectOption('CONSORTIUM_PEER');
  await form.getByLabel('Organization').selectOption({ label: 'AdvOrg (AdvOrgMSP)' });
  await form.getByText(/^Advanced/).click();
  const defaults = (await api('GET', `/nodes/defaults/consortium-peer?organizationId=${org.json.id}`)).json;
  // Filled from the defaults (free ports found by the same scan, so the same unless something took one meanwhile).
  await until('the defaults in the fields', async () => (await form.getByLabel('Listen address').inputValue()) === '0.0.0.0' && (await form.getByLabel('gRPC port').inputValue()) !== '', 10_000);
  for (const k of ['port', 'chaincodePort', 'operationsPort'] as const) assert.match(await form.getByLabel(k === 'port' ? 'gRPC port' : k === 'chaincodePort' ? 'Chaincode port' : 'Operations port').inputValue(), /^\d+$/, k);
  assert.is(await form.getByLabel('Host name').getAttribute('placeholder'), `adv-peer.${defaults.domain}`);
  const base = await freePortBlock([0, 1, 2]);
  await form.getByLabel('gRPC port').fill(String(base));
  await form.getByLabel('Chaincode port').fill(String(base + 1));
  await form.getByLabel('Operations port').fill(String(base + 2));
  await form.getByLabel('Extra TLS names').fill('adv-peer.local, bad name');
  await form.getByRole('button', { name: 'Create node' }).click();
  await form.getByTestId('field-error-domainNames').waitFor();
  await form.getByLabel('Extra TLS names').fill('adv-peer.local');
  await ui.accessible('consortium node form, Advanced open');
  await form.getByRole('button', { name: 'Create node' }).click();
  await page.getByRole('heading', { name: /^adv-peer/, level: 1 }).waitFor({ timeout: 120_000 });
  const id = Number(new URL(page.url()).pathname.split('/').pop());
  const peer = (await api('GET', `/nodes/${id}`)).json;
  assert.equal([peer.status, peer.config.port, peer.config.chaincodePort, peer.config.operationsPort, peer.config.domainNames, peer.config.hostname, peer.config.externalEndpoint], ['running', base, base + 1, base + 2, ['adv-peer.local'], `adv-peer.${defaults.domain}`, `127.0.0.1:${base}`], JSON.stringify(peer.config));
  // The real peer: its operations service answers /healthz on the port given.
  const health = await until('the peer /healthz', async () => {
    const r = await fetch(`http://127.0.0.1:${base + 2}/healthz`).catch(() => null);
    return r?.status === 200 ? r : null;
  }, 30_000);
  assert.is(((await health.json()) as { status: string }).status, 'OK');
  await api('DELETE', `/nodes/${id}`);
});

it('the nodes list platform filter asks GET /nodes/platform/{platform}; a VIEWER sees the map and no controls', async () => {
  await ui.nav('Nodes').click();
  await page.getByTestId('node-table').waitFor();
  const asked = page.waitForRequest((q) => /\/api\/v1\/nodes\/platform\/EVM\?/.test(q.url()));
  await page.getByLabel('Platform').selectOption('EVM');
  await asked;
  await page.getByTestId('node-table').locator('[data-node="adv-full"]').waitFor();

  await ui.signIn(VIEWER);
  await page.goto(`${s.url}/networks/evm/${besuNet.id}`);
  await page.getByTestId('evm-map').getByRole('table', { name: 'Nodes on the map' }).waitFor();
  for (const name of ['Add a validator or bootnode', 'Use a deployed contract']) assert.is(await page.getByRole('button', { name }).count(), 0, name);
  const full = (await api('GET', '/nodes/platform/EVM')).json.items.find((n: { name: string }) => n.name === 'adv-full');
  await page.goto(`${s.url}/nodes/${full.id}`);
  await page.getByTestId('node-config').waitFor();
  assert.is(await page.getByRole('button', { name: 'Change configuration' }).count(), 0);
  await ui.accessible('EVM network as a VIEWER');
});

it.run();
