// LedgerX end to end with the real Fabric-X programs (arma, committer and loadgen of
// fabric-x-orderer 1.0.5 / fabric-x-committer 1.0.4, found through LNM_FABRIC_X_BIN or PATH), the
// server as a child process, driven over HTTP: one organization, one orderer group (four arma
// roles with keys from the organization's CAs), a network whose genesis block the service built,
// the group joined and its roles running; every metrics URL answers Prometheus text on the port
// chosen (Operations.ListenPort); a role killed from outside is reported down and recovers after
// a start. Bad input gets a 4xx with the reason and leaves nothing behind.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { fabricXMissing, fabricXProgram, fabricXServiceEnv } from '../../helpers/programs.ts';
import { requires } from '../../helpers/requirements.ts';
import { freePort } from '../../../adapters/postgres/embeddedPostgres.ts';
import { apiOf, events, organization, until } from '../consortium/consortiumApi.ts';

const t = requires(suite('ledgerX orderer group and network end to end (real Fabric-X)'), 'fabric-x', fabricXMissing);
let server: TestServer;
const api = apiOf(() => server);
let org: { id: number; mspId: string };
let group: any;
let network: any;
let committer: any;
const made: number[] = [];

/** n consecutive free ports (a gRPC base) and their +100.. monitoring ports all free. */
async function freeBase(n = 4): Promise<number> {
  for (;;) {
    const p = await freePort();
    if (p > 60000) continue;
    const all = Array.from({ length: n }, (_, i) => [p + i, p + 100 + i]).flat();
    const ok = await Promise.all(all.map((q) => new Promise<boolean>((res) => { const s = net.createServer(); s.once('error', () => res(false)); s.listen(q, '0.0.0.0', () => s.close(() => res(true))); })));
    if (ok.every(Boolean)) return p;
  }
}

t.before(async () => {
  server = await startServer({ env: { ...fabricXServiceEnv(), KEY_ENCRYPTION_KEY: 'ledgerx-e2e-key-encryption-key', LNM_LEDGERX_JOIN_TIMEOUT_SECONDS: '60' } });
});
t.after(async () => {
  if (!server) return;
  for (const id of made) await api('DELETE', `/nodes/${id}`).catch(() => undefined);
  await until('every ledgerX node removed', async () => ((await api('GET', '/nodes/platform/LEDGERX')).json?.total === 0 ? true : null), 60_000).catch(() => undefined);
  // The records go first; the lifecycle saga then stops each process and removes its directory.
  const roleIds = [group, committer].filter(Boolean).flatMap((g: any) => (g.ledgerXOrdererGroup ?? g.ledgerXCommitter).roles.map((r: any) => r.nodeId));
  await until('every role process stopped and its directory removed', async () => (roleIds.every((id: number) => !existsSync(path.join(server.dataDir, 'nodes', `node-${id}`))) ? true : null), 60_000).catch(() => undefined);
  await server.stop();
});

t('bad input: unknown organization, a monitoring port equal to a gRPC port or in use, a network without orderer groups: 4xx, nothing recorded', async () => {
  org = await organization(api, 'XOrg1', 'XOrg1MSP');
  const base = await freeBase();
  const unknownOrg = await api('POST', '/nodes', { name: 'xg-bad', platform: 'LEDGERX', nodeType: 'LEDGERX_ORDERER_GROUP', organizationId: 999999, config: { grpcPort: base } });
  assert.is(unknownOrg.status, 400, unknownOrg.text);
  assert.match(unknownOrg.json.message, 'Organization 999999 does not exist');
  const same = await api('POST', '/nodes', { name: 'xg-bad', platform: 'LEDGERX', nodeType: 'LEDGERX_ORDERER_GROUP', organizationId: org.id, config: { grpcPort: base, routerPort: base, batcherMonitoringPort: base } });
  assert.is(same.status, 400, same.text);
  assert.match(same.json.message, 'batcherMonitoringPort');
  const holder = net.createServer();
  await new Promise<void>((r) => holder.listen(base + 101, '0.0.0.0', () => r()));
  try {
    const taken = await api('POST', '/nodes', { name: 'xg-bad', platform: 'LEDGERX', nodeType: 'LEDGERX_ORDERER_GROUP', organizationId: org.id, config: { grpcPort: base, batcherMonitoringPort: base + 101 } });
    assert.is(taken.status, 409, taken.text);
    assert.match(taken.json.message, `${base + 101}`);
  } finally {
    holder.close();
  }
  const noGroups = await api('POST', '/networks/ledgerx', { name: 'xnet-empty', ordererGroupIds: [] });
  assert.is(noGroups.status, 400, noGroups.text);
  assert.is((await api('GET', '/nodes/platform/LEDGERX')).json.total, 0);
  assert.is((await api('GET', '/networks/ledgerx')).json.total, 0);
});

