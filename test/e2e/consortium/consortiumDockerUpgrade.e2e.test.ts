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
// rollingUpgradeKit.ts's, shared with the same upgrade on a Docker node host (hostsFabricUpgrade).
import { suite } from 'uvu';
import type { TestServer } from '../../helpers/server.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { chaincodeImagesMissing, dockerMissing, ourContainers, releaseImages, startDockerServer, stopDockerServer } from './dockerFabricKit.ts';
import { apiOf } from './consortiumApi.ts';
import { rollingUpgrade, upgradeChannel, type UpgradeChannel } from './rollingUpgradeKit.ts';

const { versions: [v25, v31], missing: releasesMissing } = await releaseImages(['2.5.', '3.1.']);
const t = requiresAll(
  suite('a rolling upgrade of docker nodes, Fabric 2.5 -> 3.1 (release images)'),
  ['docker', dockerMissing],
  ['fabric-release-images', releasesMissing],
  ['chaincode-images', chaincodeImagesMissing],
);
let server: TestServer;
const api = apiOf(() => server);
let channel: UpgradeChannel;
const upgrade = rollingUpgrade(api, () => channel, {
  from: v25,
  to: v31,
  imageOf: async (nodeId) => (await ourContainers(server.dataDir)).find((c) => c.Labels['lnm.node'] === `node-${nodeId}`)?.Image,
  address: () => '127.0.0.1',
});

t.before(async () => {
  server = await startDockerServer('dup');
  channel = await upgradeChannel(api, 'dup', 'dockupgrade', { fabricVersion: v25 });
});
t.after(() => stopDockerServer(server));

t('on 2.5 V3_0 is refused naming the 2.5 nodes; each node upgraded to 3.1 in turn (its container on the 3.1 image, ledger kept), an invoke committed after each', () => upgrade.nodeByNode());

t('all on 3.1: V3_0 accepted, an invoke commits, the ledger written on 2.5 intact', () => upgrade.raised());

t.run();
