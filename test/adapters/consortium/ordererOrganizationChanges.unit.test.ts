// Orderer organizations changed in a channel config (no node: a genesis block whose orderer group
// has Org1MSP and Org2MSP): an organization's Endpoints set (the diff names the address added; the
// same list again changes nothing), an organization removed from /Channel/Orderer only (it stays
// an application organization), signed for under /Channel/Orderer/Admins; one not in the orderer
// group is a 400. On a BFT channel (four SmartBFT consenters, two of each organization) the removal
// leaves a BlockValidation policy computed from the ConsenterMapping: untouched (no diff) when the
// consenter removals already recomputed it, recomputed when it still named the leaving MSP. An
// organization added to the BFT channel: its group alone (its own Endpoints; no global
// OrdererAddresses), BlockValidation the same bytes; a stale BlockValidation is recomputed from the
// ConsenterMapping in the same update.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { common, msp } from '@hyperledger/fabric-protos';
import { buildChannelGenesisBlock } from '../../../adapters/consortium/fabricGenesis.ts';
import { configFromBlock } from '../../../adapters/consortium/channelConfig.ts';
import { applyChange } from '../../../adapters/consortium/configUpdateChanges.ts';
import { planConfigUpdate } from '../../../adapters/consortium/configUpdate.ts';
import { AppError } from '../../../domain/shared/errors.ts';
import { SMARTBFT_DEFAULTS } from '../../../domain/consortium/consortiumDefaults.ts';
import type { BftConsenter } from '../../../domain/consortium/consortiumPorts.ts';
import { testOrganization, type TestOrganization } from '../../helpers/fabric.ts';
import { defaultBatch, genesisInput } from './channelTestInput.ts';

const t = suite<{ config: common.Config; bft: common.Config }>('orderer organizations in a config update', {} as { config: common.Config; bft: common.Config });

t.before(async (ctx) => {
  const org1 = await testOrganization('Org1MSP', 'org1.example.com');
  const org2 = await testOrganization('Org2MSP', 'org2.example.com');
  ctx.config = configFromBlock(buildChannelGenesisBlock(await genesisInput('mychannel', org1, org2)));
  const consenters: BftConsenter[] = [];
  for (const [i, o] of ([org1, org1, org2, org2] as TestOrganization[]).entries()) {
    const issued = await o.issue(`orderer${i}.${o.domain}`, 'orderer');
    consenters.push({ id: i + 1, host: `orderer${i}.example.com`, port: 7050 + i, mspId: o.msp.mspId, identityCertPem: issued.identity.certPem, clientTlsCertPem: issued.tls.certPem, serverTlsCertPem: issued.tls.certPem });
  }
  ctx.bft = configFromBlock(buildChannelGenesisBlock({ ...(await genesisInput('bftchannel', org1, org2)), batch: defaultBatch, smartBft: { consenters, options: { ...SMARTBFT_DEFAULTS } } }));
});

const ordererGroups = (c: common.Config) => c.getChannelGroup()!.getGroupsMap().get('Orderer')!.getGroupsMap().toArray().map(([k]) => k);

t('endpoints set: the diff names the address added; the same list again is no update', (ctx) => {
  const endpoints = ['orderer0.org2.example.com:7050', 'orderer5.org2.example.com:7055'];
  const change = { kind: 'ordererEndpoints' as const, mspId: 'Org2MSP', endpoints };
  const plan = planConfigUpdate(ctx.config, 'mychannel', change, ['Org1MSP', 'Org2MSP']);
  assert.equal(plan.diff, [{ path: 'channel_group.groups.Orderer.groups.Org2MSP.values.Endpoints.value.addresses[]', before: null, after: 'orderer5.org2.example.com:7055' }]);
  assert.is(planConfigUpdate(applyChange(ctx.config, change), 'mychannel', change, ['Org2MSP']).update, null);
});

