// The capability rules checked before a capability change is submitted: a level is never lowered
// (400 naming rule capability-lowering and each level); channel V3_0 only once every node of the
// channel runs Fabric 3.x (409 naming rule capability-v3-nodes and each node that does not, a node
// recording no release among them); the highest known capability of a set is its level.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertCapabilityLevels, assertV3Nodes, capabilityLevelOf, releaseAtLeast, type ChannelNodeRelease } from '../../../domain/consortium/capabilityRules.ts';
import { refused } from './ruleFixtures.ts';

const t = suite('channel capability rules');

const now = { channel: ['V2_0'], orderer: ['V2_0'], application: ['V2_5'] };

t('raising or keeping a level passes; lowering any is a 400 naming the rule and each lowered level', () => {
  assertCapabilityLevels(now, { channel: 'V3_0', orderer: 'V2_0', application: 'V2_5' });
  assertCapabilityLevels(now, {});
  const e = refused(() => assertCapabilityLevels(now, { channel: 'V1_4_3', orderer: 'V2_0', application: 'V2_0' }));
  assert.is(e.status, 400);
  assert.is(e.code, 'CAPABILITY_LOWERING');
  assert.match(e.message, /Rule capability-lowering/);
  assert.match(e.message, /channel is V2_0, V1_4_3 asked; application is V2_5, V2_0 asked/);
  assert.equal(e.details!.map((d) => d.field), ['capabilities.channel', 'capabilities.application']);
});

t('a level is the highest capability Fabric knows in its set (unknown names ignored)', () => {
  assert.is(capabilityLevelOf('channel', ['V1_4_3', 'V2_0', 'V9_9']), 'V2_0');
  assert.is(capabilityLevelOf('application', ['V1_1_PVTDATA_EXPERIMENTAL']), null);
  // A set holding several names counts as its highest: V2_0 below V2_0 + V1_4_2 is not lowering.
  assertCapabilityLevels({ ...now, orderer: ['V1_4_2', 'V2_0'] }, { orderer: 'V2_0' });
});

t('V3_0: refused with each node below 3.0 named (release or none recorded); accepted when all run 3.x', () => {
  const nodes: ChannelNodeRelease[] = [
    { nodeId: 1, name: 'orderer0', role: 'orderer', fabricVersion: '3.1.5' },
    { nodeId: 2, name: 'orderer1', role: 'orderer', fabricVersion: '2.5.12' },
    { nodeId: 3, name: 'peer0', role: 'peer', fabricVersion: null },
  ];
  const e = refused(() => assertV3Nodes('mychannel', nodes));
  assert.is(e.status, 409);
  assert.is(e.code, 'CAPABILITY_NODES_BELOW_V3');
  assert.match(e.message, /Rule capability-v3-nodes/);
  assert.match(e.message, /orderer orderer1 \(Fabric 2\.5\.12\), peer peer0 \(no recorded Fabric release\)/);
  assert.not.match(e.message, /orderer0/);
  assert.equal((e.extra!.nodes as { node_id: number }[]).map((n) => n.node_id), [2, 3]);
  assertV3Nodes('mychannel', nodes.map((n) => ({ ...n, fabricVersion: '3.1.5' })));
});

t('release lines compare numerically', () => {
  assert.ok(releaseAtLeast('3.1.5', '3.0'));
  assert.ok(releaseAtLeast('10.0.0', '3.0'));
  assert.not.ok(releaseAtLeast('2.5.12', '3.0'));
  assert.ok(releaseAtLeast('3.0.0', '3.0'));
});

t.run();
