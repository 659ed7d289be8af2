// Organizations, their CAs, issued certificates and CRLs, driven over HTTP against the real
// server; certificates and CRLs are checked by the openssl command line.
import { suite } from 'uvu';
import pg from 'pg';
import * as assert from 'uvu/assert';
import { X509Certificate } from 'node:crypto';
import { adminAuth, basic, call, startServer, type TestServer } from '../helpers/server.ts';
import { openssl } from '../adapters/x509/opensslCli.ts';

const t = suite('organizations and certificates end to end');
let server: TestServer;
const auth = adminAuth();

t.before(async () => {
  server = await startServer({ env: { KEY_ENCRYPTION_KEY: 'organizations-e2e-key-encryption-key' } });
});
t.after(async () => {
  await server?.stop();
});

const api = (method: string, path: string, body?: unknown, headers = auth) => call(server.api, method, path, { headers, body });

let org: any;

t('creating an organization creates a signing CA and a TLS CA that openssl verifies as self-signed, and an admin certificate that chains to the signing CA', async () => {
  const r = await api('POST', '/organizations', { name: 'Org One', mspId: 'Org1MSP', description: 'first' });
  assert.is(r.status, 201, r.text);
  org = r.json;
  assert.is(org.mspId, 'Org1MSP');
  assert.is(org.providerId, 1);
  for (const [pem, cn] of [[org.signCertificate, 'ca.org-one'], [org.tlsCertificate, 'tlsca.org-one']] as const) {
    const v = openssl(['verify', '-CAfile', 'ca.pem', 'ca.pem'], { 'ca.pem': pem });
    assert.ok(v.ok, v.output);
    const x = new X509Certificate(pem);
    assert.ok(x.ca);
    assert.match(x.subject, `CN=${cn}`);
    assert.is(x.publicKey.asymmetricKeyDetails?.namedCurve, 'prime256v1');
  }
  const admin = await api('GET', `/keys/${org.adminKeyId}`);
  assert.is(admin.status, 200);
  const chain = openssl(['verify', '-CAfile', 'ca.pem', 'admin.pem'], { 'ca.pem': org.signCertificate, 'admin.pem': admin.json.certificate.pem });
  assert.ok(chain.ok, chain.output);
  assert.match(admin.json.certificate.subject, 'OU=admin');
});

t('an mspId that is taken gives 409; lookup by mspId is case-sensitive', async () => {
  const dup = await api('POST', '/organizations', { name: 'Another', mspId: 'Org1MSP' });
  assert.is(dup.status, 409, dup.text);
  assert.match(dup.text, 'Org1MSP');
  const found = await api('GET', '/organizations/by-mspid/Org1MSP');
  assert.is(found.status, 200);
  assert.is(found.json.id, org.id);
  assert.is((await api('GET', '/organizations/by-mspid/org1msp')).status, 404);
});

t('a key signed by the organization CA with names, addresses and usages verifies with openssl; after revocation the CRL verifies and openssl rejects the leaf', async () => {
  const key = await api('POST', `/organizations/${org.id}/keys`, { name: 'peer0-tls', algorithm: 'EC', curve: 'P-384' });
  assert.is(key.status, 201, key.text);
  const signed = await api('POST', `/keys/${key.json.id}/sign`, {
    commonName: 'peer0.org-one', organization: 'Org One', organizationalUnits: ['peer'], dnsNames: ['peer0.org-one', 'localhost'], ipAddresses: ['127.0.0.1'],
    validityDays: 90, keyUsages: ['digitalSignature', 'keyEncipherment'], extendedKeyUsages: ['serverAuth', 'clientAuth'],
  });
  assert.is(signed.status, 200, signed.text);
  const leaf = signed.json.certificate.pem;
  assert.ok(signed.json.certificate.notAfter);
  assert.is(signed.json.expiresAt, signed.json.certificate.notAfter);
  const x = new X509Certificate(leaf);
  assert.match(x.subjectAltName ?? '', 'DNS:localhost');
  assert.match(x.subjectAltName ?? '', 'IP Address:127.0.0.1');
  assert.ok(!x.ca);
  const ok = openssl(['verify', '-CAfile', 'ca.pem', 'leaf.pem'], { 'ca.pem': org.signCertificate, 'leaf.pem': leaf });
  assert.ok(ok.ok, ok.output);

  const caPem = await call(server.api, 'GET', `/keys/${key.json.id}/ca-certificate`, { headers: auth });
  assert.is(caPem.status, 200);
  assert.is(caPem.text.trim(), org.signCertificate.trim());
  const certPem = await call(server.api, 'GET', `/keys/${key.json.id}/certificate`, { headers: auth });
  assert.is(certPem.text.trim(), leaf.trim());

  const revoked = await api('POST', `/keys/${key.json.id}/revoke`, { reason: 'keyCompromise' });
  assert.is(revoked.status, 200, revoked.text);
  assert.is(revoked.json.serialNumber, signed.json.certificate.serialNumber);
  assert.is((await api('POST', `/keys/${key.json.id}/revoke`, {})).status, 409, 'revoking twice is a conflict');

  const crl = await call(server.api, 'GET', `/organizations/${org.id}/crl`, { headers: auth });
  assert.is(crl.status, 200);
  assert.match(crl.text, '-----BEGIN X509 CRL-----');
  const crlCheck = openssl(['crl', '-in', 'crl.pem', '-CAfile', 'ca.pem', '-noout', '-verify', '-text'], { 'crl.pem': crl.text, 'ca.pem': org.signCertificate });
  assert.ok(crlCheck.ok, crlCheck.output);
  assert.match(crlCheck.output, /verify OK/i);
  assert.match(crlCheck.output, signed.json.certificate.serialNumber);
  const rejected = openssl(['verify', '-crl_check', '-CAfile', 'ca.pem', '-CRLfile', 'crl.pem', 'leaf.pem'], { 'ca.pem': org.signCertificate, 'crl.pem': crl.text, 'leaf.pem': leaf });
  assert.not.ok(rejected.ok, 'openssl must reject the revoked certificate');
  assert.match(rejected.output, /revoked/i);
});

