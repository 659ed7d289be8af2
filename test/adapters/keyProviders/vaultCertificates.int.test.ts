import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import { createSelfSignedCa, issueCertificate } from '../../../adapters/x509/certificateBuilder.ts';
import { keyProviderSigner, privateKeySigner } from '../../../adapters/x509/certificateSigner.ts';
import { createVaultKeyProvider, type VaultKeyProvider } from '../../../adapters/keyProviders/vaultKeyProvider.ts';
import type { KeySpec } from '../../../domain/keys/keyProvider.ts';
import { AppError, UnavailableError } from '../../../domain/shared/errors.ts';
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

test('a Vault behind TLS with a private CA: trusted with caCert, refused with a clear message without it', async () => {
  const caPair = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const caSigner = privateKeySigner(caPair.privateKey);
  const ca = await createSelfSignedCa({ subject: { commonName: 'vault test CA' }, notBefore: now, notAfter: later }, caSigner);
  const serverPair = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const serverCert = await issueCertificate(
    { subject: { commonName: 'vault' }, notBefore: new Date(Date.now() - 60_000), notAfter: later, ipAddresses: ['127.0.0.1'], extendedKeyUsages: ['serverAuth'] },
    serverPair.publicKey.export({ format: 'pem', type: 'spki' }) as string,
    { certificatePem: ca.pem, signer: caSigner },
  );
  const vault = await startVaultStandin({ initialized: true, tls: { key: serverPair.privateKey.export({ format: 'pem', type: 'pkcs8' }) as string, cert: serverCert.pem } });
  try {
    assert.match(vault.address, /^https:/);
    const conn = { address: vault.address, token: vault.rootToken!, transitPath: 'transit', kvPath: 'secret' };
    const trusted = createVaultKeyProvider({ ...conn, caCertPem: ca.pem });
    assert.is((await trusted.generateKey('over-tls', { algorithm: 'EC', curve: 'P-256' })).handle, 'over-tls');
    let caught: unknown;
    try {
      await createVaultKeyProvider(conn).generateKey('no-ca', { algorithm: 'EC', curve: 'P-256' });
    } catch (err) {
      caught = err;
    }
    assert.instance(caught, UnavailableError);
    assert.match((caught as AppError).message, /TLS certificate this server does not trust .*Set caCert/);
    const status = await createVaultKeyProvider(conn).status();
    assert.equal([status.vault_reachable, /Set caCert/.test(String(status.detail))], [false, true]);
  } finally {
    await vault.close();
  }
});

test.run();
