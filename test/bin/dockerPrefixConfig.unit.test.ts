// LNM_DOCKER_PREFIX: the start of the names one deployment gives on a Docker Engine. It reaches
// every platform runtime through engineEnv, from the variable or the flag; a value Docker or
// Compose would refuse is refused at start, saying what is allowed.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, engineEnv, loadConfig } from '../../bin/config.ts';
import { dockerPrefixFromEnv } from '../../adapters/engines/nodeImages.ts';

test('the default is lnm-, so containers keep their names lnm-node-<id>', () => {
  assert.is(loadConfig([], {}).dockerPrefix, 'lnm-');
  assert.is(engineEnv(loadConfig([], {})).LNM_DOCKER_PREFIX, 'lnm-');
  assert.is(dockerPrefixFromEnv({}), 'lnm-');
});

test('the variable and the flag set it (the flag wins), and engineEnv carries it with the Fabric entries', () => {
  assert.is(loadConfig([], { LNM_DOCKER_PREFIX: 'lnm-a-' }).dockerPrefix, 'lnm-a-');
  const config = loadConfig(['--docker-prefix', 'site2_'], { LNM_DOCKER_PREFIX: 'ignored-', LNM_FABRIC_BIN: '/opt/fabric/bin' });
  assert.equal(engineEnv(config), { LNM_FABRIC_BIN: '/opt/fabric/bin', LNM_DOCKER_PREFIX: 'site2_' });
  assert.is(dockerPrefixFromEnv(engineEnv(config)), 'site2_');
});

test('a prefix Docker or Compose would refuse is refused at start, naming the rule', () => {
  for (const bad of ['LNM-', '-lnm', 'a/b-', 'a b', 'a.b', 'é-', 'x'.repeat(41), '../', 'a\nb']) {
    assert.throws(() => loadConfig(['--docker-prefix', bad], {}), (err: Error) => err instanceof ConfigError && /LNM_DOCKER_PREFIX must be lowercase letters, digits, - and _/.test(err.message), JSON.stringify(bad));
    assert.throws(() => dockerPrefixFromEnv({ LNM_DOCKER_PREFIX: bad }), /LNM_DOCKER_PREFIX/);
  }
  assert.is(loadConfig(['--docker-prefix', 'x'.repeat(40)], {}).dockerPrefix, 'x'.repeat(40));
  // Space around it (a line end pasted from a file) is not part of it.
  assert.is(loadConfig([], { LNM_DOCKER_PREFIX: ' lnm-b-\n' }).dockerPrefix, 'lnm-b-');
});

test.run();
