// The ledgerX genesis block the service encodes, read back with @hyperledger/fabric-protos
// (runs everywhere; ledgerxGenesis.int.test.ts compares it with Fabric-X's own tools): block 0,
// one CONFIG envelope of the channel, orderer type arma with the shared config, channel
// capabilities V3_0, the BFT block validation quorum; inputs it cannot encode are a 400 naming them.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { common, orderer } from '@hyperledger/fabric-protos';
import { buildLedgerXGenesis } from '../../../adapters/ledgerx/ledgerxGenesis.ts';
import { configBlockChannel, configFromBlock } from '../../../adapters/consortium/channelConfig.ts';
import { ValidationError } from '../../../domain/shared/errors.ts';
import { genesisParties } from './ledgerxGenesisParties.ts';

const quorum = (block: Uint8Array) => {
  const policy = configFromBlock(block).getChannelGroup()!.getGroupsMap().get('Orderer')!.getPoliciesMap().get('BlockValidation')!.getPolicy()!;
  return common.SignaturePolicyEnvelope.deserializeBinary(policy.getValue_asU8()).getRule()!.getNOutOf()!.getN();
};

test('block 0 of the channel: orderer type arma, its shared config, V3_0, party endpoints in the orderer organization', async () => {
  const parties = await genesisParties(['Org1MSP']);
  const block = buildLedgerXGenesis({ channel: 'arma', parties });
  assert.is(common.Block.deserializeBinary(block).getHeader()!.getNumber(), 0);
  assert.is(configBlockChannel(block), 'arma');
  const channel = configFromBlock(block).getChannelGroup()!;
  assert.equal(common.Capabilities.deserializeBinary(channel.getValuesMap().get('Capabilities')!.getValue_asU8()).getCapabilitiesMap().keys().next().value, 'V3_0');
  const ordererGroup = channel.getGroupsMap().get('Orderer')!;
  const consensus = orderer.ConsensusType.deserializeBinary(ordererGroup.getValuesMap().get('ConsensusType')!.getValue_asU8());
  assert.is(consensus.getType(), 'arma');
  assert.ok(Buffer.from(consensus.getMetadata_asU8()).includes(Buffer.from(parties[0].consenter.tlsCertPem)), 'the consenter\'s TLS certificate in the shared config');
  const endpoints = common.OrdererAddresses.deserializeBinary(ordererGroup.getGroupsMap().get('Org1MSP')!.getValuesMap().get('Endpoints')!.getValue_asU8()).getAddressesList();
  assert.equal(endpoints, ['id=1,msp-id=Org1MSP,broadcast,127.0.0.1:7050', 'id=1,msp-id=Org1MSP,deliver,127.0.0.1:7053']);
  assert.is(quorum(block), 1);
});

test('the block validation quorum is fabric-x-common\'s BFT quorum: 2 of 2, 3 of 4', async () => {
  assert.is(quorum(buildLedgerXGenesis({ channel: 'two', parties: await genesisParties(['A', 'B']) })), 2);
  assert.is(quorum(buildLedgerXGenesis({ channel: 'four', parties: await genesisParties(['A', 'B', 'A', 'B']) })), 3);
});

test('no party, a bad channel name, a role certificate missing or not a certificate: a 400 naming each', async () => {
  const parties = await genesisParties(['Org1MSP']);
  const issues = (fn: () => unknown) => {
    try {
      fn();
    } catch (err) {
      assert.instance(err, ValidationError);
      return (err as ValidationError).details!.map((d) => `${d.field} ${d.message}`);
    }
    assert.unreachable('no error');
  };
  assert.equal(issues(() => buildLedgerXGenesis({ channel: 'arma', parties: [] })), ['ordererGroupIds at least one orderer group']);
  assert.equal(issues(() => buildLedgerXGenesis({ channel: 'Arma!', parties })), ['channelName must start with a lower-case letter and hold only a-z, 0-9, "." and "-"']);
  const broken = { ...parties[0], batcher: { ...parties[0].batcher, signCertPem: '' }, router: { ...parties[0].router, tlsCertPem: 'not a certificate' } };
  assert.equal(issues(() => buildLedgerXGenesis({ channel: 'arma', parties: [broken] })), ['parties[1].router.tlsCert not a PEM certificate', 'parties[1].batcher.signCert certificate missing']);
});

test.run();
