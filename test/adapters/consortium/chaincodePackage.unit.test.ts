// The chaincode-as-a-service package: what `tar` and the ccaas builder read from it, the same
// bytes (so the same package id) for the same label and address, and the chaincode's files
// (TypeScript to CommonJS; archives read back).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ccaasPackageOf, chaincodeFiles, tarGz, untarGz } from '../../../adapters/consortium/chaincodePackage.ts';
import Docker from 'dockerode';
import { chaincodeLaunchSpec, createChaincodeServerRuntime } from '../../../adapters/consortium/chaincodeServerRuntime.ts';
import { ValidationError } from '../../../domain/shared/errors.ts';

const test = suite('chaincode packages (ccaas) and chaincode files');

test('the package is a .tar.gz with metadata.json (type ccaas) and code.tar.gz holding connection.json, as tar reads it', () => {
  const { bytes, packageId } = ccaasPackageOf('assets_1.0', '127.0.0.1:9100');
  assert.is(packageId, `assets_1.0:${createHash('sha256').update(bytes).digest('hex')}`);
  const dir = mkdtempSync(path.join(tmpdir(), 'lnm-ccaas-'));
  writeFileSync(path.join(dir, 'pkg.tgz'), bytes);
  assert.equal(execFileSync('tar', ['-tzf', 'pkg.tgz'], { cwd: dir, encoding: 'utf8' }).trim().split('\n'), ['metadata.json', 'code.tar.gz']);
  execFileSync('tar', ['-xzf', 'pkg.tgz'], { cwd: dir });
  assert.equal(JSON.parse(readFileSync(path.join(dir, 'metadata.json'), 'utf8')), { type: 'ccaas', label: 'assets_1.0' });
  execFileSync('tar', ['-xzf', 'code.tar.gz'], { cwd: dir });
  assert.equal(JSON.parse(readFileSync(path.join(dir, 'connection.json'), 'utf8')), { address: '127.0.0.1:9100', dial_timeout: '10s', tls_required: false });
});

test('the same label and address give the same bytes (stable package id); another address another id', () => {
  assert.is(ccaasPackageOf('a_1', 'h:1').packageId, ccaasPackageOf('a_1', 'h:1').packageId);
  assert.is.not(ccaasPackageOf('a_1', 'h:1').packageId, ccaasPackageOf('a_1', 'h:2').packageId);
});

test('archives read back; tar\'s own archives too; not gzip is a 400', () => {
  const files = [{ path: 'package.json', content: '{"main":"index.js"}' }, { path: 'lib/index.js', content: 'module.exports = {};\n' }];
  assert.equal(untarGz(tarGz(files.map((f) => ({ name: f.path, content: Buffer.from(f.content) })))), files);
  const dir = mkdtempSync(path.join(tmpdir(), 'lnm-cc-src-'));
  writeFileSync(path.join(dir, 'package.json'), files[0].content);
  execFileSync('tar', ['-czf', 'src.tgz', 'package.json'], { cwd: dir });
  assert.equal(untarGz(readFileSync(path.join(dir, 'src.tgz'))), [files[0]]);
  assert.throws(() => untarGz(Buffer.from('plain')), (e: unknown) => e instanceof ValidationError);
});

test('TypeScript becomes CommonJS next to the other files; code that does not compile is a 400 naming the file', () => {
  const out = chaincodeFiles([{ path: 'package.json', content: '{}' }, { path: 'cc.ts', content: "import { Contract } from 'fabric-contract-api';\nexport class A extends Contract { async Get(ctx: unknown, id: string): Promise<string> { return id; } }\n" }]);
  assert.equal(out.map((f) => f.path), ['package.json', 'cc.js']);
  assert.match(out[1].content, 'require("fabric-contract-api")');
  assert.throws(() => chaincodeFiles([{ path: 'bad.ts', content: 'const = ;' }]), (e: unknown) => e instanceof ValidationError && /bad\.ts/.test((e as Error).message));
});

