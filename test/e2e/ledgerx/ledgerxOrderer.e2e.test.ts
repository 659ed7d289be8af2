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
import { generateKeyPairSync } from 'node:crypto';
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
import { freeGrpcBase } from '../../helpers/ports.ts';

const t = requires(suite('ledgerX orderer group and network end to end (real Fabric-X)'), 'fabric-x', fabricXMissing);
let server: TestServer;
const api = apiOf(() => server);
let org: { id: number; mspId: string };
let group: any;
let network: any;
let committer: any;
const made: number[] = [];

const freeBase = (n = 4): Promise<number> => freeGrpcBase(n);

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
  // No committer yet: the explorer and namespaces say so (409), never a 500.
  for (const [method, p, body] of [['GET', 'info'], ['GET', 'blocks'], ['GET', 'namespaces'], ['POST', 'namespaces', { name: 'early' }]] as const) {
    const r = await api(method, `/networks/ledgerx/${network.id}/${p}`, body);
    assert.is(r.status, 409, `${method} ${p}: ${r.text}`);
    assert.is(r.json.code, 'NO_RUNNING_COMMITTER');
  }
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

t('the explorer: chain info, blocks newest first and chained, loadgen\'s transactions COMMITTED in the explorer and in the committer\'s own database', async () => {
  const info = await api('GET', `/networks/ledgerx/${network.id}/info`);
  assert.is(info.status, 200, info.text);
  const height = info.json.height;
  assert.ok(height >= 2, `height ${height}: the genesis block and loadgen's blocks`);
  assert.is(info.json.committer.node_id, committer.id);
  assert.is(info.json.config_version, 0);
  const page = await api('GET', `/networks/ledgerx/${network.id}/blocks?limit=3`);
  assert.is(page.status, 200, page.text);
  assert.is(page.json.total, height);
  assert.equal(page.json.items.map((b: any) => b.number), [height - 1, height - 2, height - 3].filter((n) => n >= 0));
  assert.is(page.json.items[0].hash, info.json.current_block_hash, 'the newest block\'s header hash is the chain info\'s');
  for (let i = 0; i + 1 < page.json.items.length; i++) assert.is(page.json.items[i].previous_hash, page.json.items[i + 1].hash, 'each block names the previous one\'s hash');
  const oldest = await api('GET', `/networks/ledgerx/${network.id}/blocks?limit=1&offset=${height - 1}`);
  assert.equal(oldest.json.items.map((b: any) => b.number), [0]);
  const genesis = await api('GET', `/networks/ledgerx/${network.id}/blocks/0`);
  assert.is(genesis.status, 200, genesis.text);
  assert.is(genesis.json.transactions[0].type, 'CONFIG');

  if (!(await fabricXProgram('loadgen'))) return;
  // Every transaction of every block, as the explorer shows it.
  const all: any[] = [];
  for (let n = 0; n < height; n++) {
    const b = await api('GET', `/networks/ledgerx/${network.id}/blocks/${n}`);
    assert.is(b.status, 200, b.text);
    all.push(...b.json.transactions.map((t: any) => ({ ...t, block: n })));
  }
  const committedIds = all.filter((t) => t.status === 'COMMITTED').map((t) => t.id);
  assert.ok(committedIds.length >= 300, `${committedIds.length} COMMITTED transactions in the explorer's blocks`);
  // The same transactions in the committer's database (tx_status: status 1 is COMMITTED), read
  // directly with the service's own PostgreSQL user, not through the service.
  if (server.databaseUrl) {
    const url = new URL(server.databaseUrl);
    url.pathname = `/${committer.ledgerXCommitter.database.name}`;
    const client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
    try {
      const rows = (await client.query("SELECT convert_from(tx_id, 'UTF8') AS id, status FROM tx_status")).rows;
      const inDb = new Map(rows.map((r) => [r.id as string, Number(r.status)]));
      for (const id of committedIds) assert.is(inDb.get(id), 1, `tx ${id} COMMITTED in the committer's database`);
      assert.is(rows.filter((r) => Number(r.status) === 1).length, committedIds.length, 'as many COMMITTED in the database as in the blocks');
      console.log(`  explorer: height ${height}, ${committedIds.length} COMMITTED transactions, all with status 1 in ${committer.ledgerXCommitter.database.name}.tx_status`);
    } finally {
      await client.end();
    }
  }
  const sample = all.find((t) => t.status === 'COMMITTED' && t.namespaces.some((ns: any) => ns.ns_id === '0'));
  assert.ok(sample, 'a loadgen transaction on its namespace "0"');
  const tx = await api('GET', `/networks/ledgerx/${network.id}/transactions/${sample.id}`);
  assert.is(tx.status, 200, tx.text);
  assert.is(tx.json.status, 'COMMITTED');
  assert.is(tx.json.status_code, 1);
  assert.is(tx.json.block_number, sample.block);
  assert.is(tx.json.type, 'MESSAGE');
  assert.is(tx.json.creator_msp_id, org.mspId);
  // loadgen's namespace, created by its own _meta transaction with an ECDSA key policy.
  const listed = await api('GET', `/networks/ledgerx/${network.id}/namespaces`);
  assert.is(listed.status, 200, listed.text);
  const ns0 = listed.json.items.find((n: any) => n.name === '0');
  assert.ok(ns0, listed.text);
  assert.is(ns0.policy.type, 'THRESHOLD');
  assert.is(ns0.policy.scheme, 'ECDSA');
});

