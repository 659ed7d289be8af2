import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createPublicKey, generateKeyPairSync, X509Certificate } from 'node:crypto';
import { createSelfSignedCa, issueCertificate } from '../../../adapters/x509/certificateBuilder.ts';
import { privateKeySigner } from '../../../adapters/x509/certificateSigner.ts';
import { certificateKeyUsages, parseCertificatePem } from '../../../adapters/x509/certificateInfo.ts';
import { nodeIdentityProfile, nodeTlsProfile, organizationCaProfile, tlsCaProfile } from '../../../adapters/x509/certificateProfiles.ts';
import { openssl } from './opensslCli.ts';

const org = { domain: 'org1.example.com', country: 'US', locality: 'San Francisco' };

function ec() {
  const privateKey = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
  return { privateKey, publicKeyPem: createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString() };
}

test('an organization gets a signing CA and a TLS CA; a peer gets an identity and a TLS certificate that verify for their purpose', async () => {
  const now = new Date();
  const caKey = ec();
  const tlsCaKey = ec();
  const ca = await createSelfSignedCa(organizationCaProfile(org, now), privateKeySigner(caKey.privateKey));
  const tlsCa = await createSelfSignedCa(tlsCaProfile(org, now), privateKeySigner(tlsCaKey.privateKey));
  const peer = { commonName: 'peer0.org1.example.com', role: 'peer' as const, hosts: ['localhost', '127.0.0.1'] };
  const identity = await issueCertificate(nodeIdentityProfile(org, peer, now), ec().publicKeyPem, { certificatePem: ca.pem, signer: privateKeySigner(caKey.privateKey) });
  const tls = await issueCertificate(nodeTlsProfile(org, peer, now), ec().publicKeyPem, { certificatePem: tlsCa.pem, signer: privateKeySigner(tlsCaKey.privateKey) });

  assert.is(parseCertificatePem(ca.pem).subject, 'C=US, L=San Francisco, O=org1.example.com, CN=ca.org1.example.com');
  assert.is(parseCertificatePem(tlsCa.pem).commonName, 'tlsca.org1.example.com');
  assert.is(parseCertificatePem(identity.pem).subject, 'C=US, L=San Francisco, O=org1.example.com, OU=peer, CN=peer0.org1.example.com');
  assert.equal(certificateKeyUsages(identity.pem), ['digitalSignature']);
  assert.equal(parseCertificatePem(tls.pem).subjectAltNames, ['DNS:peer0.org1.example.com', 'DNS:localhost', 'IP Address:127.0.0.1']);
  assert.ok(new Date(parseCertificatePem(tls.pem).notBefore) < now, 'backdated for clock skew');

  const files = { 'ca.pem': ca.pem, 'tlsca.pem': tlsCa.pem, 'id.pem': identity.pem, 'tls.pem': tls.pem };
  const server = openssl(['verify', '-purpose', 'sslserver', '-CAfile', 'tlsca.pem', 'tls.pem'], files);
  assert.ok(server.ok, server.output);
  assert.ok(openssl(['verify', '-purpose', 'sslclient', '-CAfile', 'tlsca.pem', 'tls.pem'], files).ok);
  assert.ok(openssl(['verify', '-CAfile', 'ca.pem', 'id.pem'], files).ok);
  // Issued by the signing CA, an identity certificate does not chain to the TLS CA.
  assert.not.ok(openssl(['verify', '-CAfile', 'tlsca.pem', 'id.pem'], files).ok);
  assert.is(new X509Certificate(tls.pem).checkHost('localhost'), 'localhost');
});

test.run();
