import { test } from 'uvu';
import * as assert from 'uvu/assert';
import YAML from 'yaml';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { checkPluginParameters, parsePluginDescriptor } from '../../../domain/plugins/pluginDescriptor.ts';
import { renderCompose } from '../../../domain/plugins/pluginTemplate.ts';
import { ValidationError } from '../../../domain/shared/errors.ts';

const compose = `services:
  app:
    image: demo:{{ .parameters.tag }}
    command: ["--port", "{{ .parameters.port }}", "--msp", "{{ .parameters.key.MspID }}"]
    volumes:
{{- range .volumeMounts }}
      - {{ .Source }}:{{ .Target }}{{ if .ReadOnly }}:ro{{ end }}
{{- end }}
`;
const descriptor = () => ({
  apiVersion: 'dev.platform/v1',
  kind: 'Plugin',
  metadata: { name: 'demo', version: '1.0.0', tags: ['x'] },
  spec: {
    dockerCompose: { contents: compose },
    parameters: { type: 'object', required: ['port'], properties: { port: { type: 'number', minimum: 1024 }, tag: { type: 'string' }, key: { type: 'object', 'x-source': 'consortium-key' } } },
  },
});

const fields = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    assert.instance(err, ValidationError);
    return (err as ValidationError).details!.map((d) => d.field);
  }
  assert.unreachable('accepted');
  return [];
};

test('a descriptor parses from YAML and from JSON alike', () => {
  assert.is(parsePluginDescriptor(YAML.stringify(descriptor())).metadata.name, 'demo');
  assert.is(parsePluginDescriptor(JSON.stringify(descriptor())).metadata.name, 'demo');
});

test('bad descriptors are refused naming the field', () => {
  assert.equal(fields(() => parsePluginDescriptor({ ...descriptor(), apiVersion: 'v2' })), ['apiVersion']);
  const noName = descriptor() as any;
  delete noName.metadata.name;
  assert.equal(fields(() => parsePluginDescriptor(noName)), ['metadata.name']);
  const badSchema = descriptor() as any;
  badSchema.spec.parameters.properties.port.type = 'integerish';
  assert.equal(fields(() => parsePluginDescriptor(badSchema)), ['spec.parameters']);
  const badSource = descriptor() as any;
  badSource.spec.parameters.properties.key['x-source'] = 'vault';
  assert.equal(fields(() => parsePluginDescriptor(badSource)), ['spec.parameters.properties.key.x-source']);
  assert.equal(fields(() => parsePluginDescriptor('apiVersion: [unclosed')), ['descriptor']);
});

test('unknown placeholders and undeclared parameters are refused at install', () => {
  const unknown = descriptor() as any;
  unknown.spec.dockerCompose.contents += '\n# {{ .Env.SECRET }}\n';
  assert.equal(fields(() => parsePluginDescriptor(unknown)), ['spec.dockerCompose.contents']);
  const undeclared = descriptor() as any;
  undeclared.spec.dockerCompose.contents += '\n# {{ .parameters.nope }}\n';
  assert.equal(fields(() => parsePluginDescriptor(undeclared)), ['spec.dockerCompose.contents']);
});

test('parameters are checked against the descriptor\'s own schema', () => {
  const d = parsePluginDescriptor(descriptor());
  assert.equal(fields(() => checkPluginParameters(d, { port: 80 })), ['parameters.port']);
  assert.equal(fields(() => checkPluginParameters(d, {})), ['parameters.port']);
  assert.equal(checkPluginParameters(d, { port: 8080 }), { port: 8080 });
});

test('the compose text renders parameters and volume mounts', () => {
  const out = renderCompose(compose, { port: 8080, tag: 'v1', key: { MspID: 'Org1MSP' } }, [{ Source: '/a', Target: '/x', ReadOnly: true }, { Source: '/b', Target: '/y', ReadOnly: false }]);
  const parsed = YAML.parse(out);
  assert.equal(parsed.services.app.volumes, ['/a:/x:ro', '/b:/y']);
  assert.equal(parsed.services.app.command, ['--port', '8080', '--msp', 'Org1MSP']);
  assert.is(parsed.services.app.image, 'demo:v1');
});

