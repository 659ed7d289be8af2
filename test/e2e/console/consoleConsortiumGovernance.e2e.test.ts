// The console's channel governance on real Fabric 2.5 (issue 37 item 9) in Chromium: a channel of
// two organizations (one raft orderer, a peer each) made over the API and a second orderer that
// joined as a follower; on the network page the ordering health is the API's; the follower is
// added as consenter with the dry run's diff seen first (nothing submitted by it), then removed the
// same way; an orderer that is a consenter leaves the channel with "Leave channel", the steps it
// took listed (consenter removal, then the channel removed from it); an application organization is
// removed with "Remove an organization", its diff first. The channel commits a new config block
// (an anchor peer update, read from Org1's peer) after each change. axe-core checks the pages.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import type { TestServer } from '../../helpers/server.ts';
import { fabricMissing } from '../../helpers/fabric.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { chromiumMissing, screenshot } from '../../helpers/browser.ts';
import type { ConsoleSession } from '../../helpers/consoleSession.ts';
import { apiOf, channelCommits, consortiumEnv, joinedFollower, twoOrganizationChannel, until } from '../consortium/consortiumApi.ts';
import { shownDiff, submitChange as submit } from './configChangePanel.ts';
import { fabricConsoleSession } from './fabricConsole.ts';

const t = requiresAll(suite('console: channel consenters, leaving and organization removal (real Fabric 2.5, Chromium)'), ['chromium', chromiumMissing()], ['fabric', fabricMissing]);
let server: TestServer;
const api = apiOf(() => server);
let ui: ConsoleSession;
let page: Page;
let setup: Awaited<ReturnType<typeof twoOrganizationChannel>>;
let orderer1: { id: number; name: string; config: { port: number } };
let base: string;

interface Consenter { port: number; node_id: number | null; consensus_relation: string | null; certificate_current: boolean | null }
const consenters = async (): Promise<{ sequence: number; consenters: Consenter[] }> => {
  const r = await api('GET', `${base}/consenters`);
  assert.is(r.status, 200, r.text);
  return r.json;
};
/** Org1's peer's ledger height on the channel, read live from it (Org2's peer stops getting blocks once Org2 is removed). */
const height = async () => {
  const r = await api('GET', `/nodes/${setup.peer1.id}`);
  const h = (r.json?.networks as Array<{ network_id: number; block_height?: number }> | undefined)?.find((n) => n.network_id === setup.network.id)?.block_height;
  return typeof h === 'number' ? h : null;
};
/** The channel orders: an anchor peer update of Org1 commits a config block a peer then has. */
const commits = channelCommits(api, () => setup.network.id, 'Org1MSP', () => setup.peer1.config.port, height);

fabricConsoleSession(t, () => consortiumEnv(), (s) => ({ ui, server, page } = s));

t('the network page shows the ordering health as the API reads it; the consenters list with relation and certificate', async () => {
  // Made in the test, not in before (uvu drops a before hook's error).
  setup = await twoOrganizationChannel(api, 'gov-console', 'govconsole');
  base = `/networks/consortium/${setup.network.id}/channels/govconsole`;
  orderer1 = await joinedFollower(api, setup.network.id, setup.org1.id);

  await ui.signIn();
  await page.goto(`${server.url}/networks/consortium/${setup.network.id}`);
  const ordering = (await api('GET', `/networks/consortium/${setup.network.id}`)).json.ordering;
  assert.equal(ordering, { orderers: 2, running: 2, faults_tolerated: 0, quorum: 2, can_order: true, reason: null });
  const health = page.getByTestId('ordering-health');
  await health.getByText('Can order', { exact: true }).waitFor();
  assert.match(await health.innerText(), /^Can order 2 of 2 raft orderers running; 2 needed, tolerates 0 faults \(crash\)\.$/);

  const table = page.getByTestId('consenters');
  await page.getByTestId(`relation-${setup.orderer.config.port}`).getByText('consenter', { exact: true }).waitFor({ timeout: 60_000 });
  assert.is(await table.locator('tbody tr').count(), 1);
  assert.match(await table.locator('tbody tr').first().innerText(), new RegExp(`127\\.0\\.0\\.1:${setup.orderer.config.port}\\s+orderer0\\s+running\\s+consenter\\s+current`));
  await ui.accessible('the consenters of a channel');
});

