// A channel on real Fabric 2.5.12 nodes (found by test/helpers/programs.ts), on loopback: two organizations,
// three raft orderers spread over them, two peers per organization. Genesis block built by the
// service, every orderer and peer joined (twice: joins are idempotent), a raft leader elected,
// anchor peers set, the config fetched and compared with configtxlator's decoding of the same
// block, a third organization added with both admins' signatures (and refused with one), and the
// ledger read back through the peers' gateway (chain info, blocks, transaction by id).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { createPrivateKey } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { buildChannelGenesisBlock } from '../../../adapters/consortium/fabricGenesis.ts';
import { joinOrderer, listOrdererChannels, ordererChannel } from '../../../adapters/consortium/channelParticipation.ts';
import { joinPeer, peerChannels } from '../../../adapters/consortium/peerChannel.ts';
import { fetchConfigBlock } from '../../../adapters/consortium/channelConfig.ts';
import { updateChannelConfig } from '../../../adapters/consortium/configUpdate.ts';
import { block, chainInfo, transaction } from '../../../adapters/consortium/ledgerQuery.ts';
import { channelMembers } from '../../../adapters/consortium/channelConfigMembers.ts';
import { mspPaths } from '../../../adapters/consortium/fabricMsp.ts';
import type { ConsortiumOrdererConfig, ConsortiumPeerConfig } from '../../../domain/consortium/consortiumNode.ts';
import type { Endpoint, FabricSigner } from '../../../domain/consortium/consortiumPorts.ts';
import { privateKeyFabricSigner } from '../../../adapters/consortium/fabricSigning.ts';
import { FabricNodeUnreachableError, FabricRefusedError } from '../../../domain/consortium/consortiumChannelPorts.ts';
import { ValidationError } from '../../../domain/shared/errors.ts';
import { requires } from '../../helpers/requirements.ts';
import { decodeWithConfigtxlator, defaultBatch as batch, eventually, rejects } from './channelTestInput.ts';
import { fabricMissing, fabricProgram, startFabricNodes, testOrganization, type FabricTestNodes, type StartedFabricNode, type TestOrganization } from '../../helpers/fabric.ts';

const run = promisify(execFile);


const channelName = 'lnmchannel';

interface Member {
  org: TestOrganization;
  node: StartedFabricNode;
}

interface Ctx {
  fabric: FabricTestNodes;
  org1: TestOrganization;
  org2: TestOrganization;
  org3: TestOrganization;
  orderers: Member[];
  peers: Member[];
  genesis: Uint8Array;
  scratch: string;
  startedAt: number;
  startError?: unknown;
}

const test = requires(suite<Ctx>('channel adapters on a real Fabric 2.5 network: genesis, joins, anchor peers, config, a third organization, ledger', {} as Ctx), 'fabric', fabricMissing);

const ordererConfig = (m: Member) => m.node.target.node.config as ConsortiumOrdererConfig;
const peerConfig = (m: Member) => m.node.target.node.config as ConsortiumPeerConfig;
const grpcEndpoint = (m: Member): Endpoint => {
  const c = m.node.target.node.config;
  return { host: '127.0.0.1', port: c.port, tlsCaCertPem: m.org.msp.tlsCaCertPem, serverName: c.hostname };
};
const adminEndpoint = (m: Member): Endpoint => ({ host: '127.0.0.1', port: ordererConfig(m).adminPort, tlsCaCertPem: m.org.msp.tlsCaCertPem, serverName: ordererConfig(m).hostname });
// The service's own signer (adapters/consortium/fabricSigning.ts) over each admin key, not the helper's.
const signers = new Map<TestOrganization, FabricSigner>();
const signerOf = (org: TestOrganization): FabricSigner => {
  if (!signers.has(org)) signers.set(org, privateKeyFabricSigner(createPrivateKey(org.admin.keyPem), org.msp.mspId, org.admin.certPem));
  return signers.get(org)!;
};
const reader = (m: Member) => ({ peer: grpcEndpoint(m), signer: signerOf(m.org) });

