// The config changes of the etcdraft to BFT migration (application/consortium/
// consortiumConsensusMigrate.ts) on a channel config (no node: a genesis block of two organizations
// and three raft consenters), against what Fabric 3.1.5's maintenance filter demands: entering
// maintenance changes the ConsensusType's State alone (the update's write set is the Orderer group
// with only the ConsensusType value: ensureConsensusTypeChangeOnly); the switch is refused outside
// maintenance; in maintenance it makes Type BFT (state kept), a ConsenterMapping of the same
// consenters whose TLS certificates are the raft metadata's bytes (validateBFTConsenterMapping),
// with ids 1..n, MSP ids and identities given, and a BlockValidation policy; applied again it
// changes nothing (a retried phase); a consenter without an identity is a 400.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { common, orderer } from '@hyperledger/fabric-protos';
import { buildChannelGenesisBlock } from '../../../adapters/consortium/fabricGenesis.ts';
import { configFromBlock } from '../../../adapters/consortium/channelConfig.ts';
import { applyChange } from '../../../adapters/consortium/configUpdateChanges.ts';
import { planConfigUpdate } from '../../../adapters/consortium/configUpdate.ts';
import { SMARTBFT_DEFAULTS } from '../../../domain/consortium/consortiumDefaults.ts';
import { ValidationError } from '../../../domain/shared/errors.ts';
import { testOrganization, type TestOrganization } from '../../helpers/fabric.ts';
import { genesisInput } from './channelTestInput.ts';

interface Ctx { org1: TestOrganization; org2: TestOrganization; config: common.Config }
const t = suite<Ctx>('etcdraft to BFT migration config changes', {} as Ctx);

t.before(async (ctx) => {
  ctx.org1 = await testOrganization('Org1MSP', 'org1.example.com');
  ctx.org2 = await testOrganization('Org2MSP', 'org2.example.com');
  ctx.config = configFromBlock(buildChannelGenesisBlock(await genesisInput('mychannel', ctx.org1, ctx.org2)));
});

const ordererValues = (config: common.Config) => config.getChannelGroup()!.getGroupsMap().get('Orderer')!.getValuesMap();
const consensusType = (config: common.Config) => orderer.ConsensusType.deserializeBinary(ordererValues(config).get('ConsensusType')!.getValue_asU8());
const raftConsenters = (config: common.Config) => orderer.etcdraft.ConfigMetadata.deserializeBinary(consensusType(config).getMetadata_asU8()).getConsentersList();
const identities = (config: common.Config, pem: string) => raftConsenters(config).map((c, i) => ({ host: c.getHost(), port: c.getPort(), mspId: i < 2 ? 'Org1MSP' : 'Org2MSP', identityCertPem: pem }));

t('maintenance: only the State changes; the update writes the Orderer group\'s ConsensusType value alone', (ctx) => {
  const after = applyChange(ctx.config, { kind: 'consensusState', state: 'maintenance' });
  const before = consensusType(ctx.config);
  const now = consensusType(after);
  assert.is(now.getState(), orderer.ConsensusType.State.STATE_MAINTENANCE);
  assert.is(now.getType(), 'etcdraft');
  assert.ok(Buffer.from(now.getMetadata_asU8()).equals(Buffer.from(before.getMetadata_asU8())), 'metadata byte for byte');
  const plan = planConfigUpdate(ctx.config, 'mychannel', { kind: 'consensusState', state: 'maintenance' }, ['Org1MSP', 'Org2MSP']);
  const write = plan.update!.getWriteSet()!;
  assert.equal([...write.getValuesMap().keys()], []);
  assert.equal([...write.getGroupsMap().keys()], ['Orderer']);
  const ord = write.getGroupsMap().get('Orderer')!;
  assert.equal([...ord.getValuesMap().keys()], ['ConsensusType']);
  assert.equal([...ord.getGroupsMap().keys()], []);
  assert.equal(plan.diff.map((d) => d.path), ['channel_group.groups.Orderer.values.ConsensusType.value.state']);
  const back = applyChange(after, { kind: 'consensusState', state: 'normal' });
  assert.is(consensusType(back).getState(), orderer.ConsensusType.State.STATE_NORMAL);
});

t('the switch to BFT: refused outside maintenance; in maintenance the same consenters (TLS bytes kept, ids 1..n), BFT options, BlockValidation; again: unchanged', async (ctx) => {
  const identity = (await ctx.org1.issue('orderer0.org1.example.com', 'orderer')).identity.certPem;
  const change = { kind: 'migrateToBft' as const, options: SMARTBFT_DEFAULTS, identities: identities(ctx.config, identity) };
  assert.throws(() => applyChange(ctx.config, change), (e: unknown) => e instanceof ValidationError && /not in maintenance/.test(e.message));
  const maintenance = applyChange(ctx.config, { kind: 'consensusState', state: 'maintenance' });
  const after = applyChange(maintenance, change);
  const ct = consensusType(after);
  assert.is(ct.getType(), 'BFT');
  assert.is(ct.getState(), orderer.ConsensusType.State.STATE_MAINTENANCE);
  const options = orderer.smartbft.Options.deserializeBinary(ct.getMetadata_asU8());
  assert.is(options.getRequestBatchMaxInterval(), SMARTBFT_DEFAULTS.requestBatchMaxInterval);
  assert.is(options.getLeaderRotation(), orderer.smartbft.Options.Rotation.ROTATION_OFF);
  const raft = raftConsenters(ctx.config);
  const mapping = common.Orderers.deserializeBinary(ordererValues(after).get('Orderers')!.getValue_asU8()).getConsenterMappingList();
  assert.is(mapping.length, raft.length);
  mapping.forEach((m, i) => {
    assert.is(m.getId(), i + 1);
    assert.is(m.getHost(), raft[i].getHost());
    assert.is(m.getPort(), raft[i].getPort());
    assert.ok(Buffer.from(m.getServerTlsCert_asU8()).equals(Buffer.from(raft[i].getServerTlsCert_asU8())), `consenter ${i + 1}: server TLS bytes`);
    assert.ok(Buffer.from(m.getClientTlsCert_asU8()).equals(Buffer.from(raft[i].getClientTlsCert_asU8())), `consenter ${i + 1}: client TLS bytes`);
    assert.is(m.getMspId(), i < 2 ? 'Org1MSP' : 'Org2MSP');
    assert.is(Buffer.from(m.getIdentity_asU8()).toString('utf8'), identity);
  });
  const validation = after.getChannelGroup()!.getGroupsMap().get('Orderer')!.getPoliciesMap().get('BlockValidation')!.getPolicy()!;
  assert.is(validation.getType(), common.Policy.PolicyType.SIGNATURE);
  const again = applyChange(after, change);
  assert.ok(Buffer.from(again.serializeBinary()).equals(Buffer.from(after.serializeBinary())), 'a retried switch changes nothing');
  const missing = { ...change, identities: change.identities.slice(1) };
  assert.throws(() => applyChange(maintenance, missing), (e: unknown) => e instanceof ValidationError && /No identity certificate for the raft consenter/.test(e.message));
});

t.run();
