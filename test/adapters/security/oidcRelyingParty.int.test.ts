// The relying party against a real oidc-provider: discovery, the key set's refetch on an unknown
// kid and its rate limit, the sealed pending-login cookie, and the end-session URL.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes, randomUUID } from 'node:crypto';
import { SignJWT, generateKeyPair } from 'jose';
import { createOidcRelyingParty, KEY_REFETCH_COOLDOWN_MS } from '../../../adapters/security/oidcRelyingParty.ts';
import { OidcFailure } from '../../../domain/users/oidc.ts';
import { startProvider, type TestProvider } from '../../helpers/oidcProvider.ts';
import { freePort } from '../../../adapters/postgres/embeddedPostgres.ts';

const t = suite('oidc relying party');
let provider: TestProvider;
const AUDIENCE = 'urn:lnm:api';
const rpFor = (issuer: string, secret = 'rp-secret') => createOidcRelyingParty({
  issuer, clientId: 'lnm', clientSecret: secret, redirectUrl: 'http://127.0.0.1:1/api/v1/auth/oidc/callback', scopes: ['openid'], roleClaim: 'groups', roleMap: {}, defaultRole: null, audience: AUDIENCE, sealingKey: randomBytes(32),
});

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
  provider = await startProvider({ accounts: {}, clients: [{ client_id: 'lnm', client_secret: 'rp-secret', redirect_uris: ['http://127.0.0.1:1/api/v1/auth/oidc/callback'] }] });
});
t.after(async () => provider?.close());

t('tokens naming unknown keys make the key set refetch at most once per cooldown, however many arrive', async () => {
  const rp = rpFor(provider.issuer);
  await rp.ready();
  const { privateKey } = await generateKeyPair('RS256');
  const forged = (kid: string) => new SignJWT({ groups: ['admins'] }).setProtectedHeader({ alg: 'RS256', kid }).setIssuer(provider.issuer).setAudience(AUDIENCE).setSubject('x').setIssuedAt().setExpirationTime('1m').sign(privateKey);
  const jwksFetches = () => provider.requests.filter((p) => p === '/jwks').length;
  const before = jwksFetches();
  for (let i = 0; i < 20; i++) {
    const f = await refusal(rp.verifyAccessToken(await forged(randomUUID())));
    assert.is(f.reason, 'bad token');
  }
  // The first unknown kid fetches (the set was never loaded); the other 19 fall within the cooldown.
  const fetched = jwksFetches() - before;
  assert.ok(fetched >= 1 && fetched <= 2, `JWKS fetched ${fetched} times for 20 unknown kids`);
  assert.ok(KEY_REFETCH_COOLDOWN_MS >= 1000);
});

t('the pending-login cookie opens only as sealed: altered, truncated or foreign ones are null', async () => {
  const rp = rpFor(provider.issuer);
  const { url, pending } = await rp.beginLogin('/x', new Date());
  assert.ok(url.startsWith(`${provider.issuer}/auth?`));
  const sealed = rp.sealPending(pending);
  assert.not.ok(sealed.includes(pending.codeVerifier) || sealed.includes(pending.state), 'sealed, not encoded');
  assert.equal(rp.openPending(sealed), pending);
  assert.is(rp.openPending(sealed.slice(0, -1) + (sealed.endsWith('A') ? 'B' : 'A')), null);
  assert.is(rp.openPending(sealed.slice(0, 20)), null);
  assert.is(rp.openPending(rpFor(provider.issuer).sealPending(pending)), null, 'another key');
  assert.is(rp.openPending('not base64 at all!'), null);
});

t('an unreachable provider is a provider unreachable failure naming it, and discovery is tried again later', async () => {
  const port = await freePort();
  const rp = rpFor(`http://127.0.0.1:${port}`);
  const f = await refusal(rp.ready());
  assert.is(f.reason, 'provider unreachable');
  assert.match(f.message, new RegExp(`127.0.0.1:${port} cannot be reached`));
  const late = await startProvider({ port, accounts: {}, clients: [{ client_id: 'lnm', client_secret: 'rp-secret', redirect_uris: ['http://127.0.0.1:1/api/v1/auth/oidc/callback'] }] });
  try {
    await rp.ready();
    assert.ok((await rp.endSessionUrl(null))!.startsWith(`${late.issuer}/session/end?client_id=lnm`));
  } finally {
    await late.close();
  }
});

t('plain http is refused for an issuer off loopback', () => {
  assert.throws(() => rpFor('http://idp.example.org'), /must be an https URL/);
});

t.run();
