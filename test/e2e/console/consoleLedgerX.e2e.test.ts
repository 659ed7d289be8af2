// The console's ledgerX (Fabric-X) pages in Chromium against the real Fabric-X programs
// (LNM_FABRIC_X_BIN): an orderer group and a committer created from the node form (their roles
// and services listed on the group's page), the network created from its form, both joined with
// the page's join buttons (their state changing without a reload), a namespace created from the
// namespaces tab and listed there (and by the API), the explorer showing the blocks, a block's
// transactions and a transaction's commit status, the map; a VIEWER sees the network without a
// join button or the namespace form; a committer on a database given as a connection string
// from the node form (a refused one said beside the field, the password never on the page).
// axe-core checks every page visited.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import path from 'node:path';
import pg from 'pg';
import type { Page } from 'playwright-core';
import { ADMIN, type TestServer } from '../../helpers/server.ts';
import { fabricXMissing, fabricXProgram, fabricXServiceEnv } from '../../helpers/programs.ts';
import { runLoadgen } from '../ledgerx/ledgerxLoadgen.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { chromiumMissing, screenshot } from '../../helpers/browser.ts';
import { startConsoleSession, type ConsoleSession } from '../../helpers/consoleSession.ts';
import { apiOf, organization, until } from '../consortium/consortiumApi.ts';
import { freeGrpcBase } from '../../helpers/ports.ts';

const t = requiresAll(suite('console: ledgerX network pages (real Fabric-X, Chromium)'), ['chromium', chromiumMissing()], ['fabric-x', fabricXMissing]);
let server: TestServer;
const api = apiOf(() => server);
let ui: ConsoleSession;
let page: Page;
let org: { id: number; mspId: string };
const made: number[] = [];
let networkId = 0;
let loadgenCommitted = 0;
const VIEWER = { username: 'lxviewer', password: 'lx-viewer-password-for-tests' };

const freeBase = (n: number): Promise<number> => freeGrpcBase(n);

const accessible = (what: string) => ui.accessible(what);

const signIn = (user: { username: string; password: string }) => ui.signIn(user);

const nav = (name: string) => ui.nav(name);

t.before(async () => {
  ui = await startConsoleSession({ server: { env: { ...fabricXServiceEnv(), KEY_ENCRYPTION_KEY: 'ledgerx-console-key-encryption-key', LNM_LEDGERX_JOIN_TIMEOUT_SECONDS: '240' } } });
  ({ server, page } = ui);
  org = await organization(api, 'XConsoleOrg', 'XConsoleOrgMSP');
  const v = await api('POST', '/users', { ...VIEWER, role: 'VIEWER' });
  assert.is(v.status, 201, v.text);
});

t.after(async () => {
  if (!server) return;
  for (const id of made) await api('DELETE', `/nodes/${id}`).catch(() => undefined);
  await until('every ledgerX node removed', async () => ((await api('GET', '/nodes/platform/LEDGERX')).json?.total === 0 ? true : null), 60_000).catch(() => undefined);
  await ui.close();
  server.reapNodes();
});

async function createFromNodeForm(name: string, kind: 'LedgerX orderer group' | 'LedgerX committer', base: number): Promise<number> {
  await nav('Nodes').click();
  await page.getByRole('button', { name: 'Create node' }).click();
  const form = page.getByRole('form', { name: 'New node' });
  await form.getByLabel('Name', { exact: true }).fill(name);
  await form.getByLabel('Kind').selectOption({ label: kind });
  await form.getByLabel('Organization').selectOption({ label: `XConsoleOrg (${org.mspId})` });
  await form.getByLabel('External IP').fill('127.0.0.1');
  await form.getByLabel('gRPC base port').fill(String(base));
  await accessible(`node form (${kind})`);
  await form.getByRole('button', { name: 'Create node' }).click();
  // The page moves to the new node, or the form shows the API's refusal (said in the failure).
  await Promise.race([page.waitForURL(/\/nodes\/\d+$/, { timeout: 180_000 }), form.getByRole('alert').waitFor({ timeout: 180_000 })]);
  if (!/\/nodes\/\d+$/.test(page.url())) assert.unreachable(`creating ${name}: ${await form.getByRole('alert').innerText()}`);
  const id = Number(/\/nodes\/(\d+)$/.exec(page.url())?.[1]);
  made.unshift(id);
  return id;
}

