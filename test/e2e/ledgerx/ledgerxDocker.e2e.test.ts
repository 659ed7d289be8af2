// The ledgerX network once under the docker engine (LNM_NODE_ENGINE=docker): a quick start of one
// organization whose orderer roles run in lnm-fabric-x-arma:local and whose committer services
// run in lnm-fabric-x-committer:local (images .ci/docker.sh builds from the Fabric-X programs it
// finds; no registry ships them), on the host network, ends COMPLETED; every role is a container
// of this service and answers /metrics; its logs come from the container. The genesis block is
// built by the service itself. Then Fabric-X's own loadgen (on the host) sends transactions
// through the router container of that network, and they are COMMITTED: in loadgen's statuses,
// in the coordinator container's count, and in the service's explorer (blocks and by id).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import Docker from 'dockerode';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { dockerSkipReason, imagesMissing } from '../../helpers/dockerAvailability.ts';
import { fabricXMissing, fabricXProgram, fabricXServiceEnv } from '../../helpers/programs.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { apiOf, until } from '../consortium/consortiumApi.ts';
import { freePortBlock } from '../../helpers/ports.ts';
import path from 'node:path';
import { runLoadgen } from './ledgerxLoadgen.ts';

const docker = new Docker();
const images = ['lnm-fabric-x-arma:local', 'lnm-fabric-x-committer:local'];
const loadgen = await fabricXProgram('loadgen');
const t = requiresAll(suite('ledgerX network under the docker engine (local Fabric-X images)'), ['docker', await dockerSkipReason()], ['fabric-x-images', await imagesMissing(images)], ['fabric-x', fabricXMissing ?? (loadgen ? undefined : 'loadgen (fabric-x-committer) is not in LNM_FABRIC_X_BIN or on PATH')]);
let server: TestServer;
const api = apiOf(() => server);
let quick: { networkId: number; group: any; committer: any } | undefined;
const ourContainers = (dataDir: string) => docker.listContainers({ all: true, filters: { label: [`lnm.data-dir=${dataDir}`] } });

t.before(async () => {
  server = await startServer({ env: { ...fabricXServiceEnv(), LNM_NODE_ENGINE: 'docker', KEY_ENCRYPTION_KEY: 'ledgerx-docker-e2e-key', LNM_LEDGERX_JOIN_TIMEOUT_SECONDS: '90' } });
});
t.after(async () => {
  if (!server) return;
  const nodes = (await api('GET', '/nodes/platform/LEDGERX?limit=100')).json?.items ?? [];
  for (const n of nodes.filter((x: any) => x.nodeType === 'LEDGERX_COMMITTER' || x.nodeType === 'LEDGERX_ORDERER_GROUP')) await api('DELETE', `/nodes/${n.id}`).catch(() => undefined);
  await until('every ledgerX container removed', async () => ((await ourContainers(server.dataDir)).length === 0 ? true : null), 90_000).catch(() => undefined);
  // Only this run's containers (labelled with its data directory), never anything else.
  for (const c of await ourContainers(server.dataDir)) await docker.getContainer(c.Id).remove({ force: true }).catch(() => undefined);
  await server.stop();
});

/** A gRPC base with the group's and the committer's ports (+10) and their +100.. monitoring ports. */
const freeBase = (): Promise<number> => freePortBlock([0, 10].flatMap((g) => Array.from({ length: 5 }, (_, i) => [g + i, g + 100 + i]).flat()));

