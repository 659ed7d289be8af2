// Real Fabric 2.5 nodes for adapter tests: throw-away organizations and peers/orderers started
// from the Fabric programs the tests find (helpers/programs.ts) on loopback with free ports.
//
// Usage (e.g. in a channel test):
//   const org = await testOrganization('Org1MSP', 'org1.example.com');
//   const fabric = await startFabricNodes();              // runtime over a temp data dir
//   const orderer = await fabric.orderer(org, 'orderer0'); // started; /healthz OK
//   const peer = await fabric.peer(org, 'peer0');
//   orderer.target.node.config.adminPort / .port, peer.target.node.config.port, ...
//   orderer.material.tlsCertPem is both its server and its cluster client certificate: a raft
//     consenter is { host: '127.0.0.1', port: config.port, clientTlsCertPem = serverTlsCertPem = it }
//   Certificates carry the host name, localhost and 127.0.0.1 as SANs: dial 127.0.0.1.
//   org.adminTls       -> TlsClientIdentity for the orderer's admin endpoint (osnadmin)
//   org.adminSigner    -> FabricSigner (admin identity, low-S ECDSA) for proposals and config updates
//   await org.writeAdminMsp(dir) -> an admin MSP folder (+ tls/client.*) for the peer CLI / osnadmin
//   peerCliEnv(org, peer, dir) -> env to run fabricProgram('peer') as that admin against `peer`
//   await ccaasPackage(dir, 'basic_1.0', 'host:port') -> a chaincode-as-a-service package file
//   fabricMissing, fabricProgram('osnadmin'), fabricConfigDir() -> helpers/programs.ts
//   finally: await fabric.removeAll()                  // stops and deletes every node it started
// A before hook may throw: a suite made through requires/requiresAll (helpers/requirements.ts)
// fails each of its tests with that error (uvu itself drops it; test/uvuEntry.ts then only counts).
// Everything is in memory (node:crypto P-256 keys, adapters/x509 certificates): no database.
import { p256 } from '@noble/curves/nist';
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fabricConfigDir, fabricServiceEnv } from './programs.ts';
export { fabricMissing, fabricProgram, fabricConfigDir } from './programs.ts';
import { createSelfSignedCa, issueCertificate } from '../../adapters/x509/certificateBuilder.ts';
import { privateKeySigner, type CertificateSigner } from '../../adapters/x509/certificateSigner.ts';
import { nodeIdentityProfile, nodeTlsProfile, organizationCaProfile, tlsCaProfile, type NodeRole, type OrganizationNaming } from '../../adapters/x509/certificateProfiles.ts';
import { clientMspFiles, mspPaths, writeFabricFiles } from '../../adapters/consortium/fabricMsp.ts';
import { nodeTlsHosts } from '../../adapters/consortium/fabricNodeConfig.ts';
import { createConsortiumNodeRuntime, type ConsortiumNodeRuntimeOptions } from '../../adapters/consortium/consortiumNodeRuntime.ts';
import { freePort } from '../../adapters/postgres/embeddedPostgres.ts';
import type { ConsortiumNodeMaterial, ConsortiumNodeRuntime, ConsortiumNodeTarget, FabricSigner, OrganizationMsp, TlsClientIdentity } from '../../domain/consortium/consortiumPorts.ts';
import type { ConsortiumNodeCreatedData, ConsortiumNodeRole } from '../../domain/consortium/consortiumNode.ts';

const execFileAsync = promisify(execFile);

/** Environment of a runtime that finds Fabric as the tests do (LNM_FABRIC_BIN or PATH, and the config). */
export function fabricTestEnv(extra: Record<string, string> = {}): Record<string, string | undefined> {
  return { PATH: process.env.PATH, ...fabricServiceEnv(), ...extra };
}

const pem = (k: KeyObject) => k.export({ type: 'pkcs8', format: 'pem' }).toString();
const spki = (k: KeyObject) => createPublicKey(k).export({ type: 'spki', format: 'pem' }).toString();
const newKey = () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;

export interface IssuedPair {
  certPem: string;
  keyPem: string;
}

export interface TestOrganization {
  msp: OrganizationMsp;
  domain: string;
  signCa: { certPem: string; signer: CertificateSigner };
  tlsCa: { certPem: string; signer: CertificateSigner };
  /** The admin's signing identity (OU admin) and a TLS client certificate of the TLS CA. */
  admin: IssuedPair;
  adminTls: TlsClientIdentity;
  adminSigner: FabricSigner;
  /** Identity (OU = role) and TLS certificates for a node or client; TLS SANs: hostname, localhost, 127.0.0.1, extra hosts. */
  issue(commonName: string, role: NodeRole, hosts?: string[]): Promise<{ identity: IssuedPair; tls: IssuedPair }>;
  nodeMaterial(hostname: string, role: ConsortiumNodeRole, hosts?: string[]): Promise<ConsortiumNodeMaterial>;
  /** Material for a node record: TLS SANs are the names the runtime requires (nodeTlsHosts). */
  materialFor(node: ConsortiumNodeCreatedData): Promise<ConsortiumNodeMaterial>;
  /** Writes <dir>/msp (admin identity) and <dir>/tls/{ca,client}.* for CLI tools; returns dir. */
  writeAdminMsp(dir: string): Promise<string>;
}

