// Keys over HTTP against the real server: every algorithm and curve of the database provider
// (create, sign-data, signature verified here with node:crypto and ethers), CA import checks,
// and a restart with a different KEY_ENCRYPTION_KEY.
import { suite } from 'uvu';
import pg from 'pg';
import * as assert from 'uvu/assert';
import { createPublicKey, generateKeyPairSync, verify, X509Certificate } from 'node:crypto';
import { computeAddress, keccak256, recoverAddress, hashMessage } from 'ethers';
import { adminAuth, call, startServer, type TestServer } from '../helpers/server.ts';
import { freshDatabase } from '../helpers/postgres.ts';
import { openssl } from '../adapters/x509/opensslCli.ts';
import { createSelfSignedCa, issueCertificate } from '../../adapters/x509/certificateBuilder.ts';
import { privateKeySigner } from '../../adapters/x509/certificateSigner.ts';

const t = suite('keys end to end (database provider)');
let server: TestServer;
const auth = adminAuth();
const KEK = 'keys-e2e-key-encryption-key-0001';

t.before(async () => {
  server = await startServer({ databaseUrl: (await freshDatabase()).url, env: { KEY_ENCRYPTION_KEY: KEK } });
});
t.after(async () => {
  await server?.stop();
});

const api = (method: string, path: string, body?: unknown) => call(server.api, method, path, { headers: auth, body });
const data = Buffer.from('ledger network manager: sign me');

const matrix = [
  { algorithm: 'ECDSA', curve: 'P-256', hash: 'sha256' },
  { algorithm: 'EC', curve: 'P-384', hash: 'sha384' },
  { algorithm: 'ECDSA', curve: 'P-521', hash: 'sha512' },
  { algorithm: 'ECDSA', curve: 'secp256k1', hash: 'sha256' },
  { algorithm: 'RSA', keySize: 2048, hash: 'sha256' },
  { algorithm: 'RSA', keySize: 4096, hash: 'sha256' },
  { algorithm: 'Ed25519', hash: null },
] as const;

for (const m of matrix) {
  const label = `${m.algorithm} ${'curve' in m ? m.curve : 'keySize' in m ? m.keySize : ''}`.trim();
  t(`${label}: created in the database provider, its sign-data signature verifies with node:crypto, and no private key is shown`, async () => {
    const { hash: _h, ...spec } = m;
    const created = await api('POST', '/keys', { name: `k-${label.replace(/\s+/g, '-')}`, ...spec });
    assert.is(created.status, 201, created.text);
    const key = created.json;
    assert.is(key.providerId, 1);
    assert.is(key.provider.type, 'DATABASE');
    assert.is(key.algorithm, m.algorithm === 'EC' ? 'ECDSA' : m.algorithm);
    assert.not.match(created.text, /PRIVATE KEY/);
    const read = await api('GET', `/keys/${key.id}`);
    assert.is(read.status, 200);
    assert.is(read.json.publicKey, key.publicKey);
    const signed = await api('POST', `/keys/${key.id}/sign-data`, { data: data.toString('base64') });
    assert.is(signed.status, 200, signed.text);
    assert.is(signed.json.hash, m.hash);
    const pub = createPublicKey(key.publicKey);
    const sig = Buffer.from(signed.json.signature, 'base64');
    const ok = m.algorithm === 'Ed25519' ? verify(null, data, pub, sig) : m.algorithm === 'RSA' ? verify(m.hash, data, pub, sig) : verify(m.hash, data, { key: pub, dsaEncoding: 'der' }, sig);
    assert.ok(ok, 'signature verifies with the public key');
    assert.not.ok(verify(m.algorithm === 'Ed25519' ? null : m.hash, Buffer.from('other data'), m.algorithm.startsWith('EC') ? { key: pub, dsaEncoding: 'der' } : pub, sig), 'and not for other data');
  });
}

