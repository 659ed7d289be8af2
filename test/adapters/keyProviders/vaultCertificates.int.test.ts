import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { X509Certificate } from 'node:crypto';
import { createSelfSignedCa, issueCertificate } from '../../../adapters/x509/certificateBuilder.ts';
import { keyProviderSigner } from '../../../adapters/x509/certificateSigner.ts';
import { createVaultKeyProvider, type VaultKeyProvider } from '../../../adapters/keyProviders/vaultKeyProvider.ts';
import type { KeySpec } from '../../../domain/keys/keyProvider.ts';
import { startVaultStandin, type VaultStandin } from '../../standins/vaultStandin.ts';

// What the provider is for: an organization CA whose key lives in Vault signs certificates that
// any X.509 verifier accepts.
const test = suite<{ vault: VaultStandin; provider: VaultKeyProvider }>('certificates signed by Vault transit keys', {} as { vault: VaultStandin; provider: VaultKeyProvider });

test.before(async (ctx) => {
  ctx.vault = await startVaultStandin({ initialized: true });
  ctx.provider = createVaultKeyProvider({ address: ctx.vault.address, token: ctx.vault.rootToken!, transitPath: 'transit', kvPath: 'secret' });
});
test.after(async (ctx) => ctx.vault.close());

const now = new Date('2026-01-01T00:00:00Z');
const later = new Date('2036-01-01T00:00:00Z');

for (const spec of [
  { algorithm: 'EC', curve: 'P-256' },
  { algorithm: 'EC', curve: 'P-384' },
  { algorithm: 'EC', curve: 'P-521' },
  { algorithm: 'RSA', keySize: 2048 },
] as KeySpec[]) {
  const label = spec.curve ?? `RSA${spec.keySize}`;
  test(`a ${label} CA in Vault self-signs, issues a TLS certificate for a Vault key, and both verify; the CA certificate is kept in KV`, async ({ provider }) => {
    const caKey = await provider.generateKey(`org1-ca-${label}`, spec);
    const signer = keyProviderSigner(provider, caKey.handle, spec, caKey.publicKeyPem);
    const ca = await createSelfSignedCa({ subject: { commonName: `org1 CA ${label}`, organization: 'org1' }, notBefore: now, notAfter: later }, signer);
    const caCert = new X509Certificate(ca.pem);
    assert.ok(caCert.ca);
    assert.ok(caCert.verify(caCert.publicKey), 'self-signature verifies');

    const tlsKey = await provider.generateKey(`peer0-tls-${label}`, { algorithm: 'EC', curve: 'P-256' });
    const leaf = await issueCertificate(
      { subject: { commonName: 'peer0.org1' }, notBefore: now, notAfter: later, dnsNames: ['peer0.org1'], extendedKeyUsages: ['serverAuth', 'clientAuth'] },
      tlsKey.publicKeyPem,
      { certificatePem: ca.pem, signer },
    );
    const leafCert = new X509Certificate(leaf.pem);
    assert.ok(leafCert.verify(caCert.publicKey), 'leaf signature verifies with the CA key');
    assert.ok(leafCert.checkIssued(caCert));

    await provider.putCertificate(caKey.handle, ca.pem);
    assert.is(await provider.getCertificate(caKey.handle), ca.pem);
  });
}

test.run();
