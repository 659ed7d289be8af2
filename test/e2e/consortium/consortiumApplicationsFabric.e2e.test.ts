// An application on real Fabric 2.5 (helpers/programs.ts finds the programs; a counted skip
// without them) that uses ONLY what the service gives it: the downloaded connection profile and
// an issued client identity (certificate and exported key), through the Fabric gateway client
// (@hyperledger/fabric-gateway over @grpc/grpc-js) in the test. It submits and evaluates a
// transaction on the sample chaincode; then the identity is revoked, the organization's CRL is
// pushed into the channel, and the same identity is refused while another one still works.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { fabricMissing } from '../../helpers/fabric.ts';
import { requires } from '../../helpers/requirements.ts';
import { apiOf, consortiumEnv, issuedIdentity, profileGateway, removeConsortiumNodes, twoOrganizationChannel, until } from './consortiumApi.ts';

const t = requires(suite('an application with the connection profile and a client identity (real Fabric 2.5)'), 'fabric', fabricMissing);
let server: TestServer;
const api = apiOf(() => server);

const sampleDir = path.join(import.meta.dirname, '..', '..', '..', 'samples', 'chaincode', 'asset-registry');
const sample = ['package.json', 'assetRegistry.ts'].map((p) => ({ path: p, content: readFileSync(path.join(sampleDir, p), 'utf8') }));
const CHANNEL = 'appchannel';

let made: Awaited<ReturnType<typeof twoOrganizationChannel>>;
let profile: any;

t.before(async () => {
  server = await startServer({ env: consortiumEnv() });
});
t.after(async () => {
  if (!server) return;
  await removeConsortiumNodes(api, server.dataDir);
  await server.stop();
});

/** The sample chaincode through a gateway built from the profile alone. */
function gatewayFrom(p: any, identity: { certificate: string; privateKey: string }) {
  const g = profileGateway(p, identity);
  return { contract: g.network.getContract('assets'), close: g.close };
}

async function issue(orgId: number, name: string): Promise<{ id: number; certificate: string; privateKey: string }> {
  return issuedIdentity(api, orgId, name, 'client', [{ name: 'app', value: name }]);
}

async function errorOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    const e = err as Error & { details?: { message: string }[] };
    return `${e.message} ${(e.details ?? []).map((d) => d.message).join(' ')}`;
  }
  return '';
}

t('a channel of two organizations with the sample chaincode deployed (either organization endorses)', async () => {
  made = await twoOrganizationChannel(api, 'apps', CHANNEL);
  const r = await api('POST', '/sc/consortium/deploy', { networkId: made.network.id, name: 'assets', version: '1.0', endorsementPolicy: "OR('Org1MSP.peer','Org2MSP.peer')", source: { files: sample } });
  assert.is(r.status, 200, r.text);
  assert.is(r.json.commit.status, 'committed');
});

t('the connection profile of Org1 for the channel lists both organizations, the peers and the orderer with their TLS roots; JSON and YAML agree', async () => {
  const r = await api('GET', `/organizations/${made.org1.id}/connection-profile?channel=${CHANNEL}`);
  assert.is(r.status, 200, r.text);
  profile = r.json;
  assert.is(profile.client.organization, 'Org1MSP');
  assert.equal(Object.keys(profile.organizations).sort(), ['Org1MSP', 'Org2MSP']);
  assert.equal(profile.organizations.Org1MSP.peers, [made.peer1.name]);
  assert.equal(profile.organizations.Org2MSP.peers, [made.peer2.name]);
  assert.equal(Object.keys(profile.orderers), [made.orderer.name]);
  assert.is(profile.peers[made.peer1.name].url, `grpcs://${made.peer1.config.externalEndpoint}`);
  assert.is(profile.peers[made.peer2.name].tlsCACerts.pem, (await api('GET', `/organizations/${made.org2.id}`)).json.tlsCertificate);
  assert.equal(Object.keys(profile.channels), [CHANNEL]);
  const y = await api('GET', `/organizations/${made.org1.id}/connection-profile?channel=${CHANNEL}&format=yaml`);
  assert.equal(parseYaml(y.text), profile);
  // Without the channel: Org1's peer and orderer, and the channel's orderer.
  const own = (await api('GET', `/organizations/${made.org2.id}/connection-profile`)).json;
  assert.equal(own.organizations.Org2MSP.peers, [made.peer2.name]);
  assert.equal(Object.keys(own.orderers), [made.orderer.name]);
});

let app1: Awaited<ReturnType<typeof issue>>;

