// The signing-proposals pages of the console, in Chromium against two real servers (pro, sharing
// listeners) and real Fabric 2.5: A holds organization A and the orderer, B holds organizations B
// and C, all three in A's channel, whose /Channel/Application/Admins is MAJORITY (2 of 3).
// On A's channel page the policy editor shows who the new rule counts, the dry run shows the diff
// and that B and C are missing (1 more signature), and "Ask the other organizations to sign"
// makes the proposal; its page shows A's signature collected, 1 more needed, submit disabled
// naming the missing organizations, and a damaged signed file refused with its reason. On B's
// page the received proposal is signed with B only; back on A's proposal page B's signature is
// listed, submit succeeds, and the channel's config (API and channel page) has the new policy.
// The MSP form offers the same: a root CA for B previewed on A (B's admin missing) is made a proposal;
// so do the ACL and the orderer/channel policy forms (they offered only a disabled submit before).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { ADMIN, type TestServer } from '../../helpers/server.ts';
import { fabricMissing, testOrganization } from '../../helpers/fabric.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { axeViolations, chromiumMissing, describeViolations } from '../../helpers/browser.ts';
import type { ConsoleSession } from '../../helpers/consoleSession.ts';
import type { SharedChannelPair } from '../sharing/sharedChannelPair.ts';
import { startSharedChannelConsole, type SharedChannelConsole } from './sharedChannelConsole.ts';

const t = requiresAll(suite('console: a 2-of-3 channel change proposed, signed across instances and submitted from its page (real Fabric 2.5, Chromium)'), ['chromium', chromiumMissing()], ['fabric', fabricMissing]);
let pair: SharedChannelPair;
let a: TestServer;
let ui: ConsoleSession;
let page: Page;
let networkId = 0;
let bUrl = '';
let session: SharedChannelConsole | undefined;

// Started in a test, not a before hook (uvu drops a hook's error).
t('two instances: A holds organization A and the orderer, B holds B and C, all three in A\'s channel', async () => {
  session = await startSharedChannelConsole({ prefix: 'Sgn', channelName: 'sgnchannel', chaincodePorts: [9640, 9940], thirdOrganization: true });
  ({ pair, ui, page, bUrl } = session);
  ({ a, networkId } = pair);
});

t.after(async () => {
  await session?.stop();
});

