// Consenter changes applied to a channel config (no node: a genesis block of two organizations and
// three consenters): added with its endpoint, removed with its endpoint, a certificate rotated in
// place; the config diff names exactly what changed; the update's write set is the Orderer group's
// ConsensusType (and the organization's Endpoints). The channel's check of a new consenter's TLS
// certificate (application/consortium/consortiumConsenters.ts) accepts one of an orderer
// organization's TLS CA and refuses one of another CA. Raft options (PUT .../config raftOptions):
// those given set, the rest and the consenters kept; what Fabric 2.5 refuses is a 400 naming the field.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { common, orderer } from '@hyperledger/fabric-protos';
import { buildChannelGenesisBlock } from '../../../adapters/consortium/fabricGenesis.ts';
import { configFromBlock, decodeChannelConfig } from '../../../adapters/consortium/channelConfig.ts';
import { applyChange } from '../../../adapters/consortium/configUpdateChanges.ts';
import { planConfigUpdate } from '../../../adapters/consortium/configUpdate.ts';
import { certificateProblem } from '../../../application/consortium/consortiumConsenters.ts';
import { testOrganization, type TestOrganization } from '../../helpers/fabric.ts';
import { genesisInput } from './channelTestInput.ts';
import { ValidationError } from '../../../domain/shared/errors.ts';

interface Ctx { org1: TestOrganization; org2: TestOrganization; config: common.Config; block: Uint8Array }
const t = suite<Ctx>('etcdraft consenter changes and their config diff', {} as Ctx);

t.before(async (ctx) => {
  ctx.org1 = await testOrganization('Org1MSP', 'org1.example.com');
  ctx.org2 = await testOrganization('Org2MSP', 'org2.example.com');
  ctx.block = buildChannelGenesisBlock(await genesisInput('mychannel', ctx.org1, ctx.org2));
  ctx.config = configFromBlock(ctx.block);
});

function consenters(config: common.Config) {
  const v = config.getChannelGroup()!.getGroupsMap().get('Orderer')!.getValuesMap().get('ConsensusType')!;
  const ct = orderer.ConsensusType.deserializeBinary(v.getValue_asU8());
  const m = orderer.etcdraft.ConfigMetadata.deserializeBinary(ct.getMetadata_asU8());
  return { type: ct.getType(), options: m.getOptions()?.getTickInterval(), list: m.getConsentersList().map((c) => ({ host: c.getHost(), port: c.getPort(), cert: Buffer.from(c.getServerTlsCert()).toString() })) };
}
const endpoints = (config: common.Config, mspId: string) =>
  common.OrdererAddresses.deserializeBinary(config.getChannelGroup()!.getGroupsMap().get('Orderer')!.getGroupsMap().get(mspId)!.getValuesMap().get('Endpoints')!.getValue_asU8()).getAddressesList();

t('add: the consenter appended, its endpoint added to its organization, options kept; the diff shows both and nothing else', async (ctx) => {
  const tls = (await ctx.org1.issue('orderer9.org1.example.com', 'orderer')).tls.certPem;
  const change = { kind: 'addConsenter' as const, consenter: { host: 'orderer9.org1.example.com', port: 7059, clientTlsCertPem: tls, serverTlsCertPem: tls }, mspId: 'Org1MSP' };
  const after = applyChange(ctx.config, change);
  const c = consenters(after);
  assert.is(c.list.length, 4);
  assert.equal(c.list[3], { host: 'orderer9.org1.example.com', port: 7059, cert: tls });
  assert.is(c.type, 'etcdraft');
  assert.is(c.options, '500ms');
  assert.equal(endpoints(after, 'Org1MSP'), ['orderer0.org1.example.com:7050', 'orderer1.org1.example.com:7050', 'orderer9.org1.example.com:7059']);
  const plan = planConfigUpdate(ctx.config, 'mychannel', change, ['Org1MSP', 'Org2MSP']);
  assert.ok(plan.update);
  assert.equal(plan.diff.map((d) => [d.path, d.before === null ? 'added' : d.after === null ? 'removed' : 'changed']), [
    ['channel_group.groups.Orderer.groups.Org1MSP.values.Endpoints.value.addresses[]', 'added'],
    ['channel_group.groups.Orderer.values.ConsensusType.value.metadata.consenters[]', 'added'],
  ]);
  assert.equal(plan.diff[0].after, 'orderer9.org1.example.com:7059');
  assert.is((plan.diff[1].after as { port: number }).port, 7059);
  // The orderer group's Admins (MAJORITY of the orderer organizations) must sign.
  assert.ok(plan.policies.includes('/Channel/Orderer/Admins'), plan.policies.join(','));
});

t('remove: one consenter and its endpoint go, the others stay in order; the diff is one removal each', (ctx) => {
  const change = { kind: 'removeConsenter' as const, host: 'orderer1.example.com', port: 7051, mspId: 'Org1MSP' };
  const before = consenters(ctx.config).list;
  // genesisInput names the consenters orderer<i>.example.com:705<i>; Org1's endpoints are orderer<i>.org1.example.com:7050.
  const after = applyChange(ctx.config, change);
  assert.equal(consenters(after).list, [before[0], before[2]]);
  const plan = planConfigUpdate(ctx.config, 'mychannel', change, ['Org1MSP', 'Org2MSP']);
  assert.equal(plan.diff.map((d) => d.path), ['channel_group.groups.Orderer.values.ConsensusType.value.metadata.consenters[]']);
  assert.is((plan.diff[0].before as { port: number }).port, 7051);
  assert.is(plan.diff[0].after, null);
});