t('secp256k1: the address is what ethers computes, and Ethereum signatures recover to it (keccak256 and personal_sign)', async () => {
  const created = await api('POST', '/keys', { name: 'validator', algorithm: 'ECDSA', curve: 'secp256k1' });
  assert.is(created.status, 201);
  const jwk = createPublicKey(created.json.publicKey).export({ format: 'jwk' });
  const uncompressed = '0x04' + Buffer.from(jwk.x!, 'base64url').toString('hex') + Buffer.from(jwk.y!, 'base64url').toString('hex');
  assert.is(created.json.ethereumAddress, computeAddress(uncompressed));
  const k = await api('POST', `/keys/${created.json.id}/sign-data`, { data: data.toString('base64'), ethereum: 'keccak256' });
  assert.is(k.status, 200, k.text);
  assert.is(k.json.ethereum.digest, keccak256(data));
  assert.is(recoverAddress(k.json.ethereum.digest, k.json.ethereum.signature), created.json.ethereumAddress);
  const p = await api('POST', `/keys/${created.json.id}/sign-data`, { data: data.toString('base64'), ethereum: 'personal' });
  assert.is(recoverAddress(hashMessage(data), p.json.ethereum.signature), created.json.ethereumAddress);
  const notK1 = await api('POST', '/keys', { name: 'p256', curve: 'P-256' });
  const bad = await api('POST', `/keys/${notK1.json.id}/sign-data`, { data: data.toString('base64'), ethereum: 'keccak256' });
  assert.is(bad.status, 400);
  assert.match(bad.text, 'secp256k1');
});

t('unknown algorithms and curves are a 400 naming what is accepted', async () => {
  const r = await api('POST', '/keys', { name: 'x', algorithm: 'DSA' });
  assert.is(r.status, 400);
  assert.match(r.text, 'ECDSA');
  const c = await api('POST', '/keys', { name: 'x', algorithm: 'EC', curve: 'P-192' });
  assert.is(c.status, 400);
  assert.match(c.text, 'secp256k1');
});

async function withDb<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: server.databaseUrl! });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

// Private keys this suite sent in (imports): the leak scan at the end looks for them everywhere.
const importedPrivateKeys: string[] = [];

function caPair(opts: { notAfter?: Date; notBefore?: Date } = {}) {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const now = Date.now();
  const profile = { subject: { commonName: 'Imported CA', organization: 'Elsewhere' }, notBefore: opts.notBefore ?? new Date(now - 86_400_000), notAfter: opts.notAfter ?? new Date(now + 30 * 86_400_000) };
  return { privateKey, pem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), cert: createSelfSignedCa(profile, privateKeySigner(privateKey)) };
}

t('importing a CA: a valid pair is imported and signs leaves openssl verifies; mismatched, expired, non-CA and malformed inputs give 400 saying why', async () => {
  const good = caPair();
  const goodCert = (await good.cert).pem;
  importedPrivateKeys.push(good.pem);
  const imported = await api('POST', '/keys/import', { name: 'imported-ca', type: 'CA', certificate: goodCert, privateKey: good.pem });
  assert.is(imported.status, 201, imported.text);
  assert.not.match(imported.text, /PRIVATE KEY/);
  assert.ok(imported.json.isCA);
  assert.is(new Date(imported.json.certificate.notAfter).getTime(), new Date(new X509Certificate(goodCert).validTo).getTime());
  const leafKey = await api('POST', '/keys', { name: 'leaf-of-imported' });
  const signed = await api('POST', `/keys/${leafKey.json.id}/sign`, { caKeyId: imported.json.id, commonName: 'leaf.elsewhere', dnsNames: ['leaf.elsewhere'] });
  assert.is(signed.status, 200, signed.text);
  const v = openssl(['verify', '-CAfile', 'ca.pem', 'leaf.pem'], { 'ca.pem': goodCert, 'leaf.pem': signed.json.certificate.pem });
  assert.ok(v.ok, v.output);

  const other = caPair();
  const mismatch = await api('POST', '/keys/import', { name: 'bad', certificate: goodCert, privateKey: other.pem });
  assert.is(mismatch.status, 400);
  assert.match(mismatch.text, 'does not match');

  const expired = caPair({ notBefore: new Date(Date.now() - 10 * 86_400_000), notAfter: new Date(Date.now() - 86_400_000) });
  const exp = await api('POST', '/keys/import', { name: 'bad', certificate: (await expired.cert).pem, privateKey: expired.pem });
  assert.is(exp.status, 400);
  assert.match(exp.text, 'expired');

  const { privateKey: leafPriv } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const leaf = await issueCertificate({ subject: { commonName: 'not a ca' }, notBefore: new Date(Date.now() - 60_000), notAfter: new Date(Date.now() + 86_400_000) }, createPublicKey(leafPriv).export({ type: 'spki', format: 'pem' }).toString(), { certificatePem: goodCert, signer: privateKeySigner(good.privateKey) });
  const nonCa = await api('POST', '/keys/import', { name: 'bad', certificate: leaf.pem, privateKey: leafPriv.export({ type: 'pkcs8', format: 'pem' }).toString() });
  assert.is(nonCa.status, 400);
  assert.match(nonCa.text, 'not a CA');

  const malformed = await api('POST', '/keys/import', { name: 'bad', certificate: '-----BEGIN CERTIFICATE-----\nnot base64!\n-----END CERTIFICATE-----\n', privateKey: 'garbage' });
  assert.is(malformed.status, 400);
  assert.ok(malformed.json.details.some((d: { field: string }) => d.field === 'certificate'));
  assert.ok(malformed.json.details.some((d: { field: string }) => d.field === 'privateKey'));
  for (const [name, r] of Object.entries({ mismatch, exp, nonCa, malformed })) assert.not.match(r.text, /PRIVATE KEY-----\s*[A-Za-z0-9+/]{16}|[A-Za-z0-9+/]{60}/, `${name} answer holds key material: ${r.text}`);
});