test('a chaincode server runs fabric-shim\'s CLI in server mode with its package id and address, libraries from the service', () => {
  const spec = chaincodeLaunchSpec({
    nodeId: 7, name: 'cc-assets', platform: 'CONSORTIUM', nodeType: 'CONSORTIUM_CHAINCODE', role: 'chaincode', organizationId: 1, mspId: 'Org1MSP', networkId: 1, client: 'fabric', engine: 'process', resources: null, at: '',
    config: { listenAddress: '127.0.0.1', address: '127.0.0.1:9100', port: 9100, chaincodeId: 3, chaincodeName: 'assets', version: '1.0', packageId: 'assets_1.0:ab' },
  }, { kind: 'files', files: [{ path: 'package.json', content: '{"main":"a.js"}' }, { path: 'a.ts', content: 'export const contracts = [];' }] });
  assert.is(spec.process!.command, process.execPath);
  assert.match(spec.process!.args[0], /fabric-shim\/cli\.js$/);
  assert.equal(spec.process!.args.slice(1), ['server', '--chaincode-address', '127.0.0.1:9100', '--chaincode-id', 'assets_1.0:ab', '--module-path', '{nodeDir}/chaincode']);
  assert.match(spec.process!.env!.NODE_PATH, /node_modules$/);
  assert.equal(spec.files.map((f) => f.path), ['chaincode/package.json', 'chaincode/a.js']);
  assert.equal(spec.ports, [9100]);
});

const serverNode = (engine: 'process' | 'docker') => ({
  nodeId: 7, name: 'cc-assets', platform: 'CONSORTIUM' as const, nodeType: 'CONSORTIUM_CHAINCODE' as const, role: 'chaincode' as const, organizationId: 1, mspId: 'Org1MSP', networkId: 1, client: 'fabric' as const, engine, resources: null, at: '',
  config: { listenAddress: '127.0.0.1', address: '127.0.0.1:9100', port: 9100, chaincodeId: 3, chaincodeName: 'assets', version: '1.0', packageId: 'assets_1.0:ab' },
});

test('under the docker engine: files run by the same CLI in the chaincode-node image; an image source is told its package id and address by environment', () => {
  const files = chaincodeLaunchSpec(serverNode('docker'), { kind: 'files', files: [{ path: 'package.json', content: '{"main":"a.js"}' }, { path: 'a.js', content: '' }] });
  assert.is(files.docker!.image, 'chaincode-node');
  assert.equal(files.docker!.args, ['/opt/lnm/node_modules/fabric-shim/cli.js', 'server', '--chaincode-address', '127.0.0.1:9100', '--chaincode-id', 'assets_1.0:ab', '--module-path', '{nodeDir}/chaincode']);
  assert.equal(files.files.map((f) => f.path), ['chaincode/package.json', 'chaincode/a.js']);
  const image = chaincodeLaunchSpec(serverNode('docker'), { kind: 'image', image: 'lnm-chaincode-asset-registry:local' });
  assert.is(image.process, undefined, 'an image never runs as a process');
  assert.equal(image.docker, { image: 'lnm-chaincode-asset-registry:local', args: [], env: { CHAINCODE_ID: 'assets_1.0:ab', CHAINCODE_SERVER_ADDRESS: '127.0.0.1:9100' } });
  assert.equal(image.files, []);
  assert.equal(image.ports, [9100]);
});

const tlsMaterial = { caCertPem: 'CA PEM', serverCertPem: 'SERVER CERT', serverKeyPem: 'SERVER KEY', clientCertPem: 'CLIENT CERT', clientKeyPem: 'CLIENT KEY' };