t('replace a certificate: same host and port at the same place, the new certificate in; a consenter not in the set changes nothing', async (ctx) => {
  const tls = (await ctx.org1.issue('orderer0.org1.example.com', 'orderer')).tls.certPem;
  const change = { kind: 'replaceConsenterCertificate' as const, consenter: { host: 'orderer0.example.com', port: 7050, clientTlsCertPem: tls, serverTlsCertPem: tls } };
  const after = consenters(applyChange(ctx.config, change)).list;
  assert.equal(after[0], { host: 'orderer0.example.com', port: 7050, cert: tls });
  assert.equal(after.slice(1), consenters(ctx.config).list.slice(1));
  const plan = planConfigUpdate(ctx.config, 'mychannel', change, ['Org1MSP', 'Org2MSP']);
  assert.equal(plan.diff.map((d) => d.before === null ? 'added' : 'removed').sort(), ['added', 'removed']);
  const none = planConfigUpdate(ctx.config, 'mychannel', { ...change, consenter: { ...change.consenter, port: 9999 } }, ['Org1MSP']);
  assert.is(none.update, null);
  assert.equal(none.diff, []);
});

t('certificate check: an orderer organization\'s TLS CA verifies; another CA\'s certificate is refused naming its issuer', async (ctx) => {
  const json = decodeChannelConfig(ctx.block);
  const now = new Date();
  assert.is(certificateProblem((await ctx.org2.issue('orderer5.org2.example.com', 'orderer')).tls.certPem, json, now), null);
  const stranger = await testOrganization('Org9MSP', 'org9.example.com');
  const problem = certificateProblem((await stranger.issue('orderer0.org9.example.com', 'orderer')).tls.certPem, json, now);
  assert.match(problem ?? '', /no TLS CA of the channel's orderer organizations \(Org1MSP, Org2MSP\)/);
  assert.match(problem ?? '', /org9/);
  assert.match(certificateProblem('not a pem', json, now) ?? '', /not an X.509 certificate/);
  assert.match(certificateProblem((await ctx.org1.issue('orderer7.org1.example.com', 'orderer')).tls.certPem, json, new Date(Date.now() + 50 * 365 * 86400_000)) ?? '', /not valid now/);
});

t('raft options: the given set, the others and the consenters kept, the diff names each; invalid ones are a 400 naming the field', (ctx) => {
  const raftOptions = (config: common.Config) => {
    const v = config.getChannelGroup()!.getGroupsMap().get('Orderer')!.getValuesMap().get('ConsensusType')!;
    return orderer.etcdraft.ConfigMetadata.deserializeBinary(orderer.ConsensusType.deserializeBinary(v.getValue_asU8()).getMetadata_asU8()).getOptions()!.toObject();
  };
  const change = { kind: 'raftOptions' as const, options: { snapshotIntervalSize: 8 * 1024 * 1024, maxInflightBlocks: 7, tickInterval: undefined } };
  const after = applyChange(ctx.config, change);
  assert.equal(raftOptions(after), { tickInterval: '500ms', electionTick: 10, heartbeatTick: 1, maxInflightBlocks: 7, snapshotIntervalSize: 8 * 1024 * 1024 });
  assert.equal(consenters(after).list, consenters(ctx.config).list);
  const plan = planConfigUpdate(ctx.config, 'mychannel', change, ['Org1MSP', 'Org2MSP']);
  assert.ok(plan.update);
  assert.equal(plan.diff.map((d) => [d.path, d.before, d.after]), [
    ['channel_group.groups.Orderer.values.ConsensusType.value.metadata.options.max_inflight_blocks', 5, 7],
    ['channel_group.groups.Orderer.values.ConsensusType.value.metadata.options.snapshot_interval_size', 16 * 1024 * 1024, 8 * 1024 * 1024],
  ]);
  const bad = (options: Record<string, unknown>, field: string) =>
    assert.throws(() => applyChange(ctx.config, { kind: 'raftOptions', options }), (e: unknown) => e instanceof ValidationError && e.details?.length === 1 && e.details[0].field === field);
  bad({ heartbeatTick: 10 }, 'raftOptions.electionTick'); // electionTick (10) must be above it
  bad({ electionTick: 1 }, 'raftOptions.electionTick');
  bad({ maxInflightBlocks: 0 }, 'raftOptions.maxInflightBlocks');
  bad({ snapshotIntervalSize: 2 ** 32 }, 'raftOptions.snapshotIntervalSize');
  bad({ heartbeatTick: 1.5 }, 'raftOptions.heartbeatTick');
  bad({ tickInterval: '0s' }, 'raftOptions.tickInterval');
  bad({ tickInterval: '-500ms' }, 'raftOptions.tickInterval');
  bad({ tickInterval: 'soon' }, 'raftOptions.tickInterval');
});

t.run();
