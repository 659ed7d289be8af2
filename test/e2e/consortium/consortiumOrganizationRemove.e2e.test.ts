// An application organization removed from a channel through the service on real Fabric 2.5 (a
// counted skip without the programs): a channel of one raft orderer and a peer of each of two
// organizations. A dry run shows the Org2MSP group leaving /Channel/Application and submits
// nothing; the removal is signed as /Channel/Application/Admins requires (both admins, held here),
// recorded and audited; afterwards the orderer refuses Org2's peer: its deliver answers FORBIDDEN
// (the peer's log says so) and the peer stays behind while Org1's peer gets the next config block.
// The last organization is never removed.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { fabricMissing } from '../../helpers/fabric.ts';
import { requires } from '../../helpers/requirements.ts';
import { apiOf, consortiumEnv, removeConsortiumNodes, twoOrganizationChannel, until } from './consortiumApi.ts';

const t = requires(suite('application organization removed from a channel (real Fabric 2.5)'), 'fabric', fabricMissing);
let server: TestServer;
const api = apiOf(() => server);
let setup: Awaited<ReturnType<typeof twoOrganizationChannel>>;

const channelHeight = async (nodeId: number): Promise<number | null> => {
  const r = await api('GET', `/nodes/${nodeId}`);
  const h = r.json?.networks?.find((n: { network_id: number }) => n.network_id === setup.network.id)?.block_height;
  return typeof h === 'number' ? h : null;
};

t.before(async () => {
  server = await startServer({ env: consortiumEnv() });
  setup = await twoOrganizationChannel(api, 'orgnet', 'orgchannel');
});
t.after(async () => {
  if (!server) return;
  await removeConsortiumNodes(api, server.dataDir);
  await server.stop();
});

t('Org2MSP removed: a dry run first, then the update; the orderer refuses its peer (FORBIDDEN), Org1 goes on', async () => {
  const path = `/networks/consortium/${setup.network.id}/channels/orgchannel/organizations`;
  const dry = await api('DELETE', `${path}/Org2MSP?dry_run=true`);
  assert.is(dry.status, 200, dry.text);
  assert.is(dry.json.status, 'dry_run');
  assert.equal(dry.json.missing_organizations, []);
  assert.ok(dry.json.diff.some((d: { path: string; after: unknown; before: unknown }) => d.path === 'channel_group.groups.Application.groups.Org2MSP' && d.after === null && d.before !== null), dry.text);
  const config = async () => (await api('GET', `/networks/consortium/${setup.network.id}/channel-config`)).json;
  assert.ok(Object.keys((await config()).config.channel_group.groups.Application.groups).includes('Org2MSP'), 'a dry run submits nothing');
  // Both peers have the channel up to now.
  const before = await until('both peers at the same height', async () => {
    const [a, b] = [await channelHeight(setup.peer1.id), await channelHeight(setup.peer2.id)];
    return a !== null && a === b ? a : null;
  }, 60_000, 1000);

  const r = await api('DELETE', `${path}/Org2MSP`);
  assert.is(r.status, 200, r.text);
  assert.is(r.json.status, 'updated', r.text);
  assert.equal([...r.json.signed_by].sort(), ['Org1MSP', 'Org2MSP']);
  assert.equal(r.json.diff, dry.json.diff);
  assert.equal(Object.keys((await config()).config.channel_group.groups.Application.groups), ['Org1MSP']);
  const network = (await api('GET', `/networks/consortium/${setup.network.id}`)).json;
  assert.not.ok(JSON.stringify(network.organizations ?? network).includes('Org2MSP'), JSON.stringify(network));
  const audit = (await api('GET', '/audit-logs?action=NETWORK_UPDATE&limit=100')).json.items as Array<{ after: { change?: { kind?: string; mspId?: string } } | null }>;
  assert.ok(audit.some((e) => e.after?.change?.kind === 'removeOrganization' && e.after.change.mspId === 'Org2MSP'));

  // The next config block (an anchor update of Org1) reaches Org1's peer, not Org2's.
  const a = await until('an Org1 anchor update', async () => {
    const x = await api('POST', `/networks/consortium/${setup.network.id}/anchor-peers`, { organizationId: 'Org1MSP', anchorPeers: [{ host: 'localhost', port: setup.peer1.config.port }] });
    return x.status === 200 ? x : null;
  }, 60_000, 1000);
  await until('Org1\'s peer at the new block', async () => ((await channelHeight(setup.peer1.id)) ?? 0) > before + 1, 60_000, 1000);
  const logs = await until('Org2\'s peer told FORBIDDEN by the orderer', async () => {
    const l = await api('GET', `/nodes/${setup.peer2.id}/logs?tail=400`);
    const text = JSON.stringify(l.json);
    return /FORBIDDEN/.test(text) ? text : null;
  }, 60_000, 2000);
  assert.match(logs, /FORBIDDEN/);
  const h2 = await channelHeight(setup.peer2.id);
  assert.ok(h2 !== null && h2 <= a.json.block_number, `Org2's peer at ${h2}, the anchor update is block ${a.json.block_number}: it did not get it`);

  const last = await api('DELETE', `${path}/Org1MSP`);
  assert.is(last.status, 409, last.text);
  assert.is(last.json.code, 'LAST_ORGANIZATION');
  assert.is((await api('DELETE', `${path}/Org2MSP`)).status, 404);
});

t.run();
