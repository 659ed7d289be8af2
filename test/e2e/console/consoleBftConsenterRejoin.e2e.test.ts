// The console's consenter removal on a SmartBFT channel (issue 37 items 3 and 9) in Chromium on
// real Fabric 3.1 (a counted skip without a 3.1 release, LNM_FABRIC_RELEASES or LNM_FABRIC_BIN, or
// without Chromium): a BFT channel of five consenters of Org1MSP and a peer, made over the API. One
// consenter is removed from the network page (the dry run's diff first, then Submit); the service
// rejoins it as a follower from the newest config block (DELETE .../consenters/{nodeId} answers
// `rejoined`) and the page says so beside the outcome (its relation, status, height and the steps),
// and the consenters table no longer lists it. The channel commits after.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import type { TestServer } from '../../helpers/server.ts';
import { fabricReleaseOf } from '../../helpers/programs.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { chromiumMissing } from '../../helpers/browser.ts';
import { startConsoleSession, type ConsoleSession } from '../../helpers/consoleSession.ts';
import { apiOf, channelCommits, channelConfigOf, consortiumEnv, organization, peerHeight, removeConsortiumNodes, runningNode as node, until } from '../consortium/consortiumApi.ts';
import { shownDiff, submitChange } from './configChangePanel.ts';

const r31 = fabricReleaseOf('3.1');
const t = requiresAll(suite('console: a SmartBFT consenter removed and rejoined as a follower (real Fabric 3.1, Chromium)'), ['chromium', chromiumMissing()], ['fabric-3', r31.ok ? undefined : r31.reason]);
const v31 = r31.ok ? r31.release.version : '';
let server: TestServer;
const api = apiOf(() => server);
let ui: ConsoleSession;
let page: Page;
const channel = 'bftrejoinui';
const orderers: any[] = [];
let peer: any;
let networkId = 0;
const height = () => peerHeight(api, networkId);
const commits = channelCommits(api, () => networkId, 'Org1MSP', () => peer.config.port, height);

t.before(async () => {
  ui = await startConsoleSession({ server: { env: consortiumEnv({ LNM_FABRIC_RELEASES: r31.ok ? r31.release.binDir : '', LNM_NODE_ENGINE: 'process' }) } });
  ({ server, page } = ui);
});

t.after(async () => {
  if (!server) return;
  await removeConsortiumNodes(api, server.dataDir);
  await ui.close();
});

t('a consenter removed from the page: the diff first, then Submit; the page says it rejoined as a follower; the channel commits', async () => {
  // Made in the test, not in before (uvu drops a before hook's error).
  const org1 = await organization(api, 'Org1', 'Org1MSP');
  for (const i of [0, 1, 2, 3, 4]) orderers.push(await node(api, `bftr-orderer${i}`, 'CONSORTIUM_ORDERER', org1.id, { fabricVersion: v31 }));
  peer = await node(api, 'bftr-peer', 'CONSORTIUM_PEER', org1.id, { fabricVersion: v31 });
  const r = await api('POST', '/networks/consortium', { name: 'bftr', channelName: channel, consensus: 'smartbft', ordererIds: orderers.map((o) => o.id), peerIds: [peer.id] });
  assert.is(r.status, 201, r.text);
  networkId = r.json.id;
  for (const o of orderers) assert.is((await api('POST', `/networks/consortium/${networkId}/orderers/${o.id}/join`)).status, 200);
  await until('the peer joined', async () => ((await api('POST', `/networks/consortium/${networkId}/peers/${peer.id}/join`)).status === 200 ? true : null), 90_000, 2000);
  await commits('on the new channel');

  const removed = orderers[4];
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
  assert.is(c.group.groups.Orderer.values.Orderers.value.consenter_mapping.length, 4);
  await page.getByTestId(`relation-${removed.config.port}`).waitFor({ state: 'detached', timeout: 30_000 });
  await commits('with four consenters');
});

t.run();
