// The genesis block, checked against Fabric's own configtxlator (no node needed): it decodes,
// its config is what the input says with configtx.yaml's defaults, its data hash is right, and
// our JSON decoding of it is exactly configtxlator's.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { common } from '@hyperledger/fabric-protos';
import { buildChannelGenesisBlock } from '../../../adapters/consortium/fabricGenesis.ts';
import { decodeChannelConfig, lastConfigIndex, readConfigBlock } from '../../../adapters/consortium/channelConfig.ts';
import type { ChannelGenesisInput } from '../../../domain/consortium/consortiumPorts.ts';
import { ValidationError } from '../../../domain/shared/errors.ts';
import { testOrganization, type TestOrganization } from '../../helpers/fabric.ts';
import { decodeWithConfigtxlator, genesisInput } from './channelTestInput.ts';
import { fabricMissing } from '../../helpers/programs.ts';
import { requires } from '../../helpers/requirements.ts';

const test = suite<{ dir: string; org1: TestOrganization; org2: TestOrganization }>('channel genesis block, checked with configtxlator', {} as never);

test.before(async (ctx) => {
  ctx.dir = await mkdtemp(path.join(tmpdir(), 'lnm-genesis-'));
  ctx.org1 = await testOrganization('Org1MSP', 'org1.example.com');
  ctx.org2 = await testOrganization('Org2MSP', 'org2.example.com');
});

/** The tests that read configtxlator's view of the block. */
const withConfigtxlator = requires(test, 'fabric', fabricMissing);

test.after(async (ctx) => {
  await rm(ctx.dir, { recursive: true, force: true });
});

withConfigtxlator('configtxlator decodes block 0 with both organizations, raft consenters and configtx.yaml defaults', async (ctx) => {
  const input = await genesisInput('mychannel', ctx.org1, ctx.org2);
  const decoded = await decodeWithConfigtxlator(ctx.dir, 'genesis', 'common.Block', buildChannelGenesisBlock(input));
  assert.is(decoded.header.number, '0');
  const envelope = decoded.data.data[0];
  assert.is(envelope.payload.header.channel_header.type, common.HeaderType.CONFIG);
  assert.is(envelope.payload.header.channel_header.channel_id, 'mychannel');
  const config = envelope.payload.data.config;
  assert.is(config.sequence, '0');
  const channel = config.channel_group;
  assert.equal(Object.keys(channel.groups).sort(), ['Application', 'Orderer']);
  assert.is(channel.values.HashingAlgorithm.value.name, 'SHA256');
  assert.is(channel.values.BlockDataHashingStructure.value.width, 4294967295);
  assert.equal(channel.values.Capabilities.value.capabilities, { V2_0: {} });
  assert.equal(channel.policies.Admins.policy.value, { rule: 'MAJORITY', sub_policy: 'Admins' });

  const orderer = channel.groups.Orderer;
  assert.equal(orderer.values.BatchSize.value, { absolute_max_bytes: 10485760, max_message_count: 500, preferred_max_bytes: 2097152 });
  assert.is(orderer.values.BatchTimeout.value.timeout, '2s');
  assert.equal(orderer.values.ConsensusType.value.metadata.options, { election_tick: 10, heartbeat_tick: 1, max_inflight_blocks: 5, snapshot_interval_size: 16777216, tick_interval: '500ms' });
  assert.equal(
    orderer.values.ConsensusType.value.metadata.consenters.map((c: { host: string; port: number; client_tls_cert: string }) => [c.host, c.port, Buffer.from(c.client_tls_cert, 'base64').toString()]),
    input.consenters.map((c) => [c.host, c.port, c.clientTlsCertPem]),
  );
  assert.equal(orderer.policies.BlockValidation.policy.value, { rule: 'ANY', sub_policy: 'Writers' });
  assert.equal(orderer.groups.Org1MSP.values.Endpoints.value.addresses, input.ordererOrganizations[0].endpoints);
  assert.equal(orderer.groups.Org2MSP.policies.Admins.policy.value.identities, [{ principal: { msp_identifier: 'Org2MSP', role: 'ADMIN' }, principal_classification: 'ROLE' }]);

  const application = channel.groups.Application;
  assert.equal(application.values.Capabilities.value.capabilities, { V2_5: {} });
  assert.equal(application.policies.LifecycleEndorsement.policy.value, { rule: 'MAJORITY', sub_policy: 'Endorsement' });
  assert.equal(application.policies.Endorsement.policy.value, { rule: 'MAJORITY', sub_policy: 'Endorsement' });
  assert.is(application.values.ACLs.value.acls['qscc/GetChainInfo'].policy_ref, '/Channel/Application/Readers');
  const org1 = application.groups.Org1MSP;
  assert.equal(org1.values.AnchorPeers.value.anchor_peers, [{ host: 'peer0.org1.example.com', port: 7051 }]);
  assert.is(application.groups.Org2MSP.values.AnchorPeers, undefined);
  const msp = org1.values.MSP.value.config;
  assert.is(msp.name, 'Org1MSP');
  assert.is(Buffer.from(msp.root_certs[0], 'base64').toString(), ctx.org1.msp.signCaCertPem);
  assert.is(Buffer.from(msp.tls_root_certs[0], 'base64').toString(), ctx.org1.msp.tlsCaCertPem);
  assert.is(msp.fabric_node_ous.enable, true);
  assert.is(msp.fabric_node_ous.admin_ou_identifier.organizational_unit_identifier, 'admin');
  assert.equal(Object.keys(org1.policies).sort(), ['Admins', 'Endorsement', 'Readers', 'Writers']);
});

