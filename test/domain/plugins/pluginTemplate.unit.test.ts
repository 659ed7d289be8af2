// Rendering a plugin's compose text is structural: whatever a parameter value holds, the rendered
// document has the keys and collections of the descriptor and the value lands, whole, in the
// scalar where the descriptor put its placeholder. The compose policy refuses what would make a
// container root on the host, at install and again after the parameters are filled in.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import YAML from 'yaml';
import { parsePluginDescriptor } from '../../../domain/plugins/pluginDescriptor.ts';
import { placeholderIssues, renderCompose } from '../../../domain/plugins/pluginTemplate.ts';
import { ValidationError } from '../../../domain/shared/errors.ts';

// A placeholder in every kind of value position: plain, double- and single-quoted, inside longer
// text, in flow sequences and flow mappings, in a block scalar.
const contents = `version: "2.4"
services:
  app:
    image: {{ .parameters.v }}
    command: ["run", "{{ .parameters.v }}", {{ .parameters.v }}]
    entrypoint: '{{ .parameters.v }}'
    environment:
      A: {{ .parameters.v }}
      B: "x-{{ .parameters.v }}-y"
      C: prefix {{ .parameters.v }} suffix
      PORT: {{ .parameters.port }}
    labels: { l1: {{ .parameters.v }}, l2: "{{ .parameters.v }}" }
    working_dir: |
      /srv/{{ .parameters.v }}
    volumes:
{{- range .volumeMounts }}
      - {{ .Source }}:{{ .Target }}{{ if .ReadOnly }}:ro{{ end }}
{{- end }}
`;
const mounts = [{ Source: '/data/plugins/demo/files', Target: '/lnm-plugin', ReadOnly: true }];

/** YAML 1.1 readers (PyYAML, libyaml) take NEL, LS and PS for line breaks: read the text as they would. */
const asYaml11Reader = (text: string) => text.replace(/[\u0085\u2028\u2029]/g, '\n');

/** Every key path and collection of a document, leaves reduced to their position. */
function shape(v: unknown, at = ''): string[] {
  if (Array.isArray(v)) return [`${at}[]#${v.length}`, ...v.flatMap((x, i) => shape(x, `${at}[${i}]`))];
  if (v && typeof v === 'object') return [`${at}{}`, ...Object.entries(v).flatMap(([k, x]) => shape(x, `${at}.${k}`))];
  return [];
}
const keysAnywhere = (v: unknown): string[] => (Array.isArray(v) ? v.flatMap(keysAnywhere) : v && typeof v === 'object' ? Object.entries(v).flatMap(([k, x]) => [k, ...keysAnywhere(x)]) : []);

const render = (v: unknown) => renderCompose(contents, { v, port: 8080 }, mounts);
const benign = YAML.parse(render('benign'));

const hostile = [
  'x\nprivileged: true', 'x\r\nprivileged: true', 'x\rprivileged: true',
  'x\u0085privileged: true', 'x\u2028privileged: true', 'x\u2029    privileged: true',
  'x\u2028    volumes: ["/:/host"]\u2028    cap_add: [SYS_ADMIN]', 'x\u0085    network_mode: host\u0085    pid: host',
  '\n    privileged: true\n    volumes:\n      - /:/host', '\r\n  evil:\r\n    image: x\r\n    privileged: true',
  'a, privileged: true}', 'a}, cap_add: [ALL], b: {', 'a], privileged: true, x: [', '[a, b]', '{network_mode: host}',
  'a: b', 'pid: host', 'a #c', '# c', '&anchor x', '*alias', '!!map {pid: host}', '!!binary x', '| x', '> x', '"q', "'q", '\\"', "''",
  '${KEY_ENCRYPTION_KEY}', '$HOME', '$$', '$', '${HOME:-/}', '- item', '? key', '%YAML 1.1', '---\nprivileged: true', '...\n---\nprivileged: true',
  '@', '`', '\t', '\\', 'a\\nb', 'a\\u2028b', 'yes', 'on', '0755', '1e3', '22:22', 'null', '~', '', ' ', ' leading', 'trailing ', '<<: *a',
  '\u00a0', '\ufeff', '😀', '\u007f', '\u009b', '\u0007', '\u001b[31m', 'x'.repeat(5000), `${'\u2028'.repeat(50)}privileged: true`,
];