test.before(async (ctx) => {
  ctx.org1 = await testOrganization('Org1MSP', 'org1.example.com');
  ctx.org2 = await testOrganization('Org2MSP', 'org2.example.com');
  ctx.org3 = await testOrganization('Org3MSP', 'org3.example.com');
  ctx.fabric = await startFabricNodes();
  ctx.scratch = await mkdtemp(path.join(tmpdir(), 'lnm-channel-'));
  try {
    const began = Date.now();
    const start = async (org: TestOrganization, role: 'orderer' | 'peer', name: string): Promise<Member> => ({ org, node: await ctx.fabric[role](org, name) });
    ctx.orderers = [await start(ctx.org1, 'orderer', 'orderer0'), await start(ctx.org1, 'orderer', 'orderer1'), await start(ctx.org2, 'orderer', 'orderer0')];
    ctx.peers = [await start(ctx.org1, 'peer', 'peer0'), await start(ctx.org1, 'peer', 'peer1'), await start(ctx.org2, 'peer', 'peer0'), await start(ctx.org2, 'peer', 'peer1')];
    console.log(`    3 orderers and 4 peers healthy ${Date.now() - began} ms after the first start`);
  } catch (err) {
    // uvu swallows errors of a before hook: every test fails with it instead (before.each).
    ctx.startError = err;
  }
});

test.before.each((ctx) => {
  if (ctx.startError) throw ctx.startError;
});

test.after(async (ctx) => {
  await ctx.fabric?.removeAll();
  if (ctx.scratch) await rm(ctx.scratch, { recursive: true, force: true });
});

test('the genesis block decodes with configtxlator into both organizations and the three raft consenters', async (ctx) => {
  const ordererOrg = (org: TestOrganization) => ({ ...org.msp, endpoints: ctx.orderers.filter((o) => o.org === org).map((o) => ordererConfig(o).externalEndpoint) });
  ctx.genesis = buildChannelGenesisBlock({
    channelName,
    peerOrganizations: [ctx.org1.msp, ctx.org2.msp],
    ordererOrganizations: [ordererOrg(ctx.org1), ordererOrg(ctx.org2)],
    consenters: ctx.orderers.map((o) => ({ host: '127.0.0.1', port: ordererConfig(o).port, clientTlsCertPem: o.node.material.tlsCertPem, serverTlsCertPem: o.node.material.tlsCertPem })),
    batch,
  });
  const decoded = await decodeWithConfigtxlator(ctx.scratch, 'genesis', 'common.Block', ctx.genesis);
  const group = decoded.data.data[0].payload.data.config.channel_group;
  assert.equal(decoded.data.data[0].payload.header.channel_header.channel_id, channelName);
  assert.equal(Object.keys(group.groups.Application.groups).sort(), ['Org1MSP', 'Org2MSP']);
  assert.equal(Object.keys(group.groups.Orderer.groups).sort(), ['Org1MSP', 'Org2MSP']);
  const consensus = group.groups.Orderer.values.ConsensusType.value;
  assert.is(consensus.type, 'etcdraft');
  assert.equal(consensus.metadata.consenters.map((c: { port: number }) => c.port), ctx.orderers.map((o) => ordererConfig(o).port));
  assert.is(group.groups.Orderer.groups.Org1MSP.values.Endpoints.value.addresses.length, 2);
  assert.is(group.groups.Application.values.Capabilities.value.capabilities.V2_5 !== undefined, true);
});

test('every orderer joins (twice without error), osnadmin lists the channel on each, and raft elects a leader', async (ctx) => {
  const began = Date.now();
  for (const o of ctx.orderers) {
    const info = await joinOrderer(adminEndpoint(o), o.org.adminTls, channelName, ctx.genesis);
    assert.is(info.name, channelName);
    assert.is(info.consensusRelation, 'consenter');
  }
  const again = await joinOrderer(adminEndpoint(ctx.orderers[0]), ctx.org1.adminTls, channelName, ctx.genesis);
  assert.is(again.name, channelName);
  console.log(`    3 orderers joined ${Date.now() - began} ms after the first join`);

  for (const o of ctx.orderers) {
    const dir = path.join(ctx.scratch, `osnadmin-${o.org.msp.mspId}`);
    await o.org.writeAdminMsp(dir);
    const { stdout } = await run(fabricProgram('osnadmin'), [
      'channel', 'list',
      '-o', `127.0.0.1:${ordererConfig(o).adminPort}`,
      '--ca-file', path.join(dir, mspPaths.tlsCa),
      '--client-cert', path.join(dir, mspPaths.tlsClientCert),
      '--client-key', path.join(dir, mspPaths.tlsClientKey),
    ]);
    assert.match(stdout, `"name": "${channelName}"`);
    const listed = await listOrdererChannels(adminEndpoint(o), o.org.adminTls);
    assert.equal(listed.map((c) => c.name), [channelName]);
  }

  const leader = await eventually('a raft leader', 30_000, async () => {
    for (const o of ctx.orderers) {
      const lines = await ctx.fabric.runtime.logs(o.node.target, 400);
      const elected = lines.find((l) => /Raft leader changed: \d+ -> [1-9]/.test(l) && l.includes(channelName));
      if (elected) return elected;
    }
    return undefined;
  });
  console.log(`    raft leader elected ${Date.now() - began} ms after the first join: ${leader.replace(/.*Raft leader changed/, 'Raft leader changed').slice(0, 80)}`);
  const info = await ordererChannel(adminEndpoint(ctx.orderers[2]), ctx.org2.adminTls, channelName);
  assert.is(info?.status, 'active');
});

