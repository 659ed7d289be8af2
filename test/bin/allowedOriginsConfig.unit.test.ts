// LNM_ALLOWED_ORIGINS: the browser origins besides a request's own from which a session cookie may
// change state (a public origin behind a proxy). Each is an origin as browsers send it; anything
// else (a path, credentials, another scheme) is refused at start, so a typo cannot silently
// admit nothing or everything.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, loadConfig } from '../../bin/config.ts';

test('unset: none; set by the variable or the flag (the flag wins), normalised as browsers send Origin', () => {
  assert.equal(loadConfig([], {}).allowedOrigins, []);
  assert.equal(loadConfig([], { LNM_ALLOWED_ORIGINS: 'https://lnm.example.org, http://console.example.org:8443/' }).allowedOrigins, ['https://lnm.example.org', 'http://console.example.org:8443']);
  assert.equal(loadConfig(['--allowed-origins', 'https://a.example.org'], { LNM_ALLOWED_ORIGINS: 'https://b.example.org' }).allowedOrigins, ['https://a.example.org']);
  // The default port is not part of an Origin header.
  assert.equal(loadConfig([], { LNM_ALLOWED_ORIGINS: 'https://lnm.example.org:443' }).allowedOrigins, ['https://lnm.example.org']);
});

test('upper case is lowered, as in the Origin header', () => {
  assert.equal(loadConfig([], { LNM_ALLOWED_ORIGINS: 'HTTPS://LNM.Example.ORG' }).allowedOrigins, ['https://lnm.example.org']);
});

test('what is not an http(s) origin is refused at start, naming the variable', () => {
  for (const bad of ['lnm.example.org', 'https://lnm.example.org/console', 'https://u:p@lnm.example.org', 'ftp://lnm.example.org', 'https://lnm.example.org?x=1', 'https://lnm.example.org#', 'null', '*']) {
    assert.throws(() => loadConfig([], { LNM_ALLOWED_ORIGINS: bad }), (err: Error) => err instanceof ConfigError && /LNM_ALLOWED_ORIGINS/.test(err.message), bad);
  }
});

test.run();
