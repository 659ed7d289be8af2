// The console's consortium network pages in Chromium against real Fabric 2.5 nodes: the nodes
// are made over the API; on the page the network (channel) is created from them, the orderer
// and the peer are joined with the join buttons (their state changes without a reload), and
// the explorer shows the channel's blocks and a block's transactions; an orderer added from the
// page and joined there follows the channel (the page says follower; it reaches the channel's
// height); the sample chaincode is
// deployed from the page, invoked and queried there, the answers shown and checked against the
// API and the ledger; a chaincode from a .tar.gz archive picked from disk is deployed from the
// page and answers through the API (a file that is no archive is a 400 shown); the lifecycle
// taken one step at a time on the page (a step before its turn refused with the 409's reason,
// then install, approve, commit); with Docker, the sample deployed from its chaincode-as-a-service
// image on the page, its server a container of that image, invoked and queried there. axe-core
// checks the pages.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import type { TestServer } from '../../helpers/server.ts';
import { fabricMissing } from '../../helpers/fabric.ts';
import { requires, requiresAll } from '../../helpers/requirements.ts';
import { dockerSkipReason, imagesMissing } from '../../helpers/dockerAvailability.ts';
import { freePortBlock } from '../../helpers/ports.ts';
import { chromiumMissing, axeViolations, describeViolations, screenshot } from '../../helpers/browser.ts';
import { startConsoleSession, type ConsoleSession } from '../../helpers/consoleSession.ts';
import { apiOf, consortiumEnv, organization, runningNode, until } from '../consortium/consortiumApi.ts';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';

const t = requiresAll(suite('console: consortium network page (real Fabric, Chromium)'), ['chromium', chromiumMissing()], ['fabric', fabricMissing]);
let server: TestServer;
const api = apiOf(() => server);
let ui: ConsoleSession;
let page: Page;
const nodes: Array<{ id: number; name: string }> = [];
let networkId = 0;
const SAMPLE_IMAGE = 'lnm-chaincode-asset-registry:local';
const docker = new Docker();
// The image deploy needs a Docker Engine and the sample's image (.ci/docker.sh builds it).
const withDocker = requires(t, 'docker', (await dockerSkipReason()) ?? (await imagesMissing([SAMPLE_IMAGE], docker)));
const ourContainers = () => docker.listContainers({ all: true, filters: { label: [`lnm.data-dir=${server.dataDir}`] } });

t.before(async () => {
  // Its own block for the chaincode servers (four here): the default range is shared with every other consortium test running on this machine.
  ui = await startConsoleSession({ server: { env: consortiumEnv({ LNM_CHAINCODE_PORT_FROM: String(await freePortBlock(Array.from({ length: 10 }, (_, i) => i))) }) } });
  ({ server, page } = ui);
  const org = await organization(api, 'ConsoleOrg', 'ConsoleOrgMSP');
  const orderer = await runningNode(api, 'console-orderer0', 'CONSORTIUM_ORDERER', org.id);
  const peer = await runningNode(api, 'console-peer0', 'CONSORTIUM_PEER', org.id);
  nodes.push(orderer, peer);
});

t.after(async () => {
  if (!server) return;
  for (const n of nodes) await api('DELETE', `/nodes/${n.id}`).catch(() => undefined);
  await until('every node removed', async () => ((await api('GET', '/nodes/platform/CONSORTIUM')).json?.total === 0 ? true : null), 30_000).catch(() => undefined);
  await ui.close();
  // The image's chaincode server is a container of this server's (none where Docker is absent): removed once the server is down.
  for (const c of await ourContainers().catch(() => [])) await docker.getContainer(c.Id).remove({ force: true }).catch(() => undefined);
  // The deployed chaincode's server is a node of the service too: none outlives this suite.
  server.reapNodes();
});