t('the follower added as consenter from the page: the dry run\'s diff first (nothing submitted), then Submit; then removed the same way; the channel commits after each', async () => {
  assert.ok(orderer1, 'the orderer of the first test');
  const before = await consenters();
  await page.getByRole('button', { name: 'Add orderer1 as consenter' }).click();
  const change = page.getByRole('form', { name: 'Add orderer1 as consenter' });
  const diff = await shownDiff(change);
  const added = diff.filter(([path, b]) => path.endsWith('consenters[]') && b === '—');
  assert.is(added.length, 1, JSON.stringify(diff));
  assert.match(added[0][2], new RegExp(`^127\\.0\\.0\\.1:${orderer1.config.port} with `));
  assert.ok(diff.some(([path, , after]) => path.endsWith('Endpoints.value.addresses[]') && after.includes(`:${orderer1.config.port}`)), JSON.stringify(diff));
  // No signature is missing: this service holds Org1's admin, the only orderer organization.
  assert.is(await change.getByText(/Needs admin signatures/).count(), 0);
  assert.is((await consenters()).sequence, before.sequence, 'the dry run submitted nothing');
  await ui.accessible('a consenter change shown as a dry run');
  await screenshot(page, 'consortium-consenter-dry-run');

  const outcome = await submit(change);
  assert.match(outcome, /^Updated: configuration sequence \d+, block \d+, signed by Org1MSP\.$/);
  await until('orderer1 a consenter', async () => {
    const c = await consenters();
    return c.consenters.length === 2 && c.consenters.find((x) => x.node_id === orderer1.id)?.consensus_relation === 'consenter' ? c : null;
  }, 90_000, 1000);
  await page.getByTestId(`relation-${orderer1.config.port}`).getByText('consenter', { exact: true }).waitFor({ timeout: 60_000 });
  await change.getByRole('button', { name: 'Close' }).click();
  await commits('with two consenters');

  const seq = (await consenters()).sequence;
  await page.getByRole('button', { name: 'Remove orderer1 from the consenters' }).click();
  const removal = page.getByRole('form', { name: 'Remove orderer1 from the consenters' });
  const removedDiff = await shownDiff(removal);
  const removed = removedDiff.filter(([path, , a]) => path.endsWith('consenters[]') && a === '—');
  assert.is(removed.length, 1, JSON.stringify(removedDiff));
  assert.match(removed[0][1], new RegExp(`^127\\.0\\.0\\.1:${orderer1.config.port} with `));
  assert.is((await consenters()).sequence, seq, 'the dry run submitted nothing');
  assert.match(await submit(removal), /^Updated: configuration sequence \d+/);
  assert.equal((await consenters()).consenters.map((c) => c.node_id), [setup.orderer.id]);
  await removal.getByRole('button', { name: 'Close' }).click();
  await commits('after orderer1 left the consenters');
  const audit = (await api('GET', '/audit-logs?action=NETWORK_UPDATE&limit=100')).json.items as Array<{ after: { change?: { kind: string; nodeId: number } } | null }>;
  assert.equal(audit.map((e) => e.after?.change).filter((c) => c && c.kind.endsWith('Consenter')).map((c) => `${c!.kind} ${c!.nodeId}`).sort(), [`addConsenter ${orderer1.id}`, `removeConsenter ${orderer1.id}`]);
});