test('every peer joins with its organization admin (twice: the second says already joined) and lists the channel', async (ctx) => {
  const began = Date.now();
  for (const p of ctx.peers) {
    const joined = await joinPeer(grpcEndpoint(p), signerOf(p.org), ctx.genesis);
    assert.equal(joined, { channelName, alreadyJoined: false });
  }
  console.log(`    4 peers joined in ${Date.now() - began} ms`);
  assert.equal(await joinPeer(grpcEndpoint(ctx.peers[2]), signerOf(ctx.org2), ctx.genesis), { channelName, alreadyJoined: true });
  for (const p of ctx.peers) assert.equal(await peerChannels(grpcEndpoint(p), signerOf(p.org)), [channelName]);
});

test('a peer refuses a join signed by an admin of another organization, and the error says so', async (ctx) => {
  try {
    await joinPeer(grpcEndpoint(ctx.peers[0]), signerOf(ctx.org2), ctx.genesis);
    assert.unreachable('join by a foreign admin succeeded');
  } catch (err) {
    console.log(`    ${(err as Error).message}`);
    assert.match((err as Error).message, /refused cscc\/JoinChain as Org2MSP/);
  }
});

test('refusals name the node and channel: no orderer listening, an untrusted admin client, an unknown channel, a block of another channel', async (ctx) => {
  const closed: Endpoint = { host: '127.0.0.1', port: 1, tlsCaCertPem: ctx.org1.msp.tlsCaCertPem, serverName: 'orderer9.org1.example.com' };
  await rejects(() => joinOrderer(closed, ctx.org1.adminTls, channelName, ctx.genesis), FabricNodeUnreachableError, /orderer9\.org1\.example\.com \(127\.0\.0\.1:1\) did not answer the join of channel "lnmchannel"/);
  // Org1's orderer trusts only Org1's TLS CA for its admin endpoint.
  await rejects(() => listOrdererChannels(adminEndpoint(ctx.orderers[0]), ctx.org2.adminTls), FabricNodeUnreachableError, /orderer0\.org1\.example\.com/);
  const refusal = await rejects(
    () => fetchConfigBlock({ kind: 'orderer', endpoint: grpcEndpoint(ctx.orderers[0]) }, signerOf(ctx.org1), 'nosuchchannel'),
    FabricRefusedError,
    /orderer orderer0\.org1\.example\.com .* refused to deliver blocks newest\.\.newest of channel "nosuchchannel": NOT_FOUND/,
  );
  assert.is((refusal as FabricRefusedError).status, 409);
  await rejects(() => joinOrderer(adminEndpoint(ctx.orderers[0]), ctx.org1.adminTls, 'otherchannel', ctx.genesis), ValidationError, /of channel "lnmchannel", not "otherchannel"/);
  await rejects(() => joinPeer(grpcEndpoint(ctx.peers[0]), signerOf(ctx.org1), new Uint8Array([1, 2, 3])), ValidationError, /not a Fabric block|not a config block/);
});

