// Consenter and option changes applied to a BFT channel config (no node: a genesis block of two
// organizations and four SmartBFT consenters): an orderer added gets the next unique id, its MSP
// id, identity and TLS certificates and its endpoint; one removed; one's certificates replaced in
// place. After each, /Channel/Orderer/BlockValidation is exactly the policy Fabric 3.1.5's
// ConfigBlockValidator.checkConsentersMatchPolicy computes from the ConsenterMapping (rebuilt here
// the way that Go code does, independently of the service's builder) and it is part of the same
// update. SmartBFT options set (the others and leader rotation kept; the diff names the field);
// options Fabric would refuse are a 400; etcdraft channels refuse them.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { common, msp, orderer } from '@hyperledger/fabric-protos';
import { buildChannelGenesisBlock } from '../../../adapters/consortium/fabricGenesis.ts';
import { configFromBlock, decodeChannelConfig } from '../../../adapters/consortium/channelConfig.ts';
import { applyChange } from '../../../adapters/consortium/configUpdateChanges.ts';
import { planConfigUpdate } from '../../../adapters/consortium/configUpdate.ts';
import { channelMembers } from '../../../adapters/consortium/channelConfigMembers.ts';
import { certificateProblem } from '../../../application/consortium/consortiumConsenters.ts';
import { SMARTBFT_DEFAULTS } from '../../../domain/consortium/consortiumDefaults.ts';
import type { BftConsenter } from '../../../domain/consortium/consortiumPorts.ts';
import { ValidationError } from '../../../domain/shared/errors.ts';
import { testOrganization, type TestOrganization } from '../../helpers/fabric.ts';
import { defaultBatch, genesisInput } from './channelTestInput.ts';

interface Ctx { org1: TestOrganization; org2: TestOrganization; config: common.Config; block: Uint8Array; raft: common.Config }
const t = suite<Ctx>('BFT consenter and SmartBFT option changes', {} as Ctx);

t.before(async (ctx) => {
  ctx.org1 = await testOrganization('Org1MSP', 'org1.example.com');
  ctx.org2 = await testOrganization('Org2MSP', 'org2.example.com');
  const consenters: BftConsenter[] = [];
  for (const [i, org] of [ctx.org1, ctx.org1, ctx.org2, ctx.org2].entries()) {
    const issued = await org.issue(`orderer${i}.${org.domain}`, 'orderer');
    consenters.push({ id: i + 1, host: `orderer${i}.example.com`, port: 7050 + i, mspId: org.msp.mspId, identityCertPem: issued.identity.certPem, clientTlsCertPem: issued.tls.certPem, serverTlsCertPem: issued.tls.certPem });
  }
  const base = await genesisInput('bftchannel', ctx.org1, ctx.org2);
  ctx.block = buildChannelGenesisBlock({ ...base, batch: defaultBatch, smartBft: { consenters, options: { ...SMARTBFT_DEFAULTS } } });
  ctx.config = configFromBlock(ctx.block);
  ctx.raft = configFromBlock(buildChannelGenesisBlock(base));
});

const ordererGroup = (config: common.Config) => config.getChannelGroup()!.getGroupsMap().get('Orderer')!;
const mapping = (config: common.Config) => common.Orderers.deserializeBinary(ordererGroup(config).getValuesMap().get('Orderers')!.getValue_asU8()).getConsenterMappingList();
const options = (config: common.Config) => orderer.smartbft.Options.deserializeBinary(orderer.ConsensusType.deserializeBinary(ordererGroup(config).getValuesMap().get('ConsensusType')!.getValue_asU8()).getMetadata_asU8());
const endpoints = (config: common.Config, mspId: string) =>
  common.OrdererAddresses.deserializeBinary(ordererGroup(config).getGroupsMap().get(mspId)!.getValuesMap().get('Endpoints')!.getValue_asU8()).getAddressesList();