t('an orderer group and a committer created from the node form; each group page lists its roles or services', async () => {
  await signIn(ADMIN);
  const groupBase = await freeBase(4);
  const groupId = await createFromNodeForm('xg-console', 'LedgerX orderer group', groupBase);
  await page.getByRole('heading', { name: 'Roles', exact: true }).waitFor();
  const roles = page.getByRole('list', { name: 'xg-console: roles' });
  for (const r of ['Router', 'Batcher', 'Consenter', 'Assembler']) await roles.getByRole('link', { name: r, exact: true }).waitFor();
  await roles.getByRole('link', { name: `Router metrics (http://127.0.0.1:${groupBase + 100}/metrics)` }).waitFor();
  const group = (await api('GET', `/nodes/${groupId}`)).json;
  assert.is(group.nodeType, 'LEDGERX_ORDERER_GROUP');
  assert.is(group.ledgerXOrdererGroup.routerPort, groupBase);
  assert.is(group.ledgerXOrdererGroup.assemblerMonitoringPort, groupBase + 103);
  await accessible('orderer group page');
  // A role's own page: its group, ports and metrics URL.
  await roles.getByRole('link', { name: 'Batcher', exact: true }).click();
  await page.getByRole('heading', { name: 'Batcher of a ledgerX group' }).waitFor();
  await page.getByRole('link', { name: 'xg-console', exact: true }).waitFor();

  const committerBase = await freeBase(5);
  const committerId = await createFromNodeForm('xc-console', 'LedgerX committer', committerBase);
  await page.getByRole('heading', { name: 'Services', exact: true }).waitFor();
  const services = page.getByRole('list', { name: 'xc-console: services' });
  for (const r of ['Sidecar', 'Coordinator', 'Validator-committer', 'Verifier', 'Query service']) await services.getByRole('link', { name: r, exact: true }).waitFor();
  await page.getByText(new RegExp(`lnm_ledgerx_[0-9a-f]{8}_committer_${committerId}$`)).first().waitFor();
  const committer = (await api('GET', `/nodes/${committerId}`)).json;
  assert.is(committer.ledgerXCommitter.sidecarPort, committerBase);
  await accessible('committer page');
});

