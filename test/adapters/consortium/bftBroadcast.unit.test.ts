// Where the service's own envelopes go (issue 37, "Issue 37's bench"): on an etcdraft channel to
// the one orderer chosen; on a BFT channel to every running consenter the service holds, done when
// the BFT quorum ceil((n+f+1)/2) of the channel's n consenters (from its ConsenterMapping) accepted,
// refused as soon as the quorum can no longer be met (Fabric 3.x gateway's submitBFT counting),
// naming every orderer's failure. No node: configs are genesis blocks built by the service's builder.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { awaitQuorum, bftAlreadyHas, orderingTargets } from '../../../adapters/consortium/fabricGrpcBroadcast.ts';
import { common } from '@hyperledger/fabric-protos';
import { bftBroadcastOf } from '../../../adapters/consortium/configUpdate.ts';
import { buildChannelGenesisBlock } from '../../../adapters/consortium/fabricGenesis.ts';
import { configFromBlock } from '../../../adapters/consortium/channelConfig.ts';
import { FabricNodeUnreachableError, FabricRefusedError } from '../../../domain/consortium/consortiumChannelPorts.ts';
import { SMARTBFT_DEFAULTS } from '../../../domain/consortium/consortiumDefaults.ts';
import type { BftConsenter, Endpoint } from '../../../domain/consortium/consortiumPorts.ts';
import { UnavailableError } from '../../../domain/shared/errors.ts';
import { testOrganization } from '../../helpers/fabric.ts';
import { defaultBatch, genesisInput } from './channelTestInput.ts';

const t = suite('BFT broadcast: targets and acknowledgements');

const ep = (i: number): Endpoint => ({ host: '127.0.0.1', port: 7050 + i, tlsCaCertPem: 'ca', serverName: `orderer${i}.example.com` });

t('etcdraft (no BFT consenters given): the chosen orderer alone, one answer needed', () => {
  const r = orderingTargets(ep(0));
  assert.equal(r.targets, [ep(0)]);
  assert.is(r.quorum, 1);
});

t('BFT with 4 consenters running: all 4 are sent the envelope (the chosen one once), 3 must accept', () => {
  const r = orderingTargets(ep(0), { consenters: [ep(0), ep(1), ep(2), ep(3)], clusterSize: 4 });
  assert.equal(r.targets.map((e) => e.port), [7050, 7051, 7052, 7053]);
  assert.is(r.quorum, 3);
});

t('BFT with 7 consenters (f=2): quorum 5; with fewer running than the quorum, every one given must accept', () => {
  assert.is(orderingTargets(ep(0), { consenters: [1, 2, 3, 4, 5, 6].map(ep), clusterSize: 7 }).quorum, 5);
  const few = orderingTargets(ep(0), { consenters: [ep(1)], clusterSize: 4 });
  assert.is(few.targets.length, 2);
  assert.is(few.quorum, 2);
});

const ok = (name: string, log: string[], delay = 0) => ({ name, run: () => new Promise<void>((r) => setTimeout(() => (log.push(name), r()), delay)) });
const fail = (name: string, err: Error) => ({ name, run: () => Promise.reject(err) });
const refused = (name: string) => new FabricRefusedError(`Orderer ${name} refused the transaction: BAD_REQUEST.`, name, 'ch', 'BAD_REQUEST', 'bad config', 400);

t('every attempt starts at once; done at the quorum, without waiting for a slow one', async () => {
  const log: string[] = [];
  let started = 0;
  const slow = { name: 'o3', run: () => (started++, new Promise<void>(() => undefined)) };
  await awaitQuorum([ok('o0', log), ok('o1', log), ok('o2', log), slow], 3, 'x');
  assert.is(started, 1);
  assert.equal(log.sort(), ['o0', 'o1', 'o2']);
});

t('one of four failing still reaches the quorum of 3', async () => {
  const log: string[] = [];
  await awaitQuorum([fail('o0', new FabricNodeUnreachableError('down', 'o0', 'ch')), ok('o1', log), ok('o2', log), ok('o3', log)], 3, 'x');
  assert.is(log.length, 3);
});

t('two of four failing: refused at once (the quorum of 3 cannot be met), every failure named; a refusal keeps its 400', async () => {
  const log: string[] = [];
  const never = { name: 'o3', run: () => new Promise<void>(() => undefined) };
  try {
    await awaitQuorum([fail('o0', refused('o0')), fail('o1', new FabricNodeUnreachableError('connection refused', 'o1', 'ch')), ok('o2', log), never], 3, 'the update');
    assert.unreachable('should have been refused');
  } catch (err) {
    assert.instance(err, FabricRefusedError);
    assert.is((err as FabricRefusedError).status, 400);
    assert.match((err as Error).message, /3 of 4 orderers had to accept the update/);
    assert.match((err as Error).message, /o0: .*BAD_REQUEST/);
    assert.match((err as Error).message, /o1: connection refused/);
  }
});

t('only unreachable orderers: a 503 naming them', async () => {
  try {
    await awaitQuorum([fail('o0', new FabricNodeUnreachableError('a', 'o0', 'ch')), fail('o1', new FabricNodeUnreachableError('b', 'o1', 'ch'))], 2, 'x');
    assert.unreachable('should have failed');
  } catch (err) {
    assert.instance(err, UnavailableError);
    assert.is((err as UnavailableError).status, 503);
  }
});

t('the cluster size is the BFT channel\'s ConsenterMapping; an etcdraft channel gets no BFT broadcast', async () => {
  const org1 = await testOrganization('Org1MSP', 'org1.example.com');
  const org2 = await testOrganization('Org2MSP', 'org2.example.com');
  const consenters: BftConsenter[] = [];
  for (const [i, org] of [org1, org1, org2, org2].entries()) {
    const issued = await org.issue(`orderer${i}.${org.domain}`, 'orderer');
    consenters.push({ id: i + 1, host: `orderer${i}.example.com`, port: 7050 + i, mspId: org.msp.mspId, identityCertPem: issued.identity.certPem, clientTlsCertPem: issued.tls.certPem, serverTlsCertPem: issued.tls.certPem });
  }
  const base = await genesisInput('bftchannel', org1, org2);
  const bft = configFromBlock(buildChannelGenesisBlock({ ...base, batch: defaultBatch, smartBft: { consenters, options: { ...SMARTBFT_DEFAULTS } } }));
  const raft = configFromBlock(buildChannelGenesisBlock(base));
  assert.equal(bftBroadcastOf(bft, [ep(1), ep(2)]), { consenters: [ep(1), ep(2)], clusterSize: 4 });
  assert.is(bftBroadcastOf(bft, undefined), undefined);
  assert.is(bftBroadcastOf(raft, [ep(1), ep(2)]), undefined);
});

t('SmartBFT answers that the orderer already holds or already ordered the request count as accepted; other SERVICE_UNAVAILABLE answers do not', () => {
  // Fabric 3.1.5's words, seen from a docker BFT quick start's chaincode deploy (2 of 4 answered "already processed").
  assert.ok(bftAlreadyHas(common.Status.SERVICE_UNAVAILABLE, 'failed to submit request: request already processed'));
  assert.ok(bftAlreadyHas(common.Status.SERVICE_UNAVAILABLE, 'failed to submit request: request already exists'));
  assert.not.ok(bftAlreadyHas(common.Status.SERVICE_UNAVAILABLE, 'no Raft leader'));
  assert.not.ok(bftAlreadyHas(common.Status.BAD_REQUEST, 'request already processed'));
});

t.run();
