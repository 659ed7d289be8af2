// A docker engine peer leaves a channel (issue 37 item 5) on real Fabric 2.5 (the release images
// lnm-fabric-peer:2.5.x and lnm-fabric-orderer:2.5.x): Org1's raft orderer and peer in containers,
// the peer joined and Org1's anchor peer. The leave removes the anchor peer, stops the container,
// runs `peer node unjoin` in a one-off container of the peer's image on its node directory, and
// starts the container again: the channel's ledger is gone from the peer's directory (its other
// files kept), the peer runs again from the same image, no one-off container is left, and the peer
// joins the channel again and catches up with it (the orderer still serves it, the peer's MSP and
// TLS material intact). Skipped, saying why, without a Docker Engine or the 2.5 release images.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { TestServer } from '../../helpers/server.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { dockerMissing, ourContainers, releaseImages, startDockerServer, stopDockerServer } from './dockerFabricKit.ts';
import { apiOf, oneOrganizationChannel, peerHeight, peerLeaves, until } from './consortiumApi.ts';

const { versions: [v25], missing: releasesMissing } = await releaseImages(['2.5.']);
const t = requiresAll(suite('a docker engine peer leaves the channel (Fabric 2.5 release images)'), ['docker', dockerMissing], ['fabric-release-images', releasesMissing]);
let server: TestServer;
const api = apiOf(() => server);
const CHANNEL = 'dockleave';
let setup: Awaited<ReturnType<typeof oneOrganizationChannel>>;

t.before(async () => {
  server = await startDockerServer('dpl');
  setup = await oneOrganizationChannel(api, 'dockleave', CHANNEL, { fabricVersion: v25 });
});
t.after(() => stopDockerServer(server));

const nodeDir = (id: number) => path.join(server.dataDir, 'nodes', `node-${id}`);
const chainDir = (id: number) => path.join(nodeDir(id), 'data', 'ledgersData', 'chains', 'chains', CHANNEL);
const containerOf = async (id: number) => (await ourContainers(server.dataDir)).find((c) => c.Labels['lnm.node'] === `node-${id}`);

t('the anchor peer in its container leaves: stopped, unjoined in a one-off container of its image, started again; it joins again and catches up', async () => {
  const { peer, network } = setup;
  const height = await until('the peer to have the anchor block', async () => ((await peerHeight(api, network.id)) ?? 0) >= 2 ? (await peerHeight(api, network.id))! : null, 60_000, 1000);
  assert.ok(existsSync(chainDir(peer.id)), 'the peer keeps the channel\'s ledger in its node directory');

  const r = await peerLeaves(api, network.id, peer.id);
  assert.is(r.json.restarted, true, r.text);
  assert.is(r.json.steps.length, 4, r.text);
  assert.match(r.json.steps[0], /removed from Org1MSP's anchor peers/);
  assert.match(r.json.steps[1], /peer stopped/);
  assert.match(r.json.steps[2], `peer node unjoin -c ${CHANNEL}`);
  assert.match(r.json.steps[3], /peer started again/);

  // Fabric's unjoin ran on the container's ledger: the channel's blocks are gone, the rest is kept.
  assert.not.ok(existsSync(chainDir(peer.id)), 'the channel\'s ledger removed from the peer\'s directory');
  for (const kept of ['core.yaml', 'msp', 'tls']) assert.ok(existsSync(path.join(nodeDir(peer.id), kept)), kept);
  await until('the peer running again', async () => ((await api('GET', `/nodes/${peer.id}`)).json?.status === 'running' ? true : null), 60_000, 1000);
  const container = await containerOf(peer.id);
  assert.is(container?.State, 'running', JSON.stringify(container));
  assert.is(container?.Image, `lnm-fabric-peer:${v25}`);
  const names = (await ourContainers(server.dataDir)).map((c) => c.Names.join(','));
  assert.is(names.length, 2, `the orderer and the peer only, no one-off container left: ${names.join(' ')}`);
  const members = (await api('GET', `/networks/consortium/${network.id}/nodes`)).json.items as Array<{ id: number; networks: Array<{ network_id: number; joined: boolean }> }>;
  assert.is(members.find((m) => m.id === peer.id)!.networks.find((n) => n.network_id === network.id)?.joined, false);

  // Nothing else lost: the peer joins the channel again and takes its blocks from the orderer.
  await until('the peer to join again', async () => ((await api('POST', `/networks/consortium/${network.id}/peers/${peer.id}/join`)).status === 200 ? true : null), 90_000, 2000);
  await until('the peer caught up', async () => ((await peerHeight(api, network.id)) ?? 0) >= height ? true : null, 60_000, 1000);
  assert.ok(existsSync(chainDir(peer.id)), 'the channel\'s ledger made again');
});

t.run();
