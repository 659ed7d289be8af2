// Config updates computed here against the ones Fabric's configtxlator computes for the same
// (original, updated) pair, and the signatures their modification policies ask for. No node:
// the configs come from a genesis block built for two (or three) organizations.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { common } from '@hyperledger/fabric-protos';
import { buildChannelGenesisBlock } from '../../../adapters/consortium/fabricGenesis.ts';
import { configFromBlock } from '../../../adapters/consortium/channelConfig.ts';
import { withAnchorPeers, withBatch, withOrganization, withoutOrganization, withPolicies } from '../../../adapters/consortium/configUpdateChanges.ts';
import { computeConfigUpdate } from '../../../adapters/consortium/configUpdateCompute.ts';
import { planConfigUpdate } from '../../../adapters/consortium/configUpdate.ts';
import { evaluatePolicy, requiredPolicies } from '../../../adapters/consortium/configUpdateSignatures.ts';
import { testOrganization, type TestOrganization } from '../../helpers/fabric.ts';
import { configtxlator, decodeWithConfigtxlator, genesisInput } from './channelTestInput.ts';
import { fabricMissing } from '../../helpers/programs.ts';
import { requires } from '../../helpers/requirements.ts';

interface Ctx {
  dir: string;
  org1: TestOrganization;
  org2: TestOrganization;
  org3: TestOrganization;
  config: common.Config;
}

const test = suite<Ctx>('config update computation and required signatures, checked with configtxlator compute_update', {} as Ctx);

test.before(async (ctx) => {
  ctx.dir = await mkdtemp(path.join(tmpdir(), 'lnm-configupdate-'));
  ctx.org1 = await testOrganization('Org1MSP', 'org1.example.com');
  ctx.org2 = await testOrganization('Org2MSP', 'org2.example.com');
  ctx.org3 = await testOrganization('Org3MSP', 'org3.example.com');
  ctx.config = configFromBlock(buildChannelGenesisBlock(await genesisInput('mychannel', ctx.org1, ctx.org2)));
});

test.after(async (ctx) => {
  await rm(ctx.dir, { recursive: true, force: true });
});

/** The tests that hold the computed update against configtxlator's. */
const withConfigtxlator = requires(test, 'fabric', fabricMissing);

async function sameAsConfigtxlator(ctx: Ctx, name: string, updated: common.Config): Promise<common.ConfigUpdate> {
  const mine = computeConfigUpdate('mychannel', ctx.config, updated);
  assert.ok(mine, `${name}: no update computed`);
  const theirsBytes = await configtxlator(ctx.dir, name, ['compute_update', '--channel_id', 'mychannel'], { original: ctx.config.serializeBinary(), updated: updated.serializeBinary() });
  const theirs = await decodeWithConfigtxlator(ctx.dir, `${name}-theirs`, 'common.ConfigUpdate', theirsBytes);
  const ours = await decodeWithConfigtxlator(ctx.dir, `${name}-ours`, 'common.ConfigUpdate', mine!.serializeBinary());
  assert.equal(ours, theirs);
  return mine!;
}

withConfigtxlator('anchor peers of one organization: same read and write sets as configtxlator, needing only that organization', async (ctx) => {
  const updated = withAnchorPeers(ctx.config, 'Org2MSP', [{ host: 'peer0.org2.example.com', port: 8051 }]);
  const update = await sameAsConfigtxlator(ctx, 'anchors', updated);
  assert.equal(requiredPolicies(ctx.config, update), ['/Channel/Application/Org2MSP/Admins']);
  assert.is(evaluatePolicy(ctx.config, '/Channel/Application/Org2MSP/Admins', ['Org2MSP']).satisfied, true);
  assert.equal(evaluatePolicy(ctx.config, '/Channel/Application/Org2MSP/Admins', ['Org1MSP']), { satisfied: false, missingOrganizations: ['Org2MSP'], moreNeeded: 1, rule: "OutOf(1, 'Org2MSP.admin')" });
});

