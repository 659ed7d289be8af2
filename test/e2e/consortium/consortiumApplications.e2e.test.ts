// What applications of an organization get, over HTTP against the real server (no Fabric
// needed): the connection profile (JSON and YAML) and client identities issued by the signing CA
// (NodeOU, Fabric attribute extension), listed, revoked into the CRL (checked by openssl), and
// their private key downloaded only on the explicit, audited request.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { X509Certificate, createPrivateKey, createPublicKey } from 'node:crypto';
import { parse as parseYaml } from 'yaml';
import { AsnConvert } from '@peculiar/asn1-schema';
import { Certificate } from '@peculiar/asn1-x509';
import { basic, call, startServer, type TestServer } from '../../helpers/server.ts';
import { openssl } from '../../adapters/x509/opensslCli.ts';
import { apiOf } from './consortiumApi.ts';

const t = suite('consortium applications: connection profile and client identities');
let server: TestServer;
const api = apiOf(() => server);

t.before(async () => {
  server = await startServer({ env: { KEY_ENCRYPTION_KEY: 'applications-e2e-key-encryption-key' } });
});
t.after(async () => {
  await server?.stop();
});

let org: any;
let other: any;
let identity: any;

function fabricAttributes(pem: string): Record<string, string> | null {
  const cert = AsnConvert.parse(new X509Certificate(pem).raw, Certificate);
  const ext = cert.tbsCertificate.extensions?.find((e) => e.extnID === '1.2.3.4.5.6.7.8.1');
  if (!ext) return null;
  assert.is(ext.critical, false);
  return JSON.parse(Buffer.from(ext.extnValue.buffer).toString('utf8')).attrs;
}

t('the connection profile of an organization without nodes: its mspid and its CA with the TLS root, in JSON and in YAML', async () => {
  org = (await api('POST', '/organizations', { name: 'Org1', mspId: 'Org1MSP', domain: 'org1.example.com' })).json;
  other = (await api('POST', '/organizations', { name: 'Org2', mspId: 'Org2MSP' })).json;
  const r = await api('GET', `/organizations/${org.id}/connection-profile`);
  assert.is(r.status, 200, r.text);
  const p = r.json;
  assert.is(p.version, '1.0.0');
  assert.is(p.client.organization, 'Org1MSP');
  assert.equal(p.organizations.Org1MSP, { mspid: 'Org1MSP', peers: [], orderers: [], certificateAuthorities: ['ca.org1.example.com'] });
  assert.equal(p.certificateAuthorities['ca.org1.example.com'], { caName: 'ca.org1.example.com', tlsCACerts: { pem: [org.tlsCertificate] } });
  assert.equal(p.peers, {});
  assert.ok(!r.text.includes('PRIVATE KEY'));
  const y = await api('GET', `/organizations/${org.id}/connection-profile?format=yaml`);
  assert.is(y.status, 200, y.text);
  assert.match(y.headers.get('content-type') ?? '', 'application/yaml');
  assert.equal(parseYaml(y.text), p);
});

t('connection profile: unknown organization or channel 404, a bad format or channel name 400', async () => {
  assert.is((await api('GET', '/organizations/999999/connection-profile')).status, 404);
  const ch = await api('GET', `/organizations/${org.id}/connection-profile?channel=nosuchchannel`);
  assert.is(ch.status, 404, ch.text);
  assert.is((await api('GET', `/organizations/${org.id}/connection-profile?format=xml`)).status, 400);
  assert.is((await api('GET', `/organizations/${org.id}/connection-profile?channel=${encodeURIComponent('../x')}`)).status, 400);
});

t('a client identity: OU client, CN name, Fabric attributes with hf.EnrollmentID/Type/Affiliation, chained to the signing CA; no private key in the answer', async () => {
  const r = await api('POST', `/organizations/${org.id}/identities`, { name: 'app1', role: 'client', attributes: [{ name: 'department', value: 'sales' }, { name: 'level', value: '3' }] });
  assert.is(r.status, 201, r.text);
  identity = r.json;
  assert.ok(!r.text.includes('PRIVATE KEY'));
  assert.is(identity.name, 'app1');
  assert.is(identity.role, 'client');
  assert.is(identity.mspId, 'Org1MSP');
  assert.is(identity.status, 'active');
  assert.is(r.headers.get('location'), `/api/v1/organizations/${org.id}/identities/${identity.id}`);
  const x = new X509Certificate(identity.certificate);
  assert.match(x.subject, 'CN=app1');
  assert.match(x.subject, 'OU=client');
  assert.not.ok(x.ca);
  const chain = openssl(['verify', '-CAfile', 'ca.pem', 'id.pem'], { 'ca.pem': org.signCertificate, 'id.pem': identity.certificate });
  assert.ok(chain.ok, chain.output);
  const attrs = { department: 'sales', level: '3', 'hf.EnrollmentID': 'app1', 'hf.Type': 'client', 'hf.Affiliation': '' };
  assert.equal(fabricAttributes(identity.certificate), attrs);
  assert.equal(identity.attributes, attrs);
  const admin = await api('POST', `/organizations/${org.id}/identities`, { name: 'ops-admin', role: 'admin' });
  assert.is(admin.status, 201, admin.text);
  assert.match(new X509Certificate(admin.json.certificate).subject, 'OU=admin');
  // The key is a key of the organization, in its provider.
  const key = await api('GET', `/keys/${identity.id}`);
  assert.is(key.json.purpose, 'CLIENT');
  assert.is(key.json.organizationId, org.id);
});

