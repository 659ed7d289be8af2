// The relying party's code flow against a real oidc-provider, through its own login and consent
// forms (issue 36, item 11): a provider at OpenID Connect Core's defaults serves the scopes'
// claims (groups, preferred_username, email) at userinfo only, and its ID token carries sub and
// the protocol claims; the sign-in's claims must still hold them. Also: a provider that puts
// them in the ID token, a userinfo answer about another subject, and a userinfo that never
// answers (refused when the 10 s request timeout fires, not held for ever).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes, randomUUID } from 'node:crypto';
import { createOidcRelyingParty } from '../../../adapters/security/oidcRelyingParty.ts';
import { OidcFailure } from '../../../domain/users/oidc.ts';
import { Browser, startProvider, type TestAccount, type TestProvider } from '../../helpers/oidcProvider.ts';

const t = suite('oidc relying party: userinfo');
const REDIRECT = 'http://127.0.0.1:1/api/v1/auth/oidc/callback';
const SECRET = `rp-secret-${randomUUID()}`;
const accounts: Record<string, TestAccount> = {
  carol: { sub: `carol-${randomUUID()}`, username: 'carol', email: 'carol@example.org', groups: ['admins', 'ops'] },
};
const clients = [{ client_id: 'lnm', client_secret: SECRET, redirect_uris: [REDIRECT] }];
let conforming: TestProvider;
let generous: TestProvider;

const rpFor = (issuer: string) => createOidcRelyingParty({
  issuer, clientId: 'lnm', clientSecret: SECRET, redirectUrl: REDIRECT, scopes: ['openid', 'profile', 'email', 'groups'], roleClaim: 'groups', roleMap: {}, defaultRole: null, audience: null, sealingKey: randomBytes(32),
});

/** The whole code flow for `login`: the relying party's authorization URL, the provider's forms, the callback handed to completeLogin. */
async function signIn(p: TestProvider, login: string): Promise<Record<string, unknown>> {
  const rp = rpFor(p.issuer);
  const { url, pending } = await rp.beginLogin('/console', new Date());
  const r = await new Browser().signIn(url, accounts[login].sub, REDIRECT);
  assert.ok(r.stoppedAt, `the provider did not send the browser back: ${r.last.status} ${r.body.slice(0, 300)}`);
  return rp.completeLogin(new URL(r.stoppedAt!), pending);
}

async function refusal(p: Promise<unknown>): Promise<OidcFailure> {
  try {
    await p;
  } catch (err) {
    assert.instance(err, OidcFailure);
    return err as OidcFailure;
  }
  throw new Error('not refused');
}

t.before(async () => {
  conforming = await startProvider({ accounts, clients });
  generous = await startProvider({ accounts, clients, conformIdTokenClaims: false });
});
t.after(async () => {
  await conforming?.close();
  await generous?.close();
});

t('claims at userinfo only (a provider at its defaults) or in the ID token too: either way the sign-in\'s claims hold groups, preferred_username and email', async () => {
  for (const p of [conforming, generous]) {
    const before = p.requests.filter((x) => x === '/me').length;
    const claims = await signIn(p, 'carol');
    const which = p === conforming ? 'defaults' : 'claims in the ID token';
    assert.is(claims.sub, accounts.carol.sub, which);
    assert.equal(claims.groups, ['admins', 'ops'], which);
    assert.is(claims.preferred_username, 'carol', which);
    assert.is(claims.email, 'carol@example.org', which);
    assert.is(claims.iss, p.issuer, 'the ID token\'s own claims are kept');
    assert.is(claims.aud, 'lnm');
    assert.is(p.requests.filter((x) => x === '/me').length, before + 1, 'userinfo read once');
  }
});

t('a userinfo answer about another subject than the ID token is refused (bad userinfo), naming no claim', async () => {
  const other = `someone-else-${randomUUID()}`;
  for (const p of [conforming, generous]) {
    p.userinfoSub = other;
    try {
      const f = await refusal(signIn(p, 'carol'));
      assert.is(f.reason, 'bad userinfo');
      assert.not.ok(f.message.includes(other) || f.message.includes('admins'), f.message);
    } finally {
      p.userinfoSub = null;
    }
  }
});

t('a userinfo endpoint that never answers: the sign-in is refused as provider unreachable once the request times out', async () => {
  conforming.hold.add('/me');
  try {
    const started = Date.now();
    const f = await refusal(signIn(conforming, 'carol'));
    assert.is(f.reason, 'provider unreachable');
    assert.match(f.message, /userinfo/);
    console.log(`  (a held userinfo was refused after ${((Date.now() - started) / 1000).toFixed(1)} s)`);
  } finally {
    conforming.hold.delete('/me');
  }
});

t.run();