test('the block header data hash is SHA-256 over the data, and the metadata names block 0 as last config', async (ctx) => {
  const bytes = buildChannelGenesisBlock(await genesisInput('mychannel', ctx.org1, ctx.org2));
  const block = common.Block.deserializeBinary(bytes);
  const data = block.getData()!.getDataList_asU8();
  assert.is(Buffer.from(block.getHeader()!.getDataHash_asU8()).toString('hex'), createHash('sha256').update(data[0]).digest('hex'));
  assert.is(block.getMetadata()!.getMetadataList().length, 5);
  assert.is(lastConfigIndex(block), 0);
});

withConfigtxlator('our JSON of the genesis config is exactly the config configtxlator decodes', async (ctx) => {
  const bytes = buildChannelGenesisBlock(await genesisInput('mychannel', ctx.org1, ctx.org2));
  const theirs = (await decodeWithConfigtxlator(ctx.dir, 'mine', 'common.Block', bytes)).data.data[0].payload.data.config;
  assert.equal(decodeChannelConfig(bytes), theirs);
  const read = readConfigBlock(bytes);
  assert.equal([read.channelName, read.blockNumber, read.config], ['mychannel', 0, theirs]);
});

test('a channel name Fabric refuses, an empty organization list and a signature rule that does not parse are 400s naming the field', async (ctx) => {
  const input = await genesisInput('mychannel', ctx.org1, ctx.org2);
  for (const [bad, field] of [
    [{ ...input, channelName: 'My_Channel' }, 'channelName'],
    [{ ...input, peerOrganizations: [] }, 'peerOrganizations'],
    [{ ...input, consenters: [] }, 'consenters'],
    [{ ...input, policies: { Readers: { type: 'Signature', rule: "OR('Org1MSP.nobody')" } } }, 'policies'],
  ] as [ChannelGenesisInput, string][]) {
    try {
      buildChannelGenesisBlock(bad);
      assert.unreachable(`accepted a bad ${field}`);
    } catch (err) {
      assert.instance(err, ValidationError);
      assert.is((err as ValidationError).details?.[0].field, field);
    }
  }
});

withConfigtxlator('a channel-level signature policy in OutOf form decodes as Fabric parses it', async (ctx) => {
  const input = await genesisInput('mychannel', ctx.org1, ctx.org2);
  const bytes = buildChannelGenesisBlock({ ...input, policies: { Admins: { type: 'Signature', rule: "OutOf(2, 'Org1MSP.admin', AND('Org2MSP.admin', 'Org2MSP.peer'))" } } });
  const decoded = await decodeWithConfigtxlator(ctx.dir, 'outof', 'common.Block', bytes);
  const value = decoded.data.data[0].payload.data.config.channel_group.policies.Admins.policy.value;
  assert.equal(value.rule, { n_out_of: { n: 2, rules: [{ signed_by: 0 }, { n_out_of: { n: 2, rules: [{ signed_by: 1 }, { signed_by: 2 }] } }] } });
  assert.equal(value.identities.map((i: { principal: { msp_identifier: string; role: string } }) => `${i.principal.msp_identifier}.${i.principal.role}`), ['Org1MSP.ADMIN', 'Org2MSP.ADMIN', 'Org2MSP.PEER']);
});

test.run();
