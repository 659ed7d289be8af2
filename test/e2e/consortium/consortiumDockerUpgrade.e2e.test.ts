// A rolling upgrade from Fabric 2.5 to 3.1 of docker nodes (issue 37 item 7), on real Docker with
// the per-release images .ci/docker.sh builds (lnm-fabric-peer:2.5.12, lnm-fabric-peer:3.1.5, the
// same of lnm-fabric-orderer): three raft orderers and a peer of Org1, each container on the 2.5
// image, a channel with the sample chaincode (its image) committed and invoked. Channel V3_0 is
// refused naming every 2.5 node (the release each records). Then each node is upgraded in turn
// (POST /nodes/{id}/upgrade): its container is made again from the 3.1 image on the same node
// directory, its own /version says 3.1, its ledger height at least what it was, and an invoke
// commits after each (the channel committing throughout, one node down at a time). Then V3_0 is
// accepted, an invoke commits, and the ledger is intact (an asset written on 2.5 read back,
// block 0's hash unchanged). Skipped, saying why, without a Docker Engine or without the 2.5 and
// 3.1 release images or the chaincode images (a fresh CI machine has none). The steps are
// rollingUpgradeKit.ts's, shared with the cluster's suite (kubernetesChannelUpgrade).
import { suite } from 'uvu';
import type { TestServer } from '../../helpers/server.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { chaincodeImagesMissing, dockerMissing, ourContainers, releaseImages, startDockerServer, stopDockerServer } from './dockerFabricKit.ts';
import { apiOf } from './consortiumApi.ts';
import { raiseToV3, upgradeChannel, upgradeNodeByNode, type UpgradeChannel, type WrittenOn25 } from './rollingUpgradeKit.ts';

const { versions: [v25, v31], missing: releasesMissing } = await releaseImages(['2.5.', '3.1.']);
const t = requiresAll(
  suite('a rolling upgrade of docker nodes, Fabric 2.5 -> 3.1 (release images)'),
  ['docker', dockerMissing],
  ['fabric-release-images', releasesMissing],
  ['chaincode-images', chaincodeImagesMissing],
);
let server: TestServer;
const api = apiOf(() => server);
let ch: UpgradeChannel;
let setupError: unknown = null;

t.before(async () => {
  try {
    server = await startDockerServer('dup');
    ch = await upgradeChannel(api, { name: 'dockupgrade', from: v25! });
  } catch (err) {
    setupError = err;
  }
});
// uvu drops a before hook's error: it is thrown again from each test.
t.before.each(() => {
  if (setupError) throw setupError;
});
t.after(() => stopDockerServer(server));

async function runningVersion(n: { config: { operationsPort: number } }): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${n.config.operationsPort}/version`);
  return ((await res.json()) as { Version: string }).Version;
}
const imageOf = async (n: { id: number }) => (await ourContainers(server.dataDir)).find((c) => c.Labels['lnm.node'] === `node-${n.id}`)?.Image;
let written: WrittenOn25;

t('on 2.5 V3_0 is refused naming the 2.5 nodes; each node upgraded to 3.1 in turn (its container on the 3.1 image, ledger kept), an invoke committed after each', async () => {
  written = await upgradeNodeByNode(ch, { from: v25!, to: v31!, imageOf, versionOf: runningVersion });
});

t('all on 3.1: V3_0 accepted, an invoke commits, the ledger written on 2.5 intact', async () => {
  await raiseToV3(ch, written);
});

t.run();
