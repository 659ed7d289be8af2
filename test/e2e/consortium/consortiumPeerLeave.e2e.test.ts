// A peer leaves a consortium network's channel through the service on real Fabric 2.5 (a counted
// skip without the programs): a channel of one orderer and a peer of each of two organizations,
// each the anchor peer of its organization. Org1's peer leaves: it is removed from Org1's anchor
// peers first, then stopped, `peer node unjoin` run, and started again. Afterwards the channel's
// config lists no anchor peer of Org1, the peer's own channel list (`peer channel list` with a
// client identity of Org1) lacks the channel while Org2's peer still has it, the peer is running,
// and the channel still commits (an anchor peer update of Org2, seen at Org2's peer).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { fabricConfigDir, fabricMissing, fabricProgram } from '../../helpers/fabric.ts';
import { requires } from '../../helpers/requirements.ts';
import { apiOf, consortiumEnv, execFileAsync, peerLeaves, removeConsortiumNodes, twoOrganizationChannel, until } from './consortiumApi.ts';

const t = requires(suite('a peer leaves the channel (real Fabric 2.5)'), 'fabric', fabricMissing);
let server: TestServer;
const api = apiOf(() => server);
let setup: Awaited<ReturnType<typeof twoOrganizationChannel>>;
let scratch: string;
const CHANNEL = 'leavechannel';

const clientDirs = new Map<number, string>();
/** An MSP folder of a client of the peer's organization (an identity the service issues, its key exported), made once per peer. */
async function clientMsp(peer: { id: number }, org: { id: number }): Promise<string> {
  const known = clientDirs.get(peer.id);
  if (known) return known;
  const made = await api('POST', `/organizations/${org.id}/identities`, { name: `lister-${peer.id}`, role: 'client' });
  assert.is(made.status, 201, made.text);
  const key = await api('POST', `/organizations/${org.id}/identities/${made.json.id}/key/export`);
  assert.is(key.status, 200, key.text);
  const dir = path.join(scratch, `client-${peer.id}`);
  // The peer's own MSP folder gives the CA certificates and NodeOU config; the signer is the client.
  await cp(path.join(server.dataDir, 'nodes', `node-${peer.id}`, 'msp'), path.join(dir, 'msp'), { recursive: true });
  for (const sub of ['keystore', 'signcerts']) {
    await rm(path.join(dir, 'msp', sub), { recursive: true, force: true });
    await mkdir(path.join(dir, 'msp', sub));
  }
  await writeFile(path.join(dir, 'msp', 'signcerts', 'cert.pem'), made.json.certificate);
  await writeFile(path.join(dir, 'msp', 'keystore', 'priv_sk'), key.json.privateKey, { mode: 0o600 });
  clientDirs.set(peer.id, dir);
  return dir;
}

/** `peer channel list` against a peer, as a client of its organization. */
async function peerChannelList(peer: { id: number; config: { port: number } }, org: { id: number; mspId: string }): Promise<string> {
  const dir = await clientMsp(peer, org);
  const nodeDir = path.join(server.dataDir, 'nodes', `node-${peer.id}`);
  const { stdout, stderr } = await execFileAsync(fabricProgram('peer'), ['channel', 'list'], {
    timeout: 30_000,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      FABRIC_CFG_PATH: fabricConfigDir(),
      CORE_PEER_LOCALMSPID: org.mspId,
      CORE_PEER_MSPCONFIGPATH: path.join(dir, 'msp'),
      CORE_PEER_ADDRESS: `127.0.0.1:${peer.config.port}`,
      CORE_PEER_TLS_ENABLED: 'true',
      CORE_PEER_TLS_ROOTCERT_FILE: path.join(nodeDir, 'tls', 'ca.crt'),
    },
  });
  return stdout + stderr;
}

const height = async () => {
  const r = await api('GET', `/networks/consortium/${setup.network.id}/info`);
  return r.status === 200 ? Number(r.json.height) : null;
};