// secp256r1 order: Fabric refuses signatures with s > n/2.
const P256_N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;

/** DER ECDSA over SHA-256, s normalized to the lower half as Fabric requires. */
export function lowSSign(key: KeyObject, message: Uint8Array): Uint8Array {
  const raw = sign('sha256', message, { key, dsaEncoding: 'ieee-p1363' });
  const r = BigInt('0x' + raw.subarray(0, 32).toString('hex'));
  let s = BigInt('0x' + raw.subarray(32).toString('hex'));
  if (s > P256_N / 2n) s = P256_N - s;
  const int = (n: bigint) => {
    let b = Buffer.from(n.toString(16).padStart(64, '0'), 'hex');
    while (b.length > 1 && b[0] === 0 && !(b[1] & 0x80)) b = b.subarray(1);
    if (b[0] & 0x80) b = Buffer.concat([Buffer.from([0]), b]);
    return Buffer.concat([Buffer.from([0x02, b.length]), b]);
  };
  const body = Buffer.concat([int(r), int(s)]);
  return Uint8Array.from(Buffer.concat([Buffer.from([0x30, body.length]), body]));
}

export async function testOrganization(mspId: string, domain: string, now = new Date()): Promise<TestOrganization> {
  const naming: OrganizationNaming = { domain };
  const caKey = newKey();
  const tlsCaKey = newKey();
  const signCa = { certPem: (await createSelfSignedCa(organizationCaProfile(naming, now), privateKeySigner(caKey))).pem, signer: privateKeySigner(caKey) };
  const tlsCa = { certPem: (await createSelfSignedCa(tlsCaProfile(naming, now), privateKeySigner(tlsCaKey))).pem, signer: privateKeySigner(tlsCaKey) };

  async function issue(commonName: string, role: NodeRole, hosts: string[] = []) {
    const idKey = newKey();
    const tlsKey = newKey();
    const node = { commonName, role, hosts: [commonName, 'localhost', '127.0.0.1', ...hosts] };
    const identity = await issueCertificate(nodeIdentityProfile(naming, node, now), spki(idKey), { certificatePem: signCa.certPem, signer: signCa.signer });
    const tls = await issueCertificate(nodeTlsProfile(naming, node, now), spki(tlsKey), { certificatePem: tlsCa.certPem, signer: tlsCa.signer });
    return { identity: { certPem: identity.pem, keyPem: pem(idKey) }, tls: { certPem: tls.pem, keyPem: pem(tlsKey) } };
  }

  const adminIssued = await issue(`admin.${domain}`, 'admin');
  const msp: OrganizationMsp = { mspId, signCaCertPem: signCa.certPem, tlsCaCertPem: tlsCa.certPem, adminCertPem: adminIssued.identity.certPem };
  const adminKey = createPrivateKey(adminIssued.identity.keyPem);
  async function nodeMaterial(hostname: string, role: ConsortiumNodeRole, hosts: string[] = []): Promise<ConsortiumNodeMaterial> {
    const { identity, tls } = await issue(hostname, role, hosts);
    return { organization: msp, identityCertPem: identity.certPem, identityKeyPem: identity.keyPem, tlsCertPem: tls.certPem, tlsKeyPem: tls.keyPem };
  }
  return {
    msp,
    domain,
    signCa,
    tlsCa,
    admin: adminIssued.identity,
    adminTls: { certificatePem: adminIssued.tls.certPem, privateKeyPem: adminIssued.tls.keyPem },
    adminSigner: { mspId, certificatePem: adminIssued.identity.certPem, sign: async (m) => lowSSign(adminKey, m) },
    issue,
    nodeMaterial,
    materialFor: (node) => nodeMaterial(node.config.hostname, node.role, nodeTlsHosts(node.config)),
    async writeAdminMsp(dir) {
      await writeFabricFiles(dir, clientMspFiles(msp, adminIssued.identity, adminIssued.tls));
      return dir;
    },
  };
}

// Random start: docker containers are named lnm-node-<id> on one Docker Engine that parallel test
// runs (and other worktrees) share.
/**
 * Environment for Fabric's own peer CLI acting as the organization's admin against `peer`
 * (write the admin folder with org.writeAdminMsp(adminDir) first).
 */
export function peerCliEnv(org: TestOrganization, peer: { target: ConsortiumNodeTarget }, adminDir: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    FABRIC_CFG_PATH: fabricConfigDir(),
    CORE_PEER_LOCALMSPID: org.msp.mspId,
    CORE_PEER_MSPCONFIGPATH: path.join(adminDir, mspPaths.dir),
    CORE_PEER_ADDRESS: `127.0.0.1:${peer.target.node.config.port}`,
    CORE_PEER_TLS_ENABLED: 'true',
    CORE_PEER_TLS_ROOTCERT_FILE: path.join(adminDir, mspPaths.tlsCa),
  };
}

