import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { validateImportedCa } from '../../../adapters/x509/caImport.ts';
import { createSelfSignedCa, issueCertificate } from '../../../adapters/x509/certificateBuilder.ts';
import { privateKeySigner } from '../../../adapters/x509/certificateSigner.ts';
import { ValidationError } from '../../../domain/shared/errors.ts';
import { openssl } from './opensslCli.ts';

const day = 24 * 3600 * 1000;

function ecKey(): KeyObject {
  return generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
}
function keyPem(key: KeyObject): string {
  return key.export({ type: 'pkcs8', format: 'pem' }).toString();
}

/** A CA made by the openssl CLI, as an operator would bring it. */
function opensslCa(extra: string[] = []): { certificate: string; privateKey: string } {
  const key = ecKey();
  const out = openssl(
    ['req', '-x509', '-key', 'key.pem', '-subj', '/C=US/O=Imported Org/CN=ca.imported.example', '-days', '30', '-addext', 'basicConstraints=critical,CA:TRUE', ...extra],
    { 'key.pem': keyPem(key) },
  );
  assert.ok(out.ok, out.output);
  return { certificate: out.output.slice(out.output.indexOf('-----BEGIN CERTIFICATE-----')), privateKey: keyPem(key) };
}

function rejected(input: { certificate: unknown; privateKey: unknown }): ValidationError {
  try {
    validateImportedCa(input, new Date());
  } catch (err) {
    assert.instance(err, ValidationError, String(err));
    return err as ValidationError;
  }
  throw new Error('expected a ValidationError');
}

test('a CA pair made by openssl is accepted and can issue certificates openssl verifies', async () => {
  const pair = opensslCa();
  const now = new Date();
  const ca = validateImportedCa(pair, now);
  assert.equal(ca.spec, { algorithm: 'EC', curve: 'P-256' });
  assert.is(ca.certificate.isCA, true);
  assert.is(ca.certificate.subject, 'C=US, O=Imported Org, CN=ca.imported.example');

  const leafKey = ecKey();
  const leaf = await issueCertificate(
    { subject: { commonName: 'peer0' }, notBefore: new Date(now.getTime() - 1000), notAfter: new Date(now.getTime() + day) },
    createPublicKey(leafKey).export({ type: 'spki', format: 'pem' }).toString(),
    { certificatePem: ca.certificate.pem, signer: privateKeySigner(ca.privateKey) },
  );
  const verified = openssl(['verify', '-CAfile', 'ca.pem', 'leaf.pem'], { 'ca.pem': pair.certificate, 'leaf.pem': leaf.pem });
  assert.ok(verified.ok, verified.output);
});

test('a key that does not match the certificate is rejected on privateKey', () => {
  const pair = opensslCa();
  const err = rejected({ certificate: pair.certificate, privateKey: keyPem(ecKey()) });
  assert.equal(err.details, [{ field: 'privateKey', message: "does not match the certificate's public key" }]);
  assert.match(err.message, "privateKey does not match the certificate's public key");
});

test('an expired CA certificate is rejected on certificate, naming the date', async () => {
  const now = new Date();
  const key = ecKey();
  const expired = await createSelfSignedCa(
    { subject: { commonName: 'old ca' }, notBefore: new Date(now.getTime() - 30 * day), notAfter: new Date(now.getTime() - day) },
    privateKeySigner(key),
  );
  const err = rejected({ certificate: expired.pem, privateKey: keyPem(key) });
  assert.is(err.details?.length, 1);
  assert.is(err.details?.[0].field, 'certificate');
  assert.match(err.details![0].message, /^expired on \d{4}-\d\d-\d\dT/);
});

test('a CA not valid until tomorrow is rejected, one made a minute in the future (clock skew) is accepted', async () => {
  const now = new Date();
  const key = ecKey();
  const future = (ms: number) =>
    createSelfSignedCa({ subject: { commonName: 'future ca' }, notBefore: new Date(now.getTime() + ms), notAfter: new Date(now.getTime() + 30 * day) }, privateKeySigner(key));
  const tomorrow = await future(day);
  const err = rejected({ certificate: tomorrow.pem, privateKey: keyPem(key) });
  assert.is(err.details?.[0].field, 'certificate');
  assert.match(err.details![0].message, /^is not valid until /);
  const soon = await future(60_000);
  assert.is(validateImportedCa({ certificate: soon.pem, privateKey: keyPem(key) }, now).certificate.isCA, true);
});

test('a certificate that is not a CA is rejected on certificate', () => {
  const key = ecKey();
  const out = openssl(['req', '-x509', '-key', 'key.pem', '-subj', '/CN=server', '-days', '30', '-addext', 'basicConstraints=critical,CA:FALSE'], { 'key.pem': keyPem(key) });
  const err = rejected({ certificate: out.output, privateKey: keyPem(key) });
  assert.equal(err.details, [{ field: 'certificate', message: 'is not a CA certificate (basicConstraints CA:TRUE is missing)' }]);
});

test('a CA certificate whose key usage forbids certificate signing is rejected', () => {
  const pair = opensslCa(['-addext', 'keyUsage=critical,digitalSignature']);
  const err = rejected(pair);
  assert.equal(err.details, [{ field: 'certificate', message: 'key usage does not allow signing certificates (keyCertSign)' }]);
});

test('garbage, truncated or swapped PEM is rejected on the right field without echoing it', () => {
  const pair = opensslCa();
  const garbage = rejected({ certificate: 'hello', privateKey: 'not a key either' });
  assert.equal(
    garbage.details?.map((d) => d.field),
    ['certificate', 'privateKey'],
  );
  assert.not.match(garbage.message, 'not a key either');

  const broken = pair.certificate.replace(/\n[A-Za-z0-9+/]{20}/, '\nAAAA');
  assert.is(rejected({ certificate: broken, privateKey: pair.privateKey }).details?.[0].field, 'certificate');

  const swapped = rejected({ certificate: pair.privateKey, privateKey: pair.certificate });
  assert.equal(swapped.details, [
    { field: 'certificate', message: 'not a PEM certificate (found a PRIVATE KEY block instead)' },
    { field: 'privateKey', message: 'is not a PEM private key (found a CERTIFICATE block instead)' },
  ]);
  for (const d of swapped.details ?? []) assert.not.match(d.message, pair.privateKey.slice(40, 80));

  const missing = rejected({ certificate: undefined, privateKey: 42 });
  assert.equal(missing.details?.map((d) => d.field), ['certificate', 'privateKey']);
});

test('an encrypted private key is rejected with a hint to import it decrypted', () => {
  const pair = opensslCa();
  const key = ecKey();
  const encrypted = key.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'pw' }).toString();
  const err = rejected({ certificate: pair.certificate, privateKey: encrypted });
  assert.is(err.details?.[0].field, 'privateKey');
  assert.match(err.details![0].message, 'is encrypted');
});

test('a key of an unsupported kind is rejected on privateKey', () => {
  const key = generateKeyPairSync('ed448').privateKey;
  const err = rejected({ certificate: opensslCa().certificate, privateKey: keyPem(key) });
  assert.is(err.details?.[0].field, 'privateKey');
  assert.match(err.details![0].message, 'unsupported key type');
});

test.run();
