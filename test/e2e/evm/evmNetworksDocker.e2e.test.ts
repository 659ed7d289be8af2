// The same lifecycle as evmNetworks.e2e.test.ts with engine docker, against the real Docker
// Engine (.ci/docker.sh starts one and builds lnm-anvil:local). Skipped, saying why, where
// no Docker Engine can run containers.
import { test as uvuTest } from 'uvu';
import Docker from 'dockerode';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { dockerSkipReason } from '../../helpers/dockerAvailability.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { runEvmLifecycle } from './evmLifecycle.ts';

const docker = new Docker();
const test = requiresAll(uvuTest, ['docker', await dockerSkipReason()]);
let s: TestServer | undefined;

async function ourContainers(dataDir: string) {
  return docker.listContainers({ all: true, filters: { label: [`lnm.data-dir=${dataDir}`] } });
}

test.before(async () => {
  s = await startServer({ env: { LNM_NODE_ENGINE: 'docker' } });
});

test.after(async () => {
  await s?.stop();
  if (s) for (const c of await ourContainers(s.dataDir)) await docker.getContainer(c.Id).remove({ force: true }).catch(() => undefined);
});

test('a one-validator anvil network runs through its whole lifecycle with the docker engine', async () => {
  const srv = s!;
  const container = async (nodeId: number) => (await ourContainers(srv.dataDir)).find((c) => c.Names.includes(`/lnm-node-${nodeId}`));
  await runEvmLifecycle(srv, {
    engine: 'docker',
    name: 'e2e-docker',
    chainId: 31998,
    async killNode(_srv, nodeId) {
      await docker.getContainer((await container(nodeId))!.Id).kill();
    },
    async nodeGone(_srv, nodeId) {
      const c = await container(nodeId);
      return !c || c.State !== 'running';
    },
  });
});

test.run();
