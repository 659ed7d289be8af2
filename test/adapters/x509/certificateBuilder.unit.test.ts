import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash, createPublicKey, generateKeyPairSync, X509Certificate, type KeyObject } from 'node:crypto';
import { createSelfSignedCa, issueCertificate } from '../../../adapters/x509/certificateBuilder.ts';
import { privateKeySigner } from '../../../adapters/x509/certificateSigner.ts';
import { ValidationError } from '../../../domain/shared/errors.ts';
import { openssl } from './opensslCli.ts';

const day = 24 * 3600 * 1000;
const now = Date.now();
const validity = { notBefore: new Date(now - day), notAfter: new Date(now + 365 * day) };

const algorithms: Array<[string, () => KeyObject]> = [
  ['EC P-256', () => generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey],
  ['EC P-384', () => generateKeyPairSync('ec', { namedCurve: 'secp384r1' }).privateKey],
  ['EC P-521', () => generateKeyPairSync('ec', { namedCurve: 'secp521r1' }).privateKey],
  ['EC secp256k1', () => generateKeyPairSync('ec', { namedCurve: 'secp256k1' }).privateKey],
  ['RSA 2048', () => generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey],
  ['Ed25519', () => generateKeyPairSync('ed25519').privateKey],
];

const expectedSignatureAlgorithm: Record<string, string> = {
  'EC P-256': 'ecdsa-with-SHA256',
  'EC P-384': 'ecdsa-with-SHA384',
  'EC P-521': 'ecdsa-with-SHA512',
  'EC secp256k1': 'ecdsa-with-SHA256',
  'RSA 2048': 'sha256WithRSAEncryption',
  Ed25519: 'ED25519',
};

function publicPem(key: KeyObject): string {
  return createPublicKey(key).export({ type: 'spki', format: 'pem' }).toString();
}

for (const [label, makeKey] of algorithms) {
  test(`${label}: a self-signed CA and a leaf it issues verify with openssl and node:crypto`, async () => {
    const caKey = makeKey();
    const ca = await createSelfSignedCa(
      { subject: { commonName: 'ca.org1.example.com', organization: 'Org1', country: 'US', locality: 'Austin' }, ...validity, pathLength: 0 },
      privateKeySigner(caKey),
    );
    const leafKey = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
    const leaf = await issueCertificate(
      {
        subject: { commonName: 'peer0.org1.example.com', organization: 'Org1', organizationalUnits: ['peer', 'client'] },
        ...validity,
        dnsNames: ['peer0.org1.example.com', 'localhost'],
        ipAddresses: ['127.0.0.1', '::1'],
        keyUsages: ['digitalSignature', 'keyEncipherment'],
        extendedKeyUsages: ['serverAuth', 'clientAuth'],
      },
      publicPem(leafKey),
      { certificatePem: ca.pem, signer: privateKeySigner(caKey) },
    );

    const verified = openssl(['verify', '-CAfile', 'ca.pem', 'leaf.pem'], { 'ca.pem': ca.pem, 'leaf.pem': leaf.pem });
    assert.ok(verified.ok, verified.output);
    assert.match(verified.output, /leaf.pem: OK/);

    const caX509 = new X509Certificate(ca.pem);
    const leafX509 = new X509Certificate(leaf.pem);
    assert.ok(caX509.verify(caX509.publicKey), 'CA self-signature');
    assert.ok(leafX509.verify(caX509.publicKey), 'leaf signature by the CA key');
    assert.ok(leafX509.checkIssued(caX509), 'leaf names the CA as issuer');
    assert.ok(caX509.ca);
    assert.not.ok(leafX509.ca);
    assert.is(leafX509.serialNumber, leaf.serialNumber);
    assert.is(leafX509.checkHost('peer0.org1.example.com'), 'peer0.org1.example.com');
    assert.is(leafX509.checkIP('127.0.0.1'), '127.0.0.1');
    assert.is(leafX509.checkIP('::1'), '::1');
    assert.is(leafX509.publicKey.export({ type: 'spki', format: 'pem' }), publicPem(leafKey));

    const text = openssl(['x509', '-in', 'leaf.pem', '-noout', '-text'], { 'leaf.pem': leaf.pem }).output;
    assert.match(text, `Signature Algorithm: ${expectedSignatureAlgorithm[label]}`);
    assert.match(text, 'Subject: O = Org1, OU = peer, OU = client, CN = peer0.org1.example.com');
    assert.match(text, 'TLS Web Server Authentication, TLS Web Client Authentication');
    assert.match(text, 'Digital Signature, Key Encipherment');
    assert.match(text, 'DNS:peer0.org1.example.com, DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1');
    assert.match(text, 'CA:FALSE');

    const caText = openssl(['x509', '-in', 'ca.pem', '-noout', '-text'], { 'ca.pem': ca.pem }).output;
    assert.match(caText, 'CA:TRUE, pathlen:0');
    assert.match(caText, 'Certificate Sign, CRL Sign');
    assert.match(caText, 'Subject: C = US, L = Austin, O = Org1, CN = ca.org1.example.com');
    // The leaf's authority key id is the CA's subject key id.
    const caSki = /Subject Key Identifier:\s*\n\s*([0-9A-F:]+)/.exec(caText)?.[1];
    assert.ok(caSki);
    assert.match(text, new RegExp(`Authority Key Identifier:\\s*\\n\\s*(keyid:)?${caSki}`));
  });
}