t('policy editor and dry run on the channel page, the proposal page with 1 more needed, B signs on its page, submitted on A\'s; the channel has the policy', async () => {
  await ui.signIn(ADMIN, { url: a.url });
  await page.goto(`${a.url}/networks/consortium/${networkId}`);
  const changes = page.getByRole('region', { name: 'Change the configuration' });
  await changes.waitFor({ timeout: 60_000 });
  await changes.getByRole('button', { name: 'A policy' }).click();
  const form = changes.getByRole('form', { name: 'Change a policy' });
  await form.getByRole('combobox', { name: /^Policy/ }).selectOption('Endorsement');
  await form.getByLabel('Type').selectOption('ImplicitMeta');
  await form.getByLabel('Rule').fill('ANY Endorsement');
  // Who the new rule counts, and who must sign the change itself.
  assert.is(await form.getByTestId('rule-counts').innerText(), 'Who must sign under this rule: 1 of 3 of SgnOrgAMSP, SgnOrgBMSP, SgnOrgCMSP (their Endorsement policies).');
  assert.match(await form.getByTestId('signatures-needed').innerText(), /\/Channel\/Application\/Admins \(MAJORITY Admins\), admins of SgnOrgAMSP, SgnOrgBMSP, SgnOrgCMSP: this service does not hold the admin of SgnOrgBMSP, SgnOrgCMSP \(1 more signature needed\)/);
  await form.getByRole('button', { name: 'Show the diff and who must sign' }).click();
  const review = form.getByRole('form', { name: 'Change policy Endorsement of channel sgnchannel' });
  await review.getByTestId('config-diff').waitFor({ timeout: 60_000 });
  const diff = await review.getByTestId('config-diff').innerText();
  assert.ok(/Endorsement/.test(diff) && /ANY/.test(diff), diff);
  assert.is(await review.getByTestId('required-organizations').innerText(), 'SgnOrgAMSP, SgnOrgBMSP, SgnOrgCMSP');
  assert.is(await review.getByTestId('held-organizations').innerText(), 'SgnOrgAMSP');
  assert.is(await review.getByTestId('missing-organizations').innerText(), 'SgnOrgBMSP, SgnOrgCMSP');
  assert.match(await review.getByTestId('unmet-policies').innerText(), /\/Channel\/Application\/Admins \(MAJORITY Admins\): 1 more signature needed, from SgnOrgBMSP or SgnOrgCMSP/);
  const ask = review.getByRole('group', { name: 'Ask the other organizations to sign' });
  await ask.getByLabel(/^What the signers are asked/).fill('endorsement by any organization');
  await ask.getByRole('button', { name: 'Ask the other organizations to sign' }).click();
  const created = ask.getByTestId('proposal-created').or(ask.getByRole('alert'));
  await created.waitFor({ timeout: 60_000 });
  const text = await created.innerText();
  const id = /^Proposal (\S+):/.exec(text)?.[1];
  assert.ok(id, text);
  assert.match(text, /signed by SgnOrgAMSP, waiting for SgnOrgBMSP, SgnOrgCMSP\./);
  let v = await axeViolations(page);
  assert.is(v.length, 0, describeViolations(v));

  await ask.getByRole('link', { name: 'Open the proposal' }).click();
  await page.getByRole('heading', { name: `Signing proposal ${id}` }).waitFor();
  await page.getByTestId('missing-organizations').getByText('SgnOrgBMSP, SgnOrgCMSP', { exact: true }).waitFor({ timeout: 60_000 });
  assert.is(await page.getByTestId('proposal-kinds').innerText(), 'policies');
  assert.match(await page.getByTestId('unmet-policies').innerText(), /1 more signature needed/);
  assert.is(await page.getByTestId('held-organizations').innerText(), 'SgnOrgAMSP');
  const signatures = page.getByRole('table', { name: 'Signatures collected' });
  assert.match(await signatures.getByRole('row', { name: /SgnOrgAMSP/ }).innerText(), /signed here/);
  const submit = page.getByRole('button', { name: 'Submit the update' });
  assert.ok(await submit.isDisabled(), 'submit is disabled while the policy is unmet');
  assert.is(await page.getByTestId('submit-waiting').innerText(), 'Waiting for the signatures of SgnOrgBMSP, SgnOrgCMSP: the policy is not met yet.');
  // A file that is not a signed config update is refused with the reason.
  const upload = page.getByRole('form', { name: 'Upload a detached signature' });
  await upload.getByLabel('Or the signed file as base64').fill(Buffer.from('not a signconfigtx file').toString('base64'));
  await upload.getByRole('button', { name: 'Upload the signature' }).click();
  const refused = upload.getByTestId('signature-refused').or(upload.getByRole('alert'));
  await refused.waitFor({ timeout: 30_000 });
  assert.match(await refused.innerText(), /^Refused: /);
  v = await axeViolations(page);
  assert.is(v.length, 0, describeViolations(v));

  // B signs with B only (it also holds C): 2 of 3.
  await ui.signIn(ADMIN, { url: bUrl });
  await page.goto(bUrl + '/sharing');
  const row = page.getByRole('row', { name: new RegExp(id!) });
  await row.getByRole('button', { name: `Sign ${id} with SgnOrgBMSP only` }).click({ timeout: 30_000 });
  await page.getByRole('status').getByText('Signed by SgnOrgBMSP; the signature went back to the proposer.').waitFor({ timeout: 60_000 });

  await page.goto(`${a.url}/sharing/proposals/${id}`);
  await signatures.getByRole('row', { name: /SgnOrgBMSP/ }).getByText('sent back by the sharing peer').waitFor({ timeout: 60_000 });
  assert.is(await page.getByTestId('missing-organizations').innerText(), 'none');
  const before = (await pair.apiA('GET', `/networks/consortium/${networkId}/channel-config`)).json.sequence;
  await submit.click();
  const done = page.getByTestId('proposal-submitted').or(page.getByRole('alert'));
  await done.waitFor({ timeout: 60_000 });
  assert.match(await done.innerText(), /^Submitted: configuration sequence \d+, block \d+, signed by SgnOrgAMSP, SgnOrgBMSP\./);
  const after = (await pair.apiA('GET', `/networks/consortium/${networkId}/channel-config`)).json;
  assert.ok(after.sequence > before, `${after.sequence} > ${before}`);
  assert.is(after.config.channel_group.groups.Application.policies.Endorsement.policy.value.rule, 'ANY');
  await page.goto(`${a.url}/networks/consortium/${networkId}`);
  await page.getByTestId('policy-Endorsement').getByText('ImplicitMeta: ANY Endorsement').waitFor({ timeout: 60_000 });
});

