// The consortium node runtime with the real Fabric 2.5.12 peer and orderer (found by test/helpers/programs.ts)
// under the process engine, on loopback with free ports: what an operator sees of a node it
// starts (health, metrics, TLS, the orderer's admin endpoint, logs, stop) and why a node that
// cannot start does not.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile, mkdir } from 'node:fs/promises';
import https from 'node:https';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { promisify } from 'node:util';
import { X509Certificate } from 'node:crypto';
import { createConsortiumNodeRuntime } from '../../../adapters/consortium/consortiumNodeRuntime.ts';
import { mspPaths } from '../../../adapters/consortium/fabricMsp.ts';
import { NodeStartFailedError } from '../../../domain/nodes/nodeEngine.ts';
import { consortiumNodeKey, type ConsortiumOrdererConfig, type ConsortiumPeerConfig } from '../../../domain/consortium/consortiumNode.ts';
import { eventually } from '../engines/fixtures.ts';
import { requires } from '../../helpers/requirements.ts';
import { ccaasPackage, fabricConfigDir, fabricMissing, fabricProgram, fabricTestEnv, peerCliEnv, startFabricNodes, testNodeRecord, testOrganization, testTarget, type FabricTestNodes, type StartedFabricNode, type TestOrganization } from '../../helpers/fabric.ts';

const run = promisify(execFile);

interface Ctx {
  fabric: FabricTestNodes;
  org: TestOrganization;
  other: TestOrganization;
  peer: StartedFabricNode;
  orderer: StartedFabricNode;
  scratch: string;
  startError?: unknown;
}

const test = requires(suite<Ctx>('consortium node runtime with real Fabric 2.5 binaries (process engine)', {} as Ctx), 'fabric', fabricMissing);

test.before(async (ctx) => {
  ctx.org = await testOrganization('Org1MSP', 'org1.example.com');
  ctx.other = await testOrganization('Org2MSP', 'org2.example.com');
  ctx.fabric = await startFabricNodes();
  ctx.scratch = await mkdtemp(path.join(tmpdir(), 'lnm-fabric-scratch-'));
  try {
    let began = Date.now();
    ctx.orderer = await ctx.fabric.orderer(ctx.org, 'orderer0');
    console.log(`    orderer healthy ${Date.now() - began} ms after start`);
    began = Date.now();
    ctx.peer = await ctx.fabric.peer(ctx.org, 'peer0');
    console.log(`    peer healthy ${Date.now() - began} ms after start`);
  } catch (err) {
    // Not rethrown: uvu swallows an error of a before hook and exits 0 (its runner returns from
    // `finally`), so each test fails with it instead (before.each below).
    ctx.startError = err;
  }
});

test.before.each((ctx) => {
  if (ctx.startError) throw ctx.startError;
});

test.after(async (ctx) => {
  await ctx.fabric?.removeAll();
  if (ctx.scratch) await rm(ctx.scratch, { recursive: true, force: true });
});

const nodeDir = (ctx: Ctx, n: StartedFabricNode) => path.join(ctx.fabric.dataDir, 'nodes', consortiumNodeKey(n.target.node.nodeId));

async function rssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024);
}

async function startFailure(p: Promise<unknown>): Promise<NodeStartFailedError> {
  try {
    await p;
  } catch (err) {
    assert.instance(err, NodeStartFailedError);
    return err as NodeStartFailedError;
  }
  throw new Error('start() succeeded where it had to fail');
}

test('a started peer and orderer run and say OK on /healthz', async (ctx) => {
  for (const n of [ctx.peer, ctx.orderer]) {
    const status = await ctx.fabric.runtime.status(n.target);
    assert.is(status.state, 'running');
    assert.equal(await ctx.fabric.runtime.live(n.target), { healthy: true });
    const began = process.hrtime.bigint();
    for (let i = 0; i < 20; i++) await ctx.fabric.runtime.live(n.target);
    const perCheckMs = Number(process.hrtime.bigint() - began) / 20 / 1e6;
    console.log(`    ${n.target.node.role} pid ${status.pid}: ${await rssMiB(status.pid!)} MiB resident, /healthz check ${perCheckMs.toFixed(1)} ms`);
  }
});

