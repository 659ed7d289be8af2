// LedgerX where the Fabric-X programs are missing (runs everywhere: nothing here needs them):
// groups and committers can still be created (records and keys), but a network cannot be built
// (400 naming the program and the variable, nothing recorded), and a group that never joined a
// network cannot start (422 saying to join it first).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { apiOf, organization } from '../consortium/consortiumApi.ts';

const t = suite('ledgerX without the Fabric-X programs: 4xx with the reason, nothing half-written');
let server: TestServer;
const api = apiOf(() => server);

t.before(async () => {
  server = await startServer({ env: { LNM_FABRIC_X_BIN: '/nonexistent-fabric-x-bin', KEY_ENCRYPTION_KEY: 'ledgerx-missing-key-encryption-key' } });
});
t.after(async () => {
  await server?.stop();
});

t('a group is created, a network of it is a 400 naming armageddon, and the group cannot start before a join', async () => {
  const org = await organization(api, 'NoXOrg', 'NoXOrgMSP');
  const g = await api('POST', '/nodes', { name: 'nox-group', platform: 'LEDGERX', nodeType: 'LEDGERX_ORDERER_GROUP', organizationId: org.id, config: { grpcPort: 41050 } });
  assert.is(g.status, 201, g.text);
  assert.is(g.json.status, 'created');
  const net = await api('POST', '/networks/ledgerx', { name: 'nox-net', ordererGroupIds: [g.json.id] });
  assert.is(net.status, 400, net.text);
  assert.match(net.json.message, 'LNM_FABRIC_X_BIN=/nonexistent-fabric-x-bin has no executable armageddon');
  assert.is((await api('GET', '/networks/ledgerx')).json.total, 0);
  const notGroup = await api('POST', '/networks/ledgerx', { name: 'nox-net', ordererGroupIds: [g.json.ledgerXOrdererGroup.roles[0].nodeId] });
  assert.is(notGroup.status, 400, notGroup.text);
  const start = await api('POST', `/nodes/${g.json.id}/start`);
  assert.is(start.status, 422, start.text);
  assert.match(start.json.message, /consenter .*(has not joined a network|no executable arma)/);
  const join = await api('POST', '/networks/ledgerx/999999/orderer-groups/1/join');
  assert.is(join.status, 404, join.text);
  const wrongType = await api('POST', '/nodes', { name: 'nox-x', platform: 'LEDGERX', nodeType: 'LEDGERX_ORDERER_GROUP', organizationId: org.id, config: { sidecarPort: 41060 } });
  assert.is(wrongType.status, 400, wrongType.text);
  const del = await api('DELETE', `/nodes/${g.json.id}`);
  assert.is(del.status, 204);
});

t.run();