test('user-supplied patterns run in linear time (RE2): (a+)+$ against a long "aaa…!" answers at once; lookaround and backreferences are refused at install', () => {
  const withPattern = (pattern: string) => ({ ...descriptor(), spec: { ...descriptor().spec, parameters: { type: 'object', properties: { ...descriptor().spec.parameters.properties, word: { type: 'string', pattern } } } } });
  const d = parsePluginDescriptor(withPattern('^(a+)+$'));
  // On a backtracking engine this is about 2^5000 steps; the test would never end.
  assert.equal(fields(() => checkPluginParameters(d, { port: 8080, word: `${'a'.repeat(5000)}!` })), ['parameters.word']);
  assert.equal(checkPluginParameters(d, { port: 8080, word: 'a'.repeat(5000) }).word, 'a'.repeat(5000));
  for (const p of ['(a)\\1', '(?=a)a', '(?<!b)a']) assert.equal(fields(() => parsePluginDescriptor(withPattern(p))), ['spec.parameters'], p);
  // Distinct patterns stay distinct (ajv keys compiled patterns by their text).
  const two = parsePluginDescriptor({ ...descriptor(), spec: { dockerCompose: { contents: 'services: {}\n' }, parameters: { type: 'object', properties: { port: { type: 'number' }, a: { type: 'string', pattern: '^[a-z]+$' }, b: { type: 'string', pattern: '^[0-9]+$' } } } } });
  assert.equal(fields(() => checkPluginParameters(two, { port: 1, a: '1', b: 'x' })), ['parameters.a', 'parameters.b']);
});

test('uniqueItems must come with a bounded maxItems (its check compares every pair), and at most 100 issues are listed', () => {
  const withList = (list: Record<string, unknown>) => ({ ...descriptor(), spec: { dockerCompose: { contents: 'services: {}\n' }, parameters: { type: 'object', properties: { port: { type: 'number' }, list } } } });
  assert.equal(fields(() => parsePluginDescriptor(withList({ type: 'array', uniqueItems: true }))), ['spec.parameters.properties.list']);
  assert.equal(fields(() => parsePluginDescriptor(withList({ type: 'array', uniqueItems: true, maxItems: 100_000 }))), ['spec.parameters.properties.list']);
  const d = parsePluginDescriptor(withList({ type: 'array', uniqueItems: true, maxItems: 1000, items: { type: 'integer' } }));
  assert.is(fields(() => checkPluginParameters(d, { port: 1, list: Array.from({ length: 5000 }, () => 'x') })).length, 100);
});

const shippedDir = path.join(import.meta.dirname, '..', '..', '..', 'plugins', 'available');

test('every shipped descriptor parses; the reference plugin renders the environment its program reads, the key mounted read-only', () => {
  const files = readdirSync(shippedDir).filter((f) => /\.ya?ml$/.test(f));
  assert.ok(files.includes('rest-gateway.yaml'), files.join());
  for (const f of files) assert.is(`${parsePluginDescriptor(readFileSync(path.join(shippedDir, f), 'utf8')).metadata.name}.yaml`, f);
  const d = parsePluginDescriptor(readFileSync(path.join(shippedDir, 'rest-gateway.yaml'), 'utf8'));
  // SPEC's parameters of the reference plugin, with their x-sources.
  assert.equal(d.spec.parameters.required, ['key', 'channelName', 'peers', 'port']);
  assert.is(d.spec.parameters.properties!.key['x-source'], 'consortium-key');
  assert.is(d.spec.parameters.properties!.peers['x-source'], 'consortium-peer');
  const key = { MspID: 'Org1MSP', CertPath: '/lnm-plugin/keys/3/cert.pem', KeyPath: '/lnm-plugin/keys/3/key.pem' };
  const peers = [{ ExternalEndpoint: '127.0.0.1:7051', TLSCertPath: '/lnm-plugin/peers/5-tls-ca.pem' }];
  assert.equal(fields(() => checkPluginParameters(d, { key, peers, port: 8801, channelName: 'Bad_Channel' })), ['parameters.channelName']);
  assert.equal(fields(() => checkPluginParameters(d, { key: { MspID: 'Org1MSP' }, peers, port: 8801, channelName: 'c' })), ['parameters.key.CertPath', 'parameters.key.KeyPath']);
  const parameters = checkPluginParameters(d, { key, peers, port: 8801, channelName: 'mychannel' });
  const gateway = YAML.parse(renderCompose(d.spec.dockerCompose.contents, parameters, [{ Source: '/data/plugins/rest-gateway/files', Target: '/lnm-plugin', ReadOnly: true }])).services.gateway;
  assert.is(gateway.image, 'lnm-plugin-rest-gateway:local');
  assert.is(gateway.network_mode, 'host');
  assert.equal(gateway.volumes, ['/data/plugins/rest-gateway/files:/lnm-plugin:ro']);
  assert.equal({ ...gateway.environment, PEERS: JSON.parse(gateway.environment.PEERS) }, {
    GATEWAY_PORT: '8801', GATEWAY_HOST: '127.0.0.1', CHANNEL_NAME: 'mychannel', MSP_ID: 'Org1MSP', CERT_PATH: key.CertPath, KEY_PATH: key.KeyPath, PEERS: peers,
  });
});

test.run();