test("the health monitor's probe (observe) is /healthz's word with the ledgers of /metrics, asked together", async (ctx) => {
  for (const n of [ctx.peer, ctx.orderer]) {
    const seen = await ctx.fabric.runtime.observe(n.target);
    assert.equal(seen.live, { healthy: true });
    assert.ok(seen.ledgers, `${n.target.node.role}: no ledger readings`);
    assert.equal(seen.ledgers, await ctx.fabric.runtime.ledgers(n.target));
  }
});

test("the peer's /metrics serves Prometheus text", async ({ peer }) => {
  const res = await fetch(`http://127.0.0.1:${peer.target.node.config.operationsPort}/metrics`);
  assert.is(res.status, 200);
  const text = await res.text();
  assert.match(text, /^# HELP /m);
  assert.match(text, /^# TYPE go_goroutines gauge$/m);
  // Fabric's own metrics, not only the Go runtime's: this is the peer of the release we ship.
  assert.match(text, /^fabric_version\{version="2\.5\.12"\} 1$/m);
});

test("the peer's gRPC port speaks TLS with a certificate for its host name and 127.0.0.1", async ({ peer, org }) => {
  const c = peer.target.node.config as ConsortiumPeerConfig;
  const cert = await new Promise<tls.PeerCertificate>((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port: c.port, ca: org.msp.tlsCaCertPem, servername: c.hostname, ALPNProtocols: ['h2'] }, () => {
      const pc = socket.getPeerCertificate();
      socket.end();
      resolve(pc);
    });
    socket.once('error', reject);
  });
  const sans = (cert.subjectaltname ?? '').split(', ');
  assert.ok(sans.includes(`DNS:${c.hostname}`), cert.subjectaltname);
  assert.ok(sans.includes('IP Address:127.0.0.1'), cert.subjectaltname);
  // Checked against 127.0.0.1 too: clients that dial the IP verify it.
  assert.is(tls.checkServerIdentity('127.0.0.1', cert), undefined);
});

function adminRequest(port: number, ca: string, client?: { cert: string; key: string }): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port, path: '/participation/v1/channels', ca, servername: 'localhost', ...(client ?? {}) }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.once('error', reject);
    req.end();
  });
}

test("the orderer's admin endpoint refuses clients without a certificate of the org's TLS CA and serves those with one", async ({ orderer, org, other, scratch }) => {
  const c = orderer.target.node.config as ConsortiumOrdererConfig;
  const ca = org.msp.tlsCaCertPem;
  const anonymous = await adminRequest(c.adminPort, ca).then(
    (r) => `answered ${r.status}`,
    (e: Error) => e.message,
  );
  assert.not.match(anonymous, /^answered/, 'a client without a certificate was served');
  const stranger = await other.issue('client.org2.example.com', 'client');
  const foreign = await adminRequest(c.adminPort, ca, { cert: stranger.tls.certPem, key: stranger.tls.keyPem }).then(
    (r) => `answered ${r.status}`,
    (e: Error) => e.message,
  );
  assert.not.match(foreign, /^answered/, "a client of another organization's TLS CA was served");
  const admin = await adminRequest(c.adminPort, ca, { cert: org.adminTls.certificatePem, key: org.adminTls.privateKeyPem });
  assert.is(admin.status, 200);
  assert.equal(JSON.parse(admin.body).channels, null);

  // The same through Fabric's own client.
  const dir = await org.writeAdminMsp(path.join(scratch, 'admin'));
  const { stdout } = await run(fabricProgram('osnadmin'), [
    'channel', 'list', '-o', `127.0.0.1:${c.adminPort}`,
    '--ca-file', path.join(dir, mspPaths.tlsCa), '--client-cert', path.join(dir, mspPaths.tlsClientCert), '--client-key', path.join(dir, mspPaths.tlsClientKey),
  ]);
  assert.match(stdout, /Status: 200/);
});

