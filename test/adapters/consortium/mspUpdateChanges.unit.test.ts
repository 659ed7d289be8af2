// An organization's MSP updated in a channel config (no node: a genesis block of two
// organizations): a new root and an intermediate under it added wherever the organization is
// defined (Application and Orderer groups), the NodeOU identifiers made CA-less, the diff naming
// them; the same update again changes nothing. The checks before it (mspUpdateIssues) refuse what
// does not parse, a root that is not self-signed, an intermediate without its root and an admin
// of no CA of the MSP, each naming its field.
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { common, msp } from '@hyperledger/fabric-protos';
import { buildChannelGenesisBlock } from '../../../adapters/consortium/fabricGenesis.ts';
import { configFromBlock } from '../../../adapters/consortium/channelConfig.ts';
import { applyChange } from '../../../adapters/consortium/configUpdateChanges.ts';
import { planConfigUpdate } from '../../../adapters/consortium/configUpdate.ts';
import { issueCertificate } from '../../../adapters/x509/certificateBuilder.ts';
import { privateKeySigner } from '../../../adapters/x509/certificateSigner.ts';
import { nodeIdentityProfile, organizationCaProfile } from '../../../adapters/x509/certificateProfiles.ts';
import { mspUpdateIssues } from '../../../application/consortium/consortiumOrgMspUpdate.ts';
import { testOrganization, type TestOrganization } from '../../helpers/fabric.ts';
import { genesisInput } from './channelTestInput.ts';

interface Ctx { config: common.Config; org2: TestOrganization; root: TestOrganization; intermediate: string; client: string }
const t = suite<Ctx>('an organization\'s MSP updated in a channel config', {} as Ctx);
const newKey = () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
const spki = (k: ReturnType<typeof newKey>) => createPublicKey(k).export({ type: 'spki', format: 'pem' }).toString();

t.before(async (ctx) => {
  const org1 = await testOrganization('Org1MSP', 'org1.example.com');
  ctx.org2 = await testOrganization('Org2MSP', 'org2.example.com');
  ctx.config = configFromBlock(buildChannelGenesisBlock(await genesisInput('mychannel', org1, ctx.org2)));
  ctx.root = await testOrganization('Org2MSP', 'neworg2.example.com');
  const now = new Date();
  const key = newKey();
  ctx.intermediate = (await issueCertificate({ ...organizationCaProfile({ domain: 'int.org2.example.com' }, now, 5), isCa: true }, spki(key), { certificatePem: ctx.root.signCa.certPem, signer: ctx.root.signCa.signer })).pem;
  ctx.client = (await issueCertificate(nodeIdentityProfile({ domain: 'int.org2.example.com' }, { commonName: 'app1', role: 'client', hosts: [] }, now), spki(newKey()), { certificatePem: ctx.intermediate, signer: privateKeySigner(key) })).pem;
});

function fabricMsp(config: common.Config, section: string) {
  const v = config.getChannelGroup()!.getGroupsMap().get(section)!.getGroupsMap().get('Org2MSP')!.getValuesMap().get('MSP')!;
  return msp.FabricMSPConfig.deserializeBinary(msp.MSPConfig.deserializeBinary(v.getValue_asU8()).getConfig_asU8());
}

t('root and intermediate added in both groups, NodeOUs CA-less, the diff names them; the same again changes nothing', (ctx) => {
  const change = { kind: 'mspUpdate' as const, mspId: 'Org2MSP', update: { rootCerts: [ctx.root.signCa.certPem], intermediateCerts: [ctx.intermediate] } };
  const after = applyChange(ctx.config, change);
  for (const section of ['Application', 'Orderer']) {
    const m = fabricMsp(after, section);
    assert.is(m.getRootCertsList().length, 2, section);
    assert.is(Buffer.from(m.getIntermediateCertsList_asU8()[0]).toString(), ctx.intermediate);
    assert.is(m.getFabricNodeOus()!.getClientOuIdentifier()!.getCertificate_asU8().length, 0);
    assert.is(m.getFabricNodeOus()!.getClientOuIdentifier()!.getOrganizationalUnitIdentifier(), 'client');
    assert.is(m.getTlsRootCertsList().length, 1, 'TLS roots kept');
  }
  const plan = planConfigUpdate(ctx.config, 'mychannel', change, ['Org1MSP', 'Org2MSP']);
  const paths = plan.diff.map((d) => d.path);
  assert.ok(paths.includes('channel_group.groups.Application.groups.Org2MSP.values.MSP.value.config.root_certs[]'), paths.join('\n'));
  assert.ok(paths.includes('channel_group.groups.Orderer.groups.Org2MSP.values.MSP.value.config.intermediate_certs[]'), paths.join('\n'));
  assert.ok(paths.includes('channel_group.groups.Application.groups.Org2MSP.values.MSP.value.config.fabric_node_ous.client_ou_identifier.certificate'), paths.join('\n'));
  assert.ok(plan.policies.every((p) => p.includes('Org2MSP')), plan.policies.join(','));
  assert.is(planConfigUpdate(after, 'mychannel', change, ['Org2MSP']).update, null);
  const admins = applyChange(after, { kind: 'mspUpdate', mspId: 'Org2MSP', update: { admins: [ctx.client] } });
  assert.is(Buffer.from(fabricMsp(admins, 'Application').getAdminsList_asU8()[0]).toString(), ctx.client);
});

t('checks: what does not parse, a root not self-signed, an intermediate without its root, an admin of no CA are named; a valid update has none', (ctx) => {
  const current = { roots: [ctx.org2.signCa.certPem], intermediates: [], tlsRoots: [ctx.org2.tlsCa.certPem], tlsIntermediates: [] };
  const now = new Date();
  assert.equal(mspUpdateIssues(current, { rootCerts: [ctx.root.signCa.certPem], intermediateCerts: [ctx.intermediate], admins: [ctx.client] }, now), []);
  const issues = mspUpdateIssues(current, { rootCerts: ['-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----', ctx.intermediate], intermediateCerts: [ctx.intermediate], admins: [ctx.client] }, now);
  assert.equal(issues.map((i) => i.field), ['rootCerts[0]', 'rootCerts[1]', 'intermediateCerts[0]', 'admins[0]']);
  assert.match(issues[1].message, /not self-signed/);
  assert.match(issues[2].message, /no CA of the MSP/);
  assert.match(issues[3].message, /no signing CA of the MSP/);
});

t.run();