t('a namespace is created by a meta-namespace transaction the service signs: committed, listed, and its table made in the committer\'s database', async () => {
  const r = await api('POST', `/networks/ledgerx/${network.id}/namespaces`, { name: 'assets' });
  assert.is(r.status, 201, r.text);
  assert.is(r.json.status, 'COMMITTED');
  assert.is(r.json.namespace.name, 'assets');
  assert.equal(r.json.namespace.policy, { type: 'MSP', principals: [{ msp_id: org.mspId, role: 'member' }], signatures_required: 1 });
  const listed = (await api('GET', `/networks/ledgerx/${network.id}/namespaces`)).json.items;
  assert.ok(listed.some((n: any) => n.name === 'assets' && n.version === 0), JSON.stringify(listed));
  const tx = await api('GET', `/networks/ledgerx/${network.id}/transactions/${r.json.tx_id}`);
  assert.is(tx.status, 200, tx.text);
  assert.is(tx.json.status, 'COMMITTED');
  assert.is(tx.json.block_number, r.json.block_number);
  assert.equal(tx.json.namespaces.map((n: any) => [n.ns_id, n.keys]), [['_meta', ['assets']]]);
  const block = await api('GET', `/networks/ledgerx/${network.id}/blocks/${r.json.block_number}`);
  assert.ok(block.json.transactions.some((t: any) => t.id === r.json.tx_id && t.status === 'COMMITTED'));
  if (server.databaseUrl) {
    const url = new URL(server.databaseUrl);
    url.pathname = `/${committer.ledgerXCommitter.database.name}`;
    const client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
    try {
      assert.is((await client.query("SELECT 1 FROM ns__meta WHERE key = convert_to('assets', 'UTF8')")).rowCount, 1, 'the policy row in the meta-namespace');
      assert.is((await client.query("SELECT 1 FROM pg_tables WHERE tablename = 'ns_assets'")).rowCount, 1, 'the namespace\'s table');
    } finally {
      await client.end();
    }
  }
  // Its record for the audit log (the ledger holds the namespace itself).
  const audit = (await api('GET', '/audit-logs?limit=200&days=1')).json.items;
  assert.ok(audit.some((e: any) => e.event_type === 'LedgerXNamespaceCreated' && e.resource_name === 'assets' && e.action === 'CREATE'), 'audited');
  // A second one with an ECDSA key policy.
  const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const keyed = await api('POST', `/networks/ledgerx/${network.id}/namespaces`, { name: 'keyed_1', policy: { type: 'THRESHOLD', scheme: 'ECDSA', publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString() } });
  assert.is(keyed.status, 201, keyed.text);
  assert.is(keyed.json.namespace.policy.type, 'THRESHOLD');
});