t('renew issues a new certificate for the same key; rotate gives a new public key; rotation settings are kept', async () => {
  const org = await api('POST', '/organizations', { name: 'Renewals', mspId: 'RenewMSP' });
  assert.is(org.status, 201, org.text);
  const admin = (await api('GET', `/keys/${org.json.adminKeyId}`)).json;
  const renewed = await api('POST', `/keys/${admin.id}/renew`);
  assert.is(renewed.status, 200, renewed.text);
  assert.is(renewed.json.publicKey, admin.publicKey);
  assert.is.not(renewed.json.certificate.serialNumber, admin.certificate.serialNumber);
  assert.ok(openssl(['verify', '-CAfile', 'ca.pem', 'c.pem'], { 'ca.pem': org.json.signCertificate, 'c.pem': renewed.json.certificate.pem }).ok);
  const rotated = await api('POST', `/keys/${admin.id}/rotate`);
  assert.is(rotated.status, 200, rotated.text);
  assert.is.not(rotated.json.publicKey, admin.publicKey);
  assert.is(new X509Certificate(rotated.json.certificate.pem).publicKey.export({ type: 'spki', format: 'pem' }).toString(), rotated.json.publicKey);
  const sched = await api('PUT', `/keys/${admin.id}/rotation`, { enabled: true, intervalDays: 30 });
  assert.is(sched.status, 200, sched.text);
  assert.equal({ enabled: sched.json.rotation.enabled, intervalDays: sched.json.rotation.intervalDays }, { enabled: true, intervalDays: 30 });
  assert.is((await api('PUT', `/keys/${admin.id}/rotation`, { enabled: true })).status, 400);
  const audit = JSON.stringify((await api('GET', '/audit-logs?limit=200')).json);
  assert.match(audit, 'certificate.renewed');
  assert.is((await api('DELETE', `/keys/${admin.id}`)).status, 409, 'an organization key is not deleted from under it');
});

t('a certificate never outlives its CA: a longer asked-for validity is a 400 naming the CA notAfter and what fits; the default validity, renewal and rotation are cut back to it; openssl verifies the chain', async () => {
  const ca = await api('POST', '/keys', { name: 'ten-day-ca', isCA: true, validityDays: 10 });
  assert.is(ca.status, 201, ca.text);
  const caPem = ca.json.certificate.pem;
  const caNotAfter = ca.json.certificate.notAfter;
  const leaf = await api('POST', '/keys', { name: 'leaf-of-ten-day-ca' });
  const tooLong = await api('POST', `/keys/${leaf.json.id}/sign`, { caKeyId: ca.json.id, commonName: 'leaf', validityDays: 30 });
  assert.is(tooLong.status, 400, tooLong.text);
  assert.match(tooLong.json.message, caNotAfter);
  assert.match(tooLong.json.message, 'validityDays at most 10');
  assert.is(tooLong.json.details[0].field, 'validityDays');
  const tooLate = await api('POST', `/keys/${leaf.json.id}/sign`, { caKeyId: ca.json.id, commonName: 'leaf', notAfter: new Date(Date.parse(caNotAfter) + 86_400_000).toISOString() });
  assert.is(tooLate.status, 400, tooLate.text);
  assert.is(tooLate.json.details[0].field, 'notAfter');
  assert.match(tooLate.json.message, caNotAfter);
  assert.is((await api('GET', `/keys/${leaf.json.id}`)).json.certificate, null, 'a refused request issues nothing');

  const defaulted = await api('POST', `/keys/${leaf.json.id}/sign`, { caKeyId: ca.json.id, commonName: 'leaf' });
  assert.is(defaulted.status, 200, defaulted.text);
  assert.is(defaulted.json.certificate.notAfter, caNotAfter, 'the default 365 days is cut to the CA notAfter');
  const fits = await api('POST', `/keys/${leaf.json.id}/sign`, { caKeyId: ca.json.id, commonName: 'leaf', validityDays: 10 });
  assert.is(fits.status, 200, fits.text);
  assert.ok(Date.parse(fits.json.certificate.notAfter) <= Date.parse(caNotAfter));
  const chain = (pem: string) => openssl(['verify', '-CAfile', 'ca.pem', 'leaf.pem'], { 'ca.pem': caPem, 'leaf.pem': pem });
  assert.ok(chain(fits.json.certificate.pem).ok);

  const renewed = await api('POST', `/keys/${leaf.json.id}/renew`);
  assert.is(renewed.status, 200, renewed.text);
  assert.is(renewed.json.certificate.notAfter, caNotAfter, 'a 10-day renewal a moment later is cut to the CA notAfter');
  assert.is(new Date(new X509Certificate(renewed.json.certificate.pem).validTo).toISOString(), caNotAfter);
  assert.ok(chain(renewed.json.certificate.pem).ok);
  const rotated = await api('POST', `/keys/${leaf.json.id}/rotate`);
  assert.is(rotated.status, 200, rotated.text);
  assert.is(rotated.json.certificate.notAfter, caNotAfter);
  const r = chain(rotated.json.certificate.pem);
  assert.ok(r.ok, r.output);
});