withConfigtxlator('changing existing anchor peers bumps the value version, as configtxlator does', async (ctx) => {
  await sameAsConfigtxlator(ctx, 'anchors-change', withAnchorPeers(ctx.config, 'Org1MSP', [{ host: 'peer1.org1.example.com', port: 9051 }]));
});

withConfigtxlator('adding a third organization needs MAJORITY of the application admins: both of two', async (ctx) => {
  const update = await sameAsConfigtxlator(ctx, 'add-org3', withOrganization(ctx.config, ctx.org3.msp));
  assert.equal(requiredPolicies(ctx.config, update), ['/Channel/Application/Admins']);
  const plan = planConfigUpdate(ctx.config, 'mychannel', { kind: 'addOrganization', organization: ctx.org3.msp }, ['Org1MSP']);
  assert.equal(plan.unmet, [{ policyPath: '/Channel/Application/Admins', rule: 'MAJORITY Admins', missingOrganizations: ['Org2MSP'], moreNeeded: 1 }]);
  const enough = planConfigUpdate(ctx.config, 'mychannel', { kind: 'addOrganization', organization: ctx.org3.msp }, ['Org1MSP', 'Org2MSP', 'Org9MSP']);
  assert.equal(enough.unmet, []);
  assert.equal(enough.signWith, ['Org1MSP', 'Org2MSP']);
});

withConfigtxlator('the orderer\'s batch timeout and preferred size: same update as configtxlator, under /Channel/Orderer/Admins; the other batch values kept; preferred above absolute refused', async (ctx) => {
  const update = await sameAsConfigtxlator(ctx, 'batch', withBatch(ctx.config, { batchTimeout: '750ms', preferredMaxBytes: 1024 * 1024 }));
  assert.equal(requiredPolicies(ctx.config, update), ['/Channel/Orderer/Admins']);
  const written = update.getWriteSet()!.getGroupsMap().get('Orderer')!.getValuesMap();
  assert.equal([...written.keys()].sort(), ['BatchSize', 'BatchTimeout']);
  const { orderer } = await import('@hyperledger/fabric-protos');
  const size = orderer.BatchSize.deserializeBinary(written.get('BatchSize')!.getValue_asU8());
  const before = orderer.BatchSize.deserializeBinary(ctx.config.getChannelGroup()!.getGroupsMap().get('Orderer')!.getValuesMap().get('BatchSize')!.getValue_asU8());
  assert.is(size.getPreferredMaxBytes(), 1024 * 1024);
  assert.is(size.getMaxMessageCount(), before.getMaxMessageCount());
  assert.is(size.getAbsoluteMaxBytes(), before.getAbsoluteMaxBytes());
  assert.throws(() => withBatch(ctx.config, { preferredMaxBytes: before.getAbsoluteMaxBytes() + 1 }), /must not exceed the absolute maximum/);
  assert.is(computeConfigUpdate('mychannel', ctx.config, withBatch(ctx.config, { maxMessageCount: before.getMaxMessageCount() })), null, 'the same values: no update');
});

test('with three organizations, MAJORITY needs two: one signer names both others and asks for one more', async (ctx) => {
  const three = withOrganization(ctx.config, ctx.org3.msp);
  const evaluation = evaluatePolicy(three, '/Channel/Application/Admins', ['Org3MSP']);
  assert.equal(evaluation, { satisfied: false, missingOrganizations: ['Org1MSP', 'Org2MSP'], moreNeeded: 1, rule: 'MAJORITY Admins' });
  assert.is(evaluatePolicy(three, '/Channel/Application/Admins', ['Org3MSP', 'Org1MSP']).satisfied, true);
});

withConfigtxlator('removing an organization and changing application policies compute as configtxlator does', async (ctx) => {
  await sameAsConfigtxlator(ctx, 'remove-org2', withoutOrganization(ctx.config, 'Org2MSP'));
  const update = await sameAsConfigtxlator(ctx, 'policies', withPolicies(ctx.config, { Admins: { type: 'ImplicitMeta', rule: 'ANY Admins' }, Readers: { type: 'ImplicitMeta', rule: 'ANY Readers' } }));
  // Only Admins differs: its own mod_policy (the application's Admins) decides.
  assert.equal(requiredPolicies(ctx.config, update), ['/Channel/Application/Admins']);
});

