// The rolling upgrade from Fabric 2.5 to 3.1 (issue 37 item 7) of nodes on a registered Docker
// node host: a second Docker Engine in a network namespace the test makes (tcp with --tlsverify),
// holding the 2.5 and 3.1 release images of the Fabric peer and orderer only. Org1's three raft
// orderers and its peer run there on the 2.5 images (their files uploaded into their volumes); the
// sample chaincode runs on this machine's Docker at the address the host reaches this machine at
// (LNM_CHAINCODE_HOST). The steps are rollingUpgradeKit.ts's, as on this machine's Docker
// (consortiumDockerUpgrade): V3_0 refused naming the 2.5 nodes, each node upgraded in turn (its
// container on the host made again from the 3.1 image on the same volume, its /version 3.1 at the
// host's address, its ledger height kept, an invoke after each), then V3_0 accepted and the ledger
// written on 2.5 intact. Then the peer on the host leaves the channel (issue 37 item 5: `peer node
// unjoin` in a one-off container of its image on its volume, the peer stopped and started again):
// it reports no ledger of the channel, no one-off container is left, and it joins again and
// catches up. Skipped, saying why, without a Docker Engine, the 2.5 and 3.1 release
// images, the chaincode images, or root to start the second engine.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestServer } from '../../helpers/server.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { secondHostMissing, startSecondDockerHost, type SecondDockerHost } from '../../helpers/secondDockerHost.ts';
import { chaincodeImagesMissing, dockerMissing, releaseImages, startDockerServer, stopDockerServer } from '../consortium/dockerFabricKit.ts';
import { apiOf, peerLeaves, until } from '../consortium/consortiumApi.ts';
import { rollingUpgrade, upgradeChannel, type UpgradeChannel } from '../consortium/rollingUpgradeKit.ts';

const { versions: [v25, v31], missing: releasesMissing } = await releaseImages(['2.5.', '3.1.']);
const t = requiresAll(
  suite('node hosts: a rolling upgrade of Fabric nodes on a Docker host, 2.5 -> 3.1'),
  ['docker', dockerMissing],
  ['fabric-release-images', releasesMissing],
  ['chaincode-images', chaincodeImagesMissing],
  ['docker-host', secondHostMissing()],
);
let host: SecondDockerHost;
let server: TestServer;
const api = apiOf(() => server);
let channel: UpgradeChannel;
const upgrade = rollingUpgrade(api, () => channel, {
  from: v25,
  to: v31,
  imageOf: async (nodeId) => host.docker(['ps', '-a', '--filter', `label=lnm.node=node-${nodeId}`, '--format', '{{.Image}}']).trim() || undefined,
  address: () => host.address,
});

t.before(async () => {
  host = await startSecondDockerHost({ images: [v25, v31].flatMap((v) => [`lnm-fabric-peer:${v}`, `lnm-fabric-orderer:${v}`]) });
  server = await startDockerServer('hup', { LNM_CHAINCODE_HOST: host.gateway, LNM_HOST_CHECK_SECONDS: '2' });
  const h = await api('POST', '/hosts', { name: 'upgrade-host', url: host.url, tls: host.pki });
  assert.is(h.status, 201, h.text);
  channel = await upgradeChannel(api, 'hup', 'hostupgrade', { fabricVersion: v25, hostId: h.json.id });
  for (const n of [...channel.orderers, channel.peer]) {
    assert.is(n.config.hostId, h.json.id, n.name);
    assert.is(n.config.externalEndpoint, `${host.address}:${n.config.port}`, n.name);
  }
});
t.after(async () => {
  await stopDockerServer(server);
  await host?.remove();
});

t('on 2.5 V3_0 is refused naming the nodes on the host; each upgraded to 3.1 in turn on the host (its container on the 3.1 image, its volume kept), an invoke after each', () => upgrade.nodeByNode());

t('all on 3.1: V3_0 accepted, an invoke commits, the ledger written on 2.5 intact', () => upgrade.raised());

/** The peer's own ledger height of the channel (its operations /metrics at the host's address), null without the channel. */
async function peerLedgerHeight(): Promise<number | null> {
  const text = await (await fetch(`http://${host.address}:${channel.peer.config.operationsPort}/metrics`)).text();
  const m = text.match(new RegExp(`^ledger_blockchain_height\\{[^}]*channel="${channel.channel}"[^}]*\\}\\s+(\\d+)`, 'm'));
  return m ? Number(m[1]) : null;
}

t('the peer on the host leaves the channel (its container stopped, peer node unjoin in a one-off container on its volume, started again), then joins again and catches up', async () => {
  const { networkId, peer } = channel;
  const before = await until('the peer\'s ledger height', peerLedgerHeight, 30_000, 1000);
  const r = await peerLeaves(api, networkId, peer.id);
  assert.is(r.json.steps.length, 4, r.text);
  assert.match(r.json.steps[1], /peer stopped/);
  assert.match(r.json.steps[2], `peer node unjoin -c ${channel.channel}`);
  assert.match(r.json.steps[3], /peer started again/);
  await until('the peer running again', async () => ((await api('GET', `/nodes/${peer.id}`)).json?.status === 'running' ? true : null), 60_000, 1000);
  // Restarted on its volume without the channel's ledger: it reports no height for the channel.
  const afterLeave = await until('the peer\'s metrics', async () => {
    const res = await fetch(`http://${host.address}:${peer.config.operationsPort}/metrics`).catch(() => null);
    return res?.ok ? true : null;
  }, 60_000, 1000).then(peerLedgerHeight);
  assert.is(afterLeave, null, 'the channel is gone from the peer');
  const names = host.docker(['ps', '-a', '--format', '{{.Names}}']).trim().split('\n');
  assert.is(names.length, 4, `the four nodes only, no one-off container left: ${names.join(' ')}`);
  await until('the peer to join again', async () => ((await api('POST', `/networks/consortium/${networkId}/peers/${peer.id}/join`)).status === 200 ? true : null), 90_000, 2000);
  await until('the peer caught up', async () => ((await peerLedgerHeight()) ?? 0) >= before ? true : null, 90_000, 1000);
});

t.run();