test('the peer installs a chaincode-as-a-service package through the ccaas builder in its directory', async ({ peer, org, scratch }) => {
  const pkg = await ccaasPackage(scratch, 'basic_1.0', 'basic.org1.example.com:9999');
  const env = peerCliEnv(org, peer, await org.writeAdminMsp(path.join(scratch, 'peer-admin')));
  const peerCli = fabricProgram('peer');
  const installed = await run(peerCli, ['lifecycle', 'chaincode', 'install', pkg], { env });
  assert.match(installed.stdout + installed.stderr, /Chaincode code package identifier: basic_1\.0:[0-9a-f]{64}/);
  const listed = await run(peerCli, ['lifecycle', 'chaincode', 'queryinstalled'], { env });
  assert.match(listed.stdout, /Label: basic_1\.0/);
});

test('key files are 0600 and no private key appears in the logs', async (ctx) => {
  for (const n of [ctx.peer, ctx.orderer]) {
    const dir = nodeDir(ctx, n);
    assert.is((await stat(path.join(dir, mspPaths.key))).mode & 0o777, 0o600);
    assert.is((await stat(path.join(dir, mspPaths.tlsServerKey))).mode & 0o777, 0o600);
    assert.is(await readFile(path.join(dir, mspPaths.key), 'utf8'), n.material.identityKeyPem);
    const logs = (await ctx.fabric.runtime.logs(n.target, 5000)).join('\n');
    assert.ok(logs.length > 0);
    assert.not.match(logs, /PRIVATE KEY/);
    for (const keyPem of [n.material.identityKeyPem, n.material.tlsKeyPem]) {
      for (const line of keyPem.split('\n').filter((l) => l.length > 20 && !l.startsWith('-----'))) assert.not.ok(logs.includes(line), 'a line of a private key is in the logs');
    }
  }
});

test('a peer killed from outside shows as exited with the signal, and unhealthy', async ({ fabric, org }) => {
  const victim = await fabric.peer(org, 'peer-killed');
  const { pid } = await fabric.runtime.status(victim.target);
  process.kill(pid!, 'SIGKILL');
  // The pid is gone a moment before the engine's exit handler records the signal: wait for both.
  const status = await eventually('the killed peer to show as exited with its signal', async () => {
    const s = await fabric.runtime.status(victim.target);
    return s.state === 'exited' && s.signal ? s : undefined;
  });
  assert.is(status.signal, 'SIGKILL');
  await fabric.runtime.live(victim.target).then(
    () => assert.unreachable('a killed peer answered /healthz'),
    (e: Error) => assert.match(e.message, /does not answer/),
  );
});

test("a peer killed from outside fails the health monitor's probe (observe) at once, kept connection or not", async ({ fabric, org }) => {
  const victim = await fabric.peer(org, 'peer-killed-observed');
  // A kept connection exists: the probe before the kill answered on it.
  assert.equal((await fabric.runtime.observe(victim.target)).live, { healthy: true });
  const { pid } = await fabric.runtime.status(victim.target);
  process.kill(pid!, 'SIGKILL');
  await eventually('the killed peer to show as exited', async () => ((await fabric.runtime.status(victim.target)).state === 'exited' ? true : undefined));
  for (let i = 0; i < 2; i++) {
    await fabric.runtime.observe(victim.target, 2000).then(
      () => assert.unreachable('a killed peer answered the probe'),
      (e: Error) => assert.match(e.message, /does not answer \((ECONNREFUSED|ECONNRESET)\)/),
    );
  }
});

test('a taken port gives port-in-use and starts nothing', async ({ fabric, org }) => {
  const node = await testNodeRecord(org, 'peer', 'peer-busy');
  const blocker = net.createServer();
  await new Promise<void>((r) => blocker.listen(node.config.operationsPort, '127.0.0.1', r));
  try {
    const err = await startFailure(fabric.runtime.start(testTarget(org, node), await org.materialFor(node)));
    assert.is(err.failure, 'port-in-use');
    assert.match(err.message, String(node.config.operationsPort));
    assert.is((await fabric.runtime.status(testTarget(org, node))).state, 'unknown');
  } finally {
    blocker.close();
  }
});

