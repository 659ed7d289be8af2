// Renewing a chaincode server's TLS certificate (docs/chaincode.md "Renewing the chaincode
// server's certificate") with the real Fabric 2.5.12 programs (helpers/programs.ts) and the server
// as a child process, over HTTP: one organization, a raft orderer and a peer, the sample deployed
// with TLS (the default) and invoked; the renewal answers a new serial and expiry, the server
// presents that certificate over TLS (read with node:tls as the peers' client), the peers'
// root_cert still verifies it, invoke and query still succeed with the same package, and the
// renewal is in the audit log. Refusals: unknown chaincode, no server yet, a plain-text server,
// a stopped server, the node route for a chaincode server, and a package that no longer matches
// (after the organization's TLS CA got a new certificate).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { X509Certificate } from 'node:crypto';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { fabricMissing } from '../../helpers/fabric.ts';
import { requires } from '../../helpers/requirements.ts';
import { freePortBlock } from '../../helpers/ports.ts';
import { apiOf, consortiumEnv, hexSerial, http2Answer, installedConnection, oneOrganizationChannel, presentedCertificate, removeConsortiumNodes, until } from './consortiumApi.ts';

const t = requires(suite('consortium chaincode server certificate renewal (real Fabric 2.5.12)'), 'fabric', fabricMissing);
let server: TestServer;
const api = apiOf(() => server);

const sampleDir = path.join(import.meta.dirname, '..', '..', '..', 'samples', 'chaincode', 'asset-registry');
const sample = ['package.json', 'assetRegistry.ts'].map((p) => ({ path: p, content: readFileSync(path.join(sampleDir, p), 'utf8') }));

let org1: any;
let peer: any;
let network: any;
let deployed: any;
let serverNode: any;
let connection: any;


t.before(async () => {
  // Its own block of chaincode server ports: the default range is shared with every other consortium test on this machine.
  server = await startServer({ env: consortiumEnv({ LNM_CHAINCODE_PORT_FROM: String(await freePortBlock(Array.from({ length: 6 }, (_, i) => i))) }) });
});
t.after(async () => {
  if (!server) return;
  await removeConsortiumNodes(api, server.dataDir);
  await server.stop();
});

t('a channel of one organization (a raft orderer, a peer, its anchor peer)', async () => {
  ({ org1, peer, network } = await oneOrganizationChannel(api, 'renewnet', 'renewchannel'));
});

t('hostile renewals are 4xx in the error shape and renew nothing: bad id, unknown chaincode, no server yet', async () => {
  for (const id of ['abc', '0', '-1', '1.5', '99999999999999999999']) {
    const r = await api('POST', `/sc/consortium/chaincodes/${id}/server/certificates/renew`);
    assert.is(r.status, 400, `${id}: ${r.text}`);
    assert.type(r.json.message, 'string');
  }
  const unknown = await api('POST', '/sc/consortium/chaincodes/999999/server/certificates/renew');
  assert.is(unknown.status, 404, unknown.text);
  assert.match(unknown.json.message, '999999');
  const recorded = await api('POST', '/sc/consortium/chaincodes', { networkId: network.id, name: 'later', version: '1', source: { files: sample } });
  assert.is(recorded.status, 201, recorded.text);
  const none = await api('POST', `/sc/consortium/chaincodes/${recorded.json.id}/server/certificates/renew`);
  assert.is(none.status, 409, none.text);
  assert.is(none.json.code, 'CHAINCODE_SERVER_MISSING');
  assert.match(none.json.message, 'first install');
  assert.not.ok((await api('GET', '/audit-logs?limit=500')).text.includes('certificate.renewed'), 'nothing renewed');
});