test('the subject key id is the SHA-1 of the public key bits (RFC 5280 method 1)', async () => {
  const key = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
  const ca = await createSelfSignedCa({ subject: { commonName: 'tlsca' }, ...validity }, privateKeySigner(key));
  const out = openssl(['x509', '-in', 'ca.pem', '-noout', '-ext', 'subjectKeyIdentifier'], { 'ca.pem': ca.pem }).output;
  // A P-256 SPKI ends with the 65-byte uncompressed point, which is the BIT STRING's content.
  const point = (createPublicKey(key).export({ type: 'spki', format: 'der' }) as Buffer).subarray(-65);
  const expected = createHash('sha1').update(point).digest('hex').toUpperCase().match(/../g)!.join(':');
  assert.match(out, expected);
});

test('serial numbers are positive, random and differ between certificates', async () => {
  const key = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
  const a = await createSelfSignedCa({ subject: { commonName: 'a' }, ...validity }, privateKeySigner(key));
  const b = await createSelfSignedCa({ subject: { commonName: 'b' }, ...validity }, privateKeySigner(key));
  assert.is.not(a.serialNumber, b.serialNumber);
  assert.ok(/^[4-7][0-9A-F]{31}$/.test(a.serialNumber), a.serialNumber);
});

test('certificates valid past 2049 encode their end date as GeneralizedTime and still verify', async () => {
  const key = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
  const notAfter = new Date('2060-01-01T00:00:00Z');
  const ca = await createSelfSignedCa({ subject: { commonName: 'long' }, notBefore: validity.notBefore, notAfter }, privateKeySigner(key));
  assert.is(new Date(new X509Certificate(ca.pem).validTo).toISOString(), notAfter.toISOString());
  assert.ok(openssl(['verify', '-CAfile', 'ca.pem', 'ca.pem'], { 'ca.pem': ca.pem }).ok);
});

test('a certificate ending after its CA is refused on notAfter; ending with the CA is allowed and verifies', async () => {
  const caKey = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
  const leafKey = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
  const ca = await createSelfSignedCa({ subject: { commonName: 'ca' }, ...validity }, privateKeySigner(caKey));
  const issuer = { certificatePem: ca.pem, signer: privateKeySigner(caKey) };
  try {
    await issueCertificate({ subject: { commonName: 'x' }, notBefore: validity.notBefore, notAfter: new Date(validity.notAfter.getTime() + 2000) }, publicPem(leafKey), issuer);
    assert.unreachable('should have thrown');
  } catch (err) {
    assert.instance(err, ValidationError);
    assert.is((err as ValidationError).details?.[0].field, 'notAfter');
    assert.match((err as Error).message, "later than its CA's notAfter");
  }
  const leaf = await issueCertificate({ subject: { commonName: 'x' }, ...validity }, publicPem(leafKey), issuer);
  assert.ok(openssl(['verify', '-CAfile', 'ca.pem', 'leaf.pem'], { 'ca.pem': ca.pem, 'leaf.pem': leaf.pem }).ok);
});

test('issuing with a key that is not the CA key is refused', async () => {
  const caKey = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
  const otherKey = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
  const ca = await createSelfSignedCa({ subject: { commonName: 'ca' }, ...validity }, privateKeySigner(caKey));
  try {
    await issueCertificate({ subject: { commonName: 'x' }, ...validity }, publicPem(otherKey), { certificatePem: ca.pem, signer: privateKeySigner(otherKey) });
    assert.unreachable('should have thrown');
  } catch (err) {
    assert.instance(err, ValidationError);
    assert.match((err as Error).message, 'does not belong to the issuing CA');
  }
});

test('a non-CA certificate cannot issue', async () => {
  const caKey = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
  const ca = await createSelfSignedCa({ subject: { commonName: 'ca' }, ...validity }, privateKeySigner(caKey));
  const leafKey = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
  const leaf = await issueCertificate({ subject: { commonName: 'leaf' }, ...validity }, publicPem(leafKey), { certificatePem: ca.pem, signer: privateKeySigner(caKey) });
  try {
    await issueCertificate({ subject: { commonName: 'x' }, ...validity }, publicPem(caKey), { certificatePem: leaf.pem, signer: privateKeySigner(leafKey) });
    assert.unreachable('should have thrown');
  } catch (err) {
    assert.instance(err, ValidationError);
    assert.match((err as Error).message, 'not a CA');
  }
});

test('bad profile values are validation errors naming the field', async () => {
  const key = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ notAfter: new Date(now - 2 * day) }, 'notAfter'],
    [{ subject: { commonName: 'x', country: 'USA' } }, 'country'],
    [{ subject: { commonName: '' } }, 'commonName'],
    [{ dnsNames: ['https://example.com'] }, 'dnsNames'],
    [{ ipAddresses: ['300.1.1.1'] }, 'ipAddresses'],
    [{ keyUsages: ['signEverything'] }, 'keyUsages'],
  ];
  for (const [override, field] of cases) {
    try {
      await createSelfSignedCa({ subject: { commonName: 'ca' }, ...validity, ...override } as never, privateKeySigner(key));
      assert.unreachable(`expected a ValidationError for ${field}`);
    } catch (err) {
      assert.instance(err, ValidationError, String(err));
      assert.is((err as ValidationError).details?.[0].field, field);
    }
  }
});

test.run();