const crlNumberOf = (crlPem: string, caPem: string) => {
  const text = openssl(['crl', '-in', 'crl.pem', '-CAfile', 'ca.pem', '-noout', '-verify', '-text'], { 'crl.pem': crlPem, 'ca.pem': caPem });
  assert.ok(text.ok, text.output);
  assert.match(text.output, /verify OK/i);
  const m = /CRL Number:\s*(\d+)/.exec(text.output);
  assert.ok(m, text.output);
  return { number: Number(m![1]), text: text.output };
};

t('the CRL number is a per-CA counter: the same CRL is served while nothing changes, each revocation gives a higher number at once, and openssl rejects every revoked certificate but not the others', async () => {
  const getCrl = async () => (await call(server.api, 'GET', `/organizations/${org.id}/crl`, { headers: auth })).text;
  const first = crlNumberOf(await getCrl(), org.signCertificate);
  const again = crlNumberOf(await getCrl(), org.signCertificate);
  assert.is(again.number, first.number, 'nothing changed: same CRL number');
  assert.is(/Last Update: (.*)/.exec(again.text)?.[1], /Last Update: (.*)/.exec(first.text)?.[1]);

  const key = await api('POST', `/organizations/${org.id}/keys`, { name: 'peer1-identity' });
  const signed = await api('POST', `/keys/${key.json.id}/sign`, { commonName: 'peer1.org-one', organizationalUnits: ['peer'] });
  assert.is(signed.status, 200, signed.text);
  const notIssued = await api('POST', `/keys/${org.tlsKeyId}/revoke`, { serialNumber: signed.json.certificate.serialNumber });
  assert.is(notIssued.status, 400, 'the TLS CA did not issue it: ' + notIssued.text);
  const bySerial = await api('POST', `/keys/${org.signKeyId}/revoke`, { serialNumber: signed.json.certificate.serialNumber.toLowerCase().match(/../g).join(':'), reason: 'superseded' });
  assert.is(bySerial.status, 200, 'the issuing CA revokes by serial (any case, colons allowed): ' + bySerial.text);
  assert.equal({ caKeyId: bySerial.json.caKeyId, serialNumber: bySerial.json.serialNumber }, { caKeyId: org.signKeyId, serialNumber: signed.json.certificate.serialNumber });
  const afterRevocation = await getCrl();
  const second = crlNumberOf(afterRevocation, org.signCertificate);
  assert.ok(second.number > first.number, `CRL number grew: ${first.number} -> ${second.number}`);
  assert.match(second.text, signed.json.certificate.serialNumber);

  const crlCheck = (pem: string) => openssl(['verify', '-crl_check', '-CAfile', 'ca.pem', '-CRLfile', 'crl.pem', 'c.pem'], { 'ca.pem': org.signCertificate, 'crl.pem': afterRevocation, 'c.pem': pem });
  const revoked = crlCheck(signed.json.certificate.pem);
  assert.not.ok(revoked.ok, 'openssl must reject the revoked certificate');
  assert.match(revoked.output, /revoked/i);
  const admin = (await api('GET', `/keys/${org.adminKeyId}`)).json;
  const fine = crlCheck(admin.certificate.pem);
  assert.ok(fine.ok, fine.output);

  // The number lives in the event store: a restart keeps counting up, and the unchanged CRL is served again.
  await server.stop();
  server = await startServer({ databaseUrl: server.databaseUrl!, dataDir: server.dataDir, port: server.port, env: { KEY_ENCRYPTION_KEY: 'organizations-e2e-key-encryption-key' } });
  assert.is(crlNumberOf(await getCrl(), org.signCertificate).number, second.number);
  const audit = JSON.stringify((await api('GET', '/audit-logs?limit=200')).json);
  assert.match(audit, 'crl.issued');
});

