// What a consortium node's directory holds before Fabric reads it: the release's config with
// this node's settings (checked by reading the YAML back), the MSP with NodeOUs, keys marked
// secret, and every refusal naming what is wrong.
import { test as uvuTest } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { peerLaunchSpec } from '../../../adapters/consortium/peerLaunch.ts';
import { ordererLaunchSpec } from '../../../adapters/consortium/ordererLaunch.ts';
import { fabricConfigWith } from '../../../adapters/consortium/fabricConfigYaml.ts';
import { checkNodeMaterial, mspPaths, nodeMspFiles, nodeOuConfigYaml } from '../../../adapters/consortium/fabricMsp.ts';
import { nodeConfigIssues, nodeTlsHosts, splitEndpoint } from '../../../adapters/consortium/fabricNodeConfig.ts';
import { NodeStartFailedError, type NodeLaunchSpec } from '../../../domain/nodes/nodeEngine.ts';
import { ValidationError } from '../../../domain/shared/errors.ts';
import type { ConsortiumNodeCreatedData, ConsortiumOrdererConfig, ConsortiumPeerConfig } from '../../../domain/consortium/consortiumNode.ts';
import { testOrganization, testTarget } from '../../helpers/fabric.ts';
import { fabricConfigDir, fabricConfigMissing } from '../../helpers/programs.ts';
import { requires } from '../../helpers/requirements.ts';

// The launch files start from Fabric's own defaults (no program runs here).
const test = requires(uvuTest, 'fabric-config', fabricConfigMissing);
const configDir = fabricConfigMissing ? '' : fabricConfigDir();
const coreYaml = configDir ? readFileSync(path.join(configDir, 'core.yaml'), 'utf8') : '';
const ordererYaml = configDir ? readFileSync(path.join(configDir, 'orderer.yaml'), 'utf8') : '';
const dataDir = '/var/lib/lnm';
const org = await testOrganization('Org1MSP', 'org1.example.com');

function record(role: 'peer' | 'orderer', config: Partial<ConsortiumPeerConfig & ConsortiumOrdererConfig> = {}): ConsortiumNodeCreatedData {
  const base = { listenAddress: '0.0.0.0', hostname: `${role}0.org1.example.com`, externalEndpoint: `${role}0.org1.example.com:7051`, domainNames: ['10.0.0.5'], port: 7051, operationsPort: 9443 };
  const full = role === 'peer' ? { ...base, chaincodePort: 7052, ...config } : { ...base, adminPort: 7053, ...config };
  return {
    nodeId: 12, name: `${role}0`, platform: 'CONSORTIUM', nodeType: role === 'peer' ? 'CONSORTIUM_PEER' : 'CONSORTIUM_ORDERER', role,
    organizationId: 3, mspId: 'Org1MSP', networkId: null, client: 'fabric', engine: 'process', config: full as ConsortiumPeerConfig,
    identityKeyId: 1, tlsKeyId: 2, resources: null, at: '2026-01-01T00:00:00.000Z',
  };
}

const fileOf = (spec: NodeLaunchSpec, p: string) => spec.files.find((f) => f.path === p);
const nodeDir = `${dataDir}/nodes/node-12`;

