// The console's consortium network pages in Chromium against real Fabric 2.5 nodes: the nodes
// are made over the API; on the page the network (channel) is created from them, the orderer
// and the peer are joined with the join buttons (their state changes without a reload), and
// the explorer shows the channel's blocks and a block's transactions. axe-core checks the pages.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { BrowserContext, Page } from 'playwright-core';
import { startServer, ADMIN, type TestServer } from '../../helpers/server.ts';
import { fabricMissing } from '../../helpers/fabric.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { axeViolations, chromiumMissing, describeViolations, launchBrowser, screenshot } from '../../helpers/browser.ts';
import { apiOf, consortiumEnv, organization, runningNode, until } from '../consortium/consortiumApi.ts';
import { buildConsole } from '../../../web/scripts/build.ts';

const t = requiresAll(suite('console: consortium network page (real Fabric, Chromium)'), ['chromium', chromiumMissing()], ['fabric', fabricMissing]);
let server: TestServer;
const api = apiOf(() => server);
let browser: BrowserContext;
let page: Page;
const nodes: Array<{ id: number; name: string }> = [];
let networkId = 0;

t.before(async () => {
  await buildConsole({ quiet: true });
  server = await startServer({ env: consortiumEnv() });
  const org = await organization(api, 'ConsoleOrg', 'ConsoleOrgMSP');
  const orderer = await runningNode(api, 'console-orderer0', 'CONSORTIUM_ORDERER', org.id);
  const peer = await runningNode(api, 'console-peer0', 'CONSORTIUM_PEER', org.id);
  nodes.push(orderer, peer);
  browser = await launchBrowser();
  page = browser.pages()[0] ?? (await browser.newPage());
});

t.after(async () => {
  await browser?.close().catch(() => undefined);
  if (!server) return;
  for (const n of nodes) await api('DELETE', `/nodes/${n.id}`).catch(() => undefined);
  await until('every node removed', async () => ((await api('GET', '/nodes/platform/CONSORTIUM')).json?.total === 0 ? true : null), 30_000).catch(() => undefined);
  await server.stop();
});

t('a consortium network created from the page; an orderer and a peer joined from it; the explorer shows the channel blocks', async () => {
  await page.goto(server.url + '/');
  await page.getByLabel('Username').fill(ADMIN.username);
  await page.getByLabel('Password').fill(ADMIN.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Dashboard', exact: true }).waitFor();
  await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Networks', exact: true }).click();
  await page.getByRole('link', { name: 'Create consortium network' }).click();
  await page.getByLabel('Name', { exact: true }).fill('console-channel-net');
  await page.getByLabel('Channel name').fill('consolechannel');
  await page.getByLabel('console-orderer0').check();
  await page.getByLabel('console-peer0').check();
  const v0 = await axeViolations(page);
  assert.is(v0.length, 0, describeViolations(v0));
  await page.getByRole('button', { name: 'Create network' }).click();
  await page.getByRole('heading', { name: /console-channel-net/ }).waitFor({ timeout: 60_000 });
  networkId = Number(/\/networks\/consortium\/(\d+)$/.exec(page.url())?.[1]);
  const made = await api('GET', `/networks/consortium/${networkId}`);
  assert.is(made.json.channel_name, 'consolechannel');

  for (const n of nodes) {
    const join = page.getByRole('button', { name: `Join ${n.name} to the channel` });
    await join.waitFor();
    await page.waitForFunction((name) => {
      const b = [...(globalThis as unknown as { document: { querySelectorAll(s: string): Iterable<{ getAttribute(a: string): string | null; disabled: boolean }> } }).document.querySelectorAll('button')].find((x) => x.getAttribute('aria-label') === `Join ${name} to the channel`);
      return b && !b.disabled;
    }, n.name, { timeout: 60_000 });
    await join.click();
    await page.getByRole('row', { name: new RegExp(n.name) }).getByText('Joined', { exact: false }).waitFor({ timeout: 90_000 });
  }
  const members = (await api('GET', `/networks/consortium/${networkId}/nodes`)).json.items as Array<{ networks: Array<{ network_id: number; joined: boolean }> }>;
  assert.ok(members.every((m) => m.networks.find((x) => x.network_id === networkId)?.joined), 'the API says both joined');

  await page.getByRole('button', { name: '#0', exact: true }).waitFor({ timeout: 60_000 });
  await page.getByRole('button', { name: '#0', exact: true }).click();
  await page.getByRole('heading', { name: 'Block #0', exact: true }).waitFor();
  await page.getByRole('table', { name: 'Transactions of block 0' }).waitFor();
  const v = await axeViolations(page);
  assert.is(v.length, 0, describeViolations(v));
  await screenshot(page, 'consortium-network');
});

t.run();