t('a consortium network created from the page; an orderer and a peer joined from it; the explorer shows the channel blocks', async () => {
  await ui.signIn();
  await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Networks', exact: true }).click();
  await page.getByRole('link', { name: 'Create consortium network' }).click();
  await page.getByLabel('Name', { exact: true }).fill('console-channel-net');
  await page.getByLabel('Channel name').fill('consolechannel');
  await page.getByLabel('console-orderer0').check();
  await page.getByLabel('console-peer0').check();
  const v0 = await axeViolations(page);
  assert.is(v0.length, 0, describeViolations(v0));
  await page.getByRole('button', { name: 'Create network' }).click();
  await page.getByRole('heading', { name: /console-channel-net/, level: 1 }).waitFor({ timeout: 60_000 });
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

t("the channel's height on the page is the API's; a peer added to the network from its page, its ports shown first", async () => {
  await page.goto(`${server.url}/networks/consortium/${networkId}`);
  const info = (await api('GET', `/networks/consortium/${networkId}/info`)).json;
  const facts = page.getByTestId('consortium-chain-info');
  await facts.getByText(info.current_block_hash, { exact: true }).waitFor({ timeout: 30_000 });
  await page.getByRole('button', { name: 'Add a peer or orderer' }).click();
  const form = page.getByRole('form', { name: 'Add a peer or orderer to console-channel-net' });
  await form.getByLabel('Node name').fill('console-peer1');
  await form.getByTestId('member-defaults').waitFor();
  assert.match((await form.getByTestId('member-defaults').innerText()) ?? '', /It will get port \d+/);
  await ui.accessible('add a member node');
  await form.getByRole('button', { name: 'Add peer' }).click();
  const made = page.getByRole('status').filter({ hasText: 'console-peer1' });
  await made.waitFor({ timeout: 90_000 });
  const members = (await api('GET', `/networks/consortium/${networkId}/nodes`)).json.items as Array<{ id: number; name: string; node_type?: string }>;
  const added = members.find((m) => m.name === 'console-peer1');
  assert.ok(added, JSON.stringify(members.map((m) => m.name)));
  nodes.push({ id: added.id, name: added.name });
  assert.is((await api('GET', `/nodes/${added.id}`)).json.organization_id, (await api('GET', `/networks/consortium/${networkId}`)).json.organizations[0].organization_id);
  await made.getByRole('button', { name: 'Close' }).click();
  // Gone again before the chaincode tests, which install on every peer the network holds.
  assert.is((await api('DELETE', `/nodes/${added.id}`)).status, 204);
  await until('console-peer1 deleted', async () => ((await api('GET', `/nodes/${added.id}`)).status === 404 ? true : null), 30_000);
  nodes.pop();
});

t('an orderer added from the network page and joined with its button follows the channel: the page says follower, and it pulls the chain to the channel\'s height', async () => {
  assert.ok(networkId > 0, 'the network of the first test');
  await page.goto(`${server.url}/networks/consortium/${networkId}`);
  await page.getByRole('button', { name: 'Add a peer or orderer' }).click();
  const form = page.getByRole('form', { name: 'Add a peer or orderer to console-channel-net' });
  await form.getByLabel('Kind').selectOption('orderer');
  await form.getByLabel('Node name').fill('console-orderer1');
  await form.getByTestId('member-defaults').getByText(/admin port \d+/).waitFor();
  await form.getByRole('button', { name: 'Add orderer' }).click();
  const made = page.getByRole('status').filter({ hasText: 'console-orderer1' });
  await made.waitFor({ timeout: 90_000 });
  const added = ((await api('GET', `/networks/consortium/${networkId}/nodes`)).json.items as Array<{ id: number; name: string }>).find((m) => m.name === 'console-orderer1');
  assert.ok(added, 'the API lists the new orderer as a member');
  try {
    await made.getByRole('button', { name: 'Close' }).click();
    await until('console-orderer1 running', async () => ((await api('GET', `/nodes/${added.id}`)).json.status === 'running' ? true : null), 90_000);
    const join = page.getByRole('button', { name: 'Join console-orderer1 to the channel' });
    await page.waitForFunction(() => {
      const b = [...(globalThis as unknown as { document: { querySelectorAll(s: string): Iterable<{ getAttribute(a: string): string | null; disabled: boolean }> } }).document.querySelectorAll('button')].find((x) => x.getAttribute('aria-label') === 'Join console-orderer1 to the channel');
      return b && !b.disabled;
    }, null, { timeout: 60_000 });
    await join.click();
    const answer = page.getByRole('status', { name: 'Join of console-orderer1' });
    await answer.getByTestId('consensus-relation').getByText('follower', { exact: true }).waitFor({ timeout: 90_000 });
    await answer.getByText(/not in the channel's consenter set/).waitFor();
    await page.getByRole('row', { name: /console-orderer1/ }).getByText('Joined', { exact: false }).waitFor({ timeout: 30_000 });
    await ui.accessible('an orderer joined as a follower');
    // The follower really follows: joined again (nothing changes), its channel participation API
    // reports the channel's height once it has pulled the blocks from the consenter.
    const { height } = (await api('GET', `/networks/consortium/${networkId}/info`)).json as { height: number };
    await until('the follower at the channel height', async () => {
      const r = await api('POST', `/networks/consortium/${networkId}/orderers/${added.id}/join`);
      assert.is(r.status, 200, r.text);
      assert.is(r.json.already_joined, true);
      assert.is(r.json.orderer.consensus_relation, 'follower');
      return r.json.orderer.height >= height ? true : null;
    }, 120_000, 1000);
  } finally {
    assert.is((await api('DELETE', `/nodes/${added.id}`)).status, 204);
    await until('console-orderer1 deleted', async () => ((await api('GET', `/nodes/${added.id}`)).status === 404 ? true : null), 30_000);
  }
});

t('the sample chaincode deployed from the page, invoked and queried there; the invoke is VALID in the ledger', async () => {
  assert.ok(networkId > 0, 'the network of the first test');
  const deploy = page.getByRole('form', { name: 'Deploy a chaincode' });
  await deploy.getByLabel('Chaincode name').fill('consoleassets');
  await deploy.getByLabel('Version').fill('1.0');
  await deploy.getByRole('button', { name: 'Deploy sample' }).click();
  await deploy.getByRole('status').getByText(/commit committed, server running/).waitFor({ timeout: 240_000 });
  const listed = await api('GET', `/sc/consortium/chaincodes?networkId=${networkId}`);
  assert.is(listed.json.items.length, 1, listed.text);
  assert.is(listed.json.items[0].name, 'consoleassets');
  assert.is(listed.json.items[0].status, 'committed');
  await page.getByRole('row', { name: /consoleassets 1\.0 1 committed/ }).waitFor({ timeout: 30_000 });

  const run = page.getByRole('form', { name: 'Invoke or query' });
  await run.getByLabel('Function').fill('CreateAsset');
  await run.getByLabel('Arguments (JSON array)').fill('["asset7", "green", 3, "Ana", 120]');
  await run.getByRole('button', { name: 'Invoke (submit)' }).click();
  const answer = run.getByRole('status', { name: 'Chaincode answer' });
  await answer.getByText(/Invoked: VALID in block #\d+/).waitFor({ timeout: 120_000 });
  const shown = JSON.parse(await run.getByTestId('chaincode-result').innerText());
  assert.equal(shown, { id: 'asset7', color: 'green', size: 3, owner: 'Ana', value: 120 });
  const txId = await answer.locator('code.hash').innerText();
  const tx = await api('GET', `/networks/consortium/${networkId}/transactions/${txId}`);
  assert.is(tx.status, 200, tx.text);
  assert.is(tx.json.validation_code, 'VALID');
  assert.is(tx.json.creator_msp_id, 'ConsoleOrgMSP');

  await run.getByLabel('Function').fill('ReadAsset');
  await run.getByLabel('Arguments (JSON array)').fill('["asset7"]');
  await run.getByRole('button', { name: 'Query (evaluate)' }).click();
  await answer.getByText('Query answered (as ConsoleOrgMSP)').waitFor({ timeout: 60_000 });
  assert.equal(JSON.parse(await run.getByTestId('chaincode-result').innerText()).owner, 'Ana');

  // The chaincode's refusal is shown, not a result.
  await run.getByLabel('Arguments (JSON array)').fill('["no-such-asset"]');
  await run.getByRole('button', { name: 'Query (evaluate)' }).click();
  await run.getByRole('alert').waitFor({ timeout: 60_000 });
  assert.match(await run.getByRole('alert').innerText(), /no-such-asset/);
  const v = await axeViolations(page);
  assert.is(v.length, 0, describeViolations(v));
  await screenshot(page, 'consortium-chaincode');
});

t('a chaincode from a .tar.gz archive picked from disk, deployed from the page: committed, its server running, it answers; a file that is no archive is refused, said', async () => {
  assert.ok(networkId > 0, 'the network of the first test');
  const dir = mkdtempSync(join(tmpdir(), 'lnm-cc-archive-'));
  const archive = join(dir, 'asset-registry.tar.gz');
  execFileSync('tar', ['-czf', archive, '-C', join(import.meta.dirname, '../../../samples/chaincode/asset-registry'), 'package.json', 'assetRegistry.ts']);
  const notArchive = join(dir, 'notes.tar.gz');
  writeFileSync(notArchive, 'this is no gzip');
  const deploy = page.getByRole('form', { name: 'Deploy a chaincode' });
  await deploy.getByLabel('Source').selectOption('archive');
  await deploy.getByLabel(/^Archive/).setInputFiles(notArchive);
  await deploy.getByLabel('Chaincode name').fill('tgzassets');
  await deploy.getByLabel('Version').fill('1.0');
  await deploy.getByRole('button', { name: 'Deploy', exact: true }).click();
  await deploy.getByRole('alert').waitFor({ timeout: 60_000 });
  assert.ok((await api('GET', `/sc/consortium/chaincodes?networkId=${networkId}`)).json.items.every((c: { name: string }) => c.name !== 'tgzassets'), 'nothing recorded for a bad archive');
  const v = await axeViolations(page);
  assert.is(v.length, 0, describeViolations(v));

  await deploy.getByLabel(/^Archive/).setInputFiles(archive);
  await deploy.getByRole('button', { name: 'Deploy', exact: true }).click();
  await deploy.getByRole('status').getByText(/commit committed, server running/).waitFor({ timeout: 240_000 });
  const record = (await api('GET', `/sc/consortium/chaincodes?networkId=${networkId}`)).json.items.find((c: { name: string }) => c.name === 'tgzassets');
  assert.is(record?.status, 'committed');
  const created = await api('POST', `/sc/consortium/chaincodes/${record.id}/invoke`, { function: 'CreateAsset', args: ['tgz1', 'blue', '5', 'Bo', '50'] });
  assert.is(created.status, 200, created.text);
  const read = await api('POST', `/sc/consortium/chaincodes/${record.id}/query`, { function: 'ReadAsset', args: ['tgz1'] });
  assert.is(read.status, 200, read.text);
  assert.is((read.json.result_json ?? JSON.parse(read.json.result)).owner, 'Bo');
  await page.getByRole('row', { name: /tgzassets 1\.0 1 committed/ }).waitFor({ timeout: 30_000 });

  // A chaincode-as-a-service image the Docker host does not have: refused, said, nothing recorded.
  await deploy.getByLabel('Source').selectOption('image');
  await deploy.getByLabel(/^Image/).fill('lnm-no-such-chaincode:local');
  await deploy.getByLabel('Chaincode name').fill('imageassets');
  await deploy.getByRole('button', { name: 'Deploy', exact: true }).click();
  await deploy.getByRole('alert').waitFor({ timeout: 60_000 });
  // A missing image is the image field's 400 (said beside it); no Docker Engine is the banner's 503.
  assert.match(await deploy.getByTestId('field-error-source.image').or(deploy.getByRole('alert')).first().innerText(), /lnm-no-such-chaincode|Docker/i);
  assert.ok((await api('GET', `/sc/consortium/chaincodes?networkId=${networkId}`)).json.items.every((c: { name: string }) => c.name !== 'imageassets'), 'nothing recorded for a missing image');
});

t('the lifecycle one step at a time on the page: a definition recorded, each step before its turn refused with the 409\'s reason, then install, approve and commit; the chaincode answers', async () => {
  assert.ok(networkId > 0, 'the network of the first test');
  const deploy = page.getByRole('form', { name: 'Deploy a chaincode' });
  await deploy.getByLabel('Source').selectOption('sample');
  await deploy.getByLabel('Chaincode name').fill('stepassets');
  await deploy.getByLabel('Version').fill('1.0');
  await deploy.getByRole('button', { name: 'Record only (steps below)' }).click();
  await deploy.getByRole('status').getByText('Recorded stepassets 1.0 (sequence 1)', { exact: false }).waitFor({ timeout: 60_000 });
  const recorded = async () => (await api('GET', `/sc/consortium/chaincodes?networkId=${networkId}&name=stepassets`)).json.items[0];
  const recordShows = (what: string, ok: (r: any) => boolean) => until(`the record: ${what}`, async () => { const r = await recorded(); return r && ok(r) ? r : null; }, 30_000);
  await recordShows('registered, nothing sent to a peer', (r) => r.status === 'registered' && r.installed_on.length === 0);

  const steps = page.getByRole('region', { name: 'Step by step' });
  await steps.getByLabel('Chaincode record').selectOption({ label: 'stepassets 1.0 (sequence 1, registered)' });
  assert.match(await steps.getByLabel(/^Peer/).locator('option:checked').innerText(), /^console-peer0 \(ConsoleOrgMSP, running, joined\)$/);
  /** The n-th step's answer, as shown, must match. */
  const answer = async (n: number, shown: RegExp, timeout: number) => {
    const outcome = steps.getByRole('list', { name: 'Step answers' }).getByTestId('step-answer').nth(n).getByTestId('step-outcome');
    await outcome.waitFor({ timeout });
    assert.match(await outcome.innerText(), shown);
  };

  // Approve before install: the 409 names the missing step.
  await steps.getByRole('button', { name: 'Approve for its organization' }).click();
  await answer(0, /^Refused \(HTTP 409, CHAINCODE_NOT_INSTALLED\): Chaincode stepassets 1\.0 .* is not installed on peer console-peer0: install it on the peer first/, 120_000);
  await ui.accessible('a step refused');
  await steps.getByRole('button', { name: 'Install on the peer' }).click();
  await answer(1, /^Installed on console-peer0 \(ConsoleOrgMSP\): package \S+:[0-9a-f]{64}$/, 180_000);
  await recordShows('installed on the peer', (r) => r.installed_on.length === 1);
  // Commit before approve: the 409 names the organizations missing.
  await steps.getByRole('button', { name: 'Commit', exact: true }).click();
  await answer(2, /^Refused \(HTTP 409, APPROVALS_MISSING\): .*still missing: ConsoleOrgMSP\./, 120_000);
  await steps.getByRole('button', { name: 'Approve for its organization' }).click();
  await answer(3, /^Approve for ConsoleOrgMSP: approved \(sequence 1\), transaction [0-9a-f]{64} in block #\d+$/, 120_000);
  await recordShows('approved by ConsoleOrgMSP', (r) => JSON.stringify(r.approved_by) === '["ConsoleOrgMSP"]');
  await steps.getByRole('button', { name: 'Commit', exact: true }).click();
  await answer(4, /^Commit: committed \(sequence 1\), approved by ConsoleOrgMSP, transaction [0-9a-f]{64} in block #\d+; chaincode server running$/, 240_000);
  const record = await recordShows('committed', (r) => r.status === 'committed');
  await page.getByRole('row', { name: /stepassets 1\.0 1 committed/ }).waitFor({ timeout: 30_000 });
  const created = await api('POST', `/sc/consortium/chaincodes/${record.id}/invoke`, { function: 'CreateAsset', args: ['step1', 'red', '2', 'Cy', '20'] });
  assert.is(created.status, 200, created.text);
  const read = await api('POST', `/sc/consortium/chaincodes/${record.id}/query`, { function: 'ReadAsset', args: ['step1'] });
  assert.is(read.status, 200, read.text);
  assert.is((read.json.result_json ?? JSON.parse(read.json.result)).owner, 'Cy');
  await ui.accessible('chaincode steps');
  await screenshot(page, 'consortium-chaincode-steps');
});

withDocker('the sample deployed from its chaincode-as-a-service image on the page: its server is a container of that image; invoked and queried on the page', async () => {
  assert.ok(networkId > 0, 'the network of the first test');
  const deploy = page.getByRole('form', { name: 'Deploy a chaincode' });
  await deploy.getByLabel('Source').selectOption('image');
  await deploy.getByLabel(/^Image/).fill(SAMPLE_IMAGE);
  await deploy.getByLabel('Chaincode name').fill('imageassets');
  await deploy.getByLabel('Version').fill('1.0');
  await deploy.getByRole('button', { name: 'Deploy', exact: true }).click();
  await Promise.race([deploy.getByRole('status').getByText(/^Deployed imageassets 1\.0 .*commit committed, server running/).waitFor({ timeout: 240_000 }), deploy.getByRole('alert').waitFor({ timeout: 240_000 })]);
  if (await deploy.getByRole('alert').count()) assert.unreachable(`the image deploy was refused: ${await deploy.getByRole('alert').innerText()}`);
  const record = (await api('GET', `/sc/consortium/chaincodes?networkId=${networkId}&name=imageassets`)).json.items[0];
  assert.is(record?.status, 'committed');
  assert.equal(record.source, { kind: 'image', image: SAMPLE_IMAGE });
  const server = (await api('GET', `/nodes/${record.server_node_id}`)).json;
  assert.is(server.status, 'running');
  const container = (await ourContainers()).find((c) => c.Labels['lnm.node'] === `node-${record.server_node_id}`);
  assert.ok(container, 'the chaincode server is a container');
  assert.is(container!.Image, SAMPLE_IMAGE);
  const logs = async () => String(await docker.getContainer(container!.Id).logs({ stdout: true, stderr: true, tail: 30 })).slice(-3000);
  assert.is(container!.State, 'running', `the container ${container!.Status}: ${await logs()}`);

  const run = page.getByRole('form', { name: 'Invoke or query' });
  await run.getByLabel(/^Chaincode/).selectOption({ label: 'imageassets 1.0' });
  await run.getByLabel('Function').fill('CreateAsset');
  await run.getByLabel('Arguments (JSON array)').fill('["img1", "black", 9, "Di", 90]');
  await run.getByRole('button', { name: 'Invoke (submit)' }).click();
  const answer = run.getByRole('status', { name: 'Chaincode answer' });
  await answer.getByText(/Invoked: VALID in block #\d+/).waitFor({ timeout: 120_000 });
  assert.equal(JSON.parse(await run.getByTestId('chaincode-result').innerText()), { id: 'img1', color: 'black', size: 9, owner: 'Di', value: 90 });
  await run.getByLabel('Function').fill('ReadAsset');
  await run.getByLabel('Arguments (JSON array)').fill('["img1"]');
  await run.getByRole('button', { name: 'Query (evaluate)' }).click();
  await answer.getByText('Query answered (as ConsoleOrgMSP)').waitFor({ timeout: 60_000 });
  assert.equal(JSON.parse(await run.getByTestId('chaincode-result').innerText()).owner, 'Di');
  // The ledger has it: read back through the API.
  const read = await api('POST', `/sc/consortium/chaincodes/${record.id}/query`, { function: 'ReadAsset', args: ['img1'] });
  assert.is((read.json.result_json ?? JSON.parse(read.json.result)).value, 90, read.text);
  await ui.accessible('image chaincode invoked');
});

t.run();
