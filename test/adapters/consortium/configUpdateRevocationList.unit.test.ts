// withRevocationList (the CRL of an organization into a channel config): the MSP's revocation_list
// is set in the Application and the Orderer group that define the organization, the rest of the
// MSP is kept; the same CRL again (same issuer and CRL number, other signature bytes) leaves the
// config as it is; a newer CRL replaces it; an organization outside the channel is a 400.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateKeyPairSync } from 'node:crypto';
import { common, msp } from '@hyperledger/fabric-protos';
import { createSelfSignedCa } from '../../../adapters/x509/certificateBuilder.ts';
import { privateKeySigner } from '../../../adapters/x509/certificateSigner.ts';
import { organizationCaProfile } from '../../../adapters/x509/certificateProfiles.ts';
import { buildCrl } from '../../../adapters/x509/crlBuilder.ts';
import { ordererOrganizationGroup, peerOrganizationGroup } from '../../../adapters/consortium/channelConfigGroups.ts';
import { applyChange } from '../../../adapters/consortium/configUpdateChanges.ts';
import { ValidationError } from '../../../domain/shared/errors.ts';

const now = new Date();
const key = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
const signer = privateKeySigner(key);
const ca = await createSelfSignedCa(organizationCaProfile({ domain: 'org1.example.com' }, now), signer);
const org = { mspId: 'Org1MSP', signCaCertPem: ca.pem, tlsCaCertPem: ca.pem, adminCertPem: ca.pem };
const crl = async (crlNumber: number, serials: string[]) =>
  (await buildCrl({ thisUpdate: now, nextUpdate: new Date(now.getTime() + 86_400_000), crlNumber, revoked: serials.map((serialNumber) => ({ serialNumber, revokedAt: now })) }, { certificatePem: ca.pem, signer })).pem;

function channelConfig(): common.Config {
  const channel = new common.ConfigGroup();
  const application = new common.ConfigGroup();
  application.getGroupsMap().set('Org1MSP', peerOrganizationGroup(org));
  application.getGroupsMap().set('Org2MSP', peerOrganizationGroup({ ...org, mspId: 'Org2MSP' }));
  const orderer = new common.ConfigGroup();
  orderer.getGroupsMap().set('Org1MSP', ordererOrganizationGroup({ ...org, endpoints: ['127.0.0.1:7050'] }));
  channel.getGroupsMap().set('Application', application);
  channel.getGroupsMap().set('Orderer', orderer);
  const config = new common.Config();
  config.setChannelGroup(channel);
  return config;
}

function fabricMsp(config: common.Config, section: string, mspId: string): msp.FabricMSPConfig {
  const value = config.getChannelGroup()!.getGroupsMap().get(section)!.getGroupsMap().get(mspId)!.getValuesMap().get('MSP')!;
  return msp.FabricMSPConfig.deserializeBinary(msp.MSPConfig.deserializeBinary(value.getValue_asU8()).getConfig_asU8());
}
const crlsOf = (config: common.Config, section: string, mspId = 'Org1MSP') => fabricMsp(config, section, mspId).getRevocationListList_asU8().map((b) => Buffer.from(b).toString());

test('the CRL goes into the MSP of the organization in the Application and the Orderer group; the rest of the MSP and the other organization are kept', async () => {
  const before = channelConfig();
  const pem = await crl(1, ['0A1B']);
  const after = applyChange(before, { kind: 'revocationList', mspId: 'Org1MSP', crlPems: [pem] });
  assert.equal(crlsOf(after, 'Application'), [pem]);
  assert.equal(crlsOf(after, 'Orderer'), [pem]);
  assert.equal(crlsOf(after, 'Application', 'Org2MSP'), []);
  assert.equal(crlsOf(before, 'Application'), [], 'the input is left untouched');
  const kept = fabricMsp(after, 'Application', 'Org1MSP');
  kept.setRevocationListList([]);
  assert.equal(Buffer.from(kept.serializeBinary()), Buffer.from(fabricMsp(before, 'Application', 'Org1MSP').serializeBinary()), 'roots, NodeOUs and the rest unchanged');
});

test('the same CRL issued again (other signature bytes, same number) changes nothing; a newer CRL replaces it', async () => {
  const first = await crl(1, ['0A1B']);
  const again = await crl(1, ['0A1B']);
  assert.is.not(first, again, 'ECDSA signs differently each time');
  const pushed = applyChange(channelConfig(), { kind: 'revocationList', mspId: 'Org1MSP', crlPems: [first] });
  const twice = applyChange(pushed, { kind: 'revocationList', mspId: 'Org1MSP', crlPems: [again] });
  assert.equal(Buffer.from(twice.serializeBinary()), Buffer.from(pushed.serializeBinary()));
  const next = await crl(2, ['0A1B', '0C2D']);
  const newer = applyChange(pushed, { kind: 'revocationList', mspId: 'Org1MSP', crlPems: [next] });
  assert.equal(crlsOf(newer, 'Application'), [next]);
  assert.equal(crlsOf(newer, 'Orderer'), [next]);
});

test('an organization the channel does not have is a ValidationError', async () => {
  try {
    applyChange(channelConfig(), { kind: 'revocationList', mspId: 'Org9MSP', crlPems: [await crl(1, [])] });
    assert.unreachable('refused');
  } catch (err) {
    assert.instance(err, ValidationError);
    assert.match((err as Error).message, 'Org9MSP');
  }
});

test.run();
