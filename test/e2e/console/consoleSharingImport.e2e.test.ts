// The console's pages for importing networks and sharing chaincode, in Chromium against two real
// servers (pro, sharing listeners) and real Fabric 2.5 (test/e2e/sharing/sharedChannelPair: B's
// organization is in A's channel). On B's sharing page the channel is imported and B's peer
// joins it from the network's page (its ledger then holds A's chain); on A's chaincode tab a
// chaincode is shared with B (B lists it as shared, read back through B's API), and a share B
// refuses shows B's reason. On B's Import page a consortium channel is imported from A's block
// file and an EVM network from a genesis file, each after a refusal shown at its form. A VIEWER
// sees none of these controls. Last, with B stopped, a share is the 502 naming B's address.
// axe-core checks the pages.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { ADMIN, type TestServer } from '../../helpers/server.ts';
import { fabricMissing } from '../../helpers/fabric.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { chromiumMissing } from '../../helpers/browser.ts';
import { startConsoleSession, type ConsoleSession } from '../../helpers/consoleSession.ts';
import { until } from '../consortium/consortiumApi.ts';
import { startSharedChannelPair, type SharedChannelPair } from '../sharing/sharedChannelPair.ts';

const t = requiresAll(suite('console: importing networks and sharing chaincode across two instances (real Fabric, Chromium)'), ['chromium', chromiumMissing()], ['fabric', fabricMissing]);
const VIEWER = { username: 'import-viewer', password: 'import-viewer-password-for-tests' };
let pair: SharedChannelPair;
let a: TestServer;
let b: TestServer;
let ui: ConsoleSession;
let page: Page;
let networkOnB = 0;
// B is opened as localhost, A as 127.0.0.1: the two session cookies do not meet.
const bUrl = () => b.url.replace('127.0.0.1', 'localhost');
const sampleDir = path.join(import.meta.dirname, '..', '..', '..', 'samples', 'chaincode', 'asset-registry');
const sample = ['package.json', 'assetRegistry.ts'].map((p) => ({ path: p, content: readFileSync(path.join(sampleDir, p), 'utf8') }));

t.before(async () => {
  pair = await startSharedChannelPair({ prefix: 'Imp', channelName: 'impchannel', chaincodePorts: [9580, 9780], peerOfB: true });
  ({ a, b } = pair);
  const r = await pair.apiB('POST', '/users', { ...VIEWER, role: 'VIEWER' });
  assert.is(r.status, 201, r.text);
  ui = await startConsoleSession({ server: b });
  ({ page } = ui);
});

t.after(async () => {
  await ui?.close();
  await pair?.stop();
});

t('B imports A\'s channel from the sharing page and joins its peer from the network\'s page; the peer pulls A\'s chain', async () => {
  await ui.signIn(ADMIN, { url: bUrl() });
  await page.goto(bUrl() + '/sharing');
  const table = page.getByRole('table', { name: 'Channels shared by peer instances' });
  await table.getByRole('cell', { name: 'impchannel', exact: true }).waitFor();
  await ui.accessible('the sharing page with a shared channel');
  const form = page.getByRole('form', { name: 'Import channel impchannel' });
  await form.getByLabel('Name here').fill('imp-here');
  await form.getByRole('button', { name: 'Import' }).click();
  await page.getByTestId('imported-impchannel').or(form.getByRole('alert')).waitFor({ timeout: 30_000 });
  assert.match(await page.getByTestId('imported-impchannel').innerText(), /Imported as imp-here/);
  const imported = (await pair.apiB('GET', '/networks/consortium/by-name/imp-here')).json;
  assert.is(imported.channel_name, 'impchannel');
  assert.is(imported.imported, true);
  networkOnB = imported.id;

  await page.getByRole('link', { name: 'Open imp-here to join its peers' }).click();
  await page.getByRole('heading', { name: /^imp-here/, level: 1 }).waitFor();
  const join = page.getByRole('form', { name: 'Join a peer of this instance' });
  await join.getByLabel('Peer of this instance').selectOption({ label: 'imp-peer-b (ImpOrgBMSP, running)' });
  await ui.accessible('the imported network with a peer to join');
  await join.getByRole('button', { name: 'Join to the channel' }).click();
  await page.getByRole('row', { name: /imp-peer-b/ }).getByText(/^Joined/).waitFor({ timeout: 60_000 });
  assert.is(await page.getByRole('form', { name: 'Join a peer of this instance' }).count(), 0, 'a joined peer is not offered again');
  // B's peer pulls A's chain from A's orderer: block 1 added B's organization.
  await until('B\'s peer to catch up with A\'s channel', async () => {
    const i = await pair.apiB('GET', `/networks/consortium/${networkOnB}/info`);
    return i.status === 200 && Number(i.json.height) >= 2 ? i.json : null;
  }, 90_000, 1000);
  const block1 = await pair.apiB('GET', `/networks/consortium/${networkOnB}/blocks/1`);
  assert.is(block1.status, 200, block1.text);
  assert.match(block1.text, /"CONFIG"/, block1.text.slice(0, 800));
});