/** A chaincode-as-a-service package (metadata.json type ccaas + code.tar.gz with connection.json) at <dir>/<label>.tgz. */
export async function ccaasPackage(dir: string, label: string, address: string): Promise<string> {
  const src = path.join(dir, `${label}-src`);
  await mkdir(src, { recursive: true });
  await writeFile(path.join(src, 'connection.json'), JSON.stringify({ address, dial_timeout: '10s', tls_required: false }));
  await writeFile(path.join(dir, `${label}-metadata.json`), JSON.stringify({ type: 'ccaas', label }));
  await execFileAsync('tar', ['-C', src, '-czf', path.join(src, 'code.tar.gz'), 'connection.json']);
  const out = path.join(dir, `${label}.tgz`);
  await execFileAsync('tar', ['-czf', out, '--transform', `s|^.*-metadata.json$|metadata.json|`, '-C', dir, `${label}-metadata.json`, '-C', src, 'code.tar.gz']);
  return out;
}

let nextNodeId = 100_000 + Math.floor(Math.random() * 800_000);

/** A node record as the domain would have it, with free loopback ports. */
export async function testNodeRecord(org: TestOrganization, role: ConsortiumNodeRole, name: string, opts: { nodeId?: number; engine?: 'process' | 'docker'; organizationId?: number } = {}): Promise<ConsortiumNodeCreatedData> {
  const hostname = `${name}.${org.domain}`;
  const port = await freePort();
  const common = { listenAddress: '127.0.0.1', hostname, externalEndpoint: `127.0.0.1:${port}`, domainNames: ['127.0.0.1', 'localhost'], port, operationsPort: await freePort() };
  const config = role === 'peer' ? { ...common, chaincodePort: await freePort() } : { ...common, adminPort: await freePort() };
  return {
    nodeId: opts.nodeId ?? nextNodeId++,
    name,
    platform: 'CONSORTIUM',
    nodeType: role === 'peer' ? 'CONSORTIUM_PEER' : 'CONSORTIUM_ORDERER',
    role,
    organizationId: opts.organizationId ?? 1,
    mspId: org.msp.mspId,
    networkId: null,
    client: 'fabric',
    engine: opts.engine ?? 'process',
    config,
    identityKeyId: 0,
    tlsKeyId: 0,
    resources: null,
    at: new Date().toISOString(),
  };
}

export function testTarget(org: TestOrganization, node: ConsortiumNodeCreatedData): ConsortiumNodeTarget {
  return { node, organization: { organizationId: node.organizationId, name: org.domain, mspId: org.msp.mspId } };
}

export interface StartedFabricNode {
  target: ConsortiumNodeTarget;
  material: ConsortiumNodeMaterial;
}

export interface FabricTestNodes {
  runtime: ConsortiumNodeRuntime;
  dataDir: string;
  peer(org: TestOrganization, name: string, opts?: { engine?: 'process' | 'docker' }): Promise<StartedFabricNode>;
  orderer(org: TestOrganization, name: string, opts?: { engine?: 'process' | 'docker' }): Promise<StartedFabricNode>;
  /** Waits until /healthz says OK (throws the last reason after `ms`). */
  healthy(node: StartedFabricNode, ms?: number): Promise<void>;
  removeAll(): Promise<void>;
}

/** A runtime over a fresh temp data dir that starts nodes and remembers them for removeAll(). */
export async function startFabricNodes(options: Partial<ConsortiumNodeRuntimeOptions> = {}): Promise<FabricTestNodes> {
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(tmpdir(), 'lnm-fabric-')));
  const runtime = createConsortiumNodeRuntime({ env: fabricTestEnv(), ...options, dataDir });
  const started: ConsortiumNodeTarget[] = [];
  async function healthy(node: StartedFabricNode, ms = 30_000): Promise<void> {
    const deadline = Date.now() + ms;
    for (;;) {
      try {
        await runtime.live(node.target);
        return;
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }
  async function start(org: TestOrganization, role: ConsortiumNodeRole, name: string, engine: 'process' | 'docker' = 'process'): Promise<StartedFabricNode> {
    const node = await testNodeRecord(org, role, name, { engine });
    const target = testTarget(org, node);
    const material = await org.materialFor(node);
    started.push(target);
    await runtime.start(target, material);
    const out = { target, material };
    await healthy(out);
    return out;
  }
  return {
    runtime,
    dataDir,
    healthy,
    peer: (org, name, opts = {}) => start(org, 'peer', name, opts.engine),
    orderer: (org, name, opts = {}) => start(org, 'orderer', name, opts.engine),
    async removeAll() {
      for (const t of started.splice(0)) await runtime.remove(t).catch(() => undefined);
      if (!options.dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}