t('an orderer organization removed from /Channel/Orderer only; /Channel/Orderer/Admins signs; an unknown one is a 400', (ctx) => {
  const change = { kind: 'removeOrdererOrganization' as const, mspId: 'Org2MSP' };
  const after = applyChange(ctx.config, change);
  assert.equal(ordererGroups(after), ['Org1MSP']);
  assert.ok(after.getChannelGroup()!.getGroupsMap().get('Application')!.getGroupsMap().get('Org2MSP'));
  assert.equal(planConfigUpdate(ctx.config, 'mychannel', change, ['Org1MSP', 'Org2MSP']).policies, ['/Channel/Orderer/Admins']);
  try {
    applyChange(ctx.config, { kind: 'removeOrdererOrganization', mspId: 'Org9MSP' });
    assert.unreachable('refused');
  } catch (err) {
    assert.instance(err, AppError);
    assert.is((err as AppError).status, 400);
  }
});

t('an application organization added to /Channel/Orderer keeps its MSP value byte for byte; /Channel/Orderer/Admins signs; one already there is no update', async (ctx) => {
  const removed = applyChange(ctx.config, { kind: 'removeOrdererOrganization', mspId: 'Org2MSP' });
  // Another instance's copy of the MSP (a new certificate object): the channel's application definition wins.
  const org2 = await testOrganization('Org2MSP', 'org2.example.com');
  const change = { kind: 'addOrdererOrganization' as const, organization: { ...org2.msp, endpoints: ['orderer0.org2.example.com:7050'] } };
  const after = applyChange(removed, change);
  assert.equal(ordererGroups(after), ['Org1MSP', 'Org2MSP']);
  const group = (c: common.Config, level: string) => c.getChannelGroup()!.getGroupsMap().get(level)!.getGroupsMap().get('Org2MSP')!;
  assert.equal(Buffer.from(group(after, 'Orderer').getValuesMap().get('MSP')!.serializeBinary()), Buffer.from(group(after, 'Application').getValuesMap().get('MSP')!.serializeBinary()));
  assert.equal(common.OrdererAddresses.deserializeBinary(group(after, 'Orderer').getValuesMap().get('Endpoints')!.getValue_asU8()).getAddressesList(), ['orderer0.org2.example.com:7050']);
  const plan = planConfigUpdate(removed, 'mychannel', change, ['Org1MSP']);
  assert.equal([plan.policies, plan.requirement.missingOrganizations], [['/Channel/Orderer/Admins'], []]);
  assert.is(planConfigUpdate(ctx.config, 'mychannel', change, ['Org1MSP']).update, null, 'Org2MSP is there already');
});

const ordererOf = (c: common.Config) => c.getChannelGroup()!.getGroupsMap().get('Orderer')!;
/** The MSP ids BlockValidation's IDENTITY principals carry, in order. */
const blockValidationMsps = (c: common.Config) =>
  common.SignaturePolicyEnvelope.deserializeBinary(ordererOf(c).getPoliciesMap().get('BlockValidation')!.getPolicy()!.getValue_asU8())
    .getIdentitiesList().map((p) => msp.SerializedIdentity.deserializeBinary(p.getPrincipal_asU8()).getMspid());
const blockValidationHex = (c: common.Config) => Buffer.from(ordererOf(c).getPoliciesMap().get('BlockValidation')!.serializeBinary()).toString('hex');

t('BFT: after its consenters were removed, the organization leaves with BlockValidation untouched (no diff, Org1\'s two consenters)', (ctx) => {
  const withoutConsenters = applyChange(ctx.bft, [
    { kind: 'removeConsenter', host: 'orderer2.example.com', port: 7052, mspId: 'Org2MSP' },
    { kind: 'removeConsenter', host: 'orderer3.example.com', port: 7053, mspId: 'Org2MSP' },
  ]);
  const change = { kind: 'removeOrdererOrganization' as const, mspId: 'Org2MSP' };
  const plan = planConfigUpdate(withoutConsenters, 'bftchannel', change, ['Org1MSP', 'Org2MSP']);
  assert.equal(plan.diff.map((d) => d.path), ['channel_group.groups.Orderer.groups.Org2MSP']);
  const after = applyChange(withoutConsenters, change);
  assert.equal(ordererGroups(after), ['Org1MSP']);
  assert.equal(blockValidationMsps(after), ['Org1MSP', 'Org1MSP']);
});

