// Capabilities set in a channel config (no node: a genesis block of two organizations, channel and
// orderer V2_0, application V2_5): each level asked written as Fabric's Capabilities value at
// /Channel, /Channel/Orderer or /Channel/Application (its mod policy kept); the diff names the
// capability removed and the one added; a level already at the value asked changes nothing; the
// channel level is signed for under /Channel/Admins.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { common } from '@hyperledger/fabric-protos';
import { buildChannelGenesisBlock } from '../../../adapters/consortium/fabricGenesis.ts';
import { configFromBlock } from '../../../adapters/consortium/channelConfig.ts';
import { applyChange } from '../../../adapters/consortium/configUpdateChanges.ts';
import { planConfigUpdate } from '../../../adapters/consortium/configUpdate.ts';
import { testOrganization } from '../../helpers/fabric.ts';
import { genesisInput } from './channelTestInput.ts';

const t = suite<{ config: common.Config }>('channel capabilities in a config update', {} as { config: common.Config });

t.before(async (ctx) => {
  const org1 = await testOrganization('Org1MSP', 'org1.example.com');
  const org2 = await testOrganization('Org2MSP', 'org2.example.com');
  ctx.config = configFromBlock(buildChannelGenesisBlock(await genesisInput('mychannel', org1, org2)));
});

function capabilitiesAt(config: common.Config, path: string[]): string[] {
  let group = config.getChannelGroup()!;
  for (const p of path) group = group.getGroupsMap().get(p)!;
  const v = group.getValuesMap().get('Capabilities')!;
  return common.Capabilities.deserializeBinary(v.getValue_asU8()).getCapabilitiesMap().toArray().map(([k]) => k);
}

t('channel V3_0 and orderer V2_0 (kept): only /Channel changes, the diff is V2_0 out and V3_0 in, /Channel/Admins signs', (ctx) => {
  const change = { kind: 'capabilities' as const, capabilities: { channel: 'V3_0', orderer: 'V2_0' } };
  const after = applyChange(ctx.config, change);
  assert.equal(capabilitiesAt(after, []), ['V3_0']);
  assert.equal(capabilitiesAt(after, ['Orderer']), ['V2_0']);
  assert.equal(capabilitiesAt(after, ['Application']), ['V2_5']);
  assert.is(after.getChannelGroup()!.getValuesMap().get('Capabilities')!.getModPolicy(), 'Admins');
  const plan = planConfigUpdate(ctx.config, 'mychannel', change, ['Org1MSP', 'Org2MSP']);
  assert.ok(plan.update);
  assert.equal(plan.diff, [
    { path: 'channel_group.values.Capabilities.value.capabilities.V2_0', before: {}, after: null },
    { path: 'channel_group.values.Capabilities.value.capabilities.V3_0', before: null, after: {} },
  ]);
  assert.equal(plan.policies, ['/Channel/Admins']);
  // The write set holds the channel's Capabilities only.
  assert.equal(plan.update!.getWriteSet()!.getValuesMap().toArray().map(([k]) => k), ['Capabilities']);
});

t('every level at the value it has: no update; application raised alone: /Channel/Application only', (ctx) => {
  const none = planConfigUpdate(ctx.config, 'mychannel', { kind: 'capabilities', capabilities: { channel: 'V2_0', orderer: 'V2_0', application: 'V2_5' } }, ['Org1MSP']);
  assert.is(none.update, null);
  assert.equal(none.diff, []);
  const lowered = applyChange(ctx.config, { kind: 'capabilities', capabilities: { application: 'V2_0' } });
  const plan = planConfigUpdate(lowered, 'mychannel', { kind: 'capabilities', capabilities: { application: 'V2_5' } }, ['Org1MSP', 'Org2MSP']);
  assert.equal(plan.diff.map((d) => d.path), ['channel_group.groups.Application.values.Capabilities.value.capabilities.V2_0', 'channel_group.groups.Application.values.Capabilities.value.capabilities.V2_5']);
  assert.equal(plan.policies, ['/Channel/Application/Admins']);
});

t.run();
