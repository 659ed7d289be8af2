// The rendered compose file as Docker Compose itself reads it (`config`, no Docker Engine
// needed): hostile parameter values (YAML 1.1 line breaks, flow indicators, quotes, comments,
// `$` interpolation) add no key and reach the container as the text given. A counted skip
// without a Compose binary.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { renderCompose } from '../../../domain/plugins/pluginTemplate.ts';
import { composeEnvironment } from '../../../adapters/plugins/composePluginRuntime.ts';
import { composeMissing } from '../../helpers/dockerAvailability.ts';
import { requires } from '../../helpers/requirements.ts';

const t = requires(test, 'compose', composeMissing());

const contents = `version: "2.4"
services:
  app:
    image: {{ .parameters.v }}
    command: ["run", "{{ .parameters.v }}", {{ .parameters.v }}]
    environment:
      A: {{ .parameters.v }}
      B: "x-{{ .parameters.v }}-y"
    labels: { l1: {{ .parameters.v }} }
`;

/** The Compose the plugin runtime would use: the docker plugin where present, else docker-compose. */
let compose: string[] | undefined;
function composeConfig(file: string): string {
  const env = composeEnvironment(process.env);
  compose ??= (() => {
    try {
      execFileSync('docker', ['compose', 'version'], { stdio: 'ignore' });
      return ['docker', 'compose'];
    } catch {
      return ['docker-compose'];
    }
  })();
  try {
    return execFileSync(compose[0], [...compose.slice(1), '-p', 'lnm-render-check', '-f', file, 'config'], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    throw new Error(`compose config failed: ${(err as { stderr?: string }).stderr ?? (err as Error).message}`);
  }
}

t('Compose reads every hostile value as one scalar: the keys are the descriptor\'s, the text reaches the container', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'lnm-render-'));
  try {
    for (const v of [
      'x\u2028    privileged: true\u0085    pid: host\u2029    cap_add: [ALL]', 'x\n    volumes: ["/:/host"]\r\n    network_mode: host',
      'a, privileged: true}, cap_add: [ALL], b: { # c', '&a *a !!map "\'\\', '${HOME} $PATH $$ ${KEY_ENCRYPTION_KEY:-leaked}',
    ]) {
      const file = path.join(dir, 'docker-compose.yml');
      writeFileSync(file, renderCompose(contents, { v }, []));
      const seen = YAML.parse(composeConfig(file), { version: '1.1' });
      assert.equal(Object.keys(seen.services.app).sort(), ['command', 'environment', 'image', 'labels'], JSON.stringify(v));
      // `config` writes a literal $ back as $$, as it came; an interpolated one would differ.
      const lit = v.split('$').join('$$');
      const asGiven = (s: string) => s === v || s === lit;
      assert.ok(asGiven(seen.services.app.environment.A), `${JSON.stringify(v)} -> ${JSON.stringify(seen.services.app.environment.A)}`);
      assert.ok(asGiven(seen.services.app.image), JSON.stringify(seen.services.app.image));
      assert.ok(asGiven(seen.services.app.labels.l1), JSON.stringify(seen.services.app.labels));
      assert.equal(seen.services.app.command.length, 3);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
