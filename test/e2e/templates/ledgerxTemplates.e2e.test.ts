// Templates of ledgerX networks. Without any Fabric-X program (records, keys and the genesis block
// need none): a network of two organizations' orderer groups and its settings is exported (its
// organizations variables, its groups node specs without ports, nothing secret), bad bindings and
// bad bodies are 4xx with their codes and nothing recorded, and an import makes the groups and
// the network again with the same settings. With the real programs (LNM_FABRIC_X_BIN): a quick
// start's running network (group and committer joined) is exported from one server and imported
// into a fresh one, whose groups and committer are then joined and run.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { fabricXMissing, fabricXServiceEnv } from '../../helpers/programs.ts';
import { requires } from '../../helpers/requirements.ts';
import { freePortBlock } from '../../helpers/ports.ts';
import { apiOf, organization, until, type Api } from '../consortium/consortiumApi.ts';

const ledgerXNodes = async (api: Api) => ((await api('GET', '/nodes/platform/LEDGERX?limit=200')).json?.items ?? []).filter((x: any) => x.nodeType === 'LEDGERX_COMMITTER' || x.nodeType === 'LEDGERX_ORDERER_GROUP');

async function removeAll(api: Api) {
  for (const n of await ledgerXNodes(api)) await api('DELETE', `/nodes/${n.id}`).catch(() => undefined);
  await until('every ledgerX node removed', async () => ((await api('GET', '/nodes/platform/LEDGERX')).json?.total === 0 ? true : null), 60_000).catch(() => undefined);
}

// ---------------------------------------------------------------------------------------------
const t = suite('ledgerX templates: export, validate, import (no Fabric-X program needed)');
let server: TestServer;
const api = apiOf(() => server);

t.before(async () => {
  server = await startServer({ env: { LNM_FABRIC_X_BIN: '/nonexistent-fabric-x-bin', KEY_ENCRYPTION_KEY: 'ledgerx-templates-key-encryption-key' } });
});
t.after(async () => {
  if (!server) return;
  await removeAll(api);
  await server.stop();
});