test('anchor peers of each organization are set by a config update its own admin signs, visible in the fetched config', async (ctx) => {
  for (const [org, peers] of [[ctx.org1, ctx.peers.slice(0, 2)], [ctx.org2, ctx.peers.slice(2)]] as const) {
    const anchorPeers = [{ host: peerConfig(peers[0]).hostname, port: peerConfig(peers[0]).port }];
    const result = await updateChannelConfig({ orderer: grpcEndpoint(ctx.orderers[0]), channelName, change: { kind: 'anchorPeers', mspId: org.msp.mspId, anchorPeers }, signers: [signerOf(org)] });
    assert.is(result.status, 'updated', JSON.stringify(result));
    if (result.status === 'updated') assert.equal(result.signedBy, [org.msp.mspId]);
  }
  const fetched = await fetchConfigBlock({ kind: 'orderer', endpoint: grpcEndpoint(ctx.orderers[2]) }, signerOf(ctx.org2), channelName);
  assert.is(fetched.blockNumber, 2);
  assert.is(fetched.config.sequence, '2');
  const orgs = fetched.config.channel_group.groups.Application.groups;
  assert.equal(orgs.Org1MSP.values.AnchorPeers.value, { anchor_peers: [{ host: peerConfig(ctx.peers[0]).hostname, port: peerConfig(ctx.peers[0]).port }] });
  assert.equal(orgs.Org2MSP.values.AnchorPeers.value, { anchor_peers: [{ host: peerConfig(ctx.peers[2]).hostname, port: peerConfig(ctx.peers[2]).port }] });
  // The same update again changes nothing and submits nothing.
  const again = await updateChannelConfig({
    orderer: grpcEndpoint(ctx.orderers[0]),
    channelName,
    change: { kind: 'anchorPeers', mspId: 'Org1MSP', anchorPeers: [{ host: peerConfig(ctx.peers[0]).hostname, port: peerConfig(ctx.peers[0]).port }] },
    signers: [signerOf(ctx.org1)],
  });
  assert.equal(again, { status: 'unchanged', sequence: 2 });
});

test('the config fetched from a peer decodes exactly as configtxlator decodes the same block', async (ctx) => {
  const fetched = await eventually('config block 2 on a peer', 20_000, async () => {
    const f = await fetchConfigBlock({ kind: 'peer', endpoint: grpcEndpoint(ctx.peers[3]) }, signerOf(ctx.org2), channelName);
    return f.blockNumber === 2 ? f : undefined;
  });
  const theirs = (await decodeWithConfigtxlator(ctx.scratch, 'config2', 'common.Block', fetched.block)).data.data[0].payload.data.config;
  assert.equal(fetched.config, theirs);
});

test('adding a third organization with only one admin signature names the missing organization and submits nothing', async (ctx) => {
  const result = await updateChannelConfig({ orderer: grpcEndpoint(ctx.orderers[1]), channelName, change: { kind: 'addOrganization', organization: ctx.org3.msp }, signers: [signerOf(ctx.org1)] });
  assert.is(result.status, 'signatures-missing');
  if (result.status === 'signatures-missing') {
    assert.equal(result.missingOrganizations, ['Org2MSP']);
    assert.equal(result.unmet, [{ policyPath: '/Channel/Application/Admins', rule: 'MAJORITY Admins', missingOrganizations: ['Org2MSP'], moreNeeded: 1 }]);
  }
  const after = await fetchConfigBlock({ kind: 'orderer', endpoint: grpcEndpoint(ctx.orderers[0]) }, signerOf(ctx.org1), channelName);
  assert.is(after.config.sequence, '2');
});

test('adding a third organization with both admins signatures (MAJORITY of 2) puts it in the channel config', async (ctx) => {
  const result = await updateChannelConfig({
    orderer: grpcEndpoint(ctx.orderers[1]),
    channelName,
    change: { kind: 'addOrganization', organization: ctx.org3.msp },
    // Org3's admin first: the channel does not know it yet, so it can neither read the config nor count.
    signers: [signerOf(ctx.org3), signerOf(ctx.org1), signerOf(ctx.org2)],
  });
  assert.is(result.status, 'updated', JSON.stringify(result));
  if (result.status === 'updated') {
    assert.equal(result.signedBy, ['Org1MSP', 'Org2MSP']);
    assert.is(result.blockNumber, 3);
  }
  const fetched = await fetchConfigBlock({ kind: 'orderer', endpoint: grpcEndpoint(ctx.orderers[2]) }, signerOf(ctx.org2), channelName);
  assert.equal(Object.keys(fetched.config.channel_group.groups.Application.groups), ['Org1MSP', 'Org2MSP', 'Org3MSP']);
  const members = channelMembers(fetched.config);
  assert.equal(
    members.peerOrganizations.map((o) => [o.mspId, o.anchorPeers.map((a) => a.port)]),
    [['Org1MSP', [peerConfig(ctx.peers[0]).port]], ['Org2MSP', [peerConfig(ctx.peers[2]).port]], ['Org3MSP', []]],
  );
  assert.equal(members.ordererOrganizations.map((o) => o.endpoints.length), [2, 1]);
  assert.equal(members.consenters.map((c) => c.port), ctx.orderers.map((o) => ordererConfig(o).port));
  assert.is(members.sequence, 3);
  assert.is(fetched.config.channel_group.groups.Application.groups.Org3MSP.values.MSP.value && true, true);
});