test('with TLS, connection.json has Fabric\'s mutual TLS fields (root_cert: the CA; client_cert/client_key: what the peer presents); still stable, and another id than plain text', () => {
  const { bytes, packageId } = ccaasPackageOf('assets_1.0', '127.0.0.1:9100', tlsMaterial);
  const dir = mkdtempSync(path.join(tmpdir(), 'lnm-ccaas-tls-'));
  writeFileSync(path.join(dir, 'pkg.tgz'), bytes);
  execFileSync('tar', ['-xzf', 'pkg.tgz'], { cwd: dir });
  execFileSync('tar', ['-xzf', 'code.tar.gz'], { cwd: dir });
  assert.equal(JSON.parse(readFileSync(path.join(dir, 'connection.json'), 'utf8')), {
    address: '127.0.0.1:9100', dial_timeout: '10s', tls_required: true, client_auth_required: true, root_cert: 'CA PEM', client_cert: 'CLIENT CERT', client_key: 'CLIENT KEY',
  });
  assert.is(ccaasPackageOf('assets_1.0', '127.0.0.1:9100', tlsMaterial).packageId, packageId);
  assert.is.not(ccaasPackageOf('assets_1.0', '127.0.0.1:9100').packageId, packageId);
});

test('a TLS server gets its certificate, key (secret) and the peers\' CA as files: fabric-shim\'s flags for files, Fabric\'s ccaas variables and fabric-shim\'s CORE_ ones for an image', () => {
  const node = { ...serverNode('docker'), tlsKeyId: 8, clientTlsKeyId: 9, config: { ...serverNode('docker').config, tls: true } };
  const files = chaincodeLaunchSpec(node, { kind: 'files', files: [{ path: 'package.json', content: '{"main":"a.js"}' }, { path: 'a.js', content: '' }] }, tlsMaterial);
  const tlsArgs = ['--chaincode-tls-cert-file', '{nodeDir}/tls/server.crt', '--chaincode-tls-key-file', '{nodeDir}/tls/server.key', '--chaincode-tls-client-cacert-file', '{nodeDir}/tls/client-ca.crt'];
  assert.equal(files.process!.args.slice(-6), tlsArgs);
  assert.equal(files.docker!.args.slice(-6), tlsArgs);
  assert.equal(files.files.filter((f) => f.path.startsWith('tls/')), [
    { path: 'tls/server.crt', content: 'SERVER CERT' }, { path: 'tls/server.key', content: 'SERVER KEY', secret: true }, { path: 'tls/client-ca.crt', content: 'CA PEM' },
  ]);
  assert.not.ok(JSON.stringify(files.process).includes('SERVER KEY') || JSON.stringify(files.docker).includes('SERVER KEY'), 'the key only in its file');
  const image = chaincodeLaunchSpec(node, { kind: 'image', image: 'lnm-chaincode-asset-registry:local' }, tlsMaterial);
  assert.equal(image.docker!.env, {
    CHAINCODE_ID: 'assets_1.0:ab', CHAINCODE_SERVER_ADDRESS: '127.0.0.1:9100',
    CHAINCODE_TLS_DISABLED: 'false', CHAINCODE_TLS_CERT: '{nodeDir}/tls/server.crt', CHAINCODE_TLS_KEY: '{nodeDir}/tls/server.key', CHAINCODE_CLIENT_CA_CERT: '{nodeDir}/tls/client-ca.crt',
    CORE_CHAINCODE_TLS_CERT_FILE: '{nodeDir}/tls/server.crt', CORE_CHAINCODE_TLS_KEY_FILE: '{nodeDir}/tls/server.key', CORE_CHAINCODE_TLS_CLIENT_CACERT_FILE: '{nodeDir}/tls/client-ca.crt',
  });
  assert.equal(image.files.map((f) => f.path), ['tls/server.crt', 'tls/server.key', 'tls/client-ca.crt']);
});

test('an image source without a Docker engine: checkImage says the engine is down, naming where it looked', async () => {
  const runtime = createChaincodeServerRuntime({ dataDir: mkdtempSync(path.join(tmpdir(), 'cc-runtime-')), docker: new Docker({ socketPath: '/nonexistent/docker.sock' }) });
  const r = await runtime.checkImage('lnm-chaincode-asset-registry:local');
  assert.is(r.ok, false);
  assert.ok(!r.ok && r.engineDown && /\/nonexistent\/docker\.sock/.test(r.reason), JSON.stringify(r));
});

test.run();
