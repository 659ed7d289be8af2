// besu nodes under the docker engine, against the real Docker Engine. No besu image can be
// pulled here, so LNM_IMAGE_BESU points at a local image that runs the besu stand-in
// (test/standins/besuStandinImage.ts: the same command line and option checks as the process
// engine test, no block production). What this proves is the docker path of a besu network:
// containers on the host network reading config, genesis and node key from the bound node
// directory, peers found through the enodes, containers that outlive the service, removal.
import { test as uvuTest } from 'uvu';
import * as assert from 'uvu/assert';
import Docker from 'dockerode';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { dockerSkipReason } from '../../helpers/dockerAvailability.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { ensureBesuStandinImage } from '../../standins/besuStandinImage.ts';
import { api, until } from './evmLifecycle.ts';

const docker = new Docker();
const test = requiresAll(uvuTest, ['docker', await dockerSkipReason()]);
let s: TestServer | undefined;
let image: string;
let networkId: number;
let nodes: Array<{ id: number; status: string; enode: string; validator_address: string }> = [];

async function ourContainers(dataDir: string) {
  return docker.listContainers({ all: true, filters: { label: [`lnm.data-dir=${dataDir}`] } });
}

const env = () => ({ LNM_NODE_ENGINE: 'docker', LNM_IMAGE_BESU: image });

test.before(async () => {
  image = await ensureBesuStandinImage();
  s = await startServer({ env: env() });
});

test.after(async () => {
  await s?.stop();
  if (s) for (const c of await ourContainers(s.dataDir)) await docker.getContainer(c.Id).remove({ force: true }).catch(() => undefined);
});

test('with a besu image on the Docker host, auto picks besu and a four-validator QBFT network starts in containers on the host network', async () => {
  const r = await api(s!, 'POST', '/networks/evm', { name: 'besu-docker', validatorCount: 4, genesis: { chain_id: 43200, consensus: 'QBFT', block_time: 2 } });
  assert.is(r.status, 201, r.text);
  assert.equal({ client: r.json.client, engine: r.json.engine }, { client: 'besu', engine: 'docker' });
  networkId = r.json.id;
  const start = await api(s!, 'POST', `/networks/${networkId}/start`);
  assert.is(start.status, 200, start.text);
  nodes = start.json.nodes;
  assert.equal(nodes.map((n) => n.status), ['running', 'running', 'running', 'running'], start.text);
  const containers = await ourContainers(s!.dataDir);
  for (const n of nodes) {
    const c = containers.find((x) => x.Names.includes(`/lnm-node-${n.id}`));
    assert.ok(c, `a container for node ${n.id}`);
    const info = await docker.getContainer(c!.Id).inspect();
    assert.equal({ image: info.Config.Image, network: info.HostConfig.NetworkMode, running: info.State.Running }, { image, network: 'host', running: true });
    assert.ok(info.Args.some((a) => a.startsWith('--config-file=') && a.endsWith('/config.toml')), info.Args.join(' '));
  }
});

test('the containers find each other through their enodes, and the chain reports the genesis validators', async () => {
  for (const n of nodes) await until(`peers of node ${n.id}`, async () => ((await api(s!, 'GET', `/nodes/${n.id}`)).json.peer_count ?? 0) > 0);
  const v = (await api(s!, 'GET', `/networks/${networkId}/validators`)).json;
  assert.is(v.source, 'chain');
  assert.equal(v.validators.map((x: { address: string }) => x.address.toLowerCase()).sort(), nodes.map((n) => n.validator_address.toLowerCase()).sort());
});

test('the containers keep running while the service is stopped, and a new service finds them running', async () => {
  const dataDir = s!.dataDir;
  const databaseUrl = s!.databaseUrl!;
  await s!.stop();
  const running = (await ourContainers(dataDir)).filter((c) => c.State === 'running').length;
  assert.is(running, 4, 'all four containers outlived the service');
  s = await startServer({ dataDir, databaseUrl, env: env() });
  for (const n of nodes) {
    const node = await until(`node ${n.id} seen running again`, async () => {
      const r = (await api(s!, 'GET', `/nodes/${n.id}`)).json;
      return r.status === 'running' && r.peer_count !== null ? r : null;
    });
    assert.is(node.enode, n.enode, 'same node key, same enode');
  }
});

test('deleting the network stops and removes its containers', async () => {
  assert.is((await api(s!, 'DELETE', `/networks/evm/${networkId}`)).status, 204);
  await until('containers removed', async () => (await ourContainers(s!.dataDir)).length === 0);
});

test.run();