t('the network created from its form; the orderer group and the committer joined from the page', async () => {
  await nav('Networks').click();
  await page.getByRole('link', { name: 'Create ledgerX network' }).click();
  await page.getByLabel('Name', { exact: true }).fill('xnet-console');
  await page.getByLabel('Channel name').fill('consolex');
  await page.getByLabel(/xg-console/).check();
  await accessible('ledgerX network form');
  await page.getByRole('button', { name: 'Create network' }).click();
  await page.getByRole('heading', { name: 'xnet-console', exact: true }).waitFor({ timeout: 60_000 });
  networkId = Number(/\/networks\/ledgerx\/(\d+)/.exec(page.url())?.[1]);
  assert.is((await api('GET', `/networks/ledgerx/${networkId}`)).json.channel_name, 'consolex');
  await accessible('ledgerX network, nodes tab');
  // Before a committer joins, the ledger tabs say why they have nothing (the API's 409), no 500.
  await page.getByRole('tab', { name: 'Explorer' }).click();
  await page.getByRole('alert').getByText(/No committer has joined network xnet-console/).first().waitFor();
  assert.match(await page.getByRole('alert').first().innerText(), /NO_RUNNING_COMMITTER, HTTP 409/);
  await page.getByRole('tab', { name: 'Namespaces' }).click();
  await page.getByRole('alert').getByText(/No committer has joined/).first().waitFor();
  await accessible('explorer without a committer');
  await page.getByRole('tab', { name: 'Nodes' }).click();

  await page.getByRole('button', { name: 'Join xg-console to the network' }).click();
  const group = page.getByRole('article', { name: 'Orderer group xg-console' });
  await group.getByText(/Joined \d/).waitFor({ timeout: 300_000 });
  // The network records the join before the roles start; the join answers once they all run.
  await until('the orderer group\'s four roles running on the page', async () => (await page.getByRole('list', { name: 'xg-console: roles' }).getByText('Running', { exact: true }).count()) === 4, 300_000, 1000);
  await page.getByText('joining…').waitFor({ state: 'detached', timeout: 300_000 });
  await page.getByRole('button', { name: 'Join xc-console to the network' }).click();
  const committer = page.getByRole('article', { name: 'Committer xc-console' });
  await committer.getByText(/Joined \d/).waitFor({ timeout: 300_000 });
  await until('the committer\'s five services running on the page', async () => (await page.getByRole('list', { name: 'xc-console: services' }).getByText('Running', { exact: true }).count()) === 5, 300_000, 1000).catch(async (err) => {
    const roles = (await api('GET', `/nodes/${made[0]}`)).json.ledgerXCommitter.roles;
    const states = await Promise.all(roles.map(async (r: any) => { const n = (await api('GET', `/nodes/${r.nodeId}`)).json; return `${r.role} ${n.status} ${n.error ?? ''}`; }));
    const alerts = await page.getByRole('alert').allInnerTexts();
    throw new Error(`${(err as Error).message}; services: ${states.join(' | ')}; alerts: ${alerts.join(' | ')}`);
  });
  await page.getByText('joining…').waitFor({ state: 'detached', timeout: 300_000 });
  assert.is(await page.getByRole('alert').count(), 0, 'no join failed');
  await page.getByText('No committer outside a network.').waitFor({ timeout: 30_000 });
  const n = (await api('GET', `/networks/ledgerx/${networkId}`)).json;
  assert.equal(n.nodes.map((m: any) => [m.name, m.role, m.joined]).sort(), [['xc-console', 'committer', true], ['xg-console', 'orderer-group', true]]);
  await accessible('ledgerX network, joined');
  await screenshot(page, 'ledgerx-network');

  // Fabric-X's own loadgen sends transactions through the router: the explorer has their blocks.
  const loadgen = await fabricXProgram('loadgen');
  if (loadgen) {
    const c = (await api('GET', `/nodes/${made[0]}`)).json.ledgerXCommitter;
    const sidecarId = c.roles.find((x: any) => x.role === 'sidecar').nodeId;
    const genesisBlock = Buffer.from((await api('GET', `/networks/ledgerx/${networkId}/genesis`)).json.block, 'base64');
    const run = await runLoadgen({ loadgen, genesisBlock, channel: 'consolex', mspId: org.mspId, mspDir: path.join(server.dataDir, 'nodes', `node-${sidecarId}`, 'msp'), sidecarPort: c.sidecarPort, coordinatorMetricsUrl: c.coordinatorMetricsUrl, transactions: 100 });
    loadgenCommitted = run.seen;
    console.log(`  loadgen: saw ${run.seen} COMMITTED; the coordinator counts ${run.committed} through the network made on the page`);
    assert.ok(run.seen >= 100, `loadgen saw ${run.seen} COMMITTED (log ${run.log}: ${run.lastLines})`);
  }
});

