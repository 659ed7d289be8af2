// Plugins through the real server: descriptors installed from YAML and JSON and checked (400
// naming the field), the shipped anvil-devchain plugin deployed with Docker Compose (its chain
// answers and grows), its logs read over the API with anvil's printed private keys masked,
// stopped, resumed and removed; x-source consortium-key refused for a Vault-held key. The deploy
// part is a counted skip, saying why, without a Docker Engine, the anvil image or Compose. The reference
// plugin against a chaincode is test/e2e/pluginRestGateway.e2e.test.ts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import Docker from 'dockerode';
import WebSocket from 'ws';
import YAML from 'yaml';
import { adminAuth, call, startServer, type TestServer } from '../helpers/server.ts';
import { composeMissing, dockerSkipReason } from '../helpers/dockerAvailability.ts';
import { requiresAll } from '../helpers/requirements.ts';
import { freePort } from '../../adapters/postgres/embeddedPostgres.ts';
import { killLeftoverNodes, until } from './evm/evmLifecycle.ts';
import { startVaultStandin, type VaultStandin } from '../standins/vaultStandin.ts';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { apiOf, consortiumEnv, node as consortiumNode, organization } from './consortium/consortiumApi.ts';
import { fabricMissing } from '../helpers/programs.ts';

let s: TestServer;
let vault: VaultStandin;
const auth = adminAuth();
const api = (method: string, p: string, body?: unknown) => call(s.api, method, p, { headers: auth, body });
const docker = new Docker();
/** This run's Docker name prefix (LNM_DOCKER_PREFIX): its Compose projects are <prefix>plugin-<name>, apart from any other deployment's. */
const PREFIX = `lnm-t${process.pid}-`;

/** The tests that deploy through Docker Compose. */
const withCompose = requiresAll(test, ['docker', await dockerSkipReason()], ['compose', composeMissing()]);
// A running Fabric peer as well: a counted skip where the programs are absent (a fresh machine).
const withComposeAndFabric = requiresAll(test, ['docker', await dockerSkipReason()], ['compose', composeMissing()], ['fabric', fabricMissing]);

test.before(async () => {
  vault = await startVaultStandin({ initialized: true });
  s = await startServer({ env: { ...consortiumEnv(), LNM_DOCKER_PREFIX: PREFIX } });
});
test.after(async () => {
  await s?.stop();
  await vault?.close();
  if (s) killLeftoverNodes(s.dataDir);
  for (const c of await docker.listContainers({ all: true, filters: { label: [`com.docker.compose.project=${PREFIX}plugin-peer-probe`] } }).catch(() => [])) await docker.getContainer(c.Id).remove({ force: true }).catch(() => undefined);
  for (const c of await docker.listContainers({ all: true, filters: { label: [`com.docker.compose.project=${PREFIX}plugin-anvil-devchain`] } }).catch(() => [])) await docker.getContainer(c.Id).remove({ force: true }).catch(() => undefined);
});

const demo = (contents: string, properties: Record<string, unknown> = { port: { type: 'integer' } }) => ({
  apiVersion: 'dev.platform/v1', kind: 'Plugin', metadata: { name: 'demo', version: '0.1.0' },
  spec: { dockerCompose: { contents }, parameters: { type: 'object', properties } },
});

test('descriptors with a bad schema, unknown placeholders or a wrong apiVersion are 400s naming the field', async () => {
  let r = await api('POST', '/plugins', { descriptor: YAML.stringify({ ...demo('x: 1'), apiVersion: 'v9' }) });
  assert.is(r.status, 400, r.text);
  assert.equal(r.json.details.map((d: { field: string }) => d.field), ['apiVersion']);
  r = await api('POST', '/plugins', { descriptor: demo('x: 1', { port: { type: 'port-number' } }) });
  assert.is(r.status, 400, r.text);
  assert.equal(r.json.details.map((d: { field: string }) => d.field), ['spec.parameters']);
  r = await api('POST', '/plugins', { descriptor: demo('image: {{ .Values.secret }}') });
  assert.is(r.status, 400, r.text);
  assert.equal(r.json.details.map((d: { field: string }) => d.field), ['spec.dockerCompose.contents']);
  assert.match(r.json.details[0].message, /unknown placeholder/);
  r = await api('POST', '/plugins', { descriptor: 'kind: [' });
  assert.is(r.status, 400, r.text);
  assert.is((await api('GET', '/plugins')).json.total, 0, 'nothing half-installed');
});