test('the ledger read through a peer gateway: chain info, hash-linked config blocks, a transaction by id', async (ctx) => {
  const r = reader(ctx.peers[1]);
  const info = await eventually('height 4 on peer1 of Org1', 30_000, async () => {
    const i = await chainInfo(r, channelName);
    return i.height === 4 ? i : undefined;
  });
  const blocks = [];
  for (let n = 0; n < 4; n++) blocks.push(await block(r, channelName, n));
  assert.is(info.currentBlockHash, blocks[3].hash);
  assert.is(info.previousBlockHash, blocks[2].hash);
  for (let n = 1; n < 4; n++) assert.is(blocks[n].previousHash, blocks[n - 1].hash);
  for (const b of blocks) {
    assert.is(b.transactionCount, 1);
    assert.is(b.transactions[0].type, 'CONFIG');
    assert.is(b.transactions[0].validationCode, 'VALID');
    assert.ok(b.timestamp);
  }
  assert.is(blocks[0].transactions[0].creatorMspId, null);
  // Config transactions after genesis are wrapped and signed by the ordering node.
  assert.ok(['Org1MSP', 'Org2MSP'].includes(blocks[1].transactions[0].creatorMspId ?? ''));

  // The ordering service writes later config transactions with an empty id: only the genesis
  // transaction can be looked up by id.
  assert.is(blocks[1].transactions[0].txId, '');
  const genesisTxId = blocks[0].transactions[0].txId;
  assert.match(genesisTxId, /^[0-9a-f]{64}$/);
  const tx = await transaction(reader(ctx.peers[2]), channelName, genesisTxId);
  assert.equal(tx, { ...blocks[0].transactions[0], blockNumber: 0 });
  try {
    await transaction(r, channelName, 'f'.repeat(64));
    assert.unreachable('an unknown transaction id was found');
  } catch (err) {
    assert.is((err as { status?: number }).status, 404, (err as Error).message);
    assert.match((err as Error).message, 'f'.repeat(64));
  }
});

test('with the raft leader stopped the channel keeps ordering a config update, and the leader catches up after its restart', async (ctx) => {
  const leaderLine = async () => {
    for (const o of ctx.orderers) {
      const lines = await ctx.fabric.runtime.logs(o.node.target, 400);
      const changes = lines.filter((l) => /Raft leader changed: \d+ -> [1-9]/.test(l) && l.includes(channelName));
      if (changes.length) return changes[changes.length - 1];
    }
    return undefined;
  };
  const line = await leaderLine();
  const leaderId = Number(/Raft leader changed: \d+ -> (\d+)/.exec(line ?? '')?.[1]);
  assert.ok(leaderId >= 1 && leaderId <= 3, `no leader in the logs: ${line}`);
  // Raft ids follow the consenters' order in the genesis block.
  const leader = ctx.orderers[leaderId - 1];
  const other = ctx.orderers.find((o) => o !== leader)!;
  await ctx.fabric.runtime.stop(leader.node.target);
  const began = Date.now();
  const anchors = ctx.peers.slice(0, 2).map((p) => ({ host: peerConfig(p).hostname, port: peerConfig(p).port }));
  const result = await eventually('a config update without the old leader', 60_000, async () => {
    const r = await updateChannelConfig({ orderer: grpcEndpoint(other), channelName, change: { kind: 'anchorPeers', mspId: 'Org1MSP', anchorPeers: anchors }, signers: [signerOf(ctx.org1)], timeoutMs: 20_000 });
    return r.status === 'updated' ? r : undefined;
  });
  console.log(`    config block ${result.status === 'updated' ? result.blockNumber : '?'} ordered ${Date.now() - began} ms after the leader (raft id ${leaderId}) stopped`);

  await ctx.fabric.runtime.start(leader.node.target, leader.node.material);
  await ctx.fabric.healthy(leader.node);
  const caughtUp = await eventually('the restarted orderer at height 5', 60_000, async () => {
    const info = await ordererChannel(adminEndpoint(leader), leader.org.adminTls, channelName);
    return info && info.height === 5 ? info : undefined;
  });
  assert.is(caughtUp.status, 'active');
  const fetched = await fetchConfigBlock({ kind: 'orderer', endpoint: grpcEndpoint(leader) }, signerOf(leader.org), channelName);
  assert.equal(fetched.config.channel_group.groups.Application.groups.Org1MSP.values.AnchorPeers.value, { anchor_peers: anchors });
});

test.run();