t('an issued client identity submits and evaluates through the gateway, knowing only the profile, its certificate and key', async () => {
  app1 = await issue(made.org1.id, 'app1');
  const g = gatewayFrom(profile, app1);
  try {
    const created = JSON.parse(Buffer.from(await g.contract.submitTransaction('CreateAsset', 'app-asset-1', 'green', '7', 'App One', '70')).toString());
    assert.is(created.owner, 'App One');
    const read = JSON.parse(Buffer.from(await g.contract.evaluateTransaction('ReadAsset', 'app-asset-1')).toString());
    assert.equal(read, { id: 'app-asset-1', color: 'green', size: 7, owner: 'App One', value: 70 });
  } finally {
    g.close();
  }
});

t('revoked and the CRL pushed into the channel: the same identity is refused, another identity of Org1 still submits', async () => {
  const revoked = await api('POST', `/organizations/${made.org1.id}/identities/${app1.id}/revoke`, { reason: 'keyCompromise' });
  assert.is(revoked.status, 200, revoked.text);
  // Revoked at the CA only: the channel does not know yet, so the identity still submits.
  const before = gatewayFrom(profile, app1);
  try {
    await before.contract.submitTransaction('CreateAsset', 'app-asset-before-push', 'white', '1', 'Not yet', '1');
  } finally {
    before.close();
  }
  const push = await api('POST', `/networks/consortium/${made.network.id}/organizations/${made.org1.id}/crl`);
  assert.is(push.status, 200, push.text);
  assert.is(push.json.status, 'updated');
  assert.is(push.json.msp_id, 'Org1MSP');
  assert.ok(push.json.revoked_serials.includes(revoked.json.serialNumber), push.text);
  assert.ok(push.json.signed_by.includes('Org1MSP'), push.text);
  // The same CRL again (same number, signed anew) changes nothing.
  const again = await api('POST', `/networks/consortium/${made.network.id}/organizations/${made.org1.id}/crl`);
  assert.is(again.status, 200, again.text);
  assert.is(again.json.status, 'unchanged', again.text);
  assert.is(again.json.sequence, push.json.sequence);
  // The channel config the service reads back carries the CRL in Org1's MSP.
  const config = await api('GET', `/networks/consortium/${made.network.id}/channel-config`);
  assert.ok(JSON.stringify(config.json).includes('revocation_list'), 'revocation_list in the config');
  // Both peers have the config block before the next proposal.
  await until('the config block on the peers', async () => {
    const info = await api('GET', `/networks/consortium/${made.network.id}/info`);
    return info.json?.height > push.json.block_number ? true : null;
  }, 30_000);
  const g = gatewayFrom(profile, app1);
  try {
    const submitted = await errorOf(g.contract.submitTransaction('CreateAsset', 'app-asset-2', 'red', '1', 'Revoked', '1'));
    assert.ok(submitted, 'the revoked identity\'s submit was refused');
    console.log(`  revoked identity's submit refused: ${submitted.slice(0, 300)}`);
    const evaluated = await errorOf(g.contract.evaluateTransaction('ReadAsset', 'app-asset-1'));
    assert.ok(evaluated, 'the revoked identity\'s evaluate was refused');
  } finally {
    g.close();
  }
  const app2 = await issue(made.org1.id, 'app2');
  const g2 = gatewayFrom(profile, app2);
  try {
    await g2.contract.submitTransaction('CreateAsset', 'app-asset-3', 'blue', '2', 'App Two', '20');
    const read = JSON.parse(Buffer.from(await g2.contract.evaluateTransaction('ReadAsset', 'app-asset-3')).toString());
    assert.is(read.owner, 'App Two');
  } finally {
    g2.close();
  }
  // The push is in the network's history and the audit log.
  const audit = JSON.stringify((await api('GET', '/audit-logs?limit=500')).json);
  assert.match(audit, 'revocationList');
});

t('a push for an unknown network or organization is 404, for an organization outside the channel 400; nothing changes', async () => {
  const before = (await api('GET', `/networks/consortium/${made.network.id}/channel-config`)).json.sequence;
  assert.is((await api('POST', `/networks/consortium/999999/organizations/${made.org1.id}/crl`)).status, 404);
  assert.is((await api('POST', `/networks/consortium/${made.network.id}/organizations/999999/crl`)).status, 404);
  const org3 = (await api('POST', '/organizations', { name: 'Org3', mspId: 'Org3MSP' })).json;
  const outside = await api('POST', `/networks/consortium/${made.network.id}/organizations/${org3.id}/crl`);
  assert.is(outside.status, 400, outside.text);
  assert.match(outside.json.message, 'Org3MSP is not an organization of channel appchannel');
  assert.is((await api('POST', `/networks/consortium/${made.network.id}/organizations/abc/crl`)).status, 400);
  assert.is((await api('GET', `/networks/consortium/${made.network.id}/channel-config`)).json.sequence, before);
});

t.run();