t('deploy with TLS and invoke; the chaincode shows its server\'s certificate and expiry, the one the server presents', async () => {
  const r = await api('POST', '/sc/consortium/deploy', { networkId: network.id, name: 'assets', version: '1.0', source: { files: sample } });
  assert.is(r.status, 200, r.text);
  deployed = r.json;
  assert.is(deployed.server.status, 'running');
  serverNode = (await api('GET', `/nodes/${deployed.server.node_id}`)).json;
  assert.is(serverNode.config.tls, true);
  connection = await installedConnection(server.dataDir, peer.id, deployed.package_id);
  const inv = await api('POST', `/sc/consortium/chaincodes/${deployed.chaincode_id}/invoke`, { function: 'CreateAsset', args: ['before', 'blue', '5', 'Tomoko', '300'] });
  assert.is(inv.status, 200, inv.text);
  const listed = (await api('GET', `/sc/consortium/chaincodes?networkId=${network.id}&name=assets`)).json.items[0];
  const tlsView = listed.server_tls;
  assert.ok(tlsView, JSON.stringify(listed));
  assert.is(tlsView.server_certificate.expiry_status, 'valid');
  assert.ok(Date.parse(tlsView.server_certificate.not_after) > Date.now());
  assert.ok(tlsView.peer_client_certificate && Date.parse(tlsView.peer_client_certificate.not_after) > Date.now());
  const cert = await presentedCertificate(serverNode.config.address, connection);
  assert.is(hexSerial(cert.serialNumber), hexSerial(tlsView.server_certificate.serial_number));
  // The certificate is a key of the service's like any other: its expiry is watched (certificate.expiring / .expired).
  const key = await api('GET', `/keys/${tlsView.server_certificate.key_id}`);
  assert.is(key.status, 200, key.text);
  assert.is(key.json.expiryStatus, 'valid');
});

t('renew: a new certificate from the same TLS CA, the server restarted presents it, the peers\' package still verifies it, invoke and query succeed, audited', async () => {
  const id = deployed.chaincode_id;
  const before = (await api('GET', `/sc/consortium/chaincodes?networkId=${network.id}&name=assets`)).json.items[0];
  const oldSerial = before.server_tls.server_certificate.serial_number;
  const r = await api('POST', `/sc/consortium/chaincodes/${id}/server/certificates/renew`);
  assert.is(r.status, 200, r.text);
  const { certificate, chaincode, server: after } = r.json;
  assert.is(certificate.purpose, 'TLS');
  assert.is(certificate.key_id, before.server_tls.server_certificate.key_id);
  assert.is(certificate.previous_serial_number, oldSerial);
  assert.is.not(certificate.serial_number, oldSerial);
  assert.ok(Date.parse(certificate.not_after) >= Date.parse(before.server_tls.server_certificate.not_after), 'the new expiry is not earlier');
  assert.is(chaincode.server_tls.server_certificate.serial_number, certificate.serial_number);
  assert.is(chaincode.server_tls.server_certificate.not_after, certificate.not_after);
  // The peers' client certificate is in the package: unchanged, as is the package.
  assert.is(chaincode.server_tls.peer_client_certificate.serial_number, before.server_tls.peer_client_certificate.serial_number);
  assert.is(chaincode.package_id, deployed.package_id);
  assert.is(after.id, serverNode.id);
  assert.is(after.status, 'running');
  // No private key in the answer.
  const keyPem = readFileSync(path.join(server.dataDir, 'nodes', `node-${serverNode.id}`, 'tls', 'server.key'), 'utf8').split('\n').slice(1, 3).join('');
  assert.not.ok(r.text.includes(keyPem), 'the answer does not carry the server key');
  assert.not.ok(r.text.includes('PRIVATE KEY'));

  // What the server presents now: the new serial and expiry, issued by the organization's TLS CA (the root_cert the peers hold).
  const cert = await until('the restarted server presenting the new certificate', async () => {
    const c = await presentedCertificate(serverNode.config.address, connection).catch(() => null);
    return c && hexSerial(c.serialNumber) === hexSerial(certificate.serial_number) ? c : null;
  }, 60_000, 500);
  assert.is(new Date(cert.validTo).getTime(), Math.floor(Date.parse(certificate.not_after) / 1000) * 1000);
  assert.ok(cert.verify(new X509Certificate(connection.root_cert).publicKey), 'issued by the TLS CA in the installed package');
  const onDisk = new X509Certificate(readFileSync(path.join(server.dataDir, 'nodes', `node-${serverNode.id}`, 'tls', 'server.crt')));
  assert.is(hexSerial(onDisk.serialNumber), hexSerial(certificate.serial_number));
  assert.is(await http2Answer(serverNode.config.address, { ca: connection.root_cert, cert: connection.client_cert, key: connection.client_key }), 'h2');
  // The peers still reach it with the package they installed: nothing installed again, same sequence.
  const inv = await api('POST', `/sc/consortium/chaincodes/${id}/invoke`, { function: 'CreateAsset', args: ['after', 'red', '2', 'Max', '10'] });
  assert.is(inv.status, 200, inv.text);
  assert.is(inv.json.validation_code, 'VALID');
  const q = await api('POST', `/sc/consortium/chaincodes/${id}/query`, { function: 'ReadAsset', args: ['before'] });
  assert.is(q.status, 200, q.text);
  assert.is(q.json.result_json.owner, 'Tomoko');
  const listed = (await api('GET', `/sc/consortium/chaincodes?networkId=${network.id}&name=assets`)).json.items[0];
  assert.is(listed.sequence, 1);
  assert.is(listed.package_id, deployed.package_id);
  // Audited: certificate.renewed on the server's key, by the request that asked for it.
  const audit = (await api('GET', '/audit-logs?resource_type=key&limit=500')).json.items as any[];
  const entry = audit.find((e) => e.event === 'certificate.renewed' && e.resource_id === String(certificate.key_id));
  assert.ok(entry, JSON.stringify(audit.map((e) => e.event)));
  assert.is(entry.details.serialNumber, certificate.serial_number);
  assert.is(entry.details.previousSerialNumber, oldSerial);
  assert.is(entry.user, 'admin');
});

