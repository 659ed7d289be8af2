// The reference plugin (plugins/available/rest-gateway.yaml, image lnm-plugin-rest-gateway:local)
// end to end: the real Fabric 2.5.12 programs, a channel of two organizations, the sample asset
// registry deployed with a policy that needs both, and the plugin installed from
// /plugins/available and deployed through POST /plugins/rest-gateway/deploy with x-source
// parameters (Org1's admin key, Org1's peer). An invoke through the plugin is committed and read
// back through the service; evaluate answers; its logs come over the API; stop, resume, delete.
// Counted as skipped, saying why, without the Fabric programs, a Docker Engine, Compose or the image.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import Docker from 'dockerode';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { startServer, type TestServer } from '../helpers/server.ts';
import { fabricMissing } from '../helpers/fabric.ts';
import { composeMissing, dockerSkipReason, imagesMissing } from '../helpers/dockerAvailability.ts';
import { requiresAll } from '../helpers/requirements.ts';
import { freePort } from '../../adapters/postgres/embeddedPostgres.ts';
import { apiOf, consortiumEnv, removeConsortiumNodes, twoOrganizationChannel, until } from './consortium/consortiumApi.ts';

const docker = new Docker();
const IMAGE = 'lnm-plugin-rest-gateway:local';
const t = requiresAll(
  suite('the reference REST gateway plugin against a chaincode (real Fabric 2.5.12, Docker Compose)'),
  ['fabric', fabricMissing],
  ['docker', await dockerSkipReason()],
  ['compose', composeMissing()],
  ['docker', await imagesMissing([IMAGE])],
);
let server: TestServer;
const api = apiOf(() => server);

const sampleDir = path.join(import.meta.dirname, '..', '..', 'samples', 'chaincode', 'asset-registry');
const sample = () => ['package.json', 'assetRegistry.ts'].map((p) => ({ path: p, content: readFileSync(path.join(sampleDir, p), 'utf8') }));
const project = { label: ['com.docker.compose.project=lnm-plugin-rest-gateway'] };

let setup: Awaited<ReturnType<typeof twoOrganizationChannel>>;
let chaincodeId: number;
let port: number;
const gateway = async (method: 'GET' | 'POST', p: string, body?: unknown) => {
  const res = await fetch(`http://127.0.0.1:${port}${p}`, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as any };
};

t.before(async () => {
  server = await startServer({ env: consortiumEnv() });
});
t.after(async () => {
  for (const c of await docker.listContainers({ all: true, filters: project }).catch(() => [])) await docker.getContainer(c.Id).remove({ force: true }).catch(() => undefined);
  if (!server) return;
  await removeConsortiumNodes(api, server.dataDir);
  await server.stop();
});

t('a channel of two organizations with the sample chaincode (both must endorse)', async () => {
  setup = await twoOrganizationChannel(api, 'gateway', 'gatewaychannel');
  const r = await api('POST', '/sc/consortium/deploy', { networkId: setup.network.id, name: 'assets', version: '1.0', endorsementPolicy: "AND('Org1MSP.peer','Org2MSP.peer')", source: { files: sample() } });
  assert.is(r.status, 200, r.text);
  chaincodeId = r.json.chaincode_id;
});

t('the reference plugin is listed in /plugins/available and installs; bad parameters are 400s naming the field, and leave no files', async () => {
  const available = await api('GET', '/plugins/available');
  const shipped = available.json.items.find((p: { name: string }) => p.name === 'rest-gateway');
  assert.ok(shipped, 'rest-gateway is shipped');
  assert.match(shipped.descriptor, 'x-source: consortium-key');
  const r = await api('POST', '/plugins', { descriptor: shipped.descriptor });
  assert.is(r.status, 201, r.text);
  port = await freePort();
  const good = { key: setup.org1.adminKeyId, channelName: 'gatewaychannel', peers: [setup.peer1.id], port };
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ ...good, channelName: undefined }, 'parameters.channelName'],
    [{ ...good, channelName: 'Bad_Channel' }, 'parameters.channelName'],
    [{ ...good, port: 80 }, 'parameters.port'],
    [{ ...good, key: 999999 }, 'parameters.key'],
    [{ ...good, key: 'admin' }, 'parameters.key'],
    // The organization's TLS CA key is no client identity.
    [{ ...good, key: setup.org1.tlsKeyId }, 'parameters.key'],
    [{ ...good, peers: [setup.orderer.id] }, 'parameters.peers'],
    [{ ...good, peers: [] }, 'parameters.peers'],
    [{ ...good, extra: 1 }, 'parameters'],
  ];
  for (const [parameters, field] of cases) {
    const bad = await api('POST', '/plugins/rest-gateway/deploy', { parameters });
    assert.is(bad.status, 400, `${field}: ${bad.text}`);
    assert.ok(bad.json.details.some((d: { field: string }) => d.field === field), `${field}: ${bad.text}`);
  }
  assert.not.ok(existsSync(path.join(server.dataDir, 'plugins', 'rest-gateway', 'files')), 'no key written for a refused deploy');
  assert.is((await api('GET', '/plugins/rest-gateway')).json.status, 'installed');
});

