// The channel page's ACL and orderer/channel policy panel in Chromium against real Fabric 2.5
// (one raft orderer and one peer of Org1MSP, made over the API): the Application ACLs are shown
// as the orderer serves them; an ACL change is first a dry run whose diff is shown (nothing
// submitted), then submitted from the page and in the API's config afterwards; an orderer policy
// naming an MSP id outside the orderer group is refused, said beside the rule.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import type { TestServer } from '../../helpers/server.ts';
import { fabricMissing } from '../../helpers/fabric.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { chromiumMissing } from '../../helpers/browser.ts';
import type { ConsoleSession } from '../../helpers/consoleSession.ts';
import { apiOf, consortiumEnv, oneOrganizationChannel, until } from '../consortium/consortiumApi.ts';
import { fabricConsoleSession } from './fabricConsole.ts';

const t = requiresAll(suite('console: ACLs and orderer/channel policies (real Fabric 2.5, Chromium)'), ['chromium', chromiumMissing()], ['fabric', fabricMissing]);
let server: TestServer;
const api = apiOf(() => server);
let ui: ConsoleSession;
let page: Page;
let networkId: number;
const config = async () => (await api('GET', `/networks/consortium/${networkId}/channel-config`)).json;

fabricConsoleSession(t, () => consortiumEnv(), (s) => ({ ui, server, page } = s));

t('an ACL: shown, its dry run diff seen first (nothing submitted), then submitted and in the config; a bad orderer rule said beside it', async () => {
  networkId = (await oneOrganizationChannel(api, 'aclconsole', 'aclconsole')).network.id;

  await ui.signIn();
  await page.goto(`${server.url}/networks/consortium/${networkId}`);
  await page.getByTestId('acl-qscc/GetChainInfo').getByText('/Channel/Application/Readers').waitFor({ timeout: 60_000 });
  const before = (await config()).sequence;

  const form = page.getByRole('form', { name: 'Set an ACL' });
  await form.getByLabel('Resource').selectOption('qscc/GetChainInfo');
  await form.getByLabel('Policy reference').fill('/Channel/Application/Admins');
  await form.getByRole('button', { name: 'Preview the ACL change' }).click();
  const diff = form.getByTestId('config-diff');
  await diff.waitFor({ timeout: 60_000 });
  assert.match(await diff.innerText(), /acls\.qscc\/GetChainInfo\.policy_ref\s+"\/Channel\/Application\/Readers"\s+"\/Channel\/Application\/Admins"/);
  assert.is((await config()).sequence, before, 'the preview submits nothing');
  await until('the ACL submitted', async () => {
    await form.getByRole('button', { name: /^Submit: / }).click();
    const shown = form.getByTestId('policy-outcome').or(form.getByRole('alert'));
    await shown.first().waitFor({ timeout: 60_000 });
    if (await form.getByTestId('policy-outcome').count()) return true;
    const refusal = await form.getByRole('alert').innerText();
    if (!/unavailable|leader|503|try again/i.test(refusal)) assert.unreachable(`refused: ${refusal}`);
    return null;
  }, 120_000, 2000);
  assert.match(await form.getByTestId('policy-outcome').innerText(), /^Updated: configuration sequence \d+/);
  const after = await config();
  assert.ok(after.sequence > before);
  assert.is(after.config.channel_group.groups.Application.values.ACLs.value.acls['qscc/GetChainInfo'].policy_ref, '/Channel/Application/Admins');
  await page.getByTestId('acl-qscc/GetChainInfo').getByText('/Channel/Application/Admins').waitFor({ timeout: 30_000 });

  const policy = page.getByRole('form', { name: 'Change an orderer or channel policy' });
  await policy.getByLabel('Type').selectOption('Signature');
  await policy.getByLabel('Rule').fill("OR('Org9MSP.member')");
  await policy.getByRole('button', { name: 'Preview the Writers change' }).click();
  await policy.getByTestId('field-error-ordererPolicies.Writers').waitFor({ timeout: 30_000 });
  assert.match(await policy.getByTestId('field-error-ordererPolicies.Writers').innerText(), /Org9MSP/);
  await ui.accessible('the channel ACLs and policies');
});

t.run();