t('a renewed TLS certificate: the consenters list says "renewed: replace it"; "Replace certificate" shows the diff (the same endpoint, new certificates), then Submit; current again', async () => {
  assert.ok(orderer1, 'the orderer of the first test');
  // Two consenters, as Fabric rotates one's certificate while the other orders (orderer1 added back over the API;
  // the sole consenter's rotation, tried here first, accepted the update and never served the new config).
  await until('orderer1 added again', async () => {
    const r = await api('POST', `${base}/consenters`, { nodeId: orderer1.id });
    if (r.status !== 200 && r.status !== 503) assert.unreachable(r.text);
    return r.status === 200 ? r : null;
  }, 90_000, 2000);
  await until('orderer1 a consenter again', async () => ((await consenters()).consenters.find((x) => x.node_id === orderer1.id)?.consensus_relation === 'consenter' ? true : null), 90_000, 1000);
  await commits('with orderer1 a consenter again');
  const renewed = await api('POST', `/nodes/${setup.orderer.id}/certificates/renew`);
  assert.is(renewed.status, 200, renewed.text);
  await until('orderer0 running again', async () => ((await api('GET', `/nodes/${setup.orderer.id}`)).json?.status === 'running' ? true : null), 60_000, 1000);
  await page.goto(`${server.url}/networks/consortium/${setup.network.id}`);
  const row = page.getByTestId('consenters').locator('tbody tr').filter({ hasText: 'orderer0' });
  await row.getByText('renewed: replace it', { exact: true }).waitFor({ timeout: 60_000 });
  const seq = (await consenters()).sequence;
  await page.getByRole('button', { name: 'Replace certificate of orderer0' }).click();
  const change = page.getByRole('form', { name: 'Replace the TLS certificate of orderer0' });
  const diff = await shownDiff(change);
  const endpoint = `127.0.0.1:${setup.orderer.config.port} with `;
  // The old entry removed and the new one added, at the same host and port.
  assert.ok(diff.some(([path, b, a]) => path.endsWith('consenters[]') && b.startsWith(endpoint) && a === '—'), JSON.stringify(diff));
  assert.ok(diff.some(([path, b, a]) => path.endsWith('consenters[]') && b === '—' && a.startsWith(endpoint)), JSON.stringify(diff));
  assert.is((await consenters()).sequence, seq, 'the dry run submitted nothing');
  await ui.accessible('a certificate replacement shown as a dry run');
  assert.match(await submit(change), /^Updated: configuration sequence \d+/);
  assert.is((await consenters()).consenters.find((c) => c.node_id === setup.orderer.id)?.certificate_current, true);
  await change.getByRole('button', { name: 'Close' }).click();
  await row.getByText('current', { exact: true }).waitFor({ timeout: 30_000 });
  await commits('after the certificate was replaced');
});