t('isCA on /sign issues an intermediate CA under an organization CA; its leaves verify with openssl through the chain (root trusted, intermediate untrusted)', async () => {
  const org = await api('POST', '/organizations', { name: 'Chained', mspId: 'ChainMSP' });
  assert.is(org.status, 201, org.text);
  const inter = await api('POST', `/organizations/${org.json.id}/keys`, { name: 'intermediate' });
  const interCert = await api('POST', `/keys/${inter.json.id}/sign`, { commonName: 'ica.chained', organization: 'chained', isCA: true, validityDays: 365 });
  assert.is(interCert.status, 200, interCert.text);
  assert.ok(interCert.json.isCA);
  assert.is(interCert.json.certificate.issuerKeyId, org.json.signKeyId);
  const leaf = await api('POST', '/keys', { name: 'leaf-under-ica', algorithm: 'Ed25519' });
  const leafCert = await api('POST', `/keys/${leaf.json.id}/sign`, { caKeyId: inter.json.id, commonName: 'peer9.chained', dnsNames: ['peer9.chained'], validityDays: 30 });
  assert.is(leafCert.status, 200, leafCert.text);
  const ok = openssl(['verify', '-CAfile', 'root.pem', '-untrusted', 'ica.pem', 'leaf.pem'], { 'root.pem': org.json.signCertificate, 'ica.pem': interCert.json.certificate.pem, 'leaf.pem': leafCert.json.certificate.pem });
  assert.ok(ok.ok, ok.output);
  const caPem = await call(server.api, 'GET', `/keys/${leaf.json.id}/ca-certificate`, { headers: auth });
  assert.is(caPem.text.trim(), interCert.json.certificate.pem.trim());
  const without = openssl(['verify', '-CAfile', 'root.pem', 'leaf.pem'], { 'root.pem': org.json.signCertificate, 'leaf.pem': leafCert.json.certificate.pem });
  assert.not.ok(without.ok, 'without the intermediate the chain does not build');
});