t('BFT: a BlockValidation policy still naming the leaving MSP is recomputed from the ConsenterMapping in the same update', (ctx) => {
  // The mapping without Org2's consenters, BlockValidation left as it was (names Org2MSP twice).
  const stale = common.Config.deserializeBinary(ctx.bft.serializeBinary());
  const values = ordererOf(stale).getValuesMap();
  const orderers = common.Orderers.deserializeBinary(values.get('Orderers')!.getValue_asU8());
  orderers.setConsenterMappingList(orderers.getConsenterMappingList().filter((c) => c.getMspId() !== 'Org2MSP'));
  values.get('Orderers')!.setValue(orderers.serializeBinary());
  assert.equal(blockValidationMsps(stale), ['Org1MSP', 'Org1MSP', 'Org2MSP', 'Org2MSP']);
  const change = { kind: 'removeOrdererOrganization' as const, mspId: 'Org2MSP' };
  const after = applyChange(stale, change);
  assert.equal(blockValidationMsps(after), ['Org1MSP', 'Org1MSP']);
  const properly = applyChange(ctx.bft, [
    { kind: 'removeConsenter', host: 'orderer2.example.com', port: 7052, mspId: 'Org2MSP' },
    { kind: 'removeConsenter', host: 'orderer3.example.com', port: 7053, mspId: 'Org2MSP' },
    change,
  ]);
  assert.is(blockValidationHex(after), blockValidationHex(properly), 'the policy a consenter removal computes');
  assert.ok(planConfigUpdate(stale, 'bftchannel', change, ['Org1MSP', 'Org2MSP']).diff.some((d) => d.path.startsWith('channel_group.groups.Orderer.policies.BlockValidation')));
});

t('BFT: an orderer organization added: its group with its own Endpoints, no global orderer addresses, BlockValidation the same bytes; a stale BlockValidation recomputed from the ConsenterMapping in the same update', async (ctx) => {
  const org3 = await testOrganization('Org3MSP', 'org3.example.com');
  const change = { kind: 'addOrdererOrganization' as const, organization: { ...org3.msp, endpoints: ['orderer0.org3.example.com:7060'] } };
  const plan = planConfigUpdate(ctx.bft, 'bftchannel', change, ['Org1MSP', 'Org2MSP']);
  assert.equal(plan.diff.map((d) => d.path), ['channel_group.groups.Orderer.groups.Org3MSP']);
  assert.equal(plan.policies, ['/Channel/Orderer/Admins']);
  const after = applyChange(ctx.bft, change);
  assert.equal(ordererGroups(after), ['Org1MSP', 'Org2MSP', 'Org3MSP']);
  const group = ordererOf(after).getGroupsMap().get('Org3MSP')!;
  assert.equal(common.OrdererAddresses.deserializeBinary(group.getValuesMap().get('Endpoints')!.getValue_asU8()).getAddressesList(), ['orderer0.org3.example.com:7060']);
  assert.equal(group.getPoliciesMap().toArray().map(([k]) => k), ['Admins', 'Readers', 'Writers']);
  assert.not.ok(after.getChannelGroup()!.getValuesMap().has('OrdererAddresses'), 'V3_0: no global orderer addresses');
  assert.is(blockValidationHex(after), blockValidationHex(ctx.bft));

  // The mapping without consenter 4, BlockValidation left as it was (four identities).
  const stale = common.Config.deserializeBinary(ctx.bft.serializeBinary());
  const values = ordererOf(stale).getValuesMap();
  const orderers = common.Orderers.deserializeBinary(values.get('Orderers')!.getValue_asU8());
  orderers.setConsenterMappingList(orderers.getConsenterMappingList().filter((c) => c.getId() !== 4));
  values.get('Orderers')!.setValue(orderers.serializeBinary());
  const recomputed = applyChange(stale, change);
  assert.equal(blockValidationMsps(recomputed), ['Org1MSP', 'Org1MSP', 'Org2MSP']);
  assert.is(blockValidationHex(recomputed), blockValidationHex(applyChange(ctx.bft, { kind: 'removeConsenter', host: 'orderer3.example.com', port: 7053, mspId: 'Org2MSP' })), 'the policy a consenter removal computes');
});

t.run();