t('a TLS certificate revoked at the TLS CA is listed in that CA\'s CRL (/keys/{id}/crl), which openssl verifies against the TLS CA; a key that is not a CA has no CRL (400)', async () => {
  const key = await api('POST', `/organizations/${org.id}/keys`, { name: 'orderer0-tls' });
  const signed = await api('POST', `/keys/${key.json.id}/sign`, { caKeyId: org.tlsKeyId, commonName: 'orderer0.org-one', dnsNames: ['orderer0.org-one'], extendedKeyUsages: ['serverAuth', 'clientAuth'], keyUsages: ['digitalSignature', 'keyEncipherment'] });
  assert.is(signed.status, 200, signed.text);
  const revoked = await api('POST', `/keys/${key.json.id}/revoke`, { reason: 'keyCompromise' });
  assert.is(revoked.status, 200, revoked.text);
  assert.is(revoked.json.caKeyId, org.tlsKeyId);
  const crl = await call(server.api, 'GET', `/keys/${org.tlsKeyId}/crl`, { headers: auth });
  assert.is(crl.status, 200, crl.text);
  const listed = crlNumberOf(crl.text, org.tlsCertificate);
  assert.match(listed.text, signed.json.certificate.serialNumber);
  const rejected = openssl(['verify', '-crl_check', '-CAfile', 'ca.pem', '-CRLfile', 'crl.pem', 'c.pem'], { 'ca.pem': org.tlsCertificate, 'crl.pem': crl.text, 'c.pem': signed.json.certificate.pem });
  assert.not.ok(rejected.ok);
  assert.match(rejected.output, /revoked/i);
  const signingCrl = await call(server.api, 'GET', `/organizations/${org.id}/crl`, { headers: auth });
  assert.not.match(crlNumberOf(signingCrl.text, org.signCertificate).text, signed.json.certificate.serialNumber, 'the signing CA did not issue it');
  const der = await call(server.api, 'GET', `/keys/${org.tlsKeyId}/crl?format=der`, { headers: auth });
  assert.is(der.status, 200);
  assert.is(der.headers.get('content-type'), 'application/pkix-crl');
  const notCa = await api('GET', `/keys/${key.json.id}/crl`);
  assert.is(notCa.status, 400, notCa.text);
  assert.match(notCa.text, 'not a CA');
});

t('certificate downloads and sign-data are in the audit log as sensitive operations', async () => {
  const audit = await api('GET', '/audit-logs?limit=200');
  assert.is(audit.status, 200, audit.text);
  const text = JSON.stringify(audit.json);
  assert.match(text, 'ca-certificate');
  assert.match(text, 'issue-certificate');
});

t('an organization renamed keeps its mspId; mspId cannot change; delete frees the mspId', async () => {
  const put = await api('PUT', `/organizations/${org.id}`, { name: 'Org One Renamed' });
  assert.is(put.status, 200, put.text);
  assert.is(put.json.name, 'Org One Renamed');
  assert.is((await api('PUT', `/organizations/${org.id}`, { mspId: 'Other' })).status, 400);
  const o2 = await api('POST', '/organizations', { name: 'Org Two', mspId: 'Org2MSP', algorithm: 'RSA', keySize: 2048 });
  assert.is(o2.status, 201, o2.text);
  assert.is(new X509Certificate(o2.json.signCertificate).publicKey.asymmetricKeyType, 'rsa');
  assert.is((await api('DELETE', `/organizations/${o2.json.id}`)).status, 204);
  assert.is((await api('GET', `/organizations/${o2.json.id}`)).status, 404);
  const again = await api('POST', '/organizations', { name: 'Org Two again', mspId: 'Org2MSP' });
  assert.is(again.status, 201, again.text);
});