withConfigtxlator('a channel-level change needs MAJORITY of the orderer and application Admins, each itself a MAJORITY', async (ctx) => {
  const updated = withPolicies(ctx.config, { Writers: { type: 'ImplicitMeta', rule: 'MAJORITY Writers' } }, []);
  const update = await sameAsConfigtxlator(ctx, 'channel-writers', updated);
  assert.equal(requiredPolicies(ctx.config, update), ['/Channel/Admins']);
  assert.is(evaluatePolicy(ctx.config, '/Channel/Admins', ['Org1MSP']).satisfied, false);
  assert.is(evaluatePolicy(ctx.config, '/Channel/Admins', ['Org1MSP', 'Org2MSP']).satisfied, true);
});

withConfigtxlator('several changes make one update: an organization added and the application policies changed need the application Admins once', async (ctx) => {
  const changes = [
    { kind: 'addOrganization' as const, organization: ctx.org3.msp },
    { kind: 'policies' as const, policies: { Writers: { type: 'ImplicitMeta' as const, rule: 'MAJORITY Writers' } } },
  ];
  const plan = planConfigUpdate(ctx.config, 'mychannel', changes, ['Org1MSP', 'Org2MSP']);
  assert.equal(plan.policies, ['/Channel/Application/Admins']);
  const both = withPolicies(withOrganization(ctx.config, ctx.org3.msp), { Writers: { type: 'ImplicitMeta', rule: 'MAJORITY Writers' } });
  const update = await sameAsConfigtxlator(ctx, 'org-and-policies', both);
  assert.equal(update.serializeBinary(), plan.update!.serializeBinary());
});

test('the requirement, evaluated before signing: whose signatures count, which are held, which are missing (2 of 3 application admins)', async (ctx) => {
  const three = withOrganization(ctx.config, ctx.org3.msp);
  const change = { kind: 'policies' as const, policies: { Endorsement: { type: 'ImplicitMeta' as const, rule: 'ANY Endorsement' } } };
  const one = planConfigUpdate(three, 'mychannel', change, ['Org3MSP']).requirement;
  assert.equal(one, {
    policies: ['/Channel/Application/Admins'], requiredOrganizations: ['Org1MSP', 'Org2MSP', 'Org3MSP'], heldOrganizations: ['Org3MSP'], missingOrganizations: ['Org1MSP', 'Org2MSP'],
    unmet: [{ policyPath: '/Channel/Application/Admins', rule: 'MAJORITY Admins', missingOrganizations: ['Org1MSP', 'Org2MSP'], moreNeeded: 1 }],
  });
  const two = planConfigUpdate(three, 'mychannel', change, ['Org3MSP', 'Org1MSP', 'Org9MSP']).requirement;
  assert.equal([two.heldOrganizations, two.missingOrganizations, two.unmet], [['Org1MSP', 'Org3MSP'], [], []]);
  // An organization-level change counts that organization's admins only.
  const anchors = planConfigUpdate(three, 'mychannel', { kind: 'anchorPeers', mspId: 'Org2MSP', anchorPeers: [{ host: 'peer0.org2.example.com', port: 8051 }] }, ['Org3MSP']).requirement;
  assert.equal([anchors.requiredOrganizations, anchors.heldOrganizations, anchors.missingOrganizations], [['Org2MSP'], [], ['Org2MSP']]);
});

test('no difference computes no update', async (ctx) => {
  assert.is(computeConfigUpdate('mychannel', ctx.config, withOrganization(ctx.config, ctx.org1.msp)), null);
  assert.equal(planConfigUpdate(ctx.config, 'mychannel', { kind: 'anchorPeers', mspId: 'Org1MSP', anchorPeers: [{ host: 'peer0.org1.example.com', port: 7051 }] }, ['Org1MSP']).update, null);
});

test.run();