test('no parameter value can add, remove or change a key, whatever it holds (line breaks of any kind, flow indicators, quotes, comments, anchors, tags, $)', () => {
  for (const v of hostile) {
    const out = render(v);
    assert.not.match(out, /[\u0085\u2028\u2029]/, `no raw NEL/LS/PS in the rendered file for ${JSON.stringify(v)}`);
    for (const reader of [(t: string) => t, asYaml11Reader]) {
      const doc = YAML.parse(reader(out), { version: '1.1', merge: true });
      assert.equal(shape(doc), shape(benign), `same keys and collections for ${JSON.stringify(v)}`);
      const app = doc.services.app;
      for (const k of ['privileged', 'cap_add', 'network_mode', 'pid']) assert.not.ok(keysAnywhere(doc).includes(k), `${k} introduced by ${JSON.stringify(v)}`);
      assert.equal(doc.services.app.volumes, ['/data/plugins/demo/files:/lnm-plugin:ro'], 'volumes unchanged');
      // The value lands whole in the scalar that held the placeholder, every $ written $$.
      const lit = v.split('$').join('$$');
      assert.is(app.image, lit);
      assert.equal(app.command, ['run', lit, lit]);
      assert.is(app.entrypoint, lit);
      assert.equal(app.environment, { A: lit, B: `x-${lit}-y`, C: `prefix ${lit} suffix`, PORT: 8080 });
      assert.equal(app.labels, { l1: lit, l2: lit });
      assert.is(app.working_dir, `/srv/${lit}\n`);
    }
  }
});

test('a whole plain placeholder keeps the value\'s type; an object or array is its JSON text; a missing value is null or empty text', () => {
  const app = (v: unknown) => YAML.parse(render(v)).services.app;
  assert.is(app(8645).image, 8645);
  assert.is(app(true).image, true);
  assert.is(app(null).image, null);
  assert.is(app(undefined).environment.B, 'x--y');
  assert.is(app({ a: 1, privileged: true }).image, '{"a":1,"privileged":true}');
  assert.equal(app(['x', { y: '$Z' }]).command[2], '["x",{"y":"$$Z"}]');
  assert.is(app(8645).environment.B, 'x-8645-y', 'inside text a number is text');
});

test('a nested parameter path reads own fields only; a lone surrogate is a 400 naming the parameter', () => {
  const text = 'services:\n  app:\n    image: x\n    environment:\n      A: "{{ .parameters.key.constructor }}"\n      B: "{{ .parameters.key.MspID }}"\n';
  const env = YAML.parse(renderCompose(text, { key: { MspID: 'Org1MSP' } }, [])).services.app.environment;
  assert.equal(env, { A: '', B: 'Org1MSP' });
  try {
    renderCompose(text, { key: { MspID: 'a\ud800b' } }, []);
    assert.unreachable('a lone surrogate was written');
  } catch (err) {
    assert.instance(err, ValidationError);
    assert.equal((err as ValidationError).details!.map((d) => d.field), ['parameters.key.MspID']);
  }
});

const refused = (text: string) => placeholderIssues(text, ['v', 'dir', 'mode']);
const fieldsOf = (text: string) => refused(text).map((i) => i.field);