t.before(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'lnm-peer-leave-'));
  server = await startServer({ env: consortiumEnv() });
  setup = await twoOrganizationChannel(api, 'leavenet', CHANNEL);
});
t.after(async () => {
  if (server) {
    await removeConsortiumNodes(api, server.dataDir);
    await server.stop();
  }
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

t('the anchor peer of Org1 leaves: anchor update first, then stopped, unjoined and restarted; its channel list lacks the channel; the channel still commits', async () => {
  const { peer1, peer2, org1, org2, network } = setup;
  assert.match(await peerChannelList(peer1, org1), CHANNEL, 'before the leave the peer lists the channel');
  const r = await peerLeaves(api, network.id, peer1.id, 'peer0-org1 to leave');
  assert.is(r.json.restarted, true, r.text);
  assert.is(r.json.channel_name, CHANNEL);
  assert.is(r.json.steps.length, 4, r.text);
  assert.match(r.json.steps[0], /removed from Org1MSP's anchor peers/);
  assert.match(r.json.steps[1], /peer stopped/);
  assert.match(r.json.steps[2], `peer node unjoin -c ${CHANNEL}`);
  assert.match(r.json.steps[3], /peer started again/);
  assert.ok(r.json.anchor_peers_updated.diff.some((d: { path: string }) => d.path.includes('Org1MSP')), r.text);

  // The channel's config: Org1 has no anchor peer naming peer0-org1; Org2's is kept.
  const cfg = await api('GET', `/networks/consortium/${network.id}/channel-config`);
  assert.is(cfg.status, 200, cfg.text);
  const orgs = cfg.json.config.channel_group.groups.Application.groups;
  const anchorsOf = (msp: string) => (orgs[msp].values.AnchorPeers?.value.anchor_peers ?? []) as Array<{ host: string; port: number }>;
  assert.is(anchorsOf('Org1MSP').filter((a) => a.port === peer1.config.port).length, 0, JSON.stringify(orgs.Org1MSP.values));
  assert.equal(anchorsOf('Org2MSP').map((a) => a.port), [peer2.config.port]);

  // The peer runs again, and its own channel list no longer has the channel; Org2's peer still does.
  await until('peer0-org1 running again', async () => ((await api('GET', `/nodes/${peer1.id}`)).json?.status === 'running' ? true : null), 60_000, 1000);
  const listed = await until('peer0-org1 to answer', () => peerChannelList(peer1, org1), 60_000, 2000);
  assert.match(listed, /Channels peers has joined/, listed);
  assert.not.match(listed, CHANNEL, listed);
  assert.match(await peerChannelList(peer2, org2), CHANNEL);

  // The service records it as no longer joined; the leave is audited.
  const members = (await api('GET', `/networks/consortium/${network.id}/nodes`)).json.items as Array<{ id: number; networks: Array<{ network_id: number; joined: boolean }> }>;
  assert.is(members.find((m) => m.id === peer1.id)!.networks.find((n) => n.network_id === network.id)?.joined, false);
  const audit = (await api('GET', '/audit-logs?action=NETWORK_UPDATE&limit=100')).json.items as Array<{ details: { event?: string; nodeId?: number; role?: string } | null }>;
  assert.equal(audit.filter((e) => e.details?.event === 'node.left').map((e) => [e.details!.nodeId, e.details!.role]), [[peer1.id, 'peer']]);

  // The channel still commits: an anchor peer update of Org2 reaches Org2's peer.
  const before = await until('the height at a peer', height, 60_000, 1000);
  await until('an anchor peer update after the leave', async () => {
    const a = await api('POST', `/networks/consortium/${network.id}/anchor-peers`, { organizationId: 'Org2MSP', anchorPeers: [{ host: 'localhost', port: peer2.config.port }] });
    if (a.status !== 200 && a.status !== 503 && a.status !== 409) assert.unreachable(a.text);
    return a.status === 200 && a.json.status === 'updated' ? a : null;
  }, 120_000, 2000);
  await until('the new config block at Org2\'s peer', async () => ((await height()) ?? 0) > before, 60_000, 1000);
});

t('leaving again is refused (409: not joined); an unknown peer is 404, an orderer 400', async () => {
  const again = await api('POST', `/networks/consortium/${setup.network.id}/peers/${setup.peer1.id}/leave`);
  assert.is(again.status, 409, again.text);
  assert.match(again.json.message, /has not joined/);
  assert.is((await api('POST', `/networks/consortium/${setup.network.id}/peers/999999/leave`)).status, 404);
  assert.is((await api('POST', `/networks/consortium/${setup.network.id}/peers/${setup.orderer.id}/leave`)).status, 400, 'an orderer is not a peer');
});

t.run();
