// The managed metrics stack (Debian's real Prometheus under the process engine) and a ledgerX
// network on the real Fabric-X programs: after the orderer group and the committer join, the
// scrape discovery holds every role (four arma roles, five committer services) on its monitoring
// port, Prometheus reports each of them up, and GET /metrics/node/{id} answers a role's figures
// from Prometheus. The group nodes serve no /metrics of their own: the service exports theirs.
// Then, per role: the organization with ledgerX nodes cannot be deleted (409 naming the group),
// each role's log tail and WebSocket follow answer lines, each role has its own node events.
// (A role killed from outside -> node.downtime / node.recovery is in ledgerxOrderer.e2e.)
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import { adminAuth } from '../../helpers/server.ts';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { fabricXMissing, fabricXServiceEnv } from '../../helpers/programs.ts';
import { requires } from '../../helpers/requirements.ts';
import { freePort } from '../../../adapters/postgres/embeddedPostgres.ts';
import { killLeftoverNodes } from '../evm/evmLifecycle.ts';
import { apiOf, events, organization, until } from '../consortium/consortiumApi.ts';
import { freeGrpcBase } from '../../helpers/ports.ts';

const t = requires(suite('ledgerX roles in the metrics stack (real Prometheus), logs, events, organization delete (real Fabric-X)'), 'fabric-x', fabricXMissing);
let server: TestServer;
const api = apiOf(() => server);
const made: number[] = [];
let org: { id: number; mspId: string };
let roles: { role: string; nodeId: number; port: number }[] = [];
let groupName = '';

const freeBase = (n: number): Promise<number> => freeGrpcBase(n);

t.before(async () => {
  server = await startServer({ env: { ...fabricXServiceEnv(), KEY_ENCRYPTION_KEY: 'ledgerx-metrics-key-encryption-key', LNM_LEDGERX_JOIN_TIMEOUT_SECONDS: '60' } });
});
t.after(async () => {
  if (!server) return;
  for (const id of made) await api('DELETE', `/nodes/${id}`).catch(() => undefined);
  await until('every ledgerX node removed', async () => ((await api('GET', '/nodes/platform/LEDGERX')).json?.total === 0 ? true : null), 60_000).catch(() => undefined);
  await api('POST', '/metrics/undeploy').catch(() => undefined);
  await server.stop();
  killLeftoverNodes(server.dataDir);
});

