// The console's consenter removal on a SmartBFT channel (issue 37 items 3 and 9) in Chromium on
// real Fabric 3.1 (a counted skip without a 3.1 release, LNM_FABRIC_RELEASES or LNM_FABRIC_BIN, or
// without Chromium): a BFT channel of six consenters of Org1MSP and a peer, made over the API. One
// consenter is removed from the network page (the dry run's diff first, then Submit); the service
// rejoins it as a follower from the newest config block (DELETE .../consenters/{nodeId} answers
// `rejoined`) and the page says so beside the outcome (its relation, status, height and the steps),
// and the consenters table no longer lists it. The channel commits after. Then a second instance B
// holds Org2, shared with A and added as orderer organization, so /Channel/Orderer/Admins needs
// Org2's admin too: removing another consenter from the page shows Org2MSP missing and becomes a
// signing proposal ("Ask the other organizations to sign", detached signatures); Org2's signature
// is made by B's key API and uploaded; "Submit the update" on the proposal's page says the orderer
// rejoined as a follower there too; recorded on the proposal, its GET, the proposal list (API and
// the console's badge) and the audit log say so too.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { chromiumMissing } from '../../helpers/browser.ts';
import type { ConsoleSession } from '../../helpers/consoleSession.ts';
import { apiOf, channelCommits, channelConfigOf, fabric31, peerHeight, until } from '../consortium/consortiumApi.ts';
import { bftChannel, secondInstanceOrdererOrganization, signatureOfOrg2 } from '../sharing/bftRejoinKit.ts';
import { shownDiff, submitChange } from './configChangePanel.ts';
import { fabricConsoleSession } from './fabricConsole.ts';

const t = requiresAll(suite('console: a SmartBFT consenter removed and rejoined as a follower (real Fabric 3.1, Chromium)'), ['chromium', chromiumMissing()], ['fabric-3', fabric31.skip]);
const v31 = fabric31.version;
let server: TestServer;
let b: TestServer;
const api = apiOf(() => server);
const apiB = apiOf(() => b);
let ui: ConsoleSession;
let page: Page;
const channel = 'bftrejoinui';
const orderers: any[] = [];
let peer: any;
let networkId = 0;
const height = () => peerHeight(api, networkId);
/** Both instances: 3.1 orderers as processes, the instance-to-instance sharing listener on. */
const env = () => fabric31.env({ LNM_SHARING_PORT: '0' });
const commits = channelCommits(api, () => networkId, 'Org1MSP', () => peer.config.port, height);

fabricConsoleSession(t, env, (s) => ({ ui, server, page } = s), async () => {
  await b?.stop();
});