t('A shares a chaincode with B from the chaincode tab: B lists it as shared; a share B refuses shows B\'s reason', async () => {
  assert.ok(networkOnB, 'B imported the channel');
  for (const name of ['impclash', 'impassets']) {
    const r = await pair.apiA('POST', '/sc/consortium/chaincodes', { networkId: pair.networkId, name, version: '1.0', source: { files: sample } });
    assert.is(r.status, 201, r.text);
  }
  // B has its own impclash 1.0 on the channel: it refuses A's definition under that version.
  const own = await pair.apiB('POST', '/sc/consortium/chaincodes', { networkId: networkOnB, name: 'impclash', version: '1.0', source: { files: sample } });
  assert.is(own.status, 201, own.text);
  const instanceOfA = (await pair.apiB('GET', '/nodesharing/peers')).json.items[0].instance_id;

  await ui.signIn(ADMIN, { url: a.url });
  await page.goto(`${a.url}/networks/consortium/${pair.networkId}`);
  const form = page.getByRole('form', { name: 'Share with a peer instance' });
  await form.getByLabel('Peer instance').locator('option', { hasText: 'ImpOrgBMSP' }).waitFor({ state: 'attached' });
  await form.getByLabel('Chaincode').selectOption({ label: 'impclash 1.0 (sequence 1)' });
  const peerOption = await form.getByLabel('Peer instance').locator('option', { hasText: 'ImpOrgBMSP' }).getAttribute('value');
  await form.getByLabel('Peer instance').selectOption(peerOption!);
  await form.getByRole('button', { name: 'Share chaincode' }).click();
  const refused = form.getByRole('alert');
  await refused.waitFor({ timeout: 30_000 });
  assert.match(await refused.innerText(), /The peer instance refused: .*already has impclash version 1\.0/);
  await ui.accessible('the chaincode tab with a refused share');

  await form.getByLabel('Chaincode').selectOption({ label: 'impassets 1.0 (sequence 1)' });
  await form.getByRole('button', { name: 'Share chaincode' }).click();
  const shared = form.getByTestId('chaincode-shared').or(form.getByRole('alert'));
  await shared.waitFor({ timeout: 30_000 });
  const text = await shared.innerText();
  const there = /chaincode (\d+) there/.exec(text)?.[1];
  assert.ok(there, text);
  const onB = (await pair.apiB('GET', `/sc/consortium/chaincodes?networkId=${networkOnB}`)).json.items.find((c: { name: string }) => c.name === 'impassets');
  assert.ok(onB, 'B lists the shared chaincode');
  assert.is(onB.id, Number(there));
  assert.is(onB.version, '1.0');
  assert.is(onB.shared_from?.instance_id, instanceOfA, JSON.stringify(onB));
  assert.is(onB.shared_from.chaincode_id, (await pair.apiA('GET', `/sc/consortium/chaincodes?networkId=${pair.networkId}&name=impassets`)).json.items[0].id);
});