t('hostile identity requests are 400/404/409 with the error body, and make nothing', async () => {
  const cases: Array<[unknown, string]> = [
    [{ name: 'app 2', role: 'client' }, 'name'],
    [{ name: 'app2@x', role: 'client' }, 'name'],
    [{ name: 'a'.repeat(65), role: 'client' }, 'name'],
    [{ name: 'app2', role: 'peer' }, 'role'],
    [{ name: 'app2' }, 'role'],
    [{ name: 'app2', role: 'client', attributes: [{ name: 'hf.Type', value: 'admin' }] }, 'hf.'],
    [{ name: 'app2', role: 'client', attributes: [{ name: 'a', value: '1' }, { name: 'a', value: '2' }] }, 'twice'],
    [{ name: 'app2', role: 'client', attributes: [{ name: 'bad name', value: '1' }] }, 'attributes'],
    [{ name: 'app2', role: 'client', extra: true }, 'extra'],
    [{ name: 'app2', role: 'client', validityDays: 100000 }, 'validityDays'],
  ];
  for (const [body, word] of cases) {
    const r = await api('POST', `/organizations/${org.id}/identities`, body);
    assert.is(r.status, 400, `${JSON.stringify(body)}: ${r.text}`);
    assert.ok(r.json.code && r.json.message, r.text);
    assert.match(r.text, word);
  }
  const dup = await api('POST', `/organizations/${org.id}/identities`, { name: 'app1', role: 'client' });
  assert.is(dup.status, 409, dup.text);
  assert.is((await api('POST', '/organizations/999999/identities', { name: 'x', role: 'client' })).status, 404);
  const list = await api('GET', `/organizations/${org.id}/identities`);
  assert.is(list.json.total, 2);
  assert.equal(list.json.items.map((i: any) => i.name).sort(), ['app1', 'ops-admin']);
  assert.ok(!list.text.includes('PRIVATE KEY'));
  // An identity read under another organization is not found.
  assert.is((await api('GET', `/organizations/${other.id}/identities/${identity.id}`)).status, 404);
  assert.is((await api('GET', `/organizations/${org.id}/identities/${org.adminKeyId}`)).status, 404);
  assert.is((await api('GET', `/organizations/${org.id}/identities/${identity.id}`)).json.serialNumber, identity.serialNumber);
});

t('the private key only on the explicit export, which an OPERATOR may not make and which is audited', async () => {
  assert.is((await api('POST', '/users', { username: 'operator1', password: 'operator-password-1', role: 'OPERATOR' })).status, 201);
  const denied = await call(server.api, 'POST', `/organizations/${org.id}/identities/${identity.id}/key/export`, { headers: { authorization: basic('operator1', 'operator-password-1') } });
  assert.is(denied.status, 403, denied.text);
  const r = await api('POST', `/organizations/${org.id}/identities/${identity.id}/key/export`);
  assert.is(r.status, 200, r.text);
  assert.is(r.headers.get('cache-control'), 'no-store');
  assert.is(r.json.mspId, 'Org1MSP');
  assert.is(r.json.certificate, identity.certificate);
  const pub = createPublicKey(createPrivateKey(r.json.privateKey)).export({ type: 'spki', format: 'pem' });
  assert.is(pub, new X509Certificate(identity.certificate).publicKey.export({ type: 'spki', format: 'pem' }));
  const audit = await api('GET', '/audit-logs?limit=500');
  const entries = audit.json.items.filter((e: any) => e.resource_id === String(identity.id) && JSON.stringify(e.details ?? {}).includes('private-key'));
  assert.is(entries.length, 1, JSON.stringify(audit.json.items.slice(0, 5)));
  assert.is(entries[0].username ?? entries[0].user, 'admin');
  assert.ok(!audit.text.includes('PRIVATE KEY'), 'no private key in the audit log');
  assert.ok(!server.output().includes('PRIVATE KEY'), 'no private key in the server output');
});

t('revoking: the identity shows revoked, the CRL lists its serial (openssl), a second revoke is 409, its key is no longer given out', async () => {
  const r = await api('POST', `/organizations/${org.id}/identities/${identity.id}/revoke`, { reason: 'keyCompromise' });
  assert.is(r.status, 200, r.text);
  assert.is(r.json.status, 'revoked');
  assert.is(r.json.revocationReason, 'keyCompromise');
  assert.ok(r.json.revokedAt);
  assert.is((await api('POST', `/organizations/${org.id}/identities/${identity.id}/revoke`, {})).status, 409);
  const crl = await call(server.api, 'GET', `/organizations/${org.id}/crl`, { headers: apiAuth() });
  const text = openssl(['crl', '-in', 'crl.pem', '-noout', '-text'], { 'crl.pem': crl.text });
  assert.ok(text.ok, text.output);
  assert.match(text.output.replace(/:/g, '').toUpperCase(), identity.serialNumber.toUpperCase());
  const verify = openssl(['crl', '-in', 'crl.pem', '-noout', '-CAfile', 'ca.pem'], { 'crl.pem': crl.text, 'ca.pem': org.signCertificate });
  assert.ok(verify.ok, verify.output);
  const exp = await api('POST', `/organizations/${org.id}/identities/${identity.id}/key/export`);
  assert.is(exp.status, 409, exp.text);
  assert.is((await api('GET', `/organizations/${org.id}/identities/${identity.id}`)).json.status, 'revoked');
  const audit = JSON.stringify((await api('GET', '/audit-logs?limit=500')).json);
  assert.match(audit, 'CERTIFICATE_REVOKE');
});

function apiAuth() {
  return { authorization: basic('admin', 'admin-password-for-tests') };
}

t.run();