test('a plugin installs from JSON, is listed, updated, and a deploy with parameters that fail its schema is a 400 naming the field', async () => {
  let r = await api('POST', '/plugins', { descriptor: JSON.stringify(demo('services: {}\n# {{ .parameters.port }}', { port: { type: 'integer', minimum: 1024 } })) });
  assert.is(r.status, 201, r.text);
  assert.is(r.json.status, 'installed');
  assert.is((await api('POST', '/plugins', { descriptor: demo('services: {}') })).status, 409);
  r = await api('GET', '/plugins');
  assert.equal(r.json.items.map((p: { name: string; type: string; enabled: boolean }) => [p.name, p.type, p.enabled]), [['demo', 'descriptor', false]]);
  r = await api('PUT', '/plugins/demo', { descriptor: { ...demo('services: {}\n# {{ .parameters.port }}', { port: { type: 'integer', minimum: 2000 } }), metadata: { name: 'demo', version: '0.2.0' } } });
  assert.is(r.status, 200, r.text);
  assert.is(r.json.version, '0.2.0');
  assert.is((await api('PUT', '/plugins/demo', { descriptor: { ...demo('x: 1'), metadata: { name: 'other' } } })).status, 400);
  r = await api('POST', '/plugins/demo/deploy', { parameters: { port: 80 } });
  assert.is(r.status, 400, r.text);
  assert.equal(r.json.details.map((d: { field: string }) => d.field), ['parameters.port']);
  r = await api('POST', '/plugins/demo/deploy', { parameters: { port: 'x' } });
  assert.is(r.status, 400);
  r = await api('GET', '/plugins/demo/logs');
  assert.is(r.status, 409, `never deployed: no logs, and no 500: ${r.text}`);
  assert.is((await api('GET', '/plugins/nothing-here/logs')).status, 404);
  assert.is((await api('POST', '/plugins/demo/stop')).status, 409, 'not running');
  assert.is((await api('DELETE', '/plugins/demo')).status, 204);
  assert.is((await api('GET', '/plugins/demo')).status, 404);
});

test('a descriptor\'s pattern runs in linear time: (a+)+$ against a long "aaa…!" is a prompt 400 while another request is served; RE2-less syntax is refused at install', async () => {
  const redos = (pattern: string) => ({ ...demo('services:\n  app:\n    image: "x-{{ .parameters.word }}"\n', { word: { type: 'string', pattern } }), metadata: { name: 'redos' } });
  let r = await api('POST', '/plugins', { descriptor: redos('(a)\\1') });
  assert.is(r.status, 400, r.text);
  assert.equal(r.json.details.map((d: { field: string }) => d.field), ['spec.parameters']);
  assert.match(r.json.details[0].message, /RE2/);
  r = await api('POST', '/plugins', { descriptor: redos('^(a+)+$') });
  assert.is(r.status, 201, r.text);
  // On a backtracking engine this match takes about 2^60 steps: the deploy would hang and hold
  // the event loop, so the other request would hang too. Both are bounded here to see a hang.
  const bounded = AbortSignal.timeout(20_000);
  const headers = { ...auth, 'content-type': 'application/json' };
  const [deploy, other] = await Promise.all([
    fetch(`${s.api}/plugins/redos/deploy`, { method: 'POST', headers, body: JSON.stringify({ parameters: { word: `${'a'.repeat(60)}!` } }), signal: bounded }),
    new Promise((resolve) => setTimeout(resolve, 20)).then(() => fetch(`${s.api}/plugins`, { headers, signal: bounded })),
  ]);
  assert.is(deploy.status, 400);
  assert.equal(((await deploy.json()) as { details: Array<{ field: string }> }).details.map((d) => d.field), ['parameters.word']);
  assert.is(other.status, 200);
  assert.is((await api('POST', '/plugins/redos/deploy', { parameters: { word: 'a'.repeat(100_000) } })).status !== 400, true, 'a matching value passes the pattern');
  assert.is((await api('DELETE', '/plugins/redos')).status, 204);
});