t('a namespace created from the namespaces tab is committed and listed', async () => {
  assert.ok(networkId > 0, 'the network of the previous test');
  await page.getByRole('tab', { name: 'Namespaces' }).click();
  const form = page.getByRole('form', { name: 'Create a namespace' });
  await form.getByLabel('Namespace name').fill('console_assets');
  await form.getByLabel(org.mspId).check();
  await accessible('namespaces tab');
  await form.getByRole('button', { name: 'Create namespace' }).click();
  await form.getByRole('status').getByText(/COMMITTED in block #\d+/).waitFor({ timeout: 120_000 });
  await page.getByRole('table', { name: 'Namespaces and their endorsement policies' }).getByRole('row', { name: /console_assets 0 MSP: 1 of XConsoleOrgMSP member/ }).waitFor({ timeout: 30_000 });
  if (loadgenCommitted) await page.getByRole('row', { name: /^0 0 Threshold: one ECDSA key$/ }).waitFor();
  const listed = (await api('GET', `/networks/ledgerx/${networkId}/namespaces`)).json.items;
  assert.ok(listed.some((x: any) => x.name === 'console_assets' && x.policy.type === 'MSP'), JSON.stringify(listed));
  // A name the committer refuses: the API's 400 shown, nothing listed.
  await form.getByLabel('Namespace name').fill('_meta');
  await form.getByRole('button', { name: 'Create namespace' }).click();
  await form.getByRole('alert').waitFor({ timeout: 30_000 });
});

t('the explorer: chain info, blocks newest first, a block\'s transactions and a transaction\'s commit status; the map', async () => {
  await page.getByRole('tab', { name: 'Explorer' }).click();
  const info = (await api('GET', `/networks/ledgerx/${networkId}/info`)).json;
  assert.ok(info.height >= 2, `height ${info.height}`);
  await until('the height shown', async () => Number(await page.getByTestId('ledgerx-height').textContent()) >= 2, 30_000);
  const top = info.height - 1;
  const rows = page.getByRole('table', { name: 'Blocks, newest first' }).getByRole('row');
  await rows.nth(1).getByRole('button', { name: `#${top}`, exact: true }).waitFor();
  await page.getByRole('button', { name: '#0', exact: true }).click();
  const b0 = page.getByRole('article', { name: 'Block 0' });
  await b0.getByRole('table', { name: 'Transactions of block 0' }).getByText('CONFIG').waitFor();
  const created = (await api('GET', `/networks/ledgerx/${networkId}/blocks/${top}`)).json;
  const tx = created.transactions.find((x: any) => x.namespaces.some((ns: any) => ns.keys.includes('console_assets')));
  assert.ok(tx, `the namespace transaction in block ${top}`);
  await page.getByRole('button', { name: '#0', exact: true }).click();
  if (loadgenCommitted) {
    // loadgen's blocks: the fullest one's transactions all COMMITTED on the page, as many as the API says.
    const all = (await api('GET', `/networks/ledgerx/${networkId}/blocks?limit=10`)).json.items; // the page the explorer shows
    const full = all.reduce((a: any, b: any) => (b.committed_count > a.committed_count ? b : a));
    assert.ok(full.committed_count >= 10, `a block of loadgen's with ${full.committed_count} committed`);
    await page.getByRole('button', { name: `#${full.number}`, exact: true }).click();
    const txs = page.getByRole('table', { name: `Transactions of block ${full.number}` });
    await txs.waitFor();
    assert.is(await txs.getByRole('cell', { name: 'COMMITTED', exact: true }).count(), full.committed_count);
    console.log(`  explorer: block #${full.number} shows its ${full.committed_count} COMMITTED transactions`);
    await page.getByRole('button', { name: `#${full.number}`, exact: true }).click();
  }
  await page.getByRole('button', { name: `#${top}`, exact: true }).click();
  await page.getByRole('article', { name: `Block ${top}` }).getByRole('button', { name: tx.id, exact: true }).click();
  await page.getByTestId('ledgerx-tx-status').getByText('COMMITTED (code 1)').waitFor();
  await accessible('explorer');
  await screenshot(page, 'ledgerx-explorer');

  await page.getByRole('tab', { name: 'Map' }).click();
  const orgMap = page.getByRole('region', { name: `Organization ${org.mspId}` });
  await orgMap.getByRole('list', { name: 'xg-console roles' }).getByText('Running').first().waitFor();
  await orgMap.getByRole('list', { name: 'xc-console services' }).waitFor();
  await page.getByRole('heading', { name: 'Broadcast (routers)' }).waitFor();
  await accessible('map');
});

t('a committer on a database given as a connection string, from the node form: a refused one is said beside the field; the made one\'s page says the database was given; the password is nowhere; deleting it leaves the database', async () => {
  assert.ok(server.databaseUrl, 'the test server runs on a PostgreSQL it has the URL of');
  const password = `Console-ext-db-${process.pid}-pw`;
  const [user, database] = [`console_ext_${process.pid}`, `console_ext_db_${process.pid}`];
  const admin = new pg.Client({ connectionString: server.databaseUrl! });
  await admin.connect();
  try {
    await admin.query(`CREATE ROLE ${user} LOGIN PASSWORD '${password}'`);
    await admin.query(`CREATE DATABASE ${database} OWNER ${user}`);
    const at = new URL(server.databaseUrl!);
    const given = `postgres://${user}:${password}@${at.hostname}:${at.port}/${database}`;

    await nav('Nodes').click();
    await page.getByRole('button', { name: 'Create node' }).click();
    const form = page.getByRole('form', { name: 'New node' });
    await form.getByLabel('Name', { exact: true }).fill('xc-external');
    await form.getByLabel('Kind').selectOption({ label: 'LedgerX committer' });
    await form.getByLabel('Organization').selectOption({ label: `XConsoleOrg (${org.mspId})` });
    await form.getByLabel('gRPC base port').fill(String(await freeBase(5)));
    await form.getByLabel('Engine').selectOption('process');
    const field = form.getByLabel('Database connection string (optional)');
    assert.is(await field.getAttribute('type'), 'password');
    await field.fill(given.replace(password, `${password}-wrong`));
    await form.getByRole('button', { name: 'Create node' }).click();
    await form.getByTestId('field-error-databaseUrl').getByText('cannot be reached').waitFor({ timeout: 60_000 });
    await form.getByRole('alert').getByText(/password authentication failed/).waitFor();
    assert.is(await field.getAttribute('aria-invalid'), 'true');
    // What the page says (the refusal, beside the field and in the alert): the field itself holds what was typed.
    assert.not.match(await page.locator('body').innerText(), password);
    await accessible('node form: a database refused');
    assert.is((await api('GET', '/nodes/platform/LEDGERX?limit=100')).json.items.filter((n: { name: string }) => n.name === 'xc-external').length, 0);

    await field.fill(given);
    await form.getByRole('button', { name: 'Create node' }).click();
    await page.waitForURL(/\/nodes\/\d+$/, { timeout: 60_000 });
    const id = Number(/\/nodes\/(\d+)$/.exec(page.url())?.[1]);
    await page.getByText(/^Given as a connection string at creation/).waitFor();
    await page.getByText(database, { exact: true }).waitFor();
    await page.getByText(`${user} (password never shown)`).waitFor();
    const node = (await api('GET', `/nodes/${id}`)).json;
    assert.is(node.engine, 'process');
    assert.equal(node.ledgerXCommitter.database, { host: at.hostname, port: Number(at.port), name: database, user, external: true });
    assert.not.match(JSON.stringify(node), password);
    assert.not.match(await page.content(), password);
    assert.not.match(JSON.stringify((await api('GET', '/audit/logs?limit=20')).json), password);
    await accessible('committer on a given database');

    assert.is((await api('DELETE', `/nodes/${id}`)).status, 204);
    await until('the committer removed', async () => ((await api('GET', `/nodes/${id}`)).status === 404 ? true : null), 60_000);
    assert.is((await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database])).rowCount, 1);
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${database}`).catch(() => undefined);
    await admin.query(`DROP ROLE IF EXISTS ${user}`).catch(() => undefined);
    await admin.end();
  }
});

t('a VIEWER sees the network, its namespaces and explorer, and no join button, namespace form or node create', async () => {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in', exact: true }).waitFor();
  await signIn(VIEWER);
  await page.goto(`${server.url}/networks/ledgerx/${networkId}?tab=namespaces`);
  await page.getByRole('cell', { name: 'console_assets' }).waitFor();
  assert.is(await page.getByRole('form', { name: 'Create a namespace' }).count(), 0);
  await page.getByRole('tab', { name: 'Nodes' }).click();
  await page.getByRole('article', { name: 'Orderer group xg-console' }).waitFor();
  assert.is(await page.getByRole('button', { name: /^Join/ }).count(), 0);
  assert.is(await page.getByRole('heading', { name: 'Committers not in a network' }).count(), 0);
  await accessible('ledgerX network (viewer)');
  await nav('Networks').click();
  await page.getByRole('link', { name: 'xnet-console' }).waitFor();
  assert.is(await page.getByRole('link', { name: 'Create ledgerX network' }).count(), 0);
});

t.run();
