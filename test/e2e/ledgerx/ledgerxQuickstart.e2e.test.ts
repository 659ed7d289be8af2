// The ledgerX quick start end to end with the real Fabric-X programs (LNM_FABRIC_X_BIN): one call
// makes an organization, its orderer group, a committer, the network and the joins; the record is
// read while it runs (steps PENDING, RUNNING, DONE in order) and ends COMPLETED with every role
// running and answering /metrics. A quick start whose router cannot come up (its port taken from
// outside between the group's creation and its join) ends FAILED naming the router and its log
// tail (ledgerxCommitterDatabase.e2e.test.ts: a service that starts and fails, with its log
// tail). Bad input is a 4xx with nothing recorded. Around it: the organization cannot be deleted,
// each role's logs follow over WebSocket, the metrics stack scrapes every role.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import net from 'node:net';
import WebSocket from 'ws';
import { adminAuth, startServer, type TestServer } from '../../helpers/server.ts';
import { fabricXMissing, fabricXServiceEnv } from '../../helpers/programs.ts';
import { requires } from '../../helpers/requirements.ts';
import { freePort } from '../../../adapters/postgres/embeddedPostgres.ts';
import { apiOf, until } from '../consortium/consortiumApi.ts';
import { freePortBlock } from '../../helpers/ports.ts';

const t = requires(suite('ledgerX quick start end to end (real Fabric-X)'), 'fabric-x', fabricXMissing);
let server: TestServer;
const api = apiOf(() => server);

/** A gRPC base with room for groups at +10 i and a committer, each with its +100.. monitoring ports. */
const freeBase = (groups: number): Promise<number> =>
  freePortBlock(Array.from({ length: groups + 1 }, (_, g) => Array.from({ length: 5 }, (_, i) => [10 * g + i, 10 * g + 100 + i]).flat()).flat());

t.before(async () => {
  server = await startServer({ env: { ...fabricXServiceEnv(), KEY_ENCRYPTION_KEY: 'ledgerx-quickstart-e2e-key', LNM_LEDGERX_JOIN_TIMEOUT_SECONDS: '60' } });
});
t.after(async () => {
  if (!server) return;
  const nodes = (await api('GET', '/nodes/platform/LEDGERX?limit=100')).json?.items ?? [];
  for (const n of nodes.filter((x: any) => x.nodeType === 'LEDGERX_COMMITTER' || x.nodeType === 'LEDGERX_ORDERER_GROUP')) await api('DELETE', `/nodes/${n.id}`).catch(() => undefined);
  await until('every ledgerX node removed', async () => ((await api('GET', '/nodes/platform/LEDGERX')).json?.total === 0 ? true : null), 60_000).catch(() => undefined);
  await server.stop();
});

t('bad input: a taken mspId, an unknown key provider, a channel name Fabric refuses, no organization: 4xx, nothing recorded', async () => {
  const org = await api('POST', '/organizations', { name: 'Taken', mspId: 'TakenMSP' });
  assert.is(org.status, 201, org.text);
  const taken = await api('POST', '/networks/ledgerx/quickstart', { name: 'qsbad', organizations: [{ name: 'Taken', mspId: 'TakenMSP' }] });
  assert.is(taken.status, 409, taken.text);
  assert.match(taken.json.message, 'TakenMSP');
  const provider = await api('POST', '/networks/ledgerx/quickstart', { name: 'qsbad', providerId: 9999, organizations: [{ name: 'A', mspId: 'AMSP' }] });
  assert.is(provider.status, 400, provider.text);
  const channel = await api('POST', '/networks/ledgerx/quickstart', { name: 'qsbad', channelName: 'Bad_Channel', organizations: [{ name: 'A', mspId: 'AMSP' }] });
  assert.is(channel.status, 400, channel.text);
  assert.match(channel.json.message, 'channelName', channel.text);
  const none = await api('POST', '/networks/ledgerx/quickstart', { name: 'qsbad', organizations: [] });
  assert.is(none.status, 400, none.text);
  const twice = await api('POST', '/networks/ledgerx/quickstart', { name: 'qsbad', organizations: [{ name: 'A', mspId: 'AMSP' }, { name: 'B', mspId: 'AMSP' }] });
  assert.is(twice.status, 400, twice.text);
  assert.is((await api('GET', '/networks/ledgerx/quickstart/1')).status, 404);
  assert.is((await api('GET', '/nodes/platform/LEDGERX')).json.total, 0);
  assert.is((await api('GET', '/networks/ledgerx')).json.total, 0);
  assert.is((await api('GET', '/organizations?limit=100')).json.items.filter((o: any) => o.mspId === 'AMSP').length, 0);
});