test('a placeholder may stand only in a value: not in a key, a tag or an anchor; in a comment it is kept as written', () => {
  assert.equal(refused('services:\n  app:\n    image: x\n    {{ .parameters.v }}: y\n').length, 1);
  assert.match(refused('services:\n  app:\n    image: x\n    {{ .parameters.v }}: y\n')[0].message, /a key/);
  assert.match(refused('services:\n  app:\n    image: !{{ .parameters.v }} x\n')[0].message, /a tag/);
  assert.match(refused('services:\n  app: &{{ .parameters.v }}\n    image: x\n')[0].message, /an anchor/);
  assert.equal(refused('services:\n  app:\n    image: x # {{ .parameters.v }}\n'), []);
  const out = renderCompose('services:\n  app:\n    image: "{{ .parameters.v }}" # was {{ .parameters.v }}\n', { v: 'a\u2028b' }, []);
  assert.match(out, /# was \{\{ \.parameters\.v \}\}/);
  assert.is(YAML.parse(out).services.app.image, 'a\u2028b');
  assert.equal([...new Set(fieldsOf('services: {a: [unclosed\n'))], ['spec.dockerCompose.contents']);
  assert.equal(fieldsOf('services:\n  app:\n    image: "a\u2028b"\n'), ['spec.dockerCompose.contents'], 'raw LS in the descriptor itself');
});

test('keys that make a container root on the host or reach outside the plugin are refused at install, naming the key', () => {
  const svc = (body: string) => `services:\n  app:\n    image: x\n${body}`;
  const cases: Array<[string, string]> = [
    [svc('    privileged: true\n'), 'services.app.privileged'],
    [svc('    privileged: yes\n'), 'services.app.privileged'],
    [svc('    privileged: "{{ .parameters.v }}"\n'), 'services.app.privileged'],
    [svc('    cap_add: [SYS_ADMIN]\n'), 'services.app.cap_add'],
    [svc('    devices: ["/dev/sda:/dev/sda"]\n'), 'services.app.devices'],
    [svc('    security_opt: ["seccomp:unconfined"]\n'), 'services.app.security_opt'],
    [svc('    pid: host\n'), 'services.app.pid'],
    [svc('    ipc: host\n'), 'services.app.ipc'],
    [svc('    uts: host\n'), 'services.app.uts'],
    [svc('    userns_mode: host\n'), 'services.app.userns_mode'],
    [svc('    network_mode: "container:lnm-peer0"\n'), 'services.app.network_mode'],
    [svc('    volumes: ["/:/host"]\n'), 'services.app.volumes[0]'],
    [svc('    volumes: ["/var/run/docker.sock:/var/run/docker.sock"]\n'), 'services.app.volumes[0]'],
    [svc('    volumes: ["./data:/data"]\n'), 'services.app.volumes[0]'],
    [svc('    volumes: ["~/x:/x"]\n'), 'services.app.volumes[0]'],
    [svc('    volumes: [{type: bind, source: /, target: /host}]\n'), 'services.app.volumes[0]'],
    [svc('    volumes: ["{{ .parameters.dir }}:/data"]\n'), 'services.app.volumes[0]'],
    [svc('    volumes_from: [other]\n'), 'services.app.volumes_from'],
    [svc('    build: /\n'), 'services.app.build'],
    [svc('    env_file: /etc/shadow\n'), 'services.app.env_file'],
    [svc('    extends: {file: /etc/x.yml, service: a}\n'), 'services.app.extends.file'],
    [svc('    labels: {lnm.node: "5"}\n'), 'services.app.labels.lnm.node'],
    [svc('    labels: ["lnm.data-dir=/x"]\n'), 'services.app.labels.lnm.data-dir'],
    [svc('volumes:\n  data:\n    driver_opts: {type: none, o: bind, device: /}\n'), 'volumes.data.driver_opts'],
    [svc('volumes:\n  data:\n    external: true\n'), 'volumes.data.external'],
    [svc('volumes:\n  data:\n    name: lnm-peer0-data\n'), 'volumes.data.name'],
    [svc('secrets:\n  s:\n    file: /etc/shadow\n'), 'secrets'],
    [svc('configs:\n  s:\n    environment: KEY_ENCRYPTION_KEY\n'), 'configs'],
    [svc('include: [/etc/x.yml]\n'), 'include'],
    // Through a merge key and an alias.
    ['x-base: &base\n  privileged: true\n  cap_add: [ALL]\nservices:\n  app:\n    <<: *base\n    image: x\n', 'services.app.privileged'],
  ];
  for (const [text, field] of cases) {
    const fields = fieldsOf(text);
    assert.ok(fields.includes(`spec.dockerCompose.contents.${field}`), `${field} refused in ${JSON.stringify(text)}: ${JSON.stringify(refused(text))}`);
    assert.match(refused(text).find((i) => i.field.endsWith(field))!.message, new RegExp(`^${field.replace(/[.[\]]/g, '\\$&')} is refused in a plugin`));
  }
});

test('what a plugin needs stays allowed: host networking, named volumes, tmpfs, ports, the service\'s own mount, privileged: false', () => {
  const ok = 'services:\n  app:\n    image: x\n    network_mode: host\n    privileged: false\n    user: "1000"\n    tmpfs: [/run]\n    ports: ["127.0.0.1:8080:80"]\n    volumes:\n      - data:/data\n      - /anonymous\n{{- range .volumeMounts }}\n      - {{ .Source }}:{{ .Target }}{{ if .ReadOnly }}:ro{{ end }}\n{{- end }}\nvolumes:\n  data: {}\n';
  assert.equal(refused(ok), []);
  const out = YAML.parse(renderCompose(ok, {}, mounts));
  assert.equal(out.services.app.volumes, ['data:/data', '/anonymous', '/data/plugins/demo/files:/lnm-plugin:ro']);
});

test('a parameter value the policy refuses once filled in (a host path, another container\'s namespaces) is a 400 at deploy, naming the key', () => {
  const text = 'services:\n  app:\n    image: x\n    network_mode: "{{ .parameters.mode }}"\n    volumes: ["data-{{ .parameters.dir }}:/data"]\nvolumes:\n  data-a: {}\n';
  assert.equal(refused(text), []);
  for (const [parameters, field] of [[{ mode: 'container:lnm-peer0', dir: 'a' }, 'services.app.network_mode'], [{ mode: 'host', dir: 'a/../../:/x:' }, 'services.app.volumes[0]']] as const) {
    try {
      renderCompose(text, parameters, []);
      assert.unreachable(`accepted ${JSON.stringify(parameters)}`);
    } catch (err) {
      assert.instance(err, ValidationError);
      assert.equal((err as ValidationError).details!.map((d) => d.field), [`spec.dockerCompose.contents.${field}`]);
    }
  }
});

test('a descriptor with a privileged service is a 400 from parsePluginDescriptor, naming the key', () => {
  try {
    parsePluginDescriptor({ apiVersion: 'dev.platform/v1', kind: 'Plugin', metadata: { name: 'root' }, spec: { dockerCompose: { contents: 'services:\n  app:\n    image: alpine\n    privileged: true\n    volumes: ["/:/host"]\n' }, parameters: { type: 'object' } } });
    assert.unreachable('installed');
  } catch (err) {
    assert.instance(err, ValidationError);
    assert.equal((err as ValidationError).details!.map((d) => d.field), ['spec.dockerCompose.contents.services.app.privileged', 'spec.dockerCompose.contents.services.app.volumes[0]']);
  }
});

test.run();
