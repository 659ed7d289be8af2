// The consortium node runtime under the docker engine, with the images .ci/docker.sh builds from
// the Fabric 2.5.12 programs found (helpers/programs.ts) (lnm-fabric-peer:local, lnm-fabric-orderer:local). No Fabric
// binaries or config on the "host" side: the base core.yaml / orderer.yaml come out of the
// images. Counted as skipped, with the reason, when no Docker Engine answers or the images are missing.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import https from 'node:https';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Docker from 'dockerode';
import { createConsortiumNodeRuntime } from '../../../adapters/consortium/consortiumNodeRuntime.ts';
import { NodeStartFailedError } from '../../../domain/nodes/nodeEngine.ts';
import type { ConsortiumNodeRuntime, ConsortiumNodeTarget } from '../../../domain/consortium/consortiumPorts.ts';
import type { ConsortiumOrdererConfig } from '../../../domain/consortium/consortiumNode.ts';
import { dockerSkipReason, imagesMissing } from '../../helpers/dockerAvailability.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { ccaasPackage, fabricMissing, fabricProgram, peerCliEnv, testNodeRecord, testOrganization, testTarget, type TestOrganization } from '../../helpers/fabric.ts';

const run = promisify(execFile);
const peerImage = process.env.LNM_IMAGE_FABRIC_PEER ?? 'lnm-fabric-peer:local';
const ordererImage = process.env.LNM_IMAGE_FABRIC_ORDERER ?? 'lnm-fabric-orderer:local';

// The peer CLI that checks the containers is the host's Fabric (helpers/programs.ts).
const test = requiresAll(
  suite<Ctx>('consortium node runtime under the docker engine (local Fabric images)', { started: [] } as unknown as Ctx),
  ['docker', await dockerSkipReason()],
  ['fabric', fabricMissing],
  ['fabric-images', await imagesMissing([peerImage, ordererImage])],
);
interface Ctx {
  dataDir: string;
  runtime: ConsortiumNodeRuntime;
  org: TestOrganization;
  started: ConsortiumNodeTarget[];
}

test.before(async (ctx) => {
  ctx.dataDir = await mkdtemp(path.join(tmpdir(), 'lnm-fabric-docker-'));
  ctx.runtime = createConsortiumNodeRuntime({ dataDir: ctx.dataDir, env: { PATH: '/usr/bin:/bin', LNM_IMAGE_FABRIC_PEER: peerImage, LNM_IMAGE_FABRIC_ORDERER: ordererImage } });
  ctx.org = await testOrganization('Org1MSP', 'org1.example.com');
});

test.after(async (ctx) => {
  for (const t of ctx.started) await ctx.runtime.remove(t).catch(() => undefined);
  if (ctx.dataDir) await rm(ctx.dataDir, { recursive: true, force: true });
});

async function healthy(runtime: ConsortiumNodeRuntime, t: ConsortiumNodeTarget, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      await runtime.live(t);
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

test('a peer and an orderer run as containers, healthy, the orderer admin endpoint serving the org admin', async (ctx) => {
  const { runtime, org } = ctx;
  for (const role of ['orderer', 'peer'] as const) {
    const target = testTarget(org, await testNodeRecord(org, role, `${role}-docker`, { engine: 'docker' }));
    ctx.started.push(target);
    const began = Date.now();
    const started = await runtime.start(target, await org.materialFor(target.node));
    assert.ok(started.containerId);
    await healthy(runtime, target);
    console.log(`    ${role} container healthy ${Date.now() - began} ms after start`);
    const status = await runtime.status(target);
    assert.is(status.state, 'running');
    assert.is(status.containerId, started.containerId);
  }
  const orderer = ctx.started[0].node.config as ConsortiumOrdererConfig;
  const status = await new Promise<number>((resolve, reject) => {
    https
      .get({ host: '127.0.0.1', port: orderer.adminPort, path: '/participation/v1/channels', ca: org.msp.tlsCaCertPem, servername: 'localhost', cert: org.adminTls.certificatePem, key: org.adminTls.privateKeyPem }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
      .once('error', reject);
  });
  assert.is(status, 200);
  const logs = (await runtime.logs(ctx.started[1], 2000)).join('\n');
  assert.match(logs, /Started peer with ID=\[peer-docker\.org1\.example\.com\]/);
  assert.not.match(logs, /PRIVATE KEY/);
});

test("the peer container installs a chaincode-as-a-service package (the ccaas builder's sh tools are in the image)", async (ctx) => {
  const env = peerCliEnv(ctx.org, { target: ctx.started[1] }, await ctx.org.writeAdminMsp(path.join(ctx.dataDir, 'admin')));
  const { stdout, stderr } = await run(fabricProgram('peer'), ['lifecycle', 'chaincode', 'install', await ccaasPackage(ctx.dataDir, 'basic_1.0', 'basic:9999')], { env });
  assert.match(stdout + stderr, /Chaincode code package identifier: basic_1\.0:[0-9a-f]{64}/);
});

test('stop leaves the container stopped', async (ctx) => {
  const peer = ctx.started[1];
  await ctx.runtime.stop(peer);
  assert.is((await ctx.runtime.status(peer)).state, 'stopped');
  await ctx.runtime.live(peer).then(
    () => assert.unreachable('a stopped peer answered /healthz'),
    (e: Error) => assert.match(e.message, /does not answer/),
  );
});

test('a missing image gives image-missing naming its variable', async (ctx) => {
  const runtime = createConsortiumNodeRuntime({ dataDir: ctx.dataDir, env: { PATH: '/usr/bin:/bin', LNM_IMAGE_FABRIC_PEER: 'lnm-no-such-image:none' } });
  const target = testTarget(ctx.org, await testNodeRecord(ctx.org, 'peer', 'peer-noimage', { engine: 'docker' }));
  const err = (await runtime.start(target, await ctx.org.materialFor(target.node)).then(
    () => assert.unreachable('started without its image'),
    (e: unknown) => e,
  )) as NodeStartFailedError;
  assert.instance(err, NodeStartFailedError);
  assert.is(err.failure, 'image-missing');
  assert.match(err.message, 'LNM_IMAGE_FABRIC_PEER');
  assert.equal((await runtime.available('docker', 'peer')).ok, false);
});

test.run();