test('without the binaries, start fails with binary-missing naming LNM_FABRIC_BIN', async ({ org, scratch }) => {
  const runtime = createConsortiumNodeRuntime({ dataDir: path.join(scratch, 'nobin'), env: { PATH: '/usr/bin:/bin', LNM_FABRIC_BIN: path.join(scratch, 'no-such-dir') } });
  const node = await testNodeRecord(org, 'orderer', 'orderer-nobin');
  const err = await startFailure(runtime.start(testTarget(org, node), await org.materialFor(node)));
  assert.is(err.failure, 'binary-missing');
  assert.match(err.message, 'LNM_FABRIC_BIN');
  const absent = await runtime.available('process', 'peer');
  assert.is(absent.ok, false);
  // And without LNM_FABRIC_BIN, PATH is searched.
  const onPath = createConsortiumNodeRuntime({ dataDir: path.join(scratch, 'nobin'), env: { PATH: `/usr/bin:${path.dirname(fabricProgram('orderer'))}`, LNM_FABRIC_CFG: fabricConfigDir() } });
  assert.equal(await onPath.available('process', 'orderer'), { ok: true });
});

test('material whose key is not its certificate\'s is refused before anything is written', async ({ fabric, org, other }) => {
  const node = await testNodeRecord(org, 'peer', 'peer-badkey');
  const material = { ...(await org.materialFor(node)), tlsKeyPem: (await other.issue('x.org2.example.com', 'peer')).tls.keyPem };
  const err = await startFailure(fabric.runtime.start(testTarget(org, node), material));
  assert.is(err.failure, 'invalid-spec');
  assert.match(err.message, 'tlsKeyPem');
  assert.not.match(err.message, /PRIVATE KEY/);
  assert.is((await fabric.runtime.status(testTarget(org, node))).state, 'unknown');
  const ofOtherOrg = await startFailure(fabric.runtime.start(testTarget(org, node), await other.materialFor({ ...node, mspId: 'Org2MSP' })));
  assert.is(ofOtherOrg.failure, 'invalid-spec');
  assert.match(ofOtherOrg.message, /MSP ids .*Org1MSP.*Org2MSP/);
});

test('a peer Fabric refuses to run says why in its own words and is not running', async ({ org, scratch }) => {
  const cfg = path.join(scratch, 'badcfg');
  await mkdir(cfg, { recursive: true });
  const core = await readFile(path.join(fabricConfigDir(), 'core.yaml'), 'utf8');
  await writeFile(path.join(cfg, 'core.yaml'), core.replace(/^(\s+)Default: SW$/m, '$1Default: NOSUCHBCCSP'));
  const runtime = createConsortiumNodeRuntime({ dataDir: path.join(scratch, 'badcfg-data'), env: fabricTestEnv({ LNM_FABRIC_CFG: cfg }) });
  const target = testTarget(org, await testNodeRecord(org, 'peer', 'peer-badcfg'));
  try {
    const err = await startFailure(runtime.start(target, await org.materialFor(target.node)));
    assert.is(err.failure, 'exited');
    assert.match(err.message, /NOSUCHBCCSP/i);
    assert.is.not((await runtime.status(target)).state, 'running');
  } finally {
    await runtime.remove(target);
  }
});

test('stop leaves the node stopped and unhealthy; a start with renewed certificates serves them from the same directory', async ({ fabric, orderer, org }) => {
  await fabric.runtime.stop(orderer.target);
  assert.is((await fabric.runtime.status(orderer.target)).state, 'stopped');
  const down = await fabric.runtime.live(orderer.target).then(
    () => 'healthy',
    (e: Error) => e.message,
  );
  assert.match(down, /does not answer/);
  const renewed = await org.materialFor(orderer.target.node);
  await fabric.runtime.start(orderer.target, renewed);
  await fabric.healthy(orderer);
  assert.is((await fabric.runtime.status(orderer.target)).state, 'running');
  const served = await new Promise<tls.PeerCertificate>((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port: orderer.target.node.config.port, ca: org.msp.tlsCaCertPem, servername: 'localhost', ALPNProtocols: ['h2'] }, () => {
      resolve(socket.getPeerCertificate());
      socket.end();
    });
    socket.once('error', reject);
  });
  assert.is(served.fingerprint256, new X509Certificate(renewed.tlsCertPem).fingerprint256);
  assert.is.not(served.fingerprint256, new X509Certificate(orderer.material.tlsCertPem).fingerprint256);
});

test.run();
