import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { X509Certificate } from 'node:crypto';
import { createSelfSignedCa, issueCertificate } from '../../../adapters/x509/certificateBuilder.ts';
import { keyProviderSigner } from '../../../adapters/x509/certificateSigner.ts';
import { createAwsKmsKeyProvider, type AwsKmsKeyProvider } from '../../../adapters/keyProviders/awsKmsKeyProvider.ts';
import type { KeySpec } from '../../../domain/keys/keyProvider.ts';
import { startKmsStandin, type KmsStandin } from '../../standins/kmsStandin.ts';

// An organization CA whose key lives in AWS KMS signs certificates that any X.509 verifier accepts.
const test = suite<{ kms: KmsStandin; provider: AwsKmsKeyProvider }>('certificates signed by AWS KMS keys', {} as { kms: KmsStandin; provider: AwsKmsKeyProvider });

test.before(async (ctx) => {
  ctx.kms = await startKmsStandin();
  ctx.provider = createAwsKmsKeyProvider(
    { region: ctx.kms.region, aliasPrefix: 'alias/lnm/', endpointUrl: ctx.kms.endpoint, auth: { method: 'STATIC', ...ctx.kms.credentials } },
    { maxAttempts: 1 },
  );
});
test.after(async (ctx) => ctx.kms.close());

const now = new Date('2026-01-01T00:00:00Z');
const later = new Date('2036-01-01T00:00:00Z');

for (const spec of [
  { algorithm: 'EC', curve: 'P-256' },
  { algorithm: 'EC', curve: 'P-384' },
  { algorithm: 'EC', curve: 'secp256k1' },
  { algorithm: 'RSA', keySize: 2048 },
] as KeySpec[]) {
  const label = spec.curve ?? `RSA${spec.keySize}`;
  test(`a ${label} CA in KMS self-signs and issues a TLS certificate for a KMS key; both verify`, async ({ provider }) => {
    const caKey = await provider.generateKey(`org1/ca-${label}`, spec);
    const signer = keyProviderSigner(provider, caKey.handle, spec, caKey.publicKeyPem);
    const ca = await createSelfSignedCa({ subject: { commonName: `org1 CA ${label}`, organization: 'org1' }, notBefore: now, notAfter: later }, signer);
    const caCert = new X509Certificate(ca.pem);
    assert.ok(caCert.verify(caCert.publicKey), 'self-signature verifies');
    const tlsKey = await provider.generateKey(`org1/peer0-tls-${label}`, { algorithm: 'EC', curve: 'P-256' });
    const leaf = await issueCertificate({ subject: { commonName: 'peer0.org1' }, notBefore: now, notAfter: later, dnsNames: ['peer0.org1'] }, tlsKey.publicKeyPem, { certificatePem: ca.pem, signer });
    const leafCert = new X509Certificate(leaf.pem);
    assert.ok(leafCert.verify(caCert.publicKey));
    assert.ok(leafCert.checkIssued(caCert));
  });
}

test.run();