t('bad input to the explorer and namespaces: 4xx with the one error shape, never a 500', async () => {
  const id = network.id;
  const cases: [string, string, unknown, number, string?][] = [
    ['GET', '/networks/ledgerx/999999/info', undefined, 404],
    ['GET', '/networks/ledgerx/999999/blocks', undefined, 404],
    ['GET', '/networks/ledgerx/999999/blocks/0', undefined, 404],
    ['GET', '/networks/ledgerx/999999/transactions/abc', undefined, 404],
    ['GET', '/networks/ledgerx/999999/namespaces', undefined, 404],
    ['POST', '/networks/ledgerx/999999/namespaces', { name: 'x' }, 404],
    ['GET', '/networks/ledgerx/999999/map', undefined, 404],
    ['GET', `/networks/ledgerx/${id}/blocks/999999`, undefined, 404],
    ['GET', `/networks/ledgerx/${id}/blocks/-1`, undefined, 400],
    ['GET', `/networks/ledgerx/${id}/blocks/abc`, undefined, 400],
    ['GET', `/networks/ledgerx/${id}/blocks?limit=0`, undefined, 400],
    ['GET', `/networks/ledgerx/${id}/blocks/99999999999999999999`, undefined, 400],
    ['GET', `/networks/ledgerx/${id}/blocks?offset=99999999999`, undefined, 200],
    ['GET', `/networks/ledgerx/${id}/transactions/${'0'.repeat(64)}`, undefined, 404],
    ['GET', `/networks/ledgerx/${id}/transactions/${encodeURIComponent("x' OR 1=1 --")}`, undefined, 400],
    ['GET', `/networks/ledgerx/${id}/transactions/${'a'.repeat(129)}`, undefined, 400],
    ['POST', `/networks/ledgerx/${id}/namespaces`, { name: 'assets' }, 409, 'NAMESPACE_EXISTS'],
    ['POST', `/networks/ledgerx/${id}/namespaces`, { name: 'Bad-Name' }, 400],
    ['POST', `/networks/ledgerx/${id}/namespaces`, { name: '_meta' }, 400],
    ['POST', `/networks/ledgerx/${id}/namespaces`, { name: 'x'.repeat(61) }, 400],
    ['POST', `/networks/ledgerx/${id}/namespaces`, { name: '' }, 400],
    ['POST', `/networks/ledgerx/${id}/namespaces`, {}, 400],
    ['POST', `/networks/ledgerx/${id}/namespaces`, { name: 'n1', extra: 1 }, 400],
    ['POST', `/networks/ledgerx/${id}/namespaces`, { name: 'n1', policy: { type: 'MSP', organizations: ['NoSuchMSP'] } }, 400],
    ['POST', `/networks/ledgerx/${id}/namespaces`, { name: 'n1', policy: { type: 'MSP', signaturesRequired: 2 } }, 400],
    ['POST', `/networks/ledgerx/${id}/namespaces`, { name: 'n1', policy: { type: 'THRESHOLD', scheme: 'ECDSA', publicKey: 'not a key' } }, 400],
    ['POST', `/networks/ledgerx/${id}/namespaces`, { name: 'n1', policy: { type: 'RSA' } }, 400],
  ];
  for (const [method, p, body, status, code] of cases) {
    const r = await api(method as 'GET', p, body);
    assert.is(r.status, status, `${method} ${p} ${JSON.stringify(body) ?? ''}: ${r.text}`);
    if (status === 200) {
      assert.equal(r.json.items, [], 'a page past the oldest block is empty');
      continue;
    }
    assert.type(r.json?.message, 'string', `${p}: the error body`);
    assert.type(r.json?.code, 'string', `${p}: the error body`);
    if (code) assert.is(r.json.code, code);
  }
  assert.not.ok((await api('GET', `/networks/ledgerx/${id}/namespaces`)).json.items.some((n: any) => n.name === 'n1'), 'nothing created by a refused request');
});

t('the map and the platform list: the organization, its orderer group with its four roles, its committer with its five services, their endpoints and status', async () => {
  const map = await api('GET', `/networks/ledgerx/${network.id}/map`);
  assert.is(map.status, 200, map.text);
  assert.is(map.json.organizations.length, 1);
  const o = map.json.organizations[0];
  assert.is(o.msp_id, org.mspId);
  assert.is(o.orderer_groups.length, 1);
  const g = o.orderer_groups[0];
  assert.is(g.node_id, group.id);
  assert.is(g.party_id, 1);
  assert.is(g.joined, true);
  assert.equal(g.roles.map((r: any) => r.role), ['router', 'batcher', 'consenter', 'assembler']);
  for (const r of g.roles) {
    assert.is(r.status, 'running', `${r.role}`);
    assert.is(r.metrics_url, group.ledgerXOrdererGroup[`${r.role}MetricsUrl`]);
    assert.is(r.endpoint, `127.0.0.1:${group.ledgerXOrdererGroup[`${r.role}Port`]}`);
  }
  assert.equal(o.committers[0].services.map((r: any) => r.role), ['sidecar', 'coordinator', 'vc', 'verifier', 'query']);
  for (const r of o.committers[0].services) assert.is(r.status, 'running', r.role);
  assert.equal(map.json.endpoints.broadcast, [`127.0.0.1:${group.ledgerXOrdererGroup.routerPort}`]);
  assert.equal(map.json.endpoints.deliver, [`127.0.0.1:${group.ledgerXOrdererGroup.assemblerPort}`]);
  assert.equal(map.json.endpoints.committed_blocks, [`127.0.0.1:${committer.ledgerXCommitter.sidecarPort}`]);

  const listed = (await api('GET', '/nodes/platform/LEDGERX?limit=100')).json;
  assert.is(listed.total, 11, 'two groups and their 4 + 5 role nodes');
  const byId = new Map(listed.items.map((n: any) => [n.id, n]));
  assert.is((byId.get(group.id) as any).nodeType, 'LEDGERX_ORDERER_GROUP');
  assert.is((byId.get(committer.id) as any).nodeType, 'LEDGERX_COMMITTER');
  for (const { role, nodeId } of group.ledgerXOrdererGroup.roles) assert.is((byId.get(nodeId) as any)?.nodeType, `LEDGERX_ORDERER_${role.toUpperCase()}`);
  for (const { role, nodeId } of committer.ledgerXCommitter.roles) assert.is((byId.get(nodeId) as any)?.nodeType, `LEDGERX_COMMITTER_${role.toUpperCase()}`);
  for (const n of listed.items) assert.is(n.platform, 'LEDGERX');
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
  assert.match(dbName, /^lnm_ledgerx_[0-9a-f]{8}_committer_\d+$/);
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