t('a consenter removed from the page: the diff first, then Submit; the page says it rejoined as a follower; the channel commits', async () => {
  // Made in the test, not in before (uvu drops a before hook's error).
  const made = await bftChannel(api, 'bftr', channel, 6, v31);
  orderers.push(...made.orderers);
  ({ peer, networkId } = made);
  await commits('on the new channel');

  const removed = orderers[5];
  await ui.signIn();
  await page.goto(`${server.url}/networks/consortium/${networkId}`);
  await page.getByTestId(`relation-${removed.config.port}`).getByText('consenter', { exact: true }).waitFor({ timeout: 90_000 });
  await page.getByRole('button', { name: `Remove ${removed.name} from the consenters` }).click();
  const change = page.getByRole('form', { name: `Remove ${removed.name} from the consenters` });
  const diff = await shownDiff(change);
  assert.ok(diff.some(([p, b, a]) => p.endsWith('consenter_mapping[]') && b !== '—' && a === '—'), JSON.stringify(diff));
  assert.match(await submitChange(change), /^Updated: configuration sequence \d+, block \d+, signed by Org1MSP\.$/);
  const rejoined = change.getByTestId('rejoined');
  await rejoined.waitFor({ timeout: 30_000 });
  assert.match(await rejoined.innerText(), /^The orderer rejoined the channel as a follower \(\w+, height \d+\): it keeps pulling the chain but no longer orders/);
  const steps = await rejoined.getByTestId('rejoined-steps').getByRole('listitem').allInnerTexts();
  assert.is(steps.length, 2, JSON.stringify(steps));
  assert.match(steps[1], /^joined again with block \d+, the channel's newest config block: follower, /);
  await ui.accessible('a BFT consenter removal with its rejoin said');
  const c = await channelConfigOf(api, networkId, channel);
  assert.is(c.group.groups.Orderer.values.Orderers.value.consenter_mapping.length, 5);
  await page.getByTestId(`relation-${removed.config.port}`).waitFor({ state: 'detached', timeout: 30_000 });
  await change.getByRole('button', { name: 'Close' }).click();
  await commits('with five consenters');
});

t('Org2 of instance B an orderer organization: another consenter removed from the page becomes a proposal; submitted from its page, which says the orderer rejoined as a follower', async () => {
  assert.ok(networkId, 'the channel of the first test');
  b = await startServer({ env: env(), timeoutMs: 180_000 });
  const org2 = await secondInstanceOrdererOrganization(api, apiB, networkId, channel);
  await commits('with Org2 an orderer organization');

  const removed = orderers[4];
  await page.goto(`${server.url}/networks/consortium/${networkId}`);
  await page.getByTestId(`relation-${removed.config.port}`).getByText('consenter', { exact: true }).waitFor({ timeout: 90_000 });
  await page.getByRole('button', { name: `Remove ${removed.name} from the consenters` }).click();
  const change = page.getByRole('form', { name: `Remove ${removed.name} from the consenters` });
  await shownDiff(change);
  assert.is(await change.getByTestId('missing-organizations').innerText(), 'Org2MSP');
  const ask = change.getByRole('group', { name: 'Ask the other organizations to sign' });
  await ask.getByLabel(/Detached signatures uploaded here/).check();
  await ask.getByRole('button', { name: 'Ask the other organizations to sign' }).click();
  await ask.getByTestId('proposal-created').waitFor({ timeout: 60_000 });
  await ask.getByRole('link', { name: 'Open the proposal' }).click();
  const id = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);

  // Org2's operator signs on B.
  const update = Buffer.from((await api('GET', `/nodesharing/proposals/${id}/update`)).json.update, 'base64');
  const { header, der } = await signatureOfOrg2(apiB, org2, update);
  const up = await api('POST', `/nodesharing/proposals/${id}/signatures`, { signature_header: header.toString('base64'), signature: der.toString('base64') });
  assert.is(up.status, 200, up.text);

  await page.reload();
  await page.getByTestId('missing-organizations').getByText('none', { exact: true }).waitFor({ timeout: 60_000 });
  await page.getByRole('button', { name: 'Submit the update' }).click();
  const done = page.getByTestId('proposal-submitted').or(page.getByRole('alert'));
  await done.first().waitFor({ timeout: 120_000 });
  assert.match(await done.first().innerText(), /^Submitted: configuration sequence \d+, block \d+, signed by Org1MSP, Org2MSP\./);
  const rejoined = page.getByTestId('rejoined');
  await rejoined.waitFor({ timeout: 30_000 });
  assert.match(await rejoined.innerText(), /^The orderer rejoined the channel as a follower \(\w+, height \d+\)/);
  assert.match((await rejoined.getByTestId('rejoined-steps').getByRole('listitem').allInnerTexts())[1], /^joined again with block \d+, the channel's newest config block: follower, /);
  await ui.accessible('a submitted consenter-removal proposal with its rejoin said');
  assert.is((await channelConfigOf(api, networkId, channel)).group.groups.Orderer.values.Orderers.value.consenter_mapping.length, 4);

  // Recorded on the proposal (ConfigProposalRejoined, audited): its GET and the list say it, and so do the pages on a later visit.
  const got = await api('GET', `/nodesharing/proposals/${encodeURIComponent(id)}`);
  assert.is(got.status, 200, got.text);
  assert.is(got.json.rejoined?.consensus_relation, 'follower', got.text);
  assert.match(got.json.rejoined.steps[1], /^joined again with block \d+, the channel's newest config block: follower, /);
  const listed = (await api('GET', '/nodesharing/proposals')).json.items.find((x: any) => x.id === id);
  assert.equal(listed?.rejoined, got.json.rejoined);
  await until('the rejoin in the audit log', async () => {
    const audit = await api('GET', '/audit-logs?resource_type=config_proposal&limit=100');
    assert.is(audit.status, 200, audit.text);
    return audit.json.items.some((e: any) => e.resource_id === id && e.details?.event === 'proposal.consenter.rejoined' && e.details?.nodeId === removed.id && e.details?.consensusRelation === 'follower') || null;
  }, 30_000, 1000);
  await page.reload();
  await page.getByTestId('rejoined').waitFor({ timeout: 30_000 });
  assert.match(await page.getByTestId('rejoined').innerText(), /^The orderer rejoined the channel as a follower \(\w+, height \d+\)/);
  await page.getByRole('link', { name: 'All proposals (node sharing)' }).click();
  const badge = page.getByTestId(`proposal-rejoined-${id}`);
  await badge.waitFor({ timeout: 30_000 });
  assert.is(await badge.innerText(), `orderer rejoined as follower (height ${got.json.rejoined.height})`);
  assert.is(await page.getByTestId(`proposal-status-${id}`).innerText(), 'submitted');
  await ui.accessible('the proposal list with a removed consenter\'s rejoin');
  await commits('with four consenters');
});

t.run();