test('a peer runs `peer node start` from the node directory with the release core.yaml carrying its settings', async () => {
  const node = record('peer');
  const spec = peerLaunchSpec(testTarget(org, node), await org.materialFor(node), { dataDir, command: '/opt/fabric/bin/peer', baseConfig: coreYaml });
  assert.is(spec.nodeKey, 'node-12');
  assert.equal(spec.process, { command: '/opt/fabric/bin/peer', args: ['node', 'start'], env: spec.process!.env });
  assert.is(spec.process!.env!.FABRIC_CFG_PATH, '{nodeDir}');
  assert.equal(spec.docker!.args, ['peer', 'node', 'start']);
  assert.is(spec.docker!.image, 'fabric-peer');
  assert.equal(spec.ports, [7051, 7052, 9443]);
  const core = parse(String(fileOf(spec, 'core.yaml')!.content));
  assert.is(core.peer.id, 'peer0.org1.example.com');
  assert.is(core.peer.listenAddress, '0.0.0.0:7051');
  assert.is(core.peer.address, 'peer0.org1.example.com:7051');
  assert.is(core.peer.chaincodeListenAddress, '0.0.0.0:7052');
  assert.is(core.peer.gossip.externalEndpoint, 'peer0.org1.example.com:7051');
  assert.is(core.peer.gossip.bootstrap, 'peer0.org1.example.com:7051');
  assert.equal(core.peer.tls, { ...core.peer.tls, enabled: true, cert: { file: `${nodeDir}/tls/server.crt` }, key: { file: `${nodeDir}/tls/server.key` }, rootcert: { file: `${nodeDir}/tls/ca.crt` } });
  assert.is(core.peer.mspConfigPath, `${nodeDir}/msp`);
  assert.is(core.peer.localMspId, 'Org1MSP');
  assert.is(core.peer.fileSystemPath, `${nodeDir}/data`);
  assert.is(core.ledger.snapshots.rootDir, `${nodeDir}/data/snapshots`);
  assert.is(core.peer.gateway.enabled, true);
  assert.is(core.vm.endpoint, '');
  assert.equal(core.chaincode.externalBuilders, [{ name: 'ccaas', path: `${nodeDir}/builders/ccaas`, propagateEnvironment: ['CHAINCODE_AS_A_SERVICE_BUILDER_CONFIG'] }]);
  assert.is(core.operations.listenAddress, '0.0.0.0:9443');
  assert.is(core.metrics.provider, 'prometheus');
  // Everything else keeps Fabric's defaults, comments included.
  assert.is(core.peer.keepalive.interval, '7200s');
  assert.match(String(fileOf(spec, 'core.yaml')!.content), /#    Peer section\n/);
  for (const tool of ['detect', 'build', 'release']) assert.is(fileOf(spec, `builders/ccaas/bin/${tool}`)!.mode, 0o755);
});

test('an orderer has TLS everywhere, no system channel, channel participation behind mutual TLS and its data in the node directory', async () => {
  const node = record('orderer', { listenAddress: '127.0.0.1', externalEndpoint: '127.0.0.1:7050', port: 7050 });
  const spec = ordererLaunchSpec(testTarget(org, node), await org.materialFor(node), { dataDir, command: null, baseConfig: ordererYaml });
  assert.is(spec.process, undefined, 'no binary, no process run');
  assert.equal(spec.docker!.args, ['orderer']);
  assert.equal(spec.ports, [7050, 7053, 9443]);
  const o = parse(String(fileOf(spec, 'orderer.yaml')!.content));
  assert.is(o.General.ListenAddress, '127.0.0.1');
  assert.is(o.General.ListenPort, 7050);
  assert.equal(o.General.TLS, { ...o.General.TLS, Enabled: true, PrivateKey: `${nodeDir}/tls/server.key`, Certificate: `${nodeDir}/tls/server.crt`, RootCAs: [`${nodeDir}/tls/ca.crt`], ClientAuthRequired: false });
  assert.is(o.General.Cluster.ClientCertificate, `${nodeDir}/tls/server.crt`);
  assert.is(o.General.Cluster.ClientPrivateKey, `${nodeDir}/tls/server.key`);
  assert.is(o.General.BootstrapMethod, 'none');
  assert.is(o.General.LocalMSPDir, `${nodeDir}/msp`);
  assert.is(o.General.LocalMSPID, 'Org1MSP');
  assert.is(o.FileLedger.Location, `${nodeDir}/data/ledger`);
  assert.is(o.Consensus.WALDir, `${nodeDir}/data/etcdraft/wal`);
  assert.is(o.Consensus.SnapDir, `${nodeDir}/data/etcdraft/snapshot`);
  assert.is(o.Admin.ListenAddress, '127.0.0.1:7053');
  assert.equal(o.Admin.TLS, { Enabled: true, Certificate: `${nodeDir}/tls/server.crt`, PrivateKey: `${nodeDir}/tls/server.key`, ClientAuthRequired: true, ClientRootCAs: [`${nodeDir}/tls/ca.crt`] });
  assert.is(o.ChannelParticipation.Enabled, true);
  assert.is(o.Operations.ListenAddress, '127.0.0.1:9443');
  assert.is(o.Metrics.Provider, 'prometheus');
});

test('the MSP has NodeOUs for every role, both CAs, and the two keys as 0600 secrets', async () => {
  const material = await org.nodeMaterial('peer0.org1.example.com', 'peer');
  const files = nodeMspFiles(material);
  assert.equal(files.map((f) => f.path).sort(), Object.values(mspPaths).filter((p) => p !== 'msp' && !p.includes('client')).sort());
  const secrets = files.filter((f) => f.secret).map((f) => [f.path, f.mode]);
  assert.equal(secrets, [[mspPaths.key, 0o600], [mspPaths.tlsServerKey, 0o600]]);
  const ous = parse(nodeOuConfigYaml()).NodeOUs;
  assert.is(ous.Enable, true);
  for (const [k, ou] of [['ClientOUIdentifier', 'client'], ['PeerOUIdentifier', 'peer'], ['AdminOUIdentifier', 'admin'], ['OrdererOUIdentifier', 'orderer']]) {
    assert.equal(ous[k], { Certificate: 'cacerts/ca.pem', OrganizationalUnitIdentifier: ou });
  }
});

test('material Fabric would choke on is refused naming the field, never showing a key', async () => {
  const other = await testOrganization('Org2MSP', 'org2.example.com');
  const good = await org.nodeMaterial('peer0.org1.example.com', 'peer');
  const foreign = await other.nodeMaterial('peer0.org1.example.com', 'peer');
  const cases: [object, string][] = [
    [{ identityKeyPem: foreign.identityKeyPem }, 'identityKeyPem'],
    [{ identityCertPem: foreign.identityCertPem, identityKeyPem: foreign.identityKeyPem }, 'identityCertPem'],
    [{ tlsCertPem: foreign.tlsCertPem, tlsKeyPem: foreign.tlsKeyPem }, 'tlsCertPem'],
    [{ tlsKeyPem: 'not a key' }, 'tlsKeyPem'],
    [{ organization: { ...good.organization, signCaCertPem: 'nope' } }, 'signCaCertPem'],
  ];
  for (const [change, field] of cases) {
    const err = (() => {
      try {
        checkNodeMaterial({ ...good, ...change });
      } catch (e) {
        return e as ValidationError;
      }
      throw new Error(`accepted a bad ${field}`);
    })();
    assert.instance(err, ValidationError);
    assert.is(err.details![0].field, field);
    assert.not.match(err.message, /PRIVATE KEY|MII/);
  }
  assert.throws(() => checkNodeMaterial(good, ['peer9.org1.example.com']), (e: ValidationError) => /peer9\.org1\.example\.com/.test(e.message));
  checkNodeMaterial(good, ['peer0.org1.example.com', 'localhost', '127.0.0.1']);
});

test('a bad node config is refused naming each field, and a peer record cannot start as an orderer', async () => {
  assert.equal(nodeConfigIssues(record('peer', { listenAddress: 'everywhere', hostname: 'bad host', externalEndpoint: 'peer0', chaincodePort: 7051, operationsPort: 70000 }).config).map((i) => i.field), [
    'config.listenAddress', 'config.hostname', 'config.externalEndpoint', 'config.chaincodePort', 'config.operationsPort',
  ]);
  const node = record('peer', { port: 0 });
  assert.throws(() => peerLaunchSpec(testTarget(org, node), {} as never, { dataDir, command: null, baseConfig: coreYaml }), (e: NodeStartFailedError) => e.failure === 'invalid-spec' && /config\.port/.test(e.message));
  assert.throws(() => ordererLaunchSpec(testTarget(org, record('peer')), {} as never, { dataDir, command: null, baseConfig: ordererYaml }), (e: NodeStartFailedError) => e.failure === 'invalid-spec' && /CONSORTIUM_PEER/.test(e.message));
  assert.equal(splitEndpoint('[::1]:7051'), { host: '::1', port: 7051 });
  assert.is(splitEndpoint('host:99999'), null);
  assert.equal(nodeTlsHosts(record('peer').config), ['peer0.org1.example.com', '10.0.0.5', 'localhost', '127.0.0.1']);
});

test("a base config without a setting this service writes is refused: not Fabric 2.5's file", () => {
  assert.throws(() => fabricConfigWith('peer:\n  id: x\n', [[['peer', 'listenAdress'], 'y']], 'core.yaml'), /no setting peer\.listenAdress/);
  assert.match(fabricConfigWith('peer:\n  id: x\n', [[['peer', 'chaincodeAddress'], 'h:1', 'commentedOut']], 'core.yaml'), /chaincodeAddress: h:1/);
  assert.throws(() => fabricConfigWith('peer: [\n', [], 'core.yaml'), /does not parse/);
});

test.run();