t('deployed with x-source parameters: the identity\'s key is a 0600 file in a private directory, mounted read-only, never in a response', async () => {
  const r = await api('POST', '/plugins/rest-gateway/deploy', { parameters: { key: setup.org1.adminKeyId, channelName: 'gatewaychannel', peers: [setup.peer1.id], port } });
  assert.is(r.status, 200, r.text);
  assert.is(r.json.status, 'enabled');
  const key = r.json.parameters.key;
  assert.equal(key, { MspID: 'Org1MSP', CertPath: `/lnm-plugin/keys/${setup.org1.adminKeyId}/cert.pem`, KeyPath: `/lnm-plugin/keys/${setup.org1.adminKeyId}/key.pem` });
  assert.equal(r.json.parameters.peers, [{ ExternalEndpoint: setup.peer1.config.externalEndpoint, TLSCertPath: `/lnm-plugin/peers/${setup.peer1.id}-tls-ca.pem` }]);
  assert.not.match(r.text, /PRIVATE KEY/);
  const files = path.join(server.dataDir, 'plugins', 'rest-gateway', 'files');
  const keyFile = path.join(files, 'keys', String(setup.org1.adminKeyId), 'key.pem');
  assert.is(statSync(keyFile).mode & 0o777, 0o600);
  assert.is(statSync(files).mode & 0o777, 0o700);
  assert.is(statSync(path.dirname(files)).mode & 0o777, 0o700);
  assert.match(readFileSync(keyFile, 'utf8'), /BEGIN PRIVATE KEY/);
  const admin = await api('GET', `/keys/${setup.org1.adminKeyId}`);
  assert.is(readFileSync(path.join(files, 'keys', String(setup.org1.adminKeyId), 'cert.pem'), 'utf8').trim(), String(admin.json.certificate.pem).trim(), 'the admin\'s certificate');
  const [container] = await docker.listContainers({ all: true, filters: project });
  const mount = (await docker.getContainer(container.Id).inspect()).Mounts.find((m) => m.Destination === '/lnm-plugin');
  assert.is(mount?.RW, false, 'mounted read-only');
  await until('the gateway to connect to its peer', async () => (await gateway('GET', '/refresh').catch(() => null))?.status === 200, 60_000).catch(async (err: Error) => {
    throw new Error(`${err.message}; its logs: ${(await api('GET', '/plugins/rest-gateway/logs')).text}`);
  });
});

