import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createSelfSignedCa, issueCertificate } from '../../../adapters/x509/certificateBuilder.ts';
import { privateKeySigner } from '../../../adapters/x509/certificateSigner.ts';
import { buildCrl } from '../../../adapters/x509/crlBuilder.ts';
import { toPem } from '../../../adapters/x509/pem.ts';
import { ValidationError } from '../../../domain/shared/errors.ts';
import { openssl } from './opensslCli.ts';

const day = 24 * 3600 * 1000;
const now = Date.now();
const validity = { notBefore: new Date(now - day), notAfter: new Date(now + 365 * day) };

function publicPem(key: KeyObject): string {
  return createPublicKey(key).export({ type: 'spki', format: 'pem' }).toString();
}

async function caWithLeaves(caKey: KeyObject) {
  const signer = privateKeySigner(caKey);
  const ca = await createSelfSignedCa({ subject: { commonName: 'ca.org1', organization: 'Org1' }, ...validity }, signer);
  const issuer = { certificatePem: ca.pem, signer };
  const leafKey = () => generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
  const revoked = await issueCertificate({ subject: { commonName: 'revoked' }, ...validity }, publicPem(leafKey()), issuer);
  const good = await issueCertificate({ subject: { commonName: 'good' }, ...validity }, publicPem(leafKey()), issuer);
  return { ca, issuer, revoked, good };
}

const caKeys: Array<[string, () => KeyObject]> = [
  ['EC P-256', () => generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey],
  ['EC P-384', () => generateKeyPairSync('ec', { namedCurve: 'secp384r1' }).privateKey],
  ['RSA 2048', () => generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey],
  ['Ed25519', () => generateKeyPairSync('ed25519').privateKey],
];

for (const [label, makeKey] of caKeys) {
  test(`${label} CA: the CRL verifies with openssl and makes openssl reject the revoked certificate only`, async () => {
    const { ca, issuer, revoked, good } = await caWithLeaves(makeKey());
    const crl = await buildCrl(
      {
        thisUpdate: new Date(now - 60_000),
        nextUpdate: new Date(now + 7 * day),
        crlNumber: 42,
        revoked: [{ serialNumber: revoked.serialNumber, revokedAt: new Date(now - 30_000), reason: 'keyCompromise' }],
      },
      issuer,
    );
    const files = { 'ca.pem': ca.pem, 'crl.pem': crl.pem, 'revoked.pem': revoked.pem, 'good.pem': good.pem };

    const crlCheck = openssl(['crl', '-in', 'crl.pem', '-CAfile', 'ca.pem', '-noout'], files);
    assert.ok(crlCheck.ok, crlCheck.output);
    assert.match(crlCheck.output, 'verify OK');

    const text = openssl(['crl', '-in', 'crl.pem', '-noout', '-text'], files).output;
    assert.match(text, 'Version 2');
    assert.match(text, /X509v3 CRL Number:\s*\n\s*42/);
    assert.match(text, `Serial Number: ${revoked.serialNumber}`);
    assert.match(text, 'Key Compromise');
    assert.match(text, 'X509v3 Authority Key Identifier');

    const rejected = openssl(['verify', '-crl_check', '-CAfile', 'ca.pem', '-CRLfile', 'crl.pem', 'revoked.pem'], files);
    assert.not.ok(rejected.ok, rejected.output);
    assert.match(rejected.output, 'certificate revoked');

    const accepted = openssl(['verify', '-crl_check', '-CAfile', 'ca.pem', '-CRLfile', 'crl.pem', 'good.pem'], files);
    assert.ok(accepted.ok, accepted.output);
  });
}

test('an empty CRL (nothing revoked yet) verifies and lets every certificate pass a CRL check', async () => {
  const { ca, issuer, revoked } = await caWithLeaves(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey);
  const crl = await buildCrl({ thisUpdate: new Date(now - 60_000), nextUpdate: new Date(now + day), crlNumber: 1, revoked: [] }, issuer);
  const files = { 'ca.pem': ca.pem, 'crl.pem': crl.pem, 'leaf.pem': revoked.pem };
  assert.ok(openssl(['crl', '-in', 'crl.pem', '-CAfile', 'ca.pem', '-noout'], files).ok);
  const text = openssl(['crl', '-in', 'crl.pem', '-noout', '-text'], files).output;
  assert.match(text, 'No Revoked Certificates');
  assert.ok(openssl(['verify', '-crl_check', '-CAfile', 'ca.pem', '-CRLfile', 'crl.pem', 'leaf.pem'], files).ok);
});

test('openssl reports a CRL whose signature was altered as failing verification', async () => {
  const { ca, issuer } = await caWithLeaves(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey);
  const crl = await buildCrl({ thisUpdate: new Date(now - 60_000), nextUpdate: new Date(now + day), crlNumber: 3, revoked: [] }, issuer);
  const der = Buffer.from(crl.der);
  der[der.length - 5] ^= 0x01;
  const tampered = toPem('X509 CRL', der);
  const check = openssl(['crl', '-in', 'crl.pem', '-CAfile', 'ca.pem', '-noout'], { 'ca.pem': ca.pem, 'crl.pem': tampered });
  assert.not.match(check.output, 'verify OK');
  assert.match(check.output, 'verify fail');
});

test('a CRL signed by a key other than the CA key is refused before signing', async () => {
  const { ca } = await caWithLeaves(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey);
  const other = privateKeySigner(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey);
  try {
    await buildCrl({ thisUpdate: new Date(now), nextUpdate: new Date(now + day), crlNumber: 1, revoked: [] }, { certificatePem: ca.pem, signer: other });
    assert.unreachable('should have thrown');
  } catch (err) {
    assert.instance(err, ValidationError);
    assert.is((err as ValidationError).details?.[0].field, 'caKey');
  }
});

test('an unknown revocation reason or a non-hex serial is a validation error', async () => {
  const { issuer } = await caWithLeaves(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey);
  const base = { thisUpdate: new Date(now), nextUpdate: new Date(now + day), crlNumber: 1 };
  for (const [entry, field] of [
    [{ serialNumber: '0A', revokedAt: new Date(now), reason: 'becauseISaidSo' }, 'reason'],
    [{ serialNumber: 'xyz', revokedAt: new Date(now) }, 'serialNumber'],
  ] as const) {
    try {
      await buildCrl({ ...base, revoked: [entry as never] }, issuer);
      assert.unreachable('should have thrown');
    } catch (err) {
      assert.instance(err, ValidationError);
      assert.is((err as ValidationError).details?.[0].field, field);
    }
  }
});

test.run();