t('every orderer role and committer service is a Prometheus target that is up, and /metrics/node/{id} answers for each role', async () => {
  org = await organization(api, 'XMetricsOrg', 'XMetricsOrgMSP');
  let r = await api('POST', '/nodes', { name: 'xmgroup', platform: 'LEDGERX', nodeType: 'LEDGERX_ORDERER_GROUP', organizationId: org.id, config: { externalIp: '127.0.0.1', grpcPort: await freeBase(4) } });
  assert.is(r.status, 201, r.text);
  const group = r.json;
  made.push(group.id);
  r = await api('POST', '/networks/ledgerx', { name: 'xmnet', channelName: 'arma', ordererGroupIds: [group.id] });
  assert.is(r.status, 201, r.text);
  const network = r.json;
  r = await api('POST', `/networks/ledgerx/${network.id}/orderer-groups/${group.id}/join`);
  assert.is(r.status, 200, r.text);
  r = await api('POST', '/nodes', { name: 'xmcommitter', platform: 'LEDGERX', nodeType: 'LEDGERX_COMMITTER', organizationId: org.id, config: { grpcPort: await freeBase(5) } });
  assert.is(r.status, 201, r.text);
  const committer = r.json;
  made.unshift(committer.id);
  r = await api('POST', `/networks/ledgerx/${network.id}/committers/${committer.id}/join`);
  assert.is(r.status, 200, r.text);

  groupName = group.name;
  roles = [
    ...group.ledgerXOrdererGroup.roles.map((x: any) => ({ ...x, port: group.ledgerXOrdererGroup[`${x.role}MonitoringPort`] })),
    ...committer.ledgerXCommitter.roles.map((x: any) => ({ ...x, port: committer.ledgerXCommitter[`${x.role}MonitoringPort`] })),
  ];
  assert.is(roles.length, 9);

  r = await api('POST', '/metrics/deploy', { port: await freePort(), scrapeIntervalSeconds: 5 });
  assert.is(r.status, 201, r.text);
  const promUrl = r.json.url;
  let seen: unknown = null;
  const targets = await until('every ledgerX role scraped and up', async () => {
    const all = await fetch(`${promUrl}/api/v1/targets`).then((x) => x.json() as Promise<any>);
    const mine = all.data.activeTargets.filter((x: any) => x.labels.platform === 'LEDGERX');
    seen = mine.map((x: any) => ({ node: x.labels.node_id, instance: x.labels.instance, health: x.health, error: x.lastError }));
    return mine.length === roles.length + 2 && mine.every((x: any) => x.health === 'up') && mine;
  }, 90_000).catch((e) => assert.unreachable(`${e.message}: ${JSON.stringify(seen)}`));
  for (const role of roles) {
    const target = targets.find((x: any) => x.labels.node_id === String(role.nodeId));
    assert.ok(target, `role ${role.role} (node ${role.nodeId}) is a target`);
    assert.is(target.labels.instance, `127.0.0.1:${role.port}`, `${role.role} scraped on its monitoring port`);
  }
  // A group serves no /metrics itself: the service exports its figures (as for anvil nodes).
  for (const g of [group, committer]) assert.is(targets.find((x: any) => x.labels.node_id === String(g.id))?.labels.instance, `node-${g.id}`);

  for (const role of roles) {
    const figures = await until(`${role.role}'s figures from Prometheus`, async () => {
      const res = await api('GET', `/metrics/node/${role.nodeId}`);
      return res.status === 200 && res.json.up === true && res.json;
    }, 60_000);
    assert.is(figures.platform, 'LEDGERX');
    assert.is(figures.scrape.job, 'nodes');
    assert.is(figures.peers, null, `${role.role}: no Fabric-X role exports a count of peers`);
    if (role.role === 'sidecar' || role.role === 'assembler') {
      // The two roles that keep a ledger: their height (block 0 at least) from their own /metrics.
      const withHeight = await until(`${role.role}'s block height from Prometheus`, async () => {
        const res = await api('GET', `/metrics/node/${role.nodeId}`);
        return res.status === 200 && typeof res.json.blockHeight === 'number' && res.json;
      }, 60_000);
      assert.ok(withHeight.blockHeight >= 1, `${role.role}: ${JSON.stringify(withHeight)}`);
      // The node read: the health monitor's last probe reads the same metric.
      const read = await until(`${role.role}'s block_height in GET /nodes/{id}`, async () => {
        const res = await api('GET', `/nodes/${role.nodeId}`);
        return res.status === 200 && typeof res.json.block_height === 'number' && res.json;
      }, 60_000);
      assert.ok(read.block_height >= 1, `${role.role}: ${read.block_height}`);
    } else {
      assert.is(figures.blockHeight, null, `${role.role} keeps no ledger`);
    }
  }
  // A group's summary: the service's export of the group carries its sidecar's or assembler's height.
  for (const g of [group, committer]) {
    const figures = await until(`${g.name}'s block height from Prometheus`, async () => {
      const res = await api('GET', `/metrics/node/${g.id}`);
      return res.status === 200 && typeof res.json.blockHeight === 'number' && res.json;
    }, 60_000);
    assert.ok(figures.blockHeight >= 1, `${g.name}: ${JSON.stringify(figures)}`);
  }
  // A range query over a role's samples: real points from Prometheus.
  // Asked again until the window holds a sample: `end` is a whole second, and the role's first
  // scrape can fall after it within the same second (a CI run read an empty range so, 0.35 s
  // after the first scrape).
  const router = roles.find((x) => x.role === 'router')!;
  const range = await until('a range with samples of the router', async () => {
    const now = Math.floor(Date.now() / 1000);
    const r = await api('GET', `/metrics/node/${router.nodeId}?query=up&start=${now - 120}&end=${now}&step=5`);
    assert.is(r.status, 200, r.text);
    return r.json.range.series.some((x: any) => x.values.length > 0) && r;
  }, 30_000);
  const values = range.json.range.series.flatMap((x: any) => x.values.map((v: [number, string]) => v[1]));
  assert.ok(values.length > 0 && values.every((v: string) => v === '1'), range.text);
});

t('per role: the organization cannot be deleted (409), logs by tail and by WebSocket, node events', async () => {
  const refused = await api('DELETE', `/organizations/${org.id}`);
  assert.is(refused.status, 409, refused.text);
  assert.match(refused.json.message, groupName);
  assert.is((await api('GET', `/organizations/${org.id}`)).status, 200, 'still there');
  for (const role of roles) {
    const tail = await api('GET', `/nodes/${role.nodeId}/logs?tail=5`);
    assert.is(tail.status, 200, tail.text);
    assert.ok(tail.json.lines.length > 0 && tail.json.lines.length <= 5, `${role.role}: ${tail.text}`);
    const ws = new WebSocket(`${server.api.replace('http', 'ws')}/nodes/${role.nodeId}/logs?tail=3`, { headers: adminAuth() });
    const received: string[] = [];
    ws.on('message', (m) => received.push(m.toString()));
    await new Promise<void>((res, rej) => (ws.once('open', () => res()), ws.once('error', rej)));
    await until(`${role.role}'s log lines over the WebSocket`, async () => received.length > 0, 20_000);
    ws.close();
    const evs = await events(api, role.nodeId);
    assert.ok(evs.includes('node.created'), `${role.role} has its own events: ${evs}`);
  }
});

t.run();