test('a descriptor that asks for a privileged container or a host mount is a 400 naming each key, for every installer', async () => {
  const r = await api('POST', '/plugins', { descriptor: { ...demo('services:\n  app:\n    image: alpine\n    privileged: true\n    pid: host\n    volumes: ["/:/host"]\n'), metadata: { name: 'rooted' } } });
  assert.is(r.status, 400, r.text);
  assert.equal(r.json.details.map((d: { field: string }) => d.field), ['spec.dockerCompose.contents.services.app.privileged', 'spec.dockerCompose.contents.services.app.pid', 'spec.dockerCompose.contents.services.app.volumes[0]']);
  assert.is((await api('GET', '/plugins/rooted')).status, 404, 'nothing installed');
});

withCompose('the shipped anvil-devchain plugin deploys with Docker Compose, stops, resumes and is removed', async () => {
  const available = await api('GET', '/plugins/available');
  assert.is(available.status, 200, available.text);
  const shipped = available.json.items.find((p: { name: string }) => p.name === 'anvil-devchain');
  assert.ok(shipped, 'anvil-devchain is shipped');
  let r = await api('POST', '/plugins', { descriptor: shipped.descriptor });
  assert.is(r.status, 201, r.text);
  const port = await freePort();
  const height = async () => {
    const res = await fetch(`http://127.0.0.1:${port}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }) });
    return Number(((await res.json()) as { result: string }).result);
  };
  r = await api('POST', '/plugins/anvil-devchain/deploy', { parameters: { port, chainId: 31904 } });
  assert.is(r.status, 200, r.text);
  assert.is(r.json.status, 'enabled');
  assert.is(r.json.parameters.blockTime, 1, 'defaults filled in');
  assert.equal(r.json.services.map((x: { service: string; state: string }) => [x.service, x.state]), [['anvil', 'running']]);
  const h0 = await until('the plugin chain to answer', async () => height().catch(() => null), 30_000);
  await until('its blocks to grow', async () => (await height()) > h0, 30_000);
  // Its output over the API: anvil prints its accounts' private keys at start, masked here.
  r = await api('GET', '/plugins/anvil-devchain/logs?tail=200');
  assert.is(r.status, 200, r.text);
  assert.equal(r.json.services.map((x: { service: string; state: string }) => [x.service, x.state]), [['anvil', 'running']]);
  assert.ok(r.json.services[0].lines.some((l: string) => l.includes(`Listening on 127.0.0.1:${port}`)), r.json.services[0].lines.join('\n'));
  assert.ok(r.json.services[0].lines.some((l: string) => /^\(0\) 0x<redacted>/.test(l.trim())), 'the private key list is there, masked');
  assert.not.match(r.text, 'ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80', 'no private key');
  assert.is((await api('GET', '/plugins/anvil-devchain/logs?service=other')).status, 404);
  // Followed live over a WebSocket (the same path, ?service=): the last lines first, masked, then
  // the lines anvil prints as it is called.
  const wsUrl = (q: string) => `${s.api.replace('http', 'ws')}/plugins/anvil-devchain/logs?${q}`;
  const ws = new WebSocket(wsUrl('service=anvil&tail=200'), { headers: auth });
  const followed: string[] = [];
  ws.on('message', (m) => followed.push(m.toString()));
  await new Promise<void>((res, rej) => (ws.once('open', () => res()), ws.once('error', rej)));
  await until('the last lines first', async () => followed.some((l) => l.includes(`Listening on 127.0.0.1:${port}`)), 10_000);
  assert.ok(followed.some((l) => /^\(0\) 0x<redacted>/.test(l.trim())), 'masked in the stream too');
  const before = followed.length;
  await fetch(`http://127.0.0.1:${port}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }) });
  await until('a new line as anvil is called', async () => followed.slice(before).some((l) => l.includes('eth_chainId')), 15_000);
  assert.not.ok(followed.some((l) => l.includes('ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80')), 'no private key');
  ws.close();
  const refusal = (q: string, headers?: Record<string, string>) =>
    new Promise<number>((res) => {
      const w = new WebSocket(wsUrl(q), headers ? { headers } : {});
      w.once('unexpected-response', (_req, resp) => res(resp.statusCode ?? 0));
      w.once('open', () => (res(101), w.close()));
      w.once('error', () => undefined);
    });
  assert.is(await refusal('service=anvil'), 401, 'no credentials');
  assert.is(await refusal('service=other', auth), 404, 'no such service');
  assert.is(await refusal('', auth), 400, 'no service named');

  r = await api('POST', '/plugins/anvil-devchain/stop');
  assert.is(r.status, 200, r.text);
  assert.is(r.json.status, 'disabled');
  assert.equal(r.json.services.map((x: { state: string }) => x.state), ['exited']);
  r = await api('POST', '/plugins/anvil-devchain/resume');
  assert.is(r.status, 200, r.text);
  assert.equal(r.json.services.map((x: { state: string }) => x.state), ['running']);
  await until('the resumed chain to answer', async () => height().catch(() => null), 30_000);

  // Stopped, and its containers removed behind the service's back (as a failed redeploy also
  // leaves it): resume says there is nothing to start; a deploy brings it back.
  assert.is((await api('POST', '/plugins/anvil-devchain/stop')).status, 200);
  for (const c of await docker.listContainers({ all: true, filters: { label: [`com.docker.compose.project=${PREFIX}plugin-anvil-devchain`] } })) await docker.getContainer(c.Id).remove({ force: true });
  r = await api('POST', '/plugins/anvil-devchain/resume');
  assert.is(r.status, 409, r.text);
  assert.is(r.json.code, 'PLUGIN_NOT_DEPLOYED');
  assert.match(r.json.message, 'deploy it again');
  r = await api('POST', '/plugins/anvil-devchain/deploy', { parameters: { port, chainId: 31904 } });
  assert.is(r.status, 200, r.text);
  assert.equal(r.json.services.map((x: { state: string }) => x.state), ['running']);
  await until('the redeployed chain to answer', async () => height().catch(() => null), 30_000);

  assert.is((await api('DELETE', '/plugins/anvil-devchain')).status, 204);
  const left = await docker.listContainers({ all: true, filters: { label: [`com.docker.compose.project=${PREFIX}plugin-anvil-devchain`] } });
  assert.is(left.length, 0, 'its containers are gone');
  const audit = await api('GET', '/audit-logs?limit=500&days=1');
  const types = audit.json.items.map((e: { event_type: string }) => e.event_type);
  for (const t of ['PluginInstalled', 'PluginEnabled', 'PluginDisabled', 'PluginRemoved']) assert.ok(types.includes(t), t);
});

test('x-source consortium-key: a key held by Vault cannot be written to a file (422 naming the parameter), and nothing is written', async () => {
  // The request is checked before the machine: the same 422 with or without Docker Compose.
  let r = await api('POST', '/plugins', { descriptor: { ...demo('# {{ .parameters.key.MspID }}', { key: { type: 'object', 'x-source': 'consortium-key' } }), metadata: { name: 'sourced' } } });
  assert.is(r.status, 201, r.text);
  const provider = await api('POST', '/key-providers', { name: 'vault', type: 'VAULT', vaultConfig: { operation: 'IMPORT', address: vault.address, token: vault.rootToken, mount: 'secret' } });
  assert.is(provider.status, 201, provider.text);
  const org = await api('POST', '/organizations', { name: 'Vault Org', mspId: 'VaultPluginMSP', providerId: provider.json.id });
  assert.is(org.status, 201, org.text);
  r = await api('POST', '/plugins/sourced/deploy', { parameters: { key: org.json.adminKeyId } });
  assert.is(r.status, 422, r.text);
  assert.is(r.json.code, 'KEY_NOT_EXPORTABLE');
  assert.equal(r.json.details.map((d: { field: string }) => d.field), ['parameters.key']);
  assert.match(r.json.message, 'VAULT');
  assert.not.ok(existsSync(path.join(s.dataDir, 'plugins', 'sourced', 'files')), 'nothing written');
  assert.is((await api('GET', '/plugins/sourced')).json.status, 'installed');
  assert.is((await api('DELETE', '/plugins/sourced')).status, 204);
});

const peerProbe = {
  apiVersion: 'dev.platform/v1', kind: 'Plugin', metadata: { name: 'peer-probe', version: '0.1.0' },
  spec: {
    dockerCompose: {
      contents: [
        'version: "2.4"',
        'services:',
        '  probe:',
        '    image: lnm-anvil:local',
        '    network_mode: host',
        '    command: ["--host", "127.0.0.1", "--port", "{{ .parameters.port }}"]',
        '    volumes:',
        '{{- range .volumeMounts }}',
        '      - {{ .Source }}:{{ .Target }}{{ if .ReadOnly }}:ro{{ end }}',
        '{{- end }}',
        '',
      ].join('\n'),
    },
    parameters: {
      type: 'object', required: ['port', 'peers'],
      properties: {
        port: { type: 'integer', minimum: 1024 },
        peers: { type: 'array', minItems: 1, 'x-source': 'consortium-peer', items: { type: 'object', required: ['ExternalEndpoint', 'TLSCertPath'], properties: { ExternalEndpoint: { type: 'string' }, TLSCertPath: { type: 'string' } } } },
      },
    },
  },
};

withComposeAndFabric('x-source consortium-peer turns peer node ids into endpoints and a TLS CA mounted read-only', async () => {
  const org = await organization(apiOf(() => s), 'PluginOrg', 'PluginOrgMSP');
  const peer = await consortiumNode(apiOf(() => s), 'plugin-peer0', 'CONSORTIUM_PEER', org.id, { port: await freePort(), chaincodePort: await freePort(), operationsPort: await freePort() });
  let r = await api('POST', '/plugins', { descriptor: peerProbe });
  assert.is(r.status, 201, r.text);
  r = await api('POST', '/plugins/peer-probe/deploy', { parameters: { port: await freePort(), peers: [987654] } });
  assert.is(r.status, 400, r.text);
  assert.equal(r.json.details.map((d: { field: string }) => d.field), ['parameters.peers']);
  r = await api('POST', '/plugins/peer-probe/deploy', { parameters: { port: await freePort(), peers: 'peer0' } });
  assert.is(r.status, 400, r.text);

  r = await api('POST', '/plugins/peer-probe/deploy', { parameters: { port: await freePort(), peers: [peer.id] } });
  assert.is(r.status, 200, r.text);
  const resolved = r.json.parameters.peers[0];
  assert.match(resolved.ExternalEndpoint, /:\d+$/);
  assert.is(resolved.TLSCertPath, `/lnm-plugin/peers/${peer.id}-tls-ca.pem`);
  const [container] = await docker.listContainers({ all: true, filters: { label: [`com.docker.compose.project=${PREFIX}plugin-peer-probe`] } });
  const mount = (await docker.getContainer(container.Id).inspect()).Mounts.find((m) => m.Destination === '/lnm-plugin');
  assert.ok(mount, 'the plugin files are mounted');
  assert.is(mount!.RW, false, 'read-only');
  const { readFileSync } = await import('node:fs');
  assert.match(readFileSync(`${mount!.Source}/peers/${peer.id}-tls-ca.pem`, 'utf8'), /BEGIN CERTIFICATE/);
  assert.is((await api('DELETE', '/plugins/peer-probe')).status, 204);
});

test.run();