t('a consenter leaves the channel with "Leave channel": confirmed, then its steps listed (consenter removal, channel removed); the channel commits without it', async () => {
  assert.ok(orderer1, 'the orderer of the first test');
  // orderer1 is a consenter again (the certificate test added it back), so that its leave has both steps.
  assert.is((await consenters()).consenters.find((x) => x.node_id === orderer1.id)?.consensus_relation, 'consenter');

  await page.goto(`${server.url}/networks/consortium/${setup.network.id}`);
  const outcome = page.getByTestId('leave-outcome');
  await until('orderer1 left through the page', async () => {
    await page.getByRole('button', { name: 'Leave channel: orderer1' }).click();
    const confirm = page.getByRole('group', { name: 'Confirm orderer1 leaving the channel' });
    assert.match(await confirm.innerText(), /removed from the channel's consenters first/);
    await confirm.getByRole('button', { name: 'Leave', exact: true }).click();
    const error = page.getByTestId('leave-error').getByRole('alert');
    await outcome.or(error).first().waitFor({ timeout: 120_000 });
    if (await outcome.count()) return true;
    const refusal = await error.innerText();
    if (!/unavailable|not ready|leader|503|try again/i.test(refusal)) assert.unreachable(`refused: ${refusal}`);
    return null;
  }, 180_000, 2000);
  const steps = await outcome.getByRole('listitem').allInnerTexts();
  assert.is(steps.length, 2, JSON.stringify(steps));
  assert.match(steps[0], /removed from the channel's consenters/);
  assert.match(steps[1], /channel removed from the orderer through its channel participation API/);
  await ui.accessible('an orderer that left the channel');
  await outcome.getByRole('button', { name: 'Close' }).click();
  assert.equal((await consenters()).consenters.map((c) => c.node_id), [setup.orderer.id]);
  const member = ((await api('GET', `/networks/consortium/${setup.network.id}/nodes`)).json.items as Array<{ id: number; networks: Array<{ network_id: number; joined: boolean }> }>).find((m) => m.id === orderer1.id);
  assert.is(member?.networks.find((n) => n.network_id === setup.network.id)?.joined, false, JSON.stringify(member));
  // The page offers it a join again, and no longer a leave.
  await page.getByRole('button', { name: 'Join orderer1 to the channel' }).waitFor({ timeout: 30_000 });
  assert.is(await page.getByRole('button', { name: 'Leave channel: orderer1' }).count(), 0);
  await commits('after orderer1 left');
});

t('a peer leaves the channel with "Leave channel": the confirmation says it is stopped and restarted; its steps listed; it runs again, no longer joined', async () => {
  assert.ok(setup, 'the channel of the first test');
  await page.goto(`${server.url}/networks/consortium/${setup.network.id}`);
  await page.getByRole('button', { name: 'Leave channel: peer0-org2' }).click();
  const confirm = page.getByRole('group', { name: 'Confirm peer0-org2 leaving the channel' });
  assert.match(await confirm.innerText(), /the peer is stopped .* and is restarted/);
  await confirm.getByRole('button', { name: 'Leave', exact: true }).click();
  const outcome = page.getByTestId('leave-outcome');
  await outcome.or(page.getByTestId('leave-error').getByRole('alert')).first().waitFor({ timeout: 180_000 });
  if (!(await outcome.count())) assert.unreachable(`refused: ${await page.getByTestId('leave-error').innerText()}`);
  const steps = await outcome.getByRole('listitem').allInnerTexts();
  // peer0-org2 is Org2's anchor peer: removed from the anchors first, then stopped, unjoined, started.
  assert.match(steps[0], /removed from Org2MSP's anchor peers/);
  assert.ok(steps.some((x) => /^peer stopped/.test(x)), JSON.stringify(steps));
  assert.ok(steps.some((x) => /^peer node unjoin -c govconsole/.test(x)), JSON.stringify(steps));
  assert.match(steps[steps.length - 1], /^peer started again/);
  await ui.accessible('a peer that left the channel');
  await outcome.getByRole('button', { name: 'Close' }).click();
  // Started again: running once its health check has seen it (it may still say starting just after).
  const peer = await until('peer0-org2 running again', async () => {
    const p = (await api('GET', `/nodes/${setup.peer2.id}`)).json;
    return p?.status === 'running' ? p : null;
  }, 60_000);
  assert.is(peer.networks.find((n: { network_id: number }) => n.network_id === setup.network.id)?.joined, false, JSON.stringify(peer.networks));
  await page.getByRole('button', { name: 'Join peer0-org2 to the channel' }).waitFor({ timeout: 30_000 });
  await commits('after peer0-org2 left');
});

t('an application organization removed with "Remove an organization": its diff first, then Submit; the network and the channel no longer have it', async () => {
  assert.ok(setup, 'the channel of the first test');
  await page.goto(`${server.url}/networks/consortium/${setup.network.id}`);
  const seq = (await consenters()).sequence;
  await page.getByRole('button', { name: 'Remove Org2MSP' }).click();
  const change = page.getByRole('form', { name: 'Remove Org2MSP from channel govconsole' });
  const diff = await shownDiff(change);
  assert.ok(diff.some(([path, before, after]) => path === 'channel_group.groups.Application.groups.Org2MSP' && before !== '—' && after === '—'), JSON.stringify(diff));
  assert.is((await consenters()).sequence, seq, 'the dry run submitted nothing');
  await ui.accessible('an organization removal shown as a dry run');
  assert.match(await submit(change), /^Updated: configuration sequence \d+, block \d+, signed by /);
  const network = (await api('GET', `/networks/consortium/${setup.network.id}`)).json;
  assert.equal(network.organizations.map((o: { msp_id: string }) => o.msp_id), ['Org1MSP']);
  const config = await api('GET', `/networks/consortium/${setup.network.id}/channel-config`);
  assert.is(config.status, 200, config.text);
  assert.equal(Object.keys(config.json.config.channel_group.groups.Application.groups), ['Org1MSP']);
  // One application organization left: once the outcome is closed the page no longer offers a removal.
  await change.getByRole('button', { name: 'Close' }).click();
  await page.getByRole('heading', { name: 'Remove an organization' }).waitFor({ state: 'detached', timeout: 30_000 });
  assert.is(await page.getByRole('button', { name: /^Remove Org/ }).count(), 0);
  await commits('after Org2MSP was removed');
});

t.run();