t('the MSP form: a new root CA for B previewed on A is made a signing proposal waiting for B', async () => {
  const root = await testOrganization('SgnOrgBMSP', 'newsgnorgb.example.com');
  await page.goto(`${a.url}/networks/consortium/${networkId}`);
  const section = page.getByRole('region', { name: 'Update an organization\'s MSP' });
  await section.waitFor({ timeout: 60_000 });
  await section.getByLabel('Organization').selectOption('SgnOrgBMSP');
  await section.getByLabel('Root CA certificates to add').fill(root.signCa.certPem);
  await section.getByRole('button', { name: 'Preview the update' }).click();
  const review = section.getByRole('form', { name: 'Update the MSP of SgnOrgBMSP in channel sgnchannel' });
  await review.getByTestId('missing-organizations').waitFor({ timeout: 60_000 });
  assert.is(await review.getByTestId('missing-organizations').innerText(), 'SgnOrgBMSP');
  const ask = review.getByRole('group', { name: 'Ask the other organizations to sign' });
  await ask.getByRole('button', { name: 'Ask the other organizations to sign' }).click({ timeout: 30_000 });
  const created = ask.getByTestId('proposal-created').or(ask.getByRole('alert'));
  await created.waitFor({ timeout: 60_000 });
  assert.match(await created.innerText(), /^Proposal \S+: signed by no one yet, waiting for SgnOrgBMSP\./);
  const proposals = (await pair.apiA('GET', '/nodesharing/proposals')).json.items;
  assert.ok(proposals.some((p: { kinds: string[] }) => p.kinds.includes('mspUpdate')), JSON.stringify(proposals));
});

t('the ACL and the orderer/channel policy forms: a change A cannot sign alone is offered as a signing proposal, not a disabled submit', async () => {
  await page.goto(`${a.url}/networks/consortium/${networkId}`);
  const section = page.getByRole('region', { name: 'Orderer and channel policies, ACLs' });
  await section.waitFor({ timeout: 60_000 });
  const kindsBefore = ((await pair.apiA('GET', '/nodesharing/proposals')).json.items as Array<{ kinds: string[] }>).length;
  // An ACL: the Application's ACLs are signed for under /Channel/Application/Admins (MAJORITY of 3).
  const acl = section.getByRole('form', { name: 'Set an ACL' });
  await acl.getByLabel('Resource').selectOption('qscc/GetChainInfo');
  await acl.getByLabel('Policy reference').fill('/Channel/Application/Admins');
  await acl.getByRole('button', { name: 'Preview the ACL change' }).click();
  const aclPreview = acl.getByTestId('policy-preview');
  await aclPreview.getByTestId('config-diff').waitFor({ timeout: 60_000 });
  assert.match(await aclPreview.innerText(), /still missing the admin signatures of SgnOrgBMSP, SgnOrgCMSP/);
  assert.is(await acl.getByRole('button', { name: /^Submit:/ }).count(), 0, 'no submit that could only be refused');
  const askAcl = aclPreview.getByRole('group', { name: 'Ask the other organizations to sign' });
  await askAcl.getByRole('button', { name: 'Ask the other organizations to sign' }).click({ timeout: 30_000 });
  const aclCreated = askAcl.getByTestId('proposal-created').or(askAcl.getByRole('alert'));
  await aclCreated.waitFor({ timeout: 60_000 });
  assert.match(await aclCreated.innerText(), /^Proposal \S+: signed by SgnOrgAMSP, waiting for SgnOrgBMSP, SgnOrgCMSP\./);
  // A channel policy: /Channel's are signed for under /Channel/Admins (MAJORITY of Application and Orderer Admins).
  const level = section.getByRole('form', { name: 'Change an orderer or channel policy' });
  await level.getByRole('combobox', { name: /^Group/ }).selectOption({ label: 'Channel (/Channel)' });
  await level.getByRole('combobox', { name: /^Policy/ }).selectOption('Readers');
  await level.getByRole('combobox', { name: /^Type/ }).selectOption('ImplicitMeta');
  await level.getByLabel('Rule').fill('MAJORITY Readers');
  await level.getByRole('button', { name: 'Preview the Readers change' }).click();
  const levelPreview = level.getByTestId('policy-preview');
  const levelAnswer = levelPreview.getByTestId('config-diff').or(level.getByRole('alert')).or(levelPreview.getByText('Nothing to change'));
  await levelAnswer.waitFor({ timeout: 60_000 });
  assert.is(await levelPreview.getByTestId('config-diff').count(), 1, await level.innerText());
  const askLevel = levelPreview.getByRole('group', { name: 'Ask the other organizations to sign' });
  await askLevel.getByRole('button', { name: 'Ask the other organizations to sign' }).click({ timeout: 30_000 });
  const levelCreated = askLevel.getByTestId('proposal-created').or(askLevel.getByRole('alert'));
  await levelCreated.waitFor({ timeout: 60_000 });
  assert.match(await levelCreated.innerText(), /^Proposal \S+: signed by SgnOrgAMSP, waiting for /);
  const items = (await pair.apiA('GET', '/nodesharing/proposals')).json.items as Array<{ kinds: string[] }>;
  console.log(`  proposals' kinds: ${JSON.stringify(items.map((p) => p.kinds))}`);
  assert.is(items.length, kindsBefore + 2, 'two proposals made');
  const v = await axeViolations(page);
  assert.is(v.length, 0, describeViolations(v));
});

t.run();