t('an orderer group is created with its four role nodes, ports allocated by the SPEC layout, keys from the organization\'s CAs', async () => {
  const base = await freeBase();
  const r = await api('POST', '/nodes', { name: 'xgroup1', platform: 'LEDGERX', nodeType: 'LEDGERX_ORDERER_GROUP', organizationId: org.id, config: { externalIp: '127.0.0.1', grpcPort: base } });
  assert.is(r.status, 201, r.text);
  group = r.json;
  made.push(group.id);
  const g = group.ledgerXOrdererGroup;
  assert.equal([g.routerPort, g.batcherPort, g.consenterPort, g.assemblerPort], [base, base + 1, base + 2, base + 3]);
  assert.equal([g.routerMonitoringPort, g.batcherMonitoringPort, g.consenterMonitoringPort, g.assemblerMonitoringPort], [base + 100, base + 101, base + 102, base + 103]);
  for (const role of ['router', 'batcher', 'consenter', 'assembler']) assert.is(g[`${role}MetricsUrl`], `http://127.0.0.1:${g[`${role}MonitoringPort`]}/metrics`);
  assert.is(g.roles.length, 4);
  for (const { role, nodeId } of g.roles) {
    const child = (await api('GET', `/nodes/${nodeId}`)).json;
    assert.is(child.platform, 'LEDGERX');
    assert.is(child.ledgerXChild.role, role);
    assert.is(child.ledgerXChild.metricsUrl, g[`${role}MetricsUrl`]);
    assert.is(child.status, 'created');
  }
  const keys = (await api('GET', `/organizations/${org.id}/keys?limit=100`)).json;
  const names = (keys.items ?? keys).map((k: any) => k.name);
  for (const role of ['router', 'batcher', 'consenter', 'assembler']) for (const kind of ['identity', 'tls']) assert.ok(names.includes(`xgroup1-${role}-${kind}`), `key xgroup1-${role}-${kind} in ${names}`);
  const listed = (await api('GET', '/nodes/platform/LEDGERX')).json;
  assert.is(listed.total, 5);
});