t('refused with 409 saying why: a plain-text server (tls false), a stopped server; the node route points to the chaincode\'s', async () => {
  const plain = await api('POST', '/sc/consortium/deploy', { networkId: network.id, name: 'plain', version: '1', tls: false, source: { files: sample } });
  assert.is(plain.status, 200, plain.text);
  const noTls = await api('POST', `/sc/consortium/chaincodes/${plain.json.chaincode_id}/server/certificates/renew`);
  assert.is(noTls.status, 409, noTls.text);
  assert.is(noTls.json.code, 'CHAINCODE_SERVER_NO_TLS');
  assert.match(noTls.json.message, 'plain text');
  assert.is((await api('GET', `/sc/consortium/chaincodes?networkId=${network.id}&name=plain`)).json.items[0].server_tls, null);

  const viaNode = await api('POST', `/nodes/${serverNode.id}/certificates/renew`);
  assert.is(viaNode.status, 400, viaNode.text);
  assert.match(viaNode.json.message, `is a chaincode server (chaincode ${deployed.chaincode_id}): renew its TLS certificate from that chaincode`);

  const stopped = await api('POST', `/nodes/${serverNode.id}/stop`);
  assert.is(stopped.status, 200, stopped.text);
  const serialBefore = (await api('GET', `/sc/consortium/chaincodes?networkId=${network.id}&name=assets`)).json.items[0].server_tls.server_certificate.serial_number;
  const notRunning = await api('POST', `/sc/consortium/chaincodes/${deployed.chaincode_id}/server/certificates/renew`);
  assert.is(notRunning.status, 409, notRunning.text);
  assert.is(notRunning.json.code, 'CHAINCODE_SERVER_NOT_RUNNING');
  assert.match(notRunning.json.message, 'stopped');
  assert.is((await api('GET', `/sc/consortium/chaincodes?networkId=${network.id}&name=assets`)).json.items[0].server_tls.server_certificate.serial_number, serialBefore, 'nothing renewed');
  assert.is((await api('POST', `/nodes/${serverNode.id}/start`)).json.status, 'running');
});

t('after the organization\'s TLS CA got a new certificate, the package the peers installed no longer matches: 409 CHAINCODE_PACKAGE_CHANGED, nothing renewed', async () => {
  const ca = await api('POST', `/keys/${org1.tlsKeyId}/renew`);
  assert.is(ca.status, 200, ca.text);
  // The service's credentials forget the CA's old certificate once its key's event reaches them (a subscription): asked until then.
  const changed = await until('the refusal naming the changed package', async () => {
    const r = await api('POST', `/sc/consortium/chaincodes/${deployed.chaincode_id}/server/certificates/renew`);
    return r.status === 409 ? r : null;
  }, 20_000, 500);
  assert.is(changed.json.code, 'CHAINCODE_PACKAGE_CHANGED');
  assert.match(changed.json.message, 'Deploy a new version');
  assert.is(changed.json.context.installedPackageId, deployed.package_id);
  assert.is.not(changed.json.context.packageIdNow, deployed.package_id);
  // The record keeps the package the peers installed.
  assert.is((await api('GET', `/sc/consortium/chaincodes?networkId=${network.id}&name=assets`)).json.items[0].package_id, deployed.package_id);
});

t.run();