t('only an unexpired CA signs: a key without a certificate, a leaf and an expired CA are refused with 400 saying which; renewal under an expired CA is refused too', async () => {
  const subject = await api('POST', '/keys', { name: 'wants-a-cert' });
  const bare = await api('POST', '/keys', { name: 'no-cert' });
  const noCert = await api('POST', `/keys/${subject.json.id}/sign`, { caKeyId: bare.json.id, commonName: 'x' });
  assert.is(noCert.status, 400, noCert.text);
  assert.match(noCert.json.message, 'no certificate');
  const ca = await api('POST', '/keys', { name: 'real-ca', isCA: true });
  const leaf = await api('POST', `/keys/${bare.json.id}/sign`, { caKeyId: ca.json.id, commonName: 'leaf' });
  assert.is(leaf.status, 200, leaf.text);
  const byLeaf = await api('POST', `/keys/${subject.json.id}/sign`, { caKeyId: bare.json.id, commonName: 'x' });
  assert.is(byLeaf.status, 400, byLeaf.text);
  assert.match(byLeaf.json.message, 'not a CA certificate');
  assert.is(byLeaf.json.details[0].field, 'caKeyId');

  const brief = await api('POST', '/keys', { name: 'brief-ca' });
  const selfSigned = await api('POST', `/keys/${brief.json.id}/sign`, { caKeyId: brief.json.id, isCA: true, commonName: 'brief-ca', notAfter: new Date(Date.now() + 2500).toISOString() });
  assert.is(selfSigned.status, 200, selfSigned.text);
  const briefEnd = selfSigned.json.certificate.notAfter;
  const underBrief = await api('POST', `/keys/${subject.json.id}/sign`, { caKeyId: brief.json.id, commonName: 'under-brief', notAfter: briefEnd });
  assert.is(underBrief.status, 200, 'ending exactly with the CA is allowed: ' + underBrief.text);
  while (Date.now() <= Date.parse(briefEnd) + 200) await new Promise((res) => setTimeout(res, 200));
  const expired = await api('POST', `/keys/${bare.json.id}/sign`, { caKeyId: brief.json.id, commonName: 'too-late' });
  assert.is(expired.status, 400, expired.text);
  assert.match(expired.json.message, `expired on ${briefEnd}`);
  const renewal = await api('POST', `/keys/${subject.json.id}/renew`);
  assert.is(renewal.status, 400, renewal.text);
  assert.match(renewal.json.message, 'expired');
});

t('a certificate that ends soon is reported expiring at once and expired when its time is up', async () => {
  const key = await api('POST', '/keys', { name: 'short-lived' });
  const ca = await api('POST', '/keys', { name: 'short-ca', isCA: true });
  const notAfter = new Date(Date.now() + 3000).toISOString();
  const signed = await api('POST', `/keys/${key.json.id}/sign`, { caKeyId: ca.json.id, commonName: 'short', notAfter });
  assert.is(signed.status, 200, signed.text);
  let status = '';
  for (let i = 0; i < 100 && status !== 'expired'; i++) {
    await new Promise((r) => setTimeout(r, 200));
    status = (await api('GET', `/keys/${key.json.id}`)).json.expiryStatus;
  }
  assert.is(status, 'expired');
  const audit = JSON.stringify((await api('GET', '/audit-logs?limit=200')).json);
  assert.match(audit, 'certificate.expiring');
  assert.match(audit, 'certificate.expired');
});

t('keys are listed with filters (algorithm, curve, purpose, isCA, provider, organization) and unpaginated under /keys/all; a key nothing uses is deleted (204, then 404) and its material leaves the provider', async () => {
  const org = await api('POST', '/organizations', { name: 'Listing', mspId: 'ListMSP' });
  assert.is(org.status, 201, org.text);
  const orgKey = await api('POST', `/organizations/${org.json.id}/keys`, { name: 'org-rsa', algorithm: 'RSA', keySize: 2048 });
  assert.is(orgKey.status, 201, orgKey.text);
  assert.is(orgKey.json.organizationId, org.json.id);
  const orgKeys = (await api('GET', `/organizations/${org.json.id}/keys`)).json;
  assert.equal(orgKeys.items.map((k: any) => k.purpose).sort(), ['ADMIN', 'GENERAL', 'SIGN_CA', 'TLS_CA']);
  const pair = caPair();
  const importedToOrg = await api('POST', '/keys/import', { name: 'org-imported-ca', type: 'CA', organizationId: org.json.id, certificate: (await pair.cert).pem, privateKey: pair.pem });
  importedPrivateKeys.push(pair.pem);
  assert.is(importedToOrg.status, 201, importedToOrg.text);
  assert.is(importedToOrg.json.organizationId, org.json.id);
  assert.ok((await api('GET', `/organizations/${org.json.id}/keys`)).json.items.some((k: any) => k.id === importedToOrg.json.id && k.purpose === 'CA' && k.imported));
  const noOrg = await api('POST', '/keys/import', { name: 'x', type: 'CA', organizationId: 99999, certificate: (await pair.cert).pem, privateKey: pair.pem });
  assert.is(noOrg.status, 400, noOrg.text);
  assert.match(noOrg.text, 'Organization 99999 does not exist');
  const ids = (q: string) => api('GET', `/keys?limit=500&${q}`).then((r) => { assert.is(r.status, 200, r.text); return r.json.items.map((k: any) => k.id) as number[]; });
  assert.equal(await ids(`organizationId=${org.json.id}&algorithm=RSA`), [orgKey.json.id]);
  assert.equal((await ids(`organizationId=${org.json.id}&isCA=true`)).sort(), [org.json.signKeyId, org.json.tlsKeyId, importedToOrg.json.id].sort());
  assert.equal(await ids(`organizationId=${org.json.id}&purpose=ADMIN`), [org.json.adminKeyId]);
  const k1 = await ids('curve=secp256k1');
  assert.ok(k1.length >= 2);
  for (const id of k1) assert.is((await api('GET', `/keys/${id}`)).json.curve, 'secp256k1');
  assert.ok((await ids('algorithm=ECDSA')).includes(org.json.signKeyId), 'ECDSA and EC filter alike');
  assert.is((await ids('providerId=1')).length, (await api('GET', '/keys?limit=1')).json.total);
  const all = await api('GET', '/keys/all');
  assert.is(all.status, 200);
  assert.ok(Array.isArray(all.json));
  assert.is(all.json.length, (await api('GET', '/keys?limit=1')).json.total);
  assert.not.match(all.text, /PRIVATE KEY/);

  const materialCount = () => withDb(async (c) => (await c.query('SELECT count(*)::int AS n FROM key_material')).rows[0].n as number);
  const before = await materialCount();
  const deleted = await api('DELETE', `/keys/${orgKey.json.id}`);
  assert.is(deleted.status, 204, deleted.text);
  assert.is((await api('GET', `/keys/${orgKey.json.id}`)).status, 404);
  assert.is((await api('POST', `/keys/${orgKey.json.id}/sign-data`, { data: data.toString('base64') })).status, 404);
  const sign = await api('POST', `/keys/${org.json.adminKeyId}/sign-data`, { data: data.toString('base64') });
  assert.is(sign.status, 200, 'other keys keep working');
  assert.is(await materialCount(), before - 1, 'the encrypted private key is gone from the database provider');
});

