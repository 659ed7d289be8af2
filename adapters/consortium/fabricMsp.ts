// The files Fabric reads for an identity, as NodeFile[] (paths relative to a node directory):
//
//   nodeMspFiles(material)              a peer's or orderer's MSP and TLS folders:
//       msp/cacerts/ca.pem  msp/tlscacerts/tlsca.pem  msp/signcerts/cert.pem
//       msp/keystore/priv_sk (secret)  msp/config.yaml (NodeOUs)
//       tls/ca.crt  tls/server.crt  tls/server.key (secret)
//   clientMspFiles(org, identity, tls?) an admin's or client's MSP folder for CLI tools (peer CLI,
//       osnadmin): msp/... as above, plus tls/ca.crt, tls/client.crt, tls/client.key when given
//   checkNodeMaterial(material, hosts?) refuses material Fabric would fail on later with an obscure
//       message: PEMs that do not parse, a key that is not its certificate's, a certificate not
//       issued by the organization's CA, a TLS certificate without SANs for `hosts`
//       (ValidationError naming the field; never the key text)
//   writeFabricFiles(dir, files)        writes such files outside a node engine (CLI folders)
//
// NodeOUs are on, so the role (peer, orderer, admin, client) is the certificate's OU and no
// admincerts folder is needed (Fabric 2.x).
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import path from 'node:path';
import type { NodeFile } from '../../domain/nodes/nodeEngine.ts';
import type { ConsortiumNodeMaterial, OrganizationMsp } from '../../domain/consortium/consortiumPorts.ts';
import { ValidationError } from '../../domain/shared/errors.ts';

/** Paths inside a node (or client) directory. */
export const mspPaths = {
  dir: 'msp',
  caCert: 'msp/cacerts/ca.pem',
  tlsCaCert: 'msp/tlscacerts/tlsca.pem',
  signCert: 'msp/signcerts/cert.pem',
  // Fabric's keystore finds the key by its SKI; the name only has to end in _sk.
  key: 'msp/keystore/priv_sk',
  config: 'msp/config.yaml',
  tlsCa: 'tls/ca.crt',
  tlsServerCert: 'tls/server.crt',
  tlsServerKey: 'tls/server.key',
  tlsClientCert: 'tls/client.crt',
  tlsClientKey: 'tls/client.key',
} as const;

const OU_ROLES = [
  ['ClientOUIdentifier', 'client'],
  ['PeerOUIdentifier', 'peer'],
  ['AdminOUIdentifier', 'admin'],
  ['OrdererOUIdentifier', 'orderer'],
] as const;

/** msp/config.yaml: NodeOUs on, each role an OU of certificates issued by cacerts/ca.pem. */
export function nodeOuConfigYaml(): string {
  const lines = ['NodeOUs:', '  Enable: true'];
  for (const [key, ou] of OU_ROLES) lines.push(`  ${key}:`, '    Certificate: cacerts/ca.pem', `    OrganizationalUnitIdentifier: ${ou}`);
  return lines.join('\n') + '\n';
}

function mspFolder(org: OrganizationMsp, certPem: string, keyPem: string): NodeFile[] {
  return [
    { path: mspPaths.caCert, content: org.signCaCertPem },
    { path: mspPaths.tlsCaCert, content: org.tlsCaCertPem },
    { path: mspPaths.signCert, content: certPem },
    { path: mspPaths.key, content: keyPem, secret: true, mode: 0o600 },
    { path: mspPaths.config, content: nodeOuConfigYaml() },
  ];
}

export function nodeMspFiles(material: ConsortiumNodeMaterial): NodeFile[] {
  return [
    ...mspFolder(material.organization, material.identityCertPem, material.identityKeyPem),
    { path: mspPaths.tlsCa, content: material.organization.tlsCaCertPem },
    { path: mspPaths.tlsServerCert, content: material.tlsCertPem },
    { path: mspPaths.tlsServerKey, content: material.tlsKeyPem, secret: true, mode: 0o600 },
  ];
}

export function clientMspFiles(org: OrganizationMsp, identity: { certPem: string; keyPem: string }, tls?: { certPem: string; keyPem: string }): NodeFile[] {
  return [
    ...mspFolder(org, identity.certPem, identity.keyPem),
    { path: mspPaths.tlsCa, content: org.tlsCaCertPem },
    ...(tls
      ? [
          { path: mspPaths.tlsClientCert, content: tls.certPem },
          { path: mspPaths.tlsClientKey, content: tls.keyPem, secret: true, mode: 0o600 },
        ]
      : []),
  ];
}

export async function writeFabricFiles(dir: string, files: NodeFile[]): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  for (const f of files) {
    const target = path.join(dir, f.path);
    await mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
    const mode = f.mode ?? (f.secret ? 0o600 : 0o644);
    await writeFile(target, f.content, { mode });
    await chmod(target, mode);
  }
}

function certificate(pem: string, field: string): X509Certificate {
  try {
    return new X509Certificate(pem);
  } catch {
    throw new ValidationError(`The ${field} is not a PEM certificate.`, [{ field, message: 'not a PEM certificate' }]);
  }
}

function checkPair(certPem: string, keyPem: string, certField: string, keyField: string, issuer: X509Certificate, issuerField: string): void {
  const cert = certificate(certPem, certField);
  let key;
  try {
    key = createPrivateKey(keyPem);
  } catch {
    // Never echo the text: it is (or was meant to be) a private key.
    throw new ValidationError(`The ${keyField} is not a PEM private key.`, [{ field: keyField, message: 'not a PEM private key' }]);
  }
  if (key.asymmetricKeyType !== 'ec') throw new ValidationError(`The ${keyField} is not an EC key; Fabric's MSP signs with ECDSA.`, [{ field: keyField, message: 'not an EC key' }]);
  if (!cert.checkPrivateKey(key)) throw new ValidationError(`The ${keyField} does not belong to the ${certField}.`, [{ field: keyField, message: `not the key of the ${certField}` }]);
  if (!cert.verify(issuer.publicKey)) throw new ValidationError(`The ${certField} was not issued by the organization's ${issuerField}.`, [{ field: certField, message: `not issued by the ${issuerField}` }]);
}

/** `hosts`: names the TLS certificate must be valid for (fabricNodeConfig.ts nodeTlsHosts). */
export function checkNodeMaterial(material: ConsortiumNodeMaterial, hosts: string[] = []): void {
  const signCa = certificate(material.organization.signCaCertPem, 'signCaCertPem');
  const tlsCa = certificate(material.organization.tlsCaCertPem, 'tlsCaCertPem');
  checkPair(material.identityCertPem, material.identityKeyPem, 'identityCertPem', 'identityKeyPem', signCa, 'signing CA');
  checkPair(material.tlsCertPem, material.tlsKeyPem, 'tlsCertPem', 'tlsKeyPem', tlsCa, 'TLS CA');
  const tls = certificate(material.tlsCertPem, 'tlsCertPem');
  // Clients (and this service, on loopback) check the name they dial against the SANs.
  const missing = hosts.filter((h) => (isIP(h) ? !tls.checkIP(h) : !tls.checkHost(h)));
  if (missing.length) throw new ValidationError(`The tlsCertPem is not valid for ${missing.join(', ')}, which the node answers on.`, [{ field: 'tlsCertPem', message: `SANs lack ${missing.join(', ')}` }]);
}
