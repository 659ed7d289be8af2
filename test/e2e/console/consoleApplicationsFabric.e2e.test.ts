// The organization page's "Put the CRL into the channel" in Chromium against real Fabric 2.5 (two
// organizations, one orderer, a peer each, made over the API): after a client identity is revoked,
// the control sends the organization's CRL into the channel it is a member of, says from which
// block, and the channel config the orderer serves carries the CRL in Org1's MSP.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestServer } from '../../helpers/server.ts';
import { fabricMissing } from '../../helpers/fabric.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { chromiumMissing } from '../../helpers/browser.ts';
import { startConsoleSession, type ConsoleSession } from '../../helpers/consoleSession.ts';
import { apiOf, consortiumEnv, removeConsortiumNodes, twoOrganizationChannel } from '../consortium/consortiumApi.ts';

const t = requiresAll(suite('console: the CRL of an organization into its channel (real Fabric, Chromium)'), ['chromium', chromiumMissing()], ['fabric', fabricMissing]);
let server: TestServer;
const api = apiOf(() => server);
let ui: ConsoleSession;
let made: Awaited<ReturnType<typeof twoOrganizationChannel>>;

t.before(async () => {
  ui = await startConsoleSession({ server: { env: consortiumEnv() } });
  server = ui.server;
});

t.after(async () => {
  if (!server) return;
  await removeConsortiumNodes(api, server.dataDir);
  await ui.close();
  server.reapNodes();
});

t('a channel of two organizations', async () => {
  made = await twoOrganizationChannel(api, 'console-crl-net', 'crlchannel');
  await ui.signIn();
});

t('a revoked identity\'s CRL is put into the channel from the organization page', async () => {
  const issued = await api('POST', `/organizations/${made.org1.id}/identities`, { name: 'leaver', role: 'client' });
  assert.is(issued.status, 201, issued.text);
  assert.is((await api('POST', `/organizations/${made.org1.id}/identities/${issued.json.id}/revoke`, {})).status, 200);
  const before = (await api('GET', `/networks/consortium/${made.network.id}/channel-config`)).json;
  const { page } = ui;
  await page.goto(`${server.url}/organizations/${made.org1.id}`);
  const form = page.getByRole('form', { name: 'Revocations into a channel' });
  await form.getByLabel('Channel').selectOption({ label: 'crlchannel (console-crl-net)' });
  await form.getByRole('button', { name: 'Put the CRL into the channel' }).click();
  const said = form.getByRole('status').or(form.getByRole('alert'));
  await said.waitFor({ timeout: 90_000 });
  assert.match(await said.innerText(), /^CRL \d+ \(1 revoked\) is in channel crlchannel from block \d+\.$/);
  const after = (await api('GET', `/networks/consortium/${made.network.id}/channel-config`)).json;
  assert.ok(after.sequence > before.sequence, `sequence ${before.sequence} -> ${after.sequence}`);
  const org1 = after.config.channel_group.groups.Application.groups.Org1MSP;
  const crls: string[] = org1.values.MSP.value.config.revocation_list;
  assert.is(crls.length, 1);
  assert.match(Buffer.from(crls[0], 'base64').toString(), '-----BEGIN X509 CRL-----');
  await ui.accessible('organization page with the CRL control');
});

t.run();