/** Fabric 3.1.5 checkConsentersMatchPolicy: NOutOf(ceil((n+f+1)/2)) of SignedBy(i) over IDENTITY principals {MspId, Identity} in mapping order. */
function assertFabricAcceptsBlockValidation(config: common.Config) {
  const consenters = mapping(config);
  const n = consenters.length;
  const f = Math.floor((n - 1) / 3);
  const rules = consenters.map((_, i) => {
    const r = new common.SignaturePolicy();
    r.setSignedBy(i);
    return r;
  });
  const outOf = new common.SignaturePolicy.NOutOf();
  outOf.setN(Math.ceil((n + f + 1) / 2));
  outOf.setRulesList(rules);
  const rule = new common.SignaturePolicy();
  rule.setNOutOf(outOf);
  const envelope = new common.SignaturePolicyEnvelope();
  envelope.setRule(rule);
  envelope.setIdentitiesList(consenters.map((c) => {
    const id = new msp.SerializedIdentity();
    id.setMspid(c.getMspId());
    id.setIdBytes(c.getIdentity_asU8());
    const p = new msp.MSPPrincipal();
    p.setPrincipalClassification(msp.MSPPrincipal.Classification.IDENTITY);
    p.setPrincipal(id.serializeBinary());
    return p;
  }));
  const expected = new common.Policy();
  expected.setType(common.Policy.PolicyType.SIGNATURE);
  expected.setValue(envelope.serializeBinary());
  const actual = ordererGroup(config).getPoliciesMap().get('BlockValidation')!;
  assert.equal(Buffer.from(actual.getPolicy()!.serializeBinary()).toString('hex'), Buffer.from(expected.serializeBinary()).toString('hex'), 'BlockValidation is what Fabric expects');
  assert.is(actual.getModPolicy(), 'Admins');
}

t('the genesis block\'s BlockValidation is what Fabric expects (the check itself is sound)', (ctx) => {
  assertFabricAcceptsBlockValidation(ctx.config);
});

t('add: a ConsenterMapping entry with the next unique id, its MSP id, identity and TLS certificates, its endpoint; BlockValidation recomputed (n=5, 4 of 5) in the same update', async (ctx) => {
  const issued = await ctx.org2.issue('orderer9.org2.example.com', 'orderer');
  // An id freed by a removal is not reused: remove id 2 first, then add.
  const removed = applyChange(ctx.config, { kind: 'removeConsenter', host: 'orderer1.example.com', port: 7051 });
  const change = { kind: 'addConsenter' as const, consenter: { host: 'orderer9.example.com', port: 7059, clientTlsCertPem: issued.tls.certPem, serverTlsCertPem: issued.tls.certPem }, mspId: 'Org2MSP', identityCertPem: issued.identity.certPem };
  const after = applyChange(removed, change);
  const last = mapping(after).at(-1)!;
  assert.equal(mapping(after).map((c) => c.getId()), [1, 3, 4, 5]);
  assert.equal([last.getHost(), last.getPort(), last.getMspId()], ['orderer9.example.com', 7059, 'Org2MSP']);
  assert.is(Buffer.from(last.getIdentity_asU8()).toString(), issued.identity.certPem);
  assert.is(Buffer.from(last.getServerTlsCert_asU8()).toString(), issued.tls.certPem);
  assert.ok(endpoints(after, 'Org2MSP').includes('orderer9.example.com:7059'));
  assertFabricAcceptsBlockValidation(after);

  const five = applyChange(ctx.config, change);
  assert.equal(mapping(five).map((c) => c.getId()), [1, 2, 3, 4, 5]);
  assertFabricAcceptsBlockValidation(five);
  const plan = planConfigUpdate(ctx.config, 'bftchannel', change, ['Org1MSP', 'Org2MSP']);
  assert.ok(plan.update);
  const paths = plan.diff.map((d) => d.path);
  assert.ok(paths.includes('channel_group.groups.Orderer.values.Orderers.value.consenter_mapping[]'), paths.join(' '));
  assert.ok(paths.some((p) => p.startsWith('channel_group.groups.Orderer.policies.BlockValidation')), paths.join(' '));
  assert.ok(paths.includes('channel_group.groups.Orderer.groups.Org2MSP.values.Endpoints.value.addresses[]'), paths.join(' '));
  assert.ok(plan.policies.includes('/Channel/Orderer/Admins'), plan.policies.join(','));
  assert.equal(channelMembers(decodeChannelConfig(ctx.block)).consenters.map((c) => c.port), [7050, 7051, 7052, 7053]);
});

t('add without an identity certificate is refused (a BFT consenter needs one)', async (ctx) => {
  const tls = (await ctx.org1.issue('orderer8.org1.example.com', 'orderer')).tls.certPem;
  assert.throws(() => applyChange(ctx.config, { kind: 'addConsenter', consenter: { host: 'orderer8.example.com', port: 7058, clientTlsCertPem: tls, serverTlsCertPem: tls }, mspId: 'Org1MSP' }), (e: unknown) => e instanceof ValidationError && /identity certificate/.test((e as Error).message));
});