t('a quick start under the docker engine: every role runs in its image, answers /metrics, and its logs come from the container', async () => {
  const r = await api('POST', '/networks/ledgerx/quickstart', { name: 'dockqs', organizations: [{ name: 'DockOrg', mspId: 'DockOrgMSP' }], grpcPort: await freeBase() });
  assert.is(r.status, 202, r.text);
  const q = await until('the quick start ends', async () => {
    const x = (await api('GET', `/networks/ledgerx/quickstart/${r.json.id}`)).json;
    return x.status === 'IN_PROGRESS' ? null : x;
  }, 400_000, 1000);
  assert.is(q.status, 'COMPLETED', JSON.stringify(q));
  const group = (await api('GET', `/nodes/${q.steps[1].resource_id}`)).json;
  const committer = (await api('GET', `/nodes/${q.steps[2].resource_id}`)).json;
  const roles = [...group.ledgerXOrdererGroup.roles, ...committer.ledgerXCommitter.roles];
  const containers = await ourContainers(server.dataDir);
  for (const { role, nodeId } of roles) {
    const node = (await api('GET', `/nodes/${nodeId}`)).json;
    assert.is(node.engine, 'docker', `${role} ${JSON.stringify(node)}`);
    assert.is(node.status, 'running', role);
    const c = containers.find((x) => x.Labels['lnm.node'] !== undefined && x.Names.some((n) => n.endsWith(`node-${nodeId}`)));
    assert.ok(c, `a container for ${role} (node ${nodeId}): ${containers.map((x) => x.Names.join(',')).join(' ')}`);
    assert.is(c!.State, 'running', role);
    assert.ok(images.includes(c!.Image), `${role} runs ${c!.Image}`);
    const res = await fetch(node.ledgerXChild.metricsUrl);
    assert.is(res.status, 200, `${role} ${node.ledgerXChild.metricsUrl}`);
    assert.match(await res.text(), /^# (HELP|TYPE) /m);
  }
  const logs = await api('GET', `/nodes/${group.ledgerXOrdererGroup.roles[0].nodeId}/logs?tail=20`);
  assert.is(logs.status, 200, logs.text);
  assert.ok(logs.json.lines.length > 0, 'the router container\'s output');
  quick = { networkId: q.network_id, group, committer };
});

t('loadgen sends through the router container; its transactions are COMMITTED in the explorer', async () => {
  assert.ok(quick, 'the quick start above completed');
  const { networkId, committer } = quick!;
  const network = (await api('GET', `/networks/ledgerx/${networkId}`)).json;
  const c = committer.ledgerXCommitter;
  const sidecarId = c.roles.find((x: any) => x.role === 'sidecar').nodeId;
  const transactions = 100;
  const run = await runLoadgen({
    loadgen: loadgen!,
    genesisBlock: Buffer.from((await api('GET', `/networks/ledgerx/${networkId}/genesis`)).json.block, 'base64'),
    channel: network.channel_name,
    mspId: 'DockOrgMSP',
    // The sidecar container's client MSP: the service wrote it in the node's directory, which the
    // local docker engine binds at the same path.
    mspDir: path.join(server.dataDir, 'nodes', `node-${sidecarId}`, 'msp'),
    sidecarPort: c.sidecarPort,
    coordinatorMetricsUrl: c.coordinatorMetricsUrl,
    transactions,
  });
  console.log(`  docker: loadgen saw ${run.seen} COMMITTED; the coordinator container counts ${run.committed}; loadgen log: ${run.log}`);
  assert.ok(run.seen >= transactions, `loadgen saw ${run.seen} COMMITTED; its last lines: ${run.lastLines}`);
  assert.ok(run.committed >= transactions + 2, `the coordinator counts ${run.committed} (config block + namespace + ${transactions})`);
  // The explorer reads the blocks from the sidecar container and the statuses from the query container.
  const info = await until('the explorer sees loadgen\'s blocks', async () => {
    const x = await api('GET', `/networks/ledgerx/${networkId}/info`);
    return x.status === 200 && x.json.height >= 2 ? x.json : null;
  }, 60_000, 1000);
  const all: any[] = [];
  for (let n = 0; n < info.height; n++) {
    const b = await api('GET', `/networks/ledgerx/${networkId}/blocks/${n}`);
    assert.is(b.status, 200, b.text);
    all.push(...b.json.transactions.map((x: any) => ({ ...x, block: n })));
  }
  const committed = all.filter((x) => x.status === 'COMMITTED');
  assert.ok(committed.length >= transactions, `${committed.length} COMMITTED transactions in the explorer's ${info.height} blocks`);
  const sample = committed.find((x) => x.namespaces.some((ns: any) => ns.ns_id === '0'));
  assert.ok(sample, 'a loadgen transaction on its namespace "0"');
  const tx = await api('GET', `/networks/ledgerx/${networkId}/transactions/${sample.id}`);
  assert.is(tx.status, 200, tx.text);
  assert.is(tx.json.status, 'COMMITTED');
  assert.is(tx.json.status_code, 1);
  assert.is(tx.json.block_number, sample.block);
  assert.is(tx.json.creator_msp_id, 'DockOrgMSP');
});

t.run();
