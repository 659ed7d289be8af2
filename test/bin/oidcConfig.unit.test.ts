import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, loadConfig } from '../../bin/config.ts';

const base = { LNM_OIDC_ISSUER: 'https://idp.example.org/realms/x', LNM_OIDC_CLIENT_ID: 'lnm', LNM_OIDC_CLIENT_SECRET: 's3cret-value', LNM_OIDC_REDIRECT_URL: 'https://lnm.example.org/api/v1/auth/oidc/callback' };

test('OIDC is off without an issuer, and local login is on', () => {
  const c = loadConfig([], {});
  assert.is(c.oidc, null);
  assert.equal(c.localLogin, { mode: 'on' });
});

test('the OIDC options from variables, with defaults; flags override them', () => {
  const c = loadConfig(['--oidc-role-map', 'admins=ADMIN,ops=OPERATOR', '--oidc-default-role=viewer', '--local-login', 'admin'], { ...base, LNM_OIDC_SCOPES: 'profile,groups', LNM_OIDC_AUDIENCE: 'urn:lnm:api' });
  assert.equal(c.oidc, {
    issuer: base.LNM_OIDC_ISSUER, clientId: 'lnm', clientSecret: 's3cret-value', redirectUrl: base.LNM_OIDC_REDIRECT_URL,
    scopes: ['openid', 'profile', 'groups'], roleClaim: 'groups', roleMap: { admins: 'ADMIN', ops: 'OPERATOR' }, defaultRole: 'VIEWER', audience: 'urn:lnm:api',
  });
  assert.equal(c.localLogin, { mode: 'only', usernames: ['admin'] });
  assert.is(loadConfig([], base).oidc!.defaultRole, null, 'default: no access');
});

test('bad OIDC configuration is a clear error at start, never echoing the secret', () => {
  const fails = (env: Record<string, string>, argv: string[], re: RegExp) => {
    try {
      loadConfig(argv, env);
    } catch (err) {
      assert.instance(err, ConfigError);
      assert.match((err as Error).message, re);
      assert.not.match((err as Error).message, /s3cret-value/);
      return;
    }
    assert.unreachable(`no error for ${JSON.stringify(env)} ${argv.join(' ')}`);
  };
  fails({ LNM_OIDC_ISSUER: base.LNM_OIDC_ISSUER }, [], /LNM_OIDC_ISSUER needs LNM_OIDC_CLIENT_ID, LNM_OIDC_CLIENT_SECRET, LNM_OIDC_REDIRECT_URL/);
  fails({ LNM_OIDC_CLIENT_SECRET: 's3cret-value' }, [], /LNM_OIDC_CLIENT_SECRET given without LNM_OIDC_ISSUER/);
  fails({ ...base, LNM_OIDC_ISSUER: 'idp.example.org' }, [], /LNM_OIDC_ISSUER must be an absolute URL/);
  fails({ ...base, LNM_OIDC_ISSUER: 'http://idp.example.org' }, [], /LNM_OIDC_ISSUER must be an https URL \(plain http only on a loopback address\)/);
  assert.is(loadConfig([], { ...base, LNM_OIDC_ISSUER: 'http://127.0.0.1:8080' }).oidc!.issuer, 'http://127.0.0.1:8080');
  fails(base, ['--oidc-role-map', 'admins=root'], /LNM_OIDC_ROLE_MAP: "admins=root" is not GROUP=ROLE/);
  fails(base, ['--oidc-default-role', 'guest'], /LNM_OIDC_DEFAULT_ROLE must be ADMIN, OPERATOR, VIEWER or none/);
  fails({}, ['--local-login', 'off'], /LNM_LOCAL_LOGIN=off without LNM_OIDC_ISSUER/);
  fails({}, ['--local-login', 'admin,no way'], /LNM_LOCAL_LOGIN: "no way" is not a username/);
});

test.run();
