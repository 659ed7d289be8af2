// Templates of consortium networks between two instances, with the real Fabric 2.5.12 binaries:
// a one-channel network of instance A (one orderer, one peer) exported, imported on instance B
// with B's own organization, orderer and peer: the channel is created on B's orderer and B's
// peer joined it, as both nodes themselves report.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { fabricMissing } from '../../helpers/fabric.ts';
import { requires } from '../../helpers/requirements.ts';
import { apiOf, consortiumEnv, node, organization, until } from '../consortium/consortiumApi.ts';

const t = requires(suite('consortium network templates between two instances (real Fabric 2.5.12)'), 'fabric', fabricMissing);
let a: TestServer;
let b: TestServer;
const apiA = apiOf(() => a);
const apiB = apiOf(() => b);
const made: Array<{ api: typeof apiA; id: number }> = [];

t.before(async () => {
  [a, b] = await Promise.all([startServer({ env: consortiumEnv() }), startServer({ env: consortiumEnv() })]);
});
t.after(async () => {
  for (const n of made) await n.api('DELETE', `/nodes/${n.id}`).catch(() => undefined);
  for (const [api, s] of [[apiA, a], [apiB, b]] as const) {
    if (!s) continue;
    await until('every node removed', async () => ((await api('GET', '/nodes/platform/CONSORTIUM')).json?.total === 0 ? true : null), 30_000).catch(() => undefined);
  }
  await new Promise((r) => setTimeout(r, 1500));
  await Promise.all([a?.stop(), b?.stop()]);
});

let template: any;

t('a consortium network exports as a template: organizations and nodes become variables', async () => {
  const org = await organization(apiA, 'TplOrgA', 'TplOrgAMSP');
  const orderer = await node(apiA, 'tpl-orderer-a', 'CONSORTIUM_ORDERER', org.id);
  made.push({ api: apiA, id: orderer.id });
  const peer = await node(apiA, 'tpl-peer-a', 'CONSORTIUM_PEER', org.id);
  made.push({ api: apiA, id: peer.id });
  let r = await apiA('POST', '/networks/consortium', { name: 'tpl-channel', channelName: 'tplchannel', ordererIds: [orderer.id], peerIds: [peer.id] });
  assert.is(r.status, 201, r.text);
  const network = r.json;
  r = await apiA('GET', `/networks/templates/export/${network.id}`);
  assert.is(r.status, 200, r.text);
  template = r.json;
  assert.is(template.platform, 'CONSORTIUM');
  assert.equal(template.variables.map((v: any) => [v.name, v.type]), [['org1', 'organization'], ['orderer1', 'node'], ['peer1', 'node']]);
  assert.equal(template.network.organizations, [{ mspId: '${org1.mspId}', peers: ['${peer1.id}'], orderers: ['${orderer1.id}'] }]);
  assert.equal(template.network.channels.map((c: any) => [c.name, c.organizations]), [['tplchannel', ['${org1.mspId}']]]);
  assert.is(template.network.consensus, 'etcdraft');
  assert.not.match(r.text, /TplOrgAMSP|BEGIN|PRIVATE/);
});

t('imported on the other instance with its organization and nodes: the channel is created and joined', async () => {
  const org = await organization(apiB, 'TplOrgB', 'TplOrgBMSP');
  const orderer = await node(apiB, 'tpl-orderer-b', 'CONSORTIUM_ORDERER', org.id);
  made.push({ api: apiB, id: orderer.id });
  const peer = await node(apiB, 'tpl-peer-b', 'CONSORTIUM_PEER', org.id);
  made.push({ api: apiB, id: peer.id });
  const bindings = { org1: { organizationId: org.id }, orderer1: { nodeId: orderer.id }, peer1: { nodeId: peer.id } };

  // The peer bound where the orderer goes is refused before anything is made.
  let r = await apiB('POST', '/networks/templates/validate', { template, variableBindings: { ...bindings, orderer1: { nodeId: peer.id } } });
  assert.is(r.json.valid, false);
  assert.equal(r.json.errors.map((e: any) => [e.code, e.field]), [['WRONG_BINDING_TYPE', 'variableBindings.orderer1']]);
  r = await apiB('POST', '/networks/templates/import', { template, variableBindings: { ...bindings, orderer1: { nodeId: peer.id } } });
  assert.is(r.status, 400, r.text);
  assert.is((await apiB('GET', '/networks/consortium')).json.total, 0);

  r = await apiB('POST', '/networks/templates/validate', { template, variableBindings: bindings });
  assert.is(r.json.valid, true, r.text);
  assert.equal(r.json.variables.find((v: any) => v.name === 'org1').resolved, { mspId: 'TplOrgBMSP', id: org.id });

  r = await apiB('POST', '/networks/templates/import', { template, variableBindings: bindings });
  assert.is(r.status, 201, r.text);
  assert.equal(r.json.joined, [{ node_id: orderer.id, role: 'orderer' }, { node_id: peer.id, role: 'peer' }]);
  const network = (await apiB('GET', `/networks/consortium/${r.json.network_id}`)).json;
  assert.is(network.channel_name, 'tplchannel');
  assert.equal(network.organizations.map((o: any) => o.msp_id), ['TplOrgBMSP']);
  assert.ok(network.nodes.every((n: any) => n.joined), JSON.stringify(network.nodes));
  // The nodes themselves: the orderer orders the channel and the peer holds its blocks.
  const info = await until('the channel to answer from B\'s peer', async () => {
    const i = await apiB('GET', `/networks/consortium/${network.id}/info`);
    return i.status === 200 && i.json ? i.json : null;
  }, 60_000);
  assert.ok(JSON.stringify(info).includes('height'), JSON.stringify(info));
  // The channel's configuration as B's nodes serve it names B's organization, not A's.
  // (the orderer serves the channel once its raft leader is elected)
  const config = await until('the channel config from B\'s orderer', async () => {
    const c = await apiB('GET', `/networks/consortium/${network.id}/channel-config`);
    return c.status === 200 ? c : null;
  }, 60_000);
  assert.match(config.text, 'TplOrgBMSP');
  assert.not.match(config.text, 'TplOrgAMSP');
});

t.run();