t('an organization a node or network still uses is not deleted: 409 naming each user; once they are gone the delete succeeds', async () => {
  const o = await api('POST', '/organizations', { name: 'Busy Org', mspId: 'BusyMSP' });
  assert.is(o.status, 201, o.text);
  // The read models of consortium nodes and networks, as their projections write them (the
  // consortium end-to-end test does the same with real Fabric nodes).
  const client = new pg.Client({ connectionString: server.databaseUrl! });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO nodes (id, name, platform, node_type, role, client, engine, config, status, created_at, updated_at, organization_id)
       VALUES (9007, 'peer0.busy', 'CONSORTIUM', 'CONSORTIUM_PEER', 'peer', 'fabric', 'process', '{}', 'stopped', now(), now(), $1)`,
      [o.json.id],
    );
    await client.query(
      `INSERT INTO consortium_networks (id, name, channel_name, status, consensus, organizations, orderer_organizations, orderer_endpoints, genesis_block, created_at, updated_at)
       VALUES (9003, 'busy-channel', 'busychannel', 'genesis_created', 'etcdraft', $1, '[]', '[]', '', now(), now())`,
      [JSON.stringify([{ organizationId: o.json.id, mspId: 'BusyMSP' }])],
    );
    const refused = await api('DELETE', `/organizations/${o.json.id}`);
    assert.is(refused.status, 409, refused.text);
    assert.match(refused.json.message, 'node peer0.busy (9007)');
    assert.match(refused.json.message, 'network busy-channel (9003)');
    assert.is((await api('GET', `/organizations/${o.json.id}`)).status, 200, 'still there');
    await client.query('DELETE FROM nodes WHERE id = 9007');
    await client.query('DELETE FROM consortium_networks WHERE id = 9003');
    assert.is((await api('DELETE', `/organizations/${o.json.id}`)).status, 204);
  } finally {
    await client.query('DELETE FROM nodes WHERE id = 9007').catch(() => undefined);
    await client.query('DELETE FROM consortium_networks WHERE id = 9003').catch(() => undefined);
    await client.end();
  }
});

t('certificate names fit X.509: a long name gives a domain cut to 58 characters; a longer explicit domain is a 400 before anything is created', async () => {
  const longName = 'The Very Long Named Consortium Member Organization Of Somewhere Far Away Incorporated';
  const o = await api('POST', '/organizations', { name: longName, mspId: 'LongMSP' });
  assert.is(o.status, 201, o.text);
  const cn = /CN=([^\n]*)/.exec(new X509Certificate(o.json.tlsCertificate).subject)![1];
  assert.is(cn.length, 64, cn);
  assert.ok(cn.startsWith('tlsca.the-very-long-named'));
  assert.ok(openssl(['verify', '-CAfile', 'ca.pem', 'ca.pem'], { 'ca.pem': o.json.signCertificate }).ok);

  const keysBefore = (await api('GET', '/keys?limit=1')).json.total;
  const tooLong = await api('POST', '/organizations', { name: 'Short', mspId: 'DomainMSP', domain: 'a'.repeat(50) + '.example' + 'x' });
  assert.is(tooLong.status, 400, tooLong.text);
  assert.match(tooLong.text, 'domain');
  assert.is((await api('GET', '/keys?limit=1')).json.total, keysBefore, 'no key was made for the refused organization');
  const fits = await api('POST', '/organizations', { name: 'Short', mspId: 'DomainMSP', domain: 'a'.repeat(50) + '.example' });
  assert.is(fits.status, 201, 'the mspId is still free: ' + fits.text);
  assert.match(new X509Certificate(fits.json.tlsCertificate).subject, 'CN=tlsca.' + 'a'.repeat(50) + '.example');
});

t('a VIEWER reads organizations and keys but cannot sign (403)', async () => {
  const u = await api('POST', '/users', { username: 'viewer1', password: 'viewer-password-123', role: 'VIEWER' });
  assert.is(u.status, 201, u.text);
  const viewer = { authorization: basic('viewer1', 'viewer-password-123') };
  assert.is((await api('GET', '/organizations', undefined, viewer)).status, 200);
  assert.is((await api('GET', `/keys/${org.adminKeyId}`, undefined, viewer)).status, 200);
  const sign = await api('POST', `/keys/${org.adminKeyId}/sign-data`, { data: Buffer.from('x').toString('base64') }, viewer);
  assert.is(sign.status, 403);
  assert.is((await api('GET', `/keys/${org.adminKeyId}/certificate`, undefined, viewer)).status, 403);
});

t.run();
