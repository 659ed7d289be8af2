import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { createSelfSignedCa, issueCertificate } from '../../../adapters/x509/certificateBuilder.ts';
import { privateKeySigner } from '../../../adapters/x509/certificateSigner.ts';
import { certificateKeyUsages, parseCertificatePem } from '../../../adapters/x509/certificateInfo.ts';
import { ValidationError } from '../../../domain/shared/errors.ts';
import { openssl } from './opensslCli.ts';

test('parsed fields agree with what openssl prints for the same certificate', async () => {
  const caKey = generateKeyPairSync('ec', { namedCurve: 'secp384r1' }).privateKey;
  const notBefore = new Date('2026-01-02T03:04:05Z');
  const notAfter = new Date('2031-01-02T03:04:05Z');
  const ca = await createSelfSignedCa({ subject: { commonName: 'ca.org1', organization: 'Org1' }, notBefore, notAfter }, privateKeySigner(caKey));
  const leafKey = generateKeyPairSync('ed25519').privateKey;
  const leafPub = createPublicKey(leafKey).export({ type: 'spki', format: 'pem' }).toString();
  const leaf = await issueCertificate(
    { subject: { commonName: 'peer0.org1', organization: 'Org1' }, notBefore, notAfter, dnsNames: ['peer0.org1'], ipAddresses: ['10.0.0.7'] },
    leafPub,
    { certificatePem: ca.pem, signer: privateKeySigner(caKey) },
  );

  const info = parseCertificatePem(leaf.pem);
  const printed = (opt: string) => openssl(['x509', '-in', 'c.pem', '-noout', opt], { 'c.pem': leaf.pem }).output.trim();
  assert.is(`serial=${info.serialNumber}`, printed('-serial'));
  assert.is(`sha256 Fingerprint=${info.fingerprintSha256}`, openssl(['x509', '-in', 'c.pem', '-noout', '-fingerprint', '-sha256'], { 'c.pem': leaf.pem }).output.trim());
  assert.is(info.notBefore, '2026-01-02T03:04:05.000Z');
  assert.is(info.notAfter, '2031-01-02T03:04:05.000Z');
  assert.is(info.subject, 'O=Org1, CN=peer0.org1');
  assert.is(info.commonName, 'peer0.org1');
  assert.is(info.issuer, 'O=Org1, CN=ca.org1');
  assert.is(info.isCA, false);
  assert.is(info.selfIssued, false);
  assert.is(info.publicKeyPem, leafPub);
  assert.equal(info.subjectAltNames, ['DNS:peer0.org1', 'IP Address:10.0.0.7']);

  const caInfo = parseCertificatePem(ca.pem);
  assert.is(caInfo.isCA, true);
  assert.is(caInfo.selfIssued, true);
  assert.equal(certificateKeyUsages(ca.pem), ['digitalSignature', 'keyCertSign', 'cRLSign']);
  assert.equal(certificateKeyUsages(leaf.pem), ['digitalSignature']);
});

test('text without a certificate is a validation error on the named field', () => {
  for (const text of ['', 'garbage', '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n']) {
    try {
      parseCertificatePem(text, 'caCertificate');
      assert.unreachable('should have thrown');
    } catch (err) {
      assert.instance(err, ValidationError);
      assert.is((err as ValidationError).details?.[0].field, 'caCertificate');
    }
  }
});

test.run();
