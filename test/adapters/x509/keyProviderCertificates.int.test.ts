import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KeyProvider, KeySpec } from '../../../domain/keys/keyProvider.ts';
import { createDatabaseKeyProvider } from '../../../adapters/keyProviders/databaseKeyProvider.ts';
import { verifyKeyEncryptionKey } from '../../../adapters/keyProviders/databaseKeyEncryptionCheck.ts';
import { createSelfSignedCa, issueCertificate } from '../../../adapters/x509/certificateBuilder.ts';
import { keyProviderSigner } from '../../../adapters/x509/certificateSigner.ts';
import { buildCrl } from '../../../adapters/x509/crlBuilder.ts';
import { parseCertificatePem } from '../../../adapters/x509/certificateInfo.ts';
import { freshDatabase, type FreshDatabase } from '../../helpers/postgres.ts';
import { openssl } from './opensslCli.ts';

const migration = readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../migrations/0100_key_material.sql'), 'utf8');
const day = 24 * 3600 * 1000;
const now = Date.now();

interface Ctx {
  db: FreshDatabase;
  provider: KeyProvider;
}
const pki = suite<Ctx>('certificates signed by key-provider keys');

pki.before(async (ctx) => {
  ctx.db = await freshDatabase();
  await ctx.db.pool.query(migration);
  const kek = randomBytes(32).toString('hex');
  await verifyKeyEncryptionKey(ctx.db.pool, kek);
  ctx.provider = createDatabaseKeyProvider({ pool: ctx.db.pool, keyEncryptionKey: kek });
});

pki.after(async (ctx) => {
  await ctx.db.close();
});

const caSpecs: KeySpec[] = [
  { algorithm: 'EC', curve: 'P-256' },
  { algorithm: 'EC', curve: 'P-384' },
  { algorithm: 'EC', curve: 'P-521' },
  { algorithm: 'EC', curve: 'secp256k1' },
  { algorithm: 'RSA', keySize: 2048 },
  { algorithm: 'ED25519' },
];

for (const caSpec of caSpecs) {
  const label = caSpec.curve ?? (caSpec.keySize ? `RSA ${caSpec.keySize}` : 'Ed25519');
  pki(`${label} CA key in the provider: organization CA, TLS leaf and CRL all verify with openssl`, async ({ provider }) => {
    const caKey = await provider.generateKey(`org1 ca ${label}`, caSpec);
    const signer = keyProviderSigner(provider, caKey.handle, caSpec, caKey.publicKeyPem);
    const ca = await createSelfSignedCa(
      { subject: { commonName: 'tlsca.org1.example.com', organization: 'Org1', country: 'US' }, notBefore: new Date(now - day), notAfter: new Date(now + 3650 * day) },
      signer,
    );
    const leafSpec: KeySpec = { algorithm: 'EC', curve: 'P-256' };
    const leafKey = await provider.generateKey('peer0 tls', leafSpec);
    const leaf = await issueCertificate(
      {
        subject: { commonName: 'peer0.org1.example.com', organization: 'Org1', organizationalUnits: ['peer'] },
        notBefore: new Date(now - day),
        notAfter: new Date(now + 365 * day),
        dnsNames: ['peer0.org1.example.com', 'localhost'],
        ipAddresses: ['127.0.0.1'],
        keyUsages: ['digitalSignature', 'keyEncipherment'],
        extendedKeyUsages: ['serverAuth', 'clientAuth'],
      },
      leafKey.publicKeyPem,
      { certificatePem: ca.pem, signer },
    );
    const info = parseCertificatePem(leaf.pem);
    assert.is(info.publicKeyPem, leafKey.publicKeyPem);
    assert.ok(new X509Certificate(leaf.pem).verify(new X509Certificate(ca.pem).publicKey));

    const crl = await buildCrl(
      { thisUpdate: new Date(now - 1000), nextUpdate: new Date(now + 7 * day), crlNumber: 1, revoked: [{ serialNumber: info.serialNumber, revokedAt: new Date(now - 500), reason: 'superseded' }] },
      { certificatePem: ca.pem, signer },
    );
    const files = { 'ca.pem': ca.pem, 'leaf.pem': leaf.pem, 'crl.pem': crl.pem };
    const chain = openssl(['verify', '-CAfile', 'ca.pem', 'leaf.pem'], files);
    assert.ok(chain.ok, chain.output);
    const crlCheck = openssl(['crl', '-in', 'crl.pem', '-CAfile', 'ca.pem', '-noout'], files);
    assert.match(crlCheck.output, 'verify OK');
    const revoked = openssl(['verify', '-crl_check', '-CAfile', 'ca.pem', '-CRLfile', 'crl.pem', 'leaf.pem'], files);
    assert.not.ok(revoked.ok);
    assert.match(revoked.output, 'certificate revoked');
  });
}

pki.run();