t('B imports a consortium channel from A\'s block file and an EVM network from a genesis file on the Import page, refusals shown', async () => {
  // A second channel of A's orderer, whose config block is the file to import.
  let r = await pair.apiA('POST', '/networks/consortium', { name: 'imp-source', channelName: 'impsource', ordererIds: [pair.ordererA.id], organizationIds: [pair.orgA.id] });
  assert.is(r.status, 201, r.text);
  const source = r.json.id;
  assert.is((await pair.apiA('POST', `/networks/consortium/${source}/orderers/${pair.ordererA.id}/join`)).status, 200);
  const block = await until('the config block of impsource', async () => {
    const c = await pair.apiA('GET', `/networks/consortium/${source}/channel-config`);
    return c.status === 200 && c.json.block ? (c.json.block as string) : null;
  }, 60_000, 1000);

  await ui.signIn(ADMIN, { url: bUrl() });
  await page.goto(bUrl() + '/networks');
  await page.getByRole('link', { name: 'Import network' }).click();
  await page.getByRole('heading', { name: 'Import a network', level: 1 }).waitFor();
  await ui.accessible('the import page');
  const consortium = page.getByRole('form', { name: 'Consortium channel' });
  await consortium.getByLabel('Name', { exact: true }).fill('imp-copy');
  await consortium.getByLabel(/^Orderer endpoints/).fill(String(pair.ordererA.config.externalEndpoint));
  await consortium.getByLabel(/^Channel block/).setInputFiles({ name: 'junk.block', mimeType: 'application/octet-stream', buffer: Buffer.from('not a block at all') });
  await consortium.getByRole('button', { name: 'Import channel' }).click();
  const refused = consortium.getByRole('alert');
  await refused.waitFor({ timeout: 15_000 });
  assert.match(await refused.innerText(), /block|config/i);
  await consortium.getByLabel(/^Channel block/).setInputFiles({ name: 'impsource.block', mimeType: 'application/octet-stream', buffer: Buffer.from(block, 'base64') });
  await consortium.getByRole('button', { name: 'Import channel' }).click();
  await page.waitForURL(/\/networks\/consortium\/\d+$/, { timeout: 15_000 });
  await page.getByRole('heading', { name: /^imp-copy/, level: 1 }).waitFor();
  const copy = (await pair.apiB('GET', '/networks/consortium/by-name/imp-copy')).json;
  assert.is(copy.channel_name, 'impsource');
  assert.is(copy.imported, true);
  assert.equal(copy.organizations.map((o: { msp_id: string }) => o.msp_id), ['ImpOrgAMSP']);
  assert.equal(copy.orderer_endpoints ?? [pair.ordererA.config.externalEndpoint], [pair.ordererA.config.externalEndpoint]);

  await page.goto(bUrl() + '/networks/import');
  const evm = page.getByRole('form', { name: 'EVM network' });
  await evm.getByLabel('Name', { exact: true }).fill('imp-evm');
  await evm.getByLabel('Client').selectOption('anvil');
  await evm.getByLabel('Genesis file (JSON)').setInputFiles({ name: 'genesis.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify({ chain_id: 4242, consensus: 'QBFT' })) });
  const genesisText = evm.getByLabel(/^Genesis \(from the file/);
  await until('the genesis file read into the form', async () => (await genesisText.inputValue()).includes('4242') || null, 5_000, 100);
  await evm.getByRole('button', { name: 'Import EVM network' }).click();
  const noValidators = evm.getByRole('alert');
  await noValidators.waitFor({ timeout: 15_000 });
  assert.match(await noValidators.innerText(), /validators/);
  const validator = '0x00000000000000000000000000000000000000cc';
  await evm.getByLabel('Genesis file (JSON)').setInputFiles({ name: 'genesis.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify({ chain_id: 4242, consensus: 'QBFT', validators: [validator] })) });
  await until('the second genesis file read into the form', async () => (await genesisText.inputValue()).includes(validator) || null, 5_000, 100);
  await evm.getByRole('button', { name: 'Import EVM network' }).click();
  await page.waitForURL(/\/networks\/evm\/\d+$/, { timeout: 15_000 });
  const id = Number(/(\d+)$/.exec(page.url())![1]);
  const net = (await pair.apiB('GET', `/networks/evm/${id}`)).json;
  assert.is(net.name, 'imp-evm');
  assert.is(net.chain_id, 4242);
  assert.equal(net.validators.map((v: { address: string; key_held: boolean }) => [v.address.toLowerCase(), v.key_held]), [[validator, false]]);
});

t('a VIEWER sees the shared channel and the import page without a control to import, join or share', async () => {
  await ui.signIn(VIEWER, { url: bUrl() });
  await page.goto(bUrl() + '/sharing');
  await page.getByRole('table', { name: 'Channels shared by peer instances' }).getByRole('cell', { name: 'impchannel', exact: true }).waitFor();
  assert.is(await page.getByRole('button', { name: 'Import' }).count(), 0);
  await page.goto(bUrl() + '/networks');
  await page.getByRole('heading', { name: 'Consortium networks' }).waitFor();
  assert.is(await page.getByRole('link', { name: 'Import network' }).count(), 0);
  await page.goto(bUrl() + '/networks/import');
  await page.getByRole('heading', { name: 'Import a network', level: 1 }).waitFor();
  assert.is(await page.getByRole('form').count(), 0);
  await page.goto(`${bUrl()}/networks/consortium/${networkOnB}`);
  await page.getByRole('table', { name: 'Chaincodes of the network' }).getByRole('cell', { name: 'impclash', exact: true }).waitFor({ timeout: 15_000 });
  assert.is(await page.getByRole('form', { name: 'Share with a peer instance' }).count(), 0);
  assert.is(await page.getByRole('form', { name: 'Join a peer of this instance' }).count(), 0);
  await ui.accessible('the imported network as a VIEWER');
});

t('with B down, sharing from A\'s page is the 502 naming the unreachable instance', async () => {
  await b.stop();
  await ui.signIn(ADMIN, { url: a.url });
  await page.goto(`${a.url}/networks/consortium/${pair.networkId}`);
  const form = page.getByRole('form', { name: 'Share with a peer instance' });
  await form.getByLabel('Chaincode').selectOption({ label: 'impassets 1.0 (sequence 1)' });
  await form.getByRole('button', { name: 'Share chaincode' }).click();
  const refused = form.getByRole('alert');
  await refused.waitFor({ timeout: 30_000 });
  assert.match(await refused.innerText(), /The peer instance at \S+ could not be reached/);
  assert.is(await form.getByTestId('chaincode-shared').count(), 0);
});

t.run();