t('no private key reaches a response, a log line, the audit log or an event: the server output, the audit log and every stored event are scanned', async () => {
  await withDb(async (client) => {
    // A PEM private key block with a body; error messages may name the label a key should have.
    const pemKey = /PRIVATE KEY-----(?:\\n|\\r|\s)*[A-Za-z0-9+/]{16}/;
    const bodies = importedPrivateKeys.map((pem) => pem.replace(/-----[^-]+-----|\s+/g, '').slice(20, 80));
    assert.ok(bodies.length > 0);
    assert.match(JSON.stringify(importedPrivateKeys[0]), pemKey, 'the scan would see a key written as JSON');
    const events = (await client.query(`SELECT string_agg(data::text || ' ' || metadata::text, ' ') AS t, count(*)::int AS n FROM events`)).rows[0];
    assert.ok(events.n > 50, 'the scan covers the whole suite');
    const audit = (await api('GET', '/audit-logs?limit=1000')).text;
    const output = server.output();
    assert.ok(output.length > 0, 'the server logged something');
    for (const [where, text] of [['events', events.t], ['audit log', audit], ['server output', output]] as const) {
      assert.not.match(text, pemKey, `a private key in the ${where}`);
      for (const b of bodies) assert.not.ok(text.includes(b), `the imported private key in the ${where}`);
    }
  });
});

t('a restart with a different KEY_ENCRYPTION_KEY fails at start with a clear message and changes nothing; the right key starts and signs', async () => {
  const created = await api('POST', '/keys', { name: 'survivor', curve: 'P-256' });
  assert.is(created.status, 201);
  await server.stop();
  let failure = '';
  try {
    await startServer({ databaseUrl: server.databaseUrl!, dataDir: server.dataDir, port: server.port, env: { KEY_ENCRYPTION_KEY: 'a-different-key-encryption-key!!' } });
  } catch (err) {
    failure = (err as Error).message;
  }
  assert.match(failure, 'KEY_ENCRYPTION_KEY does not match');
  server = await startServer({ databaseUrl: server.databaseUrl!, dataDir: server.dataDir, port: server.port, env: { KEY_ENCRYPTION_KEY: KEK } });
  const read = await api('GET', `/keys/${created.json.id}`);
  assert.is(read.json.publicKey, created.json.publicKey);
  const s = await api('POST', `/keys/${created.json.id}/sign-data`, { data: data.toString('base64') });
  assert.is(s.status, 200, s.text);
  assert.ok(verify('sha256', data, { key: createPublicKey(created.json.publicKey), dsaEncoding: 'der' }, Buffer.from(s.json.signature, 'base64')));
});

t.run();