t('an invoke through the plugin is committed (tx_id, block_number) and read back through the service; evaluate answers', async () => {
  const r = await gateway('POST', '/api/invoke', { chaincode_name: 'assets', function: 'CreateAsset', args: ['gw1', 'green', '3', 'Ana', '70'] });
  assert.is(r.status, 200, JSON.stringify(r.json));
  assert.equal(Object.keys(r.json).sort(), ['block_number', 'error', 'result', 'result_code', 'status', 'success', 'tx_id']);
  assert.is(r.json.success, true);
  assert.is(r.json.status, 'VALID');
  assert.is(r.json.result_code, 0);
  assert.is(r.json.error, null);
  assert.match(r.json.tx_id, /^[0-9a-f]{64}$/);
  assert.ok(Number.isInteger(r.json.block_number) && r.json.block_number > 0, String(r.json.block_number));
  assert.equal(JSON.parse(r.json.result), { id: 'gw1', color: 'green', size: 3, owner: 'Ana', value: 70 });
  // The same transaction, as the ledger has it, and the asset as the other organization reads it.
  const tx = await api('GET', `/networks/consortium/${setup.network.id}/transactions/${r.json.tx_id}`);
  assert.is(tx.status, 200, tx.text);
  assert.is(tx.json.validation_code, 'VALID');
  assert.is(tx.json.block_number, r.json.block_number);
  assert.is(tx.json.creator_msp_id, 'Org1MSP');
  const read = await api('POST', `/sc/consortium/chaincodes/${chaincodeId}/query`, { function: 'ReadAsset', args: ['gw1'], organization: 'Org2MSP' });
  assert.is(read.status, 200, read.text);
  assert.is(read.json.result_json.owner, 'Ana');

  const e = await gateway('POST', '/api/evaluate', { chaincode_name: 'assets', function: 'ReadAsset', args: ['gw1'] });
  assert.is(e.status, 200, JSON.stringify(e.json));
  assert.equal([e.json.status, e.json.success, e.json.result_code, e.json.block_number, e.json.error], ['SUCCESS', true, 200, null, null]);
  assert.is(JSON.parse(e.json.result).owner, 'Ana');
  const missing = await gateway('POST', '/api/evaluate', { chaincode_name: 'assets', function: 'ReadAsset', args: ['nope'] });
  assert.is(missing.status, 422);
  assert.is(missing.json.success, false);
  assert.match(missing.json.error, 'asset nope does not exist');
  const twice = await gateway('POST', '/api/invoke', { chaincode_name: 'assets', function: 'CreateAsset', args: ['gw1', 'red', '1', 'Eve', '1'] });
  assert.is(twice.status, 422);
  assert.match(twice.json.error, 'asset gw1 already exists');
  for (const body of ['{', { chaincode_name: 'assets' }, { chaincode_name: 'assets', function: 'ReadAsset', args: [1] }]) {
    const bad = await gateway('POST', '/api/evaluate', body);
    assert.is(bad.status, 400, JSON.stringify(bad.json));
    assert.is(bad.json.success, false);
  }
});

t('its logs over the API: per-service state and output, no key; unknown service 404, bad tail 400', async () => {
  const r = await api('GET', '/plugins/rest-gateway/logs?tail=50');
  assert.is(r.status, 200, r.text);
  assert.equal(r.json.services.map((s: { service: string; state: string }) => [s.service, s.state]), [['gateway', 'running']]);
  const lines: string[] = r.json.services[0].lines;
  assert.ok(lines.some((l) => l.includes('listening on 127.0.0.1:')), lines.join('\n'));
  assert.ok(lines.some((l) => l.includes('POST /api/invoke 200 VALID')), lines.join('\n'));
  assert.not.match(r.text, /PRIVATE KEY/);
  assert.is((await api('GET', '/plugins/rest-gateway/logs?service=gateway&tail=1')).json.services[0].lines.length, 1);
  assert.is((await api('GET', '/plugins/rest-gateway/logs?service=nope')).status, 404);
  assert.is((await api('GET', '/plugins/rest-gateway/logs?tail=0')).status, 400);
});

t('stop and resume: the gateway goes away and comes back, and invokes again', async () => {
  let r = await api('POST', '/plugins/rest-gateway/stop');
  assert.is(r.status, 200, r.text);
  assert.equal(r.json.services.map((s: { state: string }) => s.state), ['exited']);
  assert.ok(await gateway('GET', '/refresh').then(() => false, () => true), 'nothing answers on its port');
  assert.equal((await api('GET', '/plugins/rest-gateway/logs')).json.services.map((s: { state: string }) => s.state), ['exited'], 'a stopped plugin still has logs');
  r = await api('POST', '/plugins/rest-gateway/resume');
  assert.is(r.status, 200, r.text);
  assert.equal(r.json.services.map((s: { state: string }) => s.state), ['running']);
  const moved = await until('an invoke through the resumed gateway', async () => {
    const m = await gateway('POST', '/api/invoke', { chaincode_name: 'assets', function: 'TransferAsset', args: ['gw1', 'Bo'] }).catch(() => null);
    return m?.status === 200 ? m : null;
  }, 60_000, 1000);
  assert.is(moved.json.result, 'Ana');
  const read = await api('POST', `/sc/consortium/chaincodes/${chaincodeId}/query`, { function: 'ReadAsset', args: ['gw1'] });
  assert.is(read.json.result_json.owner, 'Bo');
});

t('removed: containers and files (the key among them) are gone, and nothing printed a private key', async () => {
  assert.is((await api('DELETE', '/plugins/rest-gateway')).status, 204);
  assert.is((await docker.listContainers({ all: true, filters: project })).length, 0);
  assert.not.ok(existsSync(path.join(server.dataDir, 'plugins', 'rest-gateway')), 'its directory is deleted');
  assert.is((await api('GET', '/plugins/rest-gateway/logs')).status, 404);
  assert.not.match(server.output(), /BEGIN (EC )?PRIVATE KEY/);
});

t.run();
