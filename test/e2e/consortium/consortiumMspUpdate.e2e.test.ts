// An organization's MSP updated in a channel on real Fabric 2.5 (a counted skip without the
// programs; issue 37 item 4): a new root CA and an intermediate CA under it are added to Org2MSP
// (a dry run first: the diff, nothing submitted), and a client certificate issued by the
// intermediate, refused by the orderer before (deliver FORBIDDEN), then reads the channel; the
// channel commits the config block (a peer's height grows). An intermediate whose root the MSP
// lacks is a 400 naming the field. Then the MSP's admins are set to an admin of the intermediate.
import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { fabricMissing, testOrganization } from '../../helpers/fabric.ts';
import { requires } from '../../helpers/requirements.ts';
import { apiOf, consortiumEnv, removeConsortiumNodes, twoOrganizationChannel, until } from './consortiumApi.ts';
import { issueCertificate } from '../../../adapters/x509/certificateBuilder.ts';
import { privateKeySigner } from '../../../adapters/x509/certificateSigner.ts';
import { nodeIdentityProfile, organizationCaProfile } from '../../../adapters/x509/certificateProfiles.ts';
import { privateKeyFabricSigner } from '../../../adapters/consortium/fabricSigning.ts';
import { fetchConfig } from '../../../adapters/consortium/channelConfig.ts';
import { FabricRefusedError } from '../../../domain/consortium/consortiumChannelPorts.ts';

const t = requires(suite('an organization\'s MSP updated in a channel (real Fabric 2.5)'), 'fabric', fabricMissing);
let server: TestServer;
const api = apiOf(() => server);
let setup: Awaited<ReturnType<typeof twoOrganizationChannel>>;

t.before(async () => {
  server = await startServer({ env: consortiumEnv() });
  setup = await twoOrganizationChannel(api, 'mspnet', 'mspchannel');
});
t.after(async () => {
  if (!server) return;
  await removeConsortiumNodes(api, server.dataDir);
  await server.stop();
});

const newKey = () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
const spki = (k: ReturnType<typeof newKey>) => createPublicKey(k).export({ type: 'spki', format: 'pem' }).toString();
const height = async () => {
  const r = await api('GET', `/networks/consortium/${setup.network.id}/info`);
  return r.status === 200 ? Number(r.json.height) : null;
};

t('a new root and intermediate CA added to Org2MSP: dry run, then the channel accepts it and a client of the intermediate reads the channel; admins set', async () => {
  const now = new Date();
  // A new CA hierarchy for Org2: a root (a fresh test organization's signing CA) and an intermediate under it.
  const root = await testOrganization('Org2MSP', 'neworg2.example.com');
  const naming = { domain: 'int.org2.example.com' };
  const intermediateKey = newKey();
  const intermediate = await issueCertificate({ ...organizationCaProfile(naming, now, 5), isCa: true }, spki(intermediateKey), { certificatePem: root.signCa.certPem, signer: root.signCa.signer });
  const issuer = { certificatePem: intermediate.pem, signer: privateKeySigner(intermediateKey) };
  const clientKey = newKey();
  const client = await issueCertificate(nodeIdentityProfile(naming, { commonName: 'app1.int.org2.example.com', role: 'client', hosts: [] }, now), spki(clientKey), issuer);
  const adminKey = newKey();
  const admin = await issueCertificate(nodeIdentityProfile(naming, { commonName: 'admin2.int.org2.example.com', role: 'admin', hosts: [] }, now), spki(adminKey), issuer);

  const config = await api('GET', `/networks/${setup.network.id}/channels/mspchannel/config`);
  assert.is(config.status, 200, config.text);
  const tlsRoot = Buffer.from(config.json.config.channel_group.groups.Orderer.groups.Org1MSP.values.MSP.value.config.tls_root_certs[0], 'base64').toString();
  const source = { kind: 'orderer' as const, endpoint: { host: '127.0.0.1', port: setup.orderer.config.port, tlsCaCertPem: tlsRoot, serverName: 'localhost' } };
  const clientSigner = privateKeyFabricSigner(createPrivateKey(clientKey.export({ type: 'pkcs8', format: 'pem' })), 'Org2MSP', client.pem);
  const before = await fetchConfig(source, clientSigner, 'mspchannel').then(() => null, (e: unknown) => e);
  assert.instance(before, FabricRefusedError, 'the orderer refuses a client of a CA the MSP does not have');
  assert.is((before as FabricRefusedError).fabricStatus, 'FORBIDDEN');

  const base = `/networks/consortium/${setup.network.id}/channels/mspchannel/organizations/Org2MSP/msp`;
  const orphan = await api('PUT', base, { intermediateCerts: [intermediate.pem] });
  assert.is(orphan.status, 400, orphan.text);
  assert.is(orphan.json.code, 'MSP_CERTIFICATE');
  assert.is(orphan.json.details[0].field, 'intermediateCerts[0]');

  const body = { rootCerts: [root.signCa.certPem], intermediateCerts: [intermediate.pem] };
  const dry = await api('PUT', `${base}?dry_run=true`, body);
  assert.is(dry.status, 200, dry.text);
  assert.is(dry.json.status, 'dry_run');
  const paths = dry.json.diff.map((d: { path: string }) => d.path);
  assert.ok(paths.includes('channel_group.groups.Application.groups.Org2MSP.values.MSP.value.config.root_certs[]'), paths.join('\n'));
  assert.ok(paths.includes('channel_group.groups.Application.groups.Org2MSP.values.MSP.value.config.intermediate_certs[]'), paths.join('\n'));
  assert.ok(paths.some((p: string) => p.includes('fabric_node_ous.client_ou_identifier.certificate')), paths.join('\n'));
  assert.is((await api('GET', `/networks/${setup.network.id}/channels/mspchannel/config`)).json.sequence, config.json.sequence, 'a dry run submits nothing');

  const h0 = (await height())!;
  const updated = await api('PUT', base, body);
  assert.is(updated.status, 200, updated.text);
  assert.is(updated.json.status, 'updated');
  assert.equal(updated.json.signed_by, ['Org2MSP']);
  await until('the config block at a peer', async () => ((await height()) ?? 0) > h0, 60_000, 1000);
  const read = await until('the client of the intermediate reading the channel', async () => fetchConfig(source, clientSigner, 'mspchannel'), 30_000, 1000);
  assert.is(read.config.getSequence(), updated.json.sequence);

  const admins = await api('PUT', base, { admins: [admin.pem] });
  assert.is(admins.status, 200, admins.text);
  assert.is(admins.json.status, 'updated');
  const after = await api('GET', `/networks/${setup.network.id}/channels/mspchannel/config`);
  const msp = after.json.config.channel_group.groups.Application.groups.Org2MSP.values.MSP.value.config;
  assert.equal(msp.admins.map((b: string) => Buffer.from(b, 'base64').toString()), [admin.pem]);
  assert.is(msp.root_certs.length, 2);
  assert.is(msp.intermediate_certs.length, 1);
  const audit = await api('GET', '/audit-logs?action=NETWORK_UPDATE&limit=50');
  assert.ok(audit.json.items.some((e: { after: { change?: { kind?: string; mspId?: string } } | null }) => e.after?.change?.kind === 'mspUpdate' && e.after.change.mspId === 'Org2MSP'), 'audited');
});

t.run();