t('one call makes the organization, orderer group, committer and network and joins them; the steps are read while they run', async () => {
  const base = await freeBase(1);
  const r = await api('POST', '/networks/ledgerx/quickstart', { name: 'qsnet', organizations: [{ name: 'QsOrg1', mspId: 'QsOrg1MSP' }], grpcPort: base });
  assert.is(r.status, 202, r.text);
  assert.is(r.json.status, 'IN_PROGRESS');
  assert.equal(r.json.steps.map((s: any) => `${s.kind}:${s.name}`), ['organization:QsOrg1MSP', 'orderer-group:qsnet-orderer1', 'committer:qsnet-committer', 'network:qsnet', 'join-orderer-group:qsnet-orderer1', 'join-committer:qsnet-committer']);
  const seen = new Set<string>();
  const done = await until('the quick start ends', async () => {
    const q = (await api('GET', `/networks/ledgerx/quickstart/${r.json.id}`)).json;
    for (const s of q.steps) seen.add(`${s.kind}:${s.status}`);
    // Steps run in order: never a PENDING step before a RUNNING or DONE one.
    const order = q.steps.map((s: any) => s.status).join(',');
    assert.not.match(order, /PENDING,(RUNNING|DONE)/, order);
    return q.status === 'IN_PROGRESS' ? null : q;
  }, 300_000, 200);
  assert.is(done.status, 'COMPLETED', JSON.stringify(done));
  assert.ok(seen.has('join-orderer-group:RUNNING') || seen.has('join-committer:RUNNING'), `a join was seen running: ${[...seen]}`);
  assert.ok(done.network_id > 0);
  for (const s of done.steps) assert.ok(s.resource_id > 0 && s.started_at && s.finished_at, JSON.stringify(s));
  const network = (await api('GET', `/networks/ledgerx/${done.network_id}`)).json;
  assert.is(network.name, 'qsnet');
  assert.ok(network.nodes.every((n: any) => n.joined), JSON.stringify(network.nodes));
  const group = (await api('GET', `/nodes/${done.steps[1].resource_id}`)).json;
  const committer = (await api('GET', `/nodes/${done.steps[2].resource_id}`)).json;
  assert.is(group.status, 'running');
  assert.is(committer.status, 'running');
  assert.is(group.ledgerXOrdererGroup.routerPort, base);
  assert.is(committer.ledgerXCommitter.sidecarPort, base + 10);
  for (const url of [group.ledgerXOrdererGroup.routerMetricsUrl, group.ledgerXOrdererGroup.assemblerMetricsUrl, committer.ledgerXCommitter.sidecarMetricsUrl, committer.ledgerXCommitter.coordinatorMetricsUrl]) {
    const res = await fetch(url);
    assert.is(res.status, 200, url);
    assert.match(await res.text(), /^# (HELP|TYPE) /m);
  }
  const again = await api('POST', '/networks/ledgerx/quickstart', { name: 'qsnet', organizations: [{ name: 'QsOrg9', mspId: 'QsOrg9MSP' }] });
  assert.is(again.status, 409, again.text);
  made = { orgId: done.steps[0].resource_id, group, committer };
});

let made: { orgId: number; group: any; committer: any };

t('the platform around it: the organization cannot be deleted (409), each role\'s logs follow over WebSocket, the metrics stack scrapes every role', async () => {
  const { orgId, group, committer } = made;
  const del = await api('DELETE', `/organizations/${orgId}`);
  assert.is(del.status, 409, del.text);
  assert.ok((await api('GET', `/organizations/${orgId}`)).status === 200);
  const roles = [...group.ledgerXOrdererGroup.roles, ...committer.ledgerXCommitter.roles];
  // A role's output, followed: the tail arrives first over the socket.
  for (const { role, nodeId } of [roles[0], roles[roles.length - 1]]) {
    const ws = new WebSocket(`${server.api.replace('http', 'ws')}/nodes/${nodeId}/logs?tail=3`, { headers: adminAuth() });
    const received: string[] = [];
    ws.on('message', (m) => received.push(m.toString()));
    await new Promise<void>((res, rej) => (ws.once('open', () => res()), ws.once('error', rej)));
    await until(`${role}'s log lines over the WebSocket`, async () => (received.length > 0 ? true : null), 20_000);
    ws.close();
  }
  const deployed = await api('POST', '/metrics/deploy', { port: await freePort(), scrapeIntervalSeconds: 5 });
  if (deployed.status === 503 || deployed.status === 400) {
    console.log(`  metrics stack not deployable here: ${deployed.text}`);
    return;
  }
  assert.is(deployed.status, 201, deployed.text);
  try {
    for (const { role, nodeId } of roles) {
      const m = await until(`Prometheus scrapes the ${role} (node ${nodeId})`, async () => {
        const r = await api('GET', `/metrics/node/${nodeId}`);
        return r.status === 200 && r.json.up === true ? r.json : null;
      }, 90_000, 1000);
      assert.is(m.platform, 'LEDGERX');
      assert.ok(m.scrape, `${role}: a scrape target`);
    }
  } finally {
    await api('POST', '/metrics/stop').catch(() => undefined);
  }
});

t('a router whose port is taken ends the quick start FAILED at its group\'s join, naming the router and why', async () => {
  const base = await freeBase(1);
  const r = await api('POST', '/networks/ledgerx/quickstart', { name: 'qsfail', organizations: [{ name: 'QsOrg2', mspId: 'QsOrg2MSP' }], grpcPort: base });
  assert.is(r.status, 202, r.text);
  // Once the group is made (its ports checked free), something else takes the router's port.
  await until('the orderer group made', async () => ((await api('GET', `/networks/ledgerx/quickstart/${r.json.id}`)).json.steps[1].status === 'DONE' ? true : null), 120_000, 50);
  const holder = net.createServer();
  await new Promise<void>((res) => holder.listen(base, '0.0.0.0', () => res()));
  try {
    const q = await until('the quick start ends', async () => {
      const x = (await api('GET', `/networks/ledgerx/quickstart/${r.json.id}`)).json;
      return x.status === 'IN_PROGRESS' ? null : x;
    }, 300_000, 500);
    assert.is(q.status, 'FAILED', JSON.stringify(q));
    const failed = q.steps.find((s: any) => s.status === 'FAILED');
    assert.is(failed.kind, 'join-orderer-group', JSON.stringify(failed));
    assert.is(failed.role, 'router', JSON.stringify(failed));
    assert.match(failed.message, `port ${base} is already in use`);
    assert.match(q.error, 'router');
    assert.ok(q.steps.slice(q.steps.indexOf(failed) + 1).every((s: any) => s.status === 'PENDING'), 'nothing ran after the failed step');
    assert.is((await api('GET', `/nodes/${failed.role_node_id}`)).json.ledgerXChild.role, 'router');
  } finally {
    holder.close();
  }
});

t.run();