t('a network is created with a genesis block the service built (orderer type arma, V3_0), and the group joins: four arma roles run and answer /metrics on the ports chosen', async () => {
  const r = await api('POST', '/networks/ledgerx', { name: 'xnet1', channelName: 'arma', ordererGroupIds: [group.id] });
  assert.is(r.status, 201, r.text);
  network = r.json;
  assert.is(network.nodes[0].party_id, 1);
  assert.is(network.nodes[0].joined, false);
  assert.is((await api('GET', '/networks/ledgerx/by-name/xnet1')).json.id, network.id);
  const dup = await api('POST', '/networks/ledgerx', { name: 'xnet2', ordererGroupIds: [group.id] });
  assert.is(dup.status, 409, dup.text);
  const joined = await api('POST', `/networks/ledgerx/${network.id}/orderer-groups/${group.id}/join`);
  assert.is(joined.status, 200, joined.text);
  assert.is(joined.json.status, 'running');
  const g = joined.json.ledgerXOrdererGroup;
  for (const role of ['router', 'batcher', 'consenter', 'assembler']) {
    const url = g[`${role}MetricsUrl`];
    const res = await fetch(url);
    assert.is(res.status, 200, `${role} ${url}`);
    const text = await res.text();
    assert.match(text, /^# (HELP|TYPE) /m, `${role} answers Prometheus text`);
    const health = await fetch(url.replace('/metrics', '/healthz'));
    assert.is(health.status, 200, `${role} /healthz`);
  }
  for (const { nodeId } of g.roles) assert.is((await api('GET', `/nodes/${nodeId}`)).json.status, 'running');
  const routerId = g.roles.find((x: any) => x.role === 'router').nodeId;
  const logs = await api('GET', `/nodes/${routerId}/logs?tail=50`);
  assert.is(logs.status, 200, logs.text);
  assert.ok(logs.json.lines.length > 0, 'the router has output');
  assert.equal((await api('GET', `/nodes/${group.id}/logs`)).json.lines, [], 'a group has no output of its own');
  const again = await api('POST', `/networks/ledgerx/${network.id}/orderer-groups/${group.id}/join`);
  assert.is(again.status, 409, again.text);
  const members = (await api('GET', `/networks/ledgerx/${network.id}/nodes`)).json.items;
  assert.is(members.length, 5);
  assert.is((await api('GET', `/networks/ledgerx/${network.id}`)).json.nodes[0].joined, true);
});

t('a role killed from outside is reported down (node.downtime) and recovers after a start (node.recovery)', async () => {
  const routerId = group.ledgerXOrdererGroup.roles.find((r: any) => r.role === 'router').nodeId;
  const pid = Number(JSON.parse(readFileSync(path.join(server.dataDir, 'nodes', `node-${routerId}`, 'node.pid.json'), 'utf8')).pid);
  process.kill(pid, 'SIGKILL');
  await until('node.downtime', async () => ((await events(api, routerId)).includes('node.downtime') ? true : null), 90_000);
  assert.is((await api('GET', `/nodes/${routerId}`)).json.status, 'down');
  const started = await api('POST', `/nodes/${routerId}/start`);
  assert.is(started.json.status, 'running', started.text);
  await until('node.recovery', async () => ((await events(api, routerId)).includes('node.recovery') ? true : null), 90_000);
});

t('a committer (five services, its database made in the service\'s PostgreSQL) joins; loadgen sends transactions through the router and they are committed', async () => {
  const base = await freeBase(5);
  const r = await api('POST', '/nodes', { name: 'xcommitter1', platform: 'LEDGERX', nodeType: 'LEDGERX_COMMITTER', organizationId: org.id, config: { grpcPort: base } });
  assert.is(r.status, 201, r.text);
  committer = r.json;
  made.unshift(committer.id);
  const c = committer.ledgerXCommitter;
  assert.equal([c.sidecarMonitoringPort, c.coordinatorMonitoringPort, c.vcMonitoringPort, c.verifierMonitoringPort, c.queryMonitoringPort], [base + 100, base + 101, base + 102, base + 103, base + 104]);
  assert.not.match(r.text, /password/i);
  const joined = await api('POST', `/networks/ledgerx/${network.id}/committers/${committer.id}/join`);
  assert.is(joined.status, 200, joined.text);
  assert.is(joined.json.status, 'running');
  for (const role of ['sidecar', 'coordinator', 'vc', 'verifier', 'query']) {
    const res = await fetch(c[`${role}MetricsUrl`]);
    assert.is(res.status, 200, `${role} metrics`);
    assert.match(await res.text(), /^# (HELP|TYPE) /m);
  }
  const again = await api('POST', `/networks/ledgerx/${network.id}/committers/${committer.id}/join`);
  assert.is(again.status, 409, again.text);

  // The independent check: Fabric-X's own loadgen, signing as the organization's admin (the
  // sidecar's client MSP the service wrote), sends through the router found in the block.
  const loadgen = await fabricXProgram('loadgen');
  if (!loadgen) return;
  const work = mkdtempSync(path.join(tmpdir(), 'lnm-ledgerx-loadgen-'));
  const block = path.join(work, 'genesis.block');
  writeFileSync(block, Buffer.from((await api('GET', `/networks/ledgerx/${network.id}/genesis`)).json.block, 'base64'));
  const sidecarId = c.roles.find((x: any) => x.role === 'sidecar').nodeId;
  const msp = path.join(server.dataDir, 'nodes', `node-${sidecarId}`, 'msp');
  const identity = `      msp-id: ${org.mspId}\n      msp-dir: ${msp}`;
  writeFileSync(path.join(work, 'loadgen.yaml'), [
    `server:\n  endpoint: 127.0.0.1:${await freePort()}`,
    `monitoring:\n  endpoint: 127.0.0.1:${await freePort()}`,
    'orderer-client:',
    `  sidecar-client:\n    endpoint: 127.0.0.1:${c.sidecarPort}`,
    `  orderer:\n    fault-tolerance-level: BFT\n    latest-known-config-block-path: ${block}\n    identity:\n  ${identity.replace(/\n/g, '\n  ')}`,
    '  broadcast-parallelism: 1',
    'load-profile:\n  key:\n    size: 32\n  block:\n    max-size: 100\n    min-size: 10\n    preferred-rate: 1s\n  transaction:\n    read-write-count:\n      const: 2',
    `  policy:\n    channel-id: ${network.channel_name}\n    identity:\n  ${identity.replace(/\n/g, '\n  ')}`,
    `    namespace-policies:\n      _meta:\n        scheme: MSP\n        msp-identities:\n          - msp-id: ${org.mspId}\n            msp-dir: ${msp}\n      "0":\n        scheme: ECDSA\n        seed: 10`,
    '  seed: 12345\n  workers: 1',
    'stream:\n  rate-limit: 100\n  buffers-size: 10\n  gen-batch: 10',
    'generate:\n  config: false\n  namespaces: true\n  load: true',
    'limit:\n  transactions: 300',
    'logging:\n  logSpec: info',
  ].join('\n') + '\n');
  const run = await promisify(execFile)(loadgen, ['start', `--config=${path.join(work, 'loadgen.yaml')}`], { timeout: 240_000 }).catch((e) => e);
  const out = `${run.stdout ?? ''}${run.stderr ?? ''}`.replace(/\x1b\[[0-9;]*m/g, '');
  writeFileSync(path.join(work, 'loadgen.log'), out);
  // loadgen's own view (statuses of the blocks it received from the sidecar) ...
  const seen = [...out.matchAll(/statuses \[COMMITTED x (\d+)\]/g)].reduce((n, m) => n + Number(m[1]), 0);
  // ... and the coordinator's count of transactions committed to the database.
  const committedTotal = async () => {
    const text = await (await fetch(c.coordinatorMetricsUrl)).text();
    return Number(/coordinator_grpc_committed_transaction_total\{status="COMMITTED"\} (\d+)/.exec(text)?.[1] ?? 0);
  };
  const total = await until('300 transactions committed', async () => ((await committedTotal()) >= 302 ? committedTotal() : null), 60_000, 1000).catch(() => committedTotal());
  const invalid = /status="ABORTED_SIGNATURE_INVALID"\} (\d+)/.exec(await (await fetch(c.coordinatorMetricsUrl)).text());
  console.log(`  loadgen saw ${seen} COMMITTED; the coordinator counts ${total} committed (config block + namespace + 300 transactions)${invalid ? `, ${invalid[1]} with an invalid signature` : ''}; loadgen log: ${path.join(work, 'loadgen.log')}`);
  assert.ok(total >= 302, `the coordinator counts ${total} committed transactions; loadgen's last lines: ${out.split('\n').slice(-5).join(' | ')}`);
  assert.ok(seen >= 300, `loadgen saw ${seen} COMMITTED`);
});

t('the service restarts and the roles keep running (same processes) and are still watched', async () => {
  const batcherId = group.ledgerXOrdererGroup.roles.find((r: any) => r.role === 'batcher').nodeId;
  const pidFile = path.join(server.dataDir, 'nodes', `node-${batcherId}`, 'node.pid.json');
  const pidBefore = JSON.parse(readFileSync(pidFile, 'utf8')).pid;
  await server.stop();
  server = await startServer({ env: server.env, dataDir: server.dataDir, databaseUrl: server.databaseUrl ?? undefined, port: server.port });
  assert.is((await api('GET', `/nodes/${batcherId}`)).json.status, 'running');
  assert.is(JSON.parse(readFileSync(pidFile, 'utf8')).pid, pidBefore, 'the same process');
  const res = await fetch(group.ledgerXOrdererGroup.batcherMetricsUrl);
  assert.is(res.status, 200);
  process.kill(pidBefore, 'SIGKILL');
  await until('node.downtime after the restart', async () => ((await events(api, batcherId)).includes('node.downtime') ? true : null), 90_000);
  assert.is((await api('POST', `/nodes/${batcherId}/start`)).json.status, 'running');
});

t('deleting the committer stops its services and drops its database and user', async () => {
  const dbName = committer.ledgerXCommitter.database.name;
  assert.match(dbName, /^lnm_ledgerx_committer_\d+$/);
  const del = await api('DELETE', `/nodes/${committer.id}`);
  assert.is(del.status, 204, del.text);
  made.splice(made.indexOf(committer.id), 1);
  if (!server.databaseUrl) return;
  const client = new pg.Client({ connectionString: server.databaseUrl });
  await client.connect();
  try {
    await until('the committer database dropped', async () => ((await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [dbName])).rowCount === 0 ? true : null), 60_000);
    assert.is((await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [dbName])).rowCount, 0);
  } finally {
    await client.end();
  }
  for (const { nodeId } of committer.ledgerXCommitter.roles) assert.is((await api('GET', `/nodes/${nodeId}`)).status, 404);
  committer = null;
});

t.run();