t('export carries channel, settings, organizations and node specs without ports; bad bindings and bodies are 4xx; an import makes the network again', async () => {
  const a = await organization(api, 'TplXOrgA', 'TplXOrgAMSP');
  const b = await organization(api, 'TplXOrgB', 'TplXOrgBMSP');
  const g1 = await api('POST', '/nodes', { name: 'tplx-g1', platform: 'LEDGERX', nodeType: 'LEDGERX_ORDERER_GROUP', organizationId: a.id, config: { externalIp: '127.0.0.1' } });
  assert.is(g1.status, 201, g1.text);
  const g2 = await api('POST', '/nodes', { name: 'tplx-g2', platform: 'LEDGERX', nodeType: 'LEDGERX_ORDERER_GROUP', organizationId: b.id, config: {} });
  assert.is(g2.status, 201, g2.text);
  const net = await api('POST', '/networks/ledgerx', { name: 'tplx', channelName: 'tplxchan', ordererGroupIds: [g2.json.id, g1.json.id], smartBft: { requestBatchMaxCount: 50 }, batching: { maxMessageCount: 20 } });
  assert.is(net.status, 201, net.text);

  const exported = await api('GET', `/networks/templates/export/${net.json.id}`);
  assert.is(exported.status, 200, exported.text);
  const template = exported.json;
  assert.is(template.platform, 'LEDGERX');
  assert.is(template.version, '2.0.0');
  assert.equal(template.variables.map((v: any) => `${v.name}:${v.type}`), ['org1:organization', 'org2:organization']);
  assert.is(template.network.channelName, 'tplxchan');
  assert.is(template.network.smartBft.requestBatchMaxCount, 50);
  assert.is(template.network.smartBft.requestForwardTimeout, '10s', 'the defaults filled in are exported too');
  assert.is(template.network.batching.maxMessageCount, 20);
  // Party order kept: party 1 is organization B's group.
  assert.equal(template.network.ordererGroups, [{ organization: '${org1.id}', externalIp: '127.0.0.1', engine: 'process' }, { organization: '${org2.id}', externalIp: '127.0.0.1', engine: 'process' }]);
  assert.equal(template.network.committers, []);
  assert.not.match(exported.text, /Port"|BEGIN|password|genesis/i, 'no ports, key material, certificates or block');

  // Validate: each kind of binding error with its code.
  const validate = (variableBindings: unknown, tpl = template) => api('POST', '/networks/templates/validate', { template: tpl, variableBindings });
  const wrong = await validate({ org1: { nodeId: g1.json.id }, org2: { organizationId: a.id } });
  assert.is(wrong.status, 200, wrong.text);
  assert.is(wrong.json.valid, false);
  assert.equal(wrong.json.errors.map((e: any) => `${e.code} ${e.field}`), ['WRONG_BINDING_TYPE variableBindings.org1']);
  const missing = await validate({ org1: { organizationId: b.id } });
  assert.equal(missing.json.errors.map((e: any) => `${e.code} ${e.field}`), ['MISSING_BINDING variableBindings.org2']);
  const notFound = await validate({ org1: { organizationId: 99999 }, org2: { organizationId: a.id } });
  assert.equal(notFound.json.errors.map((e: any) => e.code), ['BINDING_NOT_FOUND']);
  const good = await validate({ org1: { organizationId: a.id }, org2: { organizationId: b.id } });
  assert.is(good.json.valid, true, good.text);

  // Import: a 4xx naming the issue for each bad request, and nothing recorded.
  const before = (await ledgerXNodes(api)).length;
  const importIt = (variableBindings: unknown, tpl = template, name = 'tplx-copy') => api('POST', '/networks/templates/import', { template: tpl, variableBindings, name });
  const bad: Array<[string, Awaited<ReturnType<typeof importIt>>, string]> = [
    ['wrong binding type', await importIt({ org1: { keyId: a.adminKeyId }, org2: { organizationId: b.id } }), 'variableBindings.org1'],
    ['missing binding', await importIt({ org1: { organizationId: a.id } }), 'variableBindings.org2'],
    ['bad smartBft', await importIt({ org1: { organizationId: a.id }, org2: { organizationId: b.id } }, { ...template, network: { ...template.network, smartBft: { requestForwardTimeout: '1h' } } }), 'template.network.smartBft.requestForwardTimeout'],
    ['no orderer group', await importIt({ org1: { organizationId: a.id }, org2: { organizationId: b.id } }, { ...template, network: { ...template.network, ordererGroups: [] } }), 'template.network.ordererGroups'],
    ['a port in a node spec', await importIt({ org1: { organizationId: a.id }, org2: { organizationId: b.id } }, { ...template, network: { ...template.network, ordererGroups: [{ organization: '${org1.id}', grpcPort: 7050 }] } }), 'template.network.ordererGroups[0].grpcPort'],
    ['a bad engine', await importIt({ org1: { organizationId: a.id }, org2: { organizationId: b.id } }, { ...template, network: { ...template.network, committers: [{ organization: '${org2.id}', engine: 'vm' }] } }), 'template.network.committers[0].engine'],
    ['an organization not an id', await importIt({ org1: { organizationId: a.id }, org2: { organizationId: b.id } }, { ...template, network: { ...template.network, ordererGroups: [{ organization: '${org1.mspId}' }] } }), 'template.network.ordererGroups[0].organization'],
    ['a channel name Fabric refuses', await importIt({ org1: { organizationId: a.id }, org2: { organizationId: b.id } }, { ...template, network: { ...template.network, channelName: 'Bad_Channel' } }), 'template.network.channelName'],
    ['a taken name', await importIt({ org1: { organizationId: a.id }, org2: { organizationId: b.id } }, template, 'tplx'), 'name'],
  ];
  for (const [what, r, field] of bad) {
    assert.is(r.status, 400, `${what}: ${r.text}`);
    assert.is(r.json.code, 'TEMPLATE_INVALID', `${what}: ${r.text}`);
    assert.ok(r.json.details.some((d: any) => d.field === field), `${what}: ${field} named in ${r.text}`);
  }
  assert.is((await ledgerXNodes(api)).length, before, 'a refused import leaves no node behind');
  assert.is((await api('GET', '/nodes/platform/LEDGERX?limit=200')).json.total, 2 * 5, 'nor a role node');
  assert.is((await api('GET', '/networks/ledgerx')).json.total, 1, 'nor a network');

  // A good import, the organizations swapped: the groups and the network are made again.
  const made = await importIt({ org1: { organizationId: a.id }, org2: { organizationId: b.id } }, { ...template, network: { ...template.network, committers: [{ organization: '${org2.id}' }] } });
  assert.is(made.status, 201, made.text);
  assert.is(made.json.platform, 'LEDGERX');
  assert.is(made.headers.get('location'), `/api/v1/networks/ledgerx/${made.json.network_id}`);
  assert.equal(made.json.nodes.map((n: any) => n.role), ['orderer-group', 'orderer-group', 'committer']);
  assert.ok(made.json.warnings.some((w: string) => w.includes('not joined')), made.text);
  const copy = (await api('GET', `/networks/ledgerx/${made.json.network_id}`)).json;
  assert.is(copy.name, 'tplx-copy');
  assert.is(copy.channel_name, 'tplxchan');
  const groups = await Promise.all(made.json.nodes.map(async (n: any) => (await api('GET', `/nodes/${n.node_id}`)).json));
  assert.equal(groups.map((n: any) => `${n.name} ${n.nodeType} ${n.organization_id}`), [`tplx-copy-orderer1 LEDGERX_ORDERER_GROUP ${a.id}`, `tplx-copy-orderer2 LEDGERX_ORDERER_GROUP ${b.id}`, `tplx-copy-committer1 LEDGERX_COMMITTER ${b.id}`]);
  assert.ok(groups[0].ledgerXOrdererGroup.routerPort > 0 && groups[0].ledgerXOrdererGroup.routerPort !== g1.json.ledgerXOrdererGroup.routerPort, 'ports allocated here');
  // Its export is the original's (the committer joins nothing yet, so it is not a member).
  const again = (await api('GET', `/networks/templates/export/${made.json.network_id}`)).json;
  assert.equal(again.network, template.network);
  assert.equal(again.variables, template.variables);
});

// ---------------------------------------------------------------------------------------------
const x = requires(suite('ledgerX templates: a running network exported from one server, imported into a fresh one and joined (real Fabric-X)'), 'fabric-x', fabricXMissing);
let source: TestServer;
let target: TestServer;
const src = apiOf(() => source);
const dst = apiOf(() => target);

x.before(async () => {
  source = await startServer({ env: { ...fabricXServiceEnv(), KEY_ENCRYPTION_KEY: 'ledgerx-template-source-key', LNM_LEDGERX_JOIN_TIMEOUT_SECONDS: '60' } });
  // Its own embedded PostgreSQL: a committer's database user is named by its node id, and two
  // services in one PostgreSQL cluster would both name their first committer's user alike.
  target = await startServer({ embedded: true, env: { ...fabricXServiceEnv(), KEY_ENCRYPTION_KEY: 'ledgerx-template-target-key', LNM_LEDGERX_JOIN_TIMEOUT_SECONDS: '60' } });
});
x.after(async () => {
  for (const [s, a] of [[source, src], [target, dst]] as const) {
    if (!s) continue;
    await removeAll(a);
    await s.stop();
  }
});

x('the quick start\'s running network is exported, imported into a fresh server, and its group and committer there join and run', async () => {
  const base = await freePortBlock(Array.from({ length: 2 }, (_, g) => Array.from({ length: 5 }, (_, i) => [10 * g + i, 10 * g + 100 + i]).flat()).flat());
  const q = await src('POST', '/networks/ledgerx/quickstart', { name: 'tplrun', organizations: [{ name: 'RunOrg', mspId: 'RunOrgMSP' }], grpcPort: base });
  assert.is(q.status, 202, q.text);
  const done = await until('the quick start ends', async () => {
    const r = (await src('GET', `/networks/ledgerx/quickstart/${q.json.id}`)).json;
    return r.status === 'IN_PROGRESS' ? null : r;
  }, 300_000, 500);
  assert.is(done.status, 'COMPLETED', JSON.stringify(done));
  const template = (await src('GET', `/networks/templates/export/${done.network_id}`)).json;
  assert.equal(template.variables.map((v: any) => v.name), ['org1']);
  assert.is(template.network.ordererGroups.length, 1);
  assert.is(template.network.committers.length, 1, 'the joined committer is exported');

  const org = await organization(dst, 'OtherOrg', 'OtherOrgMSP');
  const made = await dst('POST', '/networks/templates/import', { template, variableBindings: { org1: { organizationId: org.id } } });
  assert.is(made.status, 201, `${made.text}\n${target.output().slice(-4000)}`);
  assert.is(made.json.name, 'tplrun');
  const [group, committer] = made.json.nodes;
  const joinedGroup = await dst('POST', `/networks/ledgerx/${made.json.network_id}/orderer-groups/${group.node_id}/join`);
  assert.is(joinedGroup.status, 200, joinedGroup.text);
  assert.is(joinedGroup.json.status, 'running');
  const joinedCommitter = await dst('POST', `/networks/ledgerx/${made.json.network_id}/committers/${committer.node_id}/join`);
  assert.is(joinedCommitter.status, 200, joinedCommitter.text);
  assert.is(joinedCommitter.json.status, 'running');
  const network = (await dst('GET', `/networks/ledgerx/${made.json.network_id}`)).json;
  assert.ok(network.nodes.every((n: any) => n.joined), JSON.stringify(network.nodes));
  assert.is(network.nodes.find((n: any) => n.node_id === group.node_id).msp_id, 'OtherOrgMSP');
  // The target's network has its own chain: its sidecar reports a height from its own genesis.
  const info = await until('the imported network\'s committer serves its chain', async () => {
    const r = await dst('GET', `/networks/ledgerx/${made.json.network_id}/info`);
    return r.status === 200 ? r.json : null;
  }, 60_000);
  assert.ok(info.height >= 1, JSON.stringify(info));
});

t.run();
x.run();