t('remove: the entry goes, ids of the others kept; BlockValidation recomputed (n=3: 2 of 3)', (ctx) => {
  const after = applyChange(ctx.config, { kind: 'removeConsenter', host: 'orderer2.example.com', port: 7052, mspId: 'Org2MSP' });
  assert.equal(mapping(after).map((c) => c.getId()), [1, 2, 4]);
  assertFabricAcceptsBlockValidation(after);
});

t('replace certificates: TLS and identity of the same entry (same id and place); BlockValidation names the new identity', async (ctx) => {
  const issued = await ctx.org1.issue('orderer0.org1.example.com', 'orderer');
  const after = applyChange(ctx.config, { kind: 'replaceConsenterCertificate', consenter: { host: 'orderer0.example.com', port: 7050, clientTlsCertPem: issued.tls.certPem, serverTlsCertPem: issued.tls.certPem }, identityCertPem: issued.identity.certPem });
  const first = mapping(after)[0];
  assert.is(first.getId(), 1);
  assert.is(Buffer.from(first.getClientTlsCert_asU8()).toString(), issued.tls.certPem);
  assert.is(Buffer.from(first.getIdentity_asU8()).toString(), issued.identity.certPem);
  assert.equal(mapping(after).slice(1).map((c) => c.serializeBinary().toString()), mapping(ctx.config).slice(1).map((c) => c.serializeBinary().toString()));
  assertFabricAcceptsBlockValidation(after);
});

t('certificate check: an identity of the consenter\'s organization verifies; one of another organization\'s CA is refused', async (ctx) => {
  const json = decodeChannelConfig(ctx.block);
  const identity = (await ctx.org2.issue('orderer5.org2.example.com', 'orderer')).identity.certPem;
  assert.is(certificateProblem(identity, json, new Date(), 'Org2MSP'), null);
  assert.match(certificateProblem(identity, json, new Date(), 'Org1MSP') ?? '', /no CA of Org1MSP/);
});

t('SmartBFT options: the given set, the others and leader rotation kept, the diff names the field; invalid ones are a 400 naming the field; an etcdraft channel refuses them', (ctx) => {
  const change = { kind: 'smartBftOptions' as const, options: { requestBatchMaxInterval: '500ms', requestBatchMaxCount: 50 } };
  const after = options(applyChange(ctx.config, change));
  assert.is(after.getRequestBatchMaxInterval(), '500ms');
  assert.is(after.getRequestBatchMaxCount(), 50);
  assert.is(after.getRequestComplainTimeout(), SMARTBFT_DEFAULTS.requestComplainTimeout);
  assert.is(after.getLeaderRotation(), orderer.smartbft.Options.Rotation.ROTATION_OFF);
  const plan = planConfigUpdate(ctx.config, 'bftchannel', change, ['Org1MSP', 'Org2MSP']);
  assert.equal(plan.diff.map((d) => [d.path, d.before, d.after]), [
    ['channel_group.groups.Orderer.values.ConsensusType.value.metadata.request_batch_max_count', '100', '50'],
    ['channel_group.groups.Orderer.values.ConsensusType.value.metadata.request_batch_max_interval', '200ms', '500ms'],
  ]);
  const bad = (options: Record<string, unknown>, field: string) => assert.throws(() => applyChange(ctx.config, { kind: 'smartBftOptions', options }), (e: unknown) => e instanceof ValidationError && JSON.stringify(e.details).includes(field));
  bad({ requestForwardTimeout: '30s' }, 'smartBftOptions.requestForwardTimeout'); // above requestComplainTimeout (20s)
  bad({ requestBatchMaxInterval: '0s' }, 'smartBftOptions.requestBatchMaxInterval');
  bad({ requestBatchMaxInterval: 'soon' }, 'smartBftOptions.requestBatchMaxInterval');
  bad({ requestPoolSize: 0 }, 'smartBftOptions.requestPoolSize');
  assert.throws(() => applyChange(ctx.raft, change), (e: unknown) => e instanceof ValidationError && /etcdraft/.test((e as Error).message));
  // and a BFT channel refuses raft options
  assert.throws(() => applyChange(ctx.config, { kind: 'raftOptions', options: { maxInflightBlocks: 7 } }), (e: unknown) => e instanceof ValidationError && JSON.stringify(e.details).includes('"raftOptions"'));
});

t.run();
