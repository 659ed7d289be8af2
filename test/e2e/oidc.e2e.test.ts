// Sign-in through a real OpenID provider (oidc-provider on loopback, two users in different
// groups), driven over HTTP as a browser would (cookie jar, redirects, the provider's own login
// and consent forms), against the server running as a child process: the session, the role
// mapping and its changes, refusals with their audited reasons, bearer access tokens, key
// rotation at the provider, bad configuration, and no secret anywhere it should not be.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { decodeProtectedHeader } from 'jose';
import pg from 'pg';
import { ADMIN, adminAuth, basic, call, startServer, type TestServer } from '../helpers/server.ts';
import { accessTokenFor, Browser, signingKey, startProvider, type ProviderClient, type TestAccount, type TestProvider } from '../helpers/oidcProvider.ts';
import { freePort } from '../../adapters/postgres/embeddedPostgres.ts';
import { startReceiver, type Receiver } from '../helpers/webhookReceiver.ts';

const t = suite('oidc sign-in end to end');
const accounts: Record<string, TestAccount> = {
  alice: { sub: `alice-${randomUUID()}`, username: 'alice', email: 'alice@example.org', groups: ['admins'] },
  bob: { sub: `bob-${randomUUID()}`, username: 'bob', email: 'bob@example.org', groups: ['ops'] },
};
const LNM_SECRET = `lnm-client-secret-${randomUUID()}`;
const WRONG_SECRET = `wrong-client-secret-${randomUUID()}`;
const AUDIENCE = 'urn:lnm:api';
let cli: ProviderClient;
let lnmClient: ProviderClient;
let provider: TestProvider;
let other: TestProvider;
let server: TestServer;
let serverPort: number;
let wrongSecretPort: number;
let receiver: Receiver;
const HOOK_SECRET = `hook-secret-${randomUUID()}`;
/** Every secret the test saw go by: none may appear in a log, a response body or an audit entry. */
const secrets = new Set<string>([LNM_SECRET, WRONG_SECRET, HOOK_SECRET]);
/** Bodies and headers of every response from the server (the login redirect's Location aside: it carries state to the provider by design). */
const responses: string[] = [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const callbackPath = '/api/v1/auth/oidc/callback';

async function keep(res: Response, opts: { skipLocation?: boolean } = {}): Promise<string> {
  const text = await res.clone().text();
  const headers = [...res.headers].filter(([k]) => !(opts.skipLocation && k === 'location')).map(([k, v]) => `${k}: ${v}`).join('\n');
  responses.push(`${res.status}\n${headers}\n${text}`);
  return text;
}

function noteSecretsOf(url: string) {
  const u = new URL(url);
  for (const k of ['code', 'state']) {
    const v = u.searchParams.get(k);
    if (v) secrets.add(v);
  }
}

/** The browser's way in: the server's login route, the provider's forms, back to the callback (not yet followed). */
async function toCallback(target: TestServer, login: string, browser = new Browser()) {
  const start = await browser.request(`${target.api}/auth/oidc/login?returnTo=/console`);
  await keep(start, { skipLocation: true });
  assert.is(start.status, 302, await start.text());
  const location = start.headers.get('location')!;
  assert.ok(location.startsWith(`${provider.issuer}/auth?`), location);
  const auth = new URL(location);
  assert.is(auth.searchParams.get('code_challenge_method'), 'S256');
  assert.ok(auth.searchParams.get('code_challenge') && auth.searchParams.get('state') && auth.searchParams.get('nonce'));
  assert.is(auth.searchParams.get('code_verifier'), null, 'the verifier stays with the server');
  secrets.add(auth.searchParams.get('state')!);
  const r = await browser.signIn(location, accounts[login]?.sub ?? login, `${target.url}${callbackPath}`);
  assert.ok(r.stoppedAt, `the provider did not send the browser back: ${r.last.status} ${r.body.slice(0, 300)}`);
  noteSecretsOf(r.stoppedAt!);
  return { browser, callbackUrl: r.stoppedAt!, pendingCookie: browser.jar.get('lnm_oidc')! };
}

async function signIn(login: string) {
  const { browser, callbackUrl } = await toCallback(server, login);
  const res = await browser.request(callbackUrl);
  const text = await keep(res);
  return { browser, res, text, cookie: browser.jar.has('lnm_session') ? `lnm_session=${browser.jar.get('lnm_session')}` : null };
}

async function api(method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const r = await call(server.api, method, path, { headers, ...(body === undefined ? {} : { body }) });
  responses.push(`${r.status}\n${[...r.headers].map(([k, v]) => `${k}: ${v}`).join('\n')}\n${r.text}`);
  return r;
}

async function token(p: TestProvider, login: string, resource = AUDIENCE) {
  const tk = await accessTokenFor(p, cli, login, resource);
  secrets.add(tk);
  return tk;
}

async function auditEntries(query = '') {
  const r = await call(server.api, 'GET', `/audit-logs?limit=500${query}`, { headers: adminAuth() });
  assert.is(r.status, 200, r.text);
  return r.json.items as any[];
}

async function failureAudited(reason: string, stage: string) {
  for (let i = 0; i < 50; i++) {
    const found = (await auditEntries('&status=failed')).find((e) => e.event === 'security.oidc.sign_in_failed' && e.reason === reason && e.details?.stage === stage);
    if (found) return found;
    await sleep(100);
  }
  assert.unreachable(`no audited ${stage} failure with reason ${reason}`);
}

t.before(async () => {
  cli = { client_id: 'cli', client_secret: `cli-secret-${randomUUID()}`, redirect_uris: ['http://127.0.0.1:9/cli-callback'] };
  secrets.add(cli.client_secret);
  // Ports are picked once the providers listen, so that no two of them get the same free port.
  other = await startProvider({ accounts, clients: [cli], conformIdTokenClaims: false });
  const providerPort = await freePort();
  serverPort = await freePort();
  wrongSecretPort = await freePort();
  assert.is(new Set([other.port, providerPort, serverPort, wrongSecretPort]).size, 4, 'distinct ports');
  lnmClient = { client_id: 'lnm', client_secret: LNM_SECRET, redirect_uris: [`http://127.0.0.1:${serverPort}${callbackPath}`, `http://127.0.0.1:${wrongSecretPort}${callbackPath}`] };
  // This provider puts the scopes' claims in the ID token as well as at userinfo; oidcUserinfo.e2e
  // signs in through one at OpenID Connect Core's defaults (claims at userinfo only).
  provider = await startProvider({ port: providerPort, accounts, clients: [lnmClient, cli], conformIdTokenClaims: false });
  server = await startServer({
    port: serverPort,
    env: {
      LNM_OIDC_ISSUER: provider.issuer,
      LNM_OIDC_CLIENT_ID: 'lnm',
      LNM_OIDC_CLIENT_SECRET: LNM_SECRET,
      LNM_OIDC_REDIRECT_URL: `http://127.0.0.1:${serverPort}${callbackPath}`,
      LNM_OIDC_SCOPES: 'openid profile email groups',
      LNM_OIDC_ROLE_CLAIM: 'groups',
      LNM_OIDC_ROLE_MAP: 'admins=ADMIN,ops=OPERATOR',
      LNM_OIDC_DEFAULT_ROLE: 'none',
      LNM_OIDC_AUDIENCE: AUDIENCE,
      LNM_LOCAL_LOGIN: ADMIN.username,
      LNM_ALLOW_PRIVATE_TARGETS: 'true',
      LOG_LEVEL: 'debug',
    },
  });
  // The public events go out as webhooks like any other.
  receiver = await startReceiver({ secret: HOOK_SECRET });
  const hook = await call(server.api, 'POST', '/webhooks', { headers: adminAuth(), body: { name: 'sign-ins', url: `${receiver.url}/hook`, secret: HOOK_SECRET, events: ['security.oidc.sign_in', 'security.oidc.sign_in_failed', 'security.user.role_changed', 'security.user.created'] } });
  assert.is(hook.status, 201, hook.text);
});

t.after(async () => {
  await server?.stop();
  await receiver?.close();
  await provider?.close();
  await other?.close();
});

t('GET /auth/providers tells a client that OIDC is on and where to start, without the secret; mapping details only for SETTINGS_READ', async () => {
  const anon = await api('GET', '/auth/providers', {});
  assert.is(anon.status, 200, `${anon.text} ${server.output().slice(-2000)}`);
  assert.is(anon.json.oidc.enabled, true);
  assert.is(anon.json.oidc.loginUrl, '/api/v1/auth/oidc/login');
  assert.is(anon.json.oidc.issuer, provider.issuer);
  assert.is(anon.json.oidc.clientId, 'lnm');
  assert.ok(anon.json.oidc.scopes.includes('groups'));
  assert.is(anon.json.oidc.bearerTokens, true);
  assert.is(anon.json.oidc.configuration, undefined);
  assert.equal(anon.json.local, { enabled: true, mode: 'break-glass' });
  const admin = await api('GET', '/auth/providers', adminAuth());
  assert.equal(admin.json.oidc.configuration, { roleClaim: 'groups', roleMap: { admins: 'ADMIN', ops: 'OPERATOR' }, defaultRole: null, audience: AUDIENCE });
  assert.equal(admin.json.local.breakGlassUsers, [ADMIN.username]);
  const doc = await call(server.url, 'GET', '/api/swagger/doc.json');
  assert.is(doc.status, 200);
  for (const p of ['/api/v1/auth/providers', '/api/v1/auth/oidc/login', '/api/v1/auth/oidc/callback']) assert.ok(doc.json.paths[p]?.get, `${p} in the OpenAPI document`);
});

t('full sign-in: the provider sends the browser back, the callback sets the session cookie, the session works on the API with the mapped role', async () => {
  const a = await signIn('alice');
  assert.is(a.res.status, 303, a.text);
  assert.is(a.res.headers.get('location'), '/console');
  assert.ok(a.cookie, 'session cookie set');
  assert.not.ok(a.browser.jar.has('lnm_oidc'), 'the pending-login cookie is cleared');
  const me = await api('GET', '/auth/me', { cookie: a.cookie! });
  assert.is(me.status, 200, me.text);
  assert.is(me.json.username, 'alice');
  assert.is(me.json.role, 'ADMIN');
  assert.is(me.json.email, 'alice@example.org');
  assert.is(me.json.authMethod, 'session');

  const b = await signIn('bob');
  assert.is(b.res.status, 303, b.text);
  const bobMe = await api('GET', '/auth/me', { cookie: b.cookie! });
  assert.is(bobMe.json.role, 'OPERATOR');
  assert.is((await api('GET', '/users', { cookie: b.cookie! })).status, 200, 'OPERATOR reads users');
  assert.is((await api('POST', '/users', { cookie: b.cookie!, 'x-requested-with': 'test' }, { username: 'x-by-bob', password: 'correct-horse-battery' })).status, 403, 'OPERATOR cannot create users');

  const signIns = (await auditEntries()).filter((e) => e.event === 'security.oidc.sign_in');
  assert.ok(signIns.find((e) => e.username === 'alice' && e.details.created === true && e.details.role === 'ADMIN'), JSON.stringify(signIns));
  assert.ok(signIns.find((e) => e.username === 'bob' && e.details.subject === accounts.bob.sub));
});

t('the account is linked by (issuer, subject): a second sign-in is the same user, a new e-mail does not make a new account', async () => {
  const before = (await api('GET', '/users?limit=500', adminAuth())).json.items.filter((u: any) => u.username.startsWith('alice'));
  accounts.alice.email = 'alice.new@example.org';
  const a = await signIn('alice');
  assert.is(a.res.status, 303);
  const after = (await api('GET', '/users?limit=500', adminAuth())).json.items.filter((u: any) => u.username.startsWith('alice'));
  assert.is(after.length, before.length);
  assert.is((await api('GET', '/auth/me', { cookie: a.cookie! })).json.id, before[0].id);
});

t('a group change at the provider takes effect at the next sign-in, recorded as security.user.role_changed', async () => {
  accounts.bob.groups = ['admins'];
  const b = await signIn('bob');
  assert.is(b.res.status, 303, b.text);
  const me = await api('GET', '/auth/me', { cookie: b.cookie! });
  assert.is(me.json.role, 'ADMIN');
  const changed = (await auditEntries()).filter((e) => e.event === 'security.user.role_changed' && e.resource_name === 'bob');
  assert.is(changed.length, 1, JSON.stringify(changed));
  assert.equal(changed[0].before, { role: 'OPERATOR' });
  assert.equal(changed[0].after, { role: 'ADMIN' });
  // And back: no group mapped and no default role is no access at all.
  accounts.bob.groups = ['nobody'];
  const none = await signIn('bob');
  assert.is(none.res.status, 403, none.text);
  assert.is(JSON.parse(none.text).code, 'OIDC_NO_ROLE');
  await failureAudited('no role', 'callback');
  accounts.bob.groups = ['ops'];
  const back = await signIn('bob');
  assert.is((await api('GET', '/auth/me', { cookie: back.cookie! })).json.role, 'OPERATOR');
});

t('local password login is off for everyone but the break-glass admin', async () => {
  assert.is((await api('POST', '/users', adminAuth(), { username: 'vera-local', password: 'correct-horse-battery', role: 'VIEWER' })).status, 201);
  const refused = await api('POST', '/auth/login', {}, { username: 'vera-local', password: 'correct-horse-battery' });
  assert.is(refused.status, 401);
  assert.is(refused.json.code, 'LOCAL_LOGIN_DISABLED');
  assert.is((await api('GET', '/auth/me', { authorization: basic('vera-local', 'correct-horse-battery') })).status, 401, 'Basic too');
  assert.is((await api('POST', '/auth/login', {}, ADMIN)).status, 200, 'the break-glass admin still logs in');
});

t('a tampered state is refused with 401 and audited as bad state; so is a callback without a sign-in in progress', async () => {
  const { browser, callbackUrl } = await toCallback(server, 'alice');
  const u = new URL(callbackUrl);
  u.searchParams.set('state', u.searchParams.get('state')!.slice(0, -2) + 'xx');
  const res = await browser.request(u.href);
  const text = await keep(res);
  assert.is(res.status, 401, text);
  assert.is(JSON.parse(text).code, 'OIDC_SIGN_IN_FAILED');
  assert.is(JSON.parse(text).context.reason, 'bad state');
  assert.not.ok(browser.jar.has('lnm_session'));
  const fresh = new Browser();
  const noCookie = await fresh.request(callbackUrl);
  assert.is(noCookie.status, 401, await keep(noCookie));
  // A pending-login cookie altered by one character does not open.
  const again = await toCallback(server, 'alice');
  const c = again.pendingCookie;
  again.browser.jar.set('lnm_oidc', c.slice(0, 20) + (c[20] === 'A' ? 'B' : 'A') + c.slice(21));
  const altered = await again.browser.request(again.callbackUrl);
  const alteredText = await keep(altered);
  assert.is(altered.status, 401, alteredText);
  assert.match(JSON.parse(alteredText).message, /altered/);
  await failureAudited('bad state', 'callback');
});

t('a sign-in the user cancels at the provider comes back as an error: 401, audited as provider error', async () => {
  const browser = new Browser();
  const start = await browser.request(`${server.api}/auth/oidc/login`);
  await keep(start, { skipLocation: true });
  let url = start.headers.get('location')!;
  // To the provider's login page, then its abort link instead of the form.
  for (let i = 0; i < 5 && !/\/interaction\/[^/]+$/.test(new URL(url).pathname); i++) url = new URL((await browser.request(url)).headers.get('location')!, url).href;
  let res = await browser.request(`${url}/abort`);
  for (let i = 0; i < 5 && res.status >= 300 && res.status < 400; i++) {
    const next = new URL(res.headers.get('location')!, url).href;
    if (next.startsWith(`${server.url}${callbackPath}`)) {
      assert.is(new URL(next).searchParams.get('error'), 'access_denied');
      res = await browser.request(next);
      break;
    }
    res = await browser.request((url = next));
  }
  const text = await keep(res);
  assert.is(res.status, 401, text);
  assert.is(JSON.parse(text).context.reason, 'provider error');
  assert.match(JSON.parse(text).message, /access_denied/);
  await failureAudited('provider error', 'callback');
});

t('a replayed authorization code is refused by the provider: 401, audited as code rejected', async () => {
  const { browser, callbackUrl, pendingCookie } = await toCallback(server, 'alice');
  const first = await browser.request(callbackUrl);
  assert.is(first.status, 303, await keep(first));
  // The attacker (or a reload) presents the same callback with the same pending-login cookie.
  const replay = new Browser();
  replay.jar.set('lnm_oidc', pendingCookie);
  const again = await replay.request(callbackUrl);
  const text = await keep(again);
  assert.is(again.status, 401, text);
  assert.is(JSON.parse(text).context.reason, 'code rejected');
  assert.not.ok(replay.jar.has('lnm_session'));
  await failureAudited('code rejected', 'callback');
});

t('bearer access tokens of the provider work on the API with the same role mapping; API keys keep working beside them', async () => {
  const tk = await token(provider, accounts.alice.sub);
  const me = await api('GET', '/auth/me', { authorization: `Bearer ${tk}` });
  assert.is(me.status, 200, me.text);
  assert.is(me.json.username, 'alice');
  assert.is(me.json.role, 'ADMIN');
  assert.is(me.json.authMethod, 'oidc_token');
  const bobToken = await token(provider, accounts.bob.sub);
  assert.is((await api('POST', '/users', { authorization: `Bearer ${bobToken}` }, { username: 'x-by-bob2', password: 'correct-horse-battery' })).status, 403);
  // Not kept with the other responses: creation shows the key, once, by design.
  const key = await call(server.api, 'POST', '/api-keys', { headers: adminAuth(), body: { name: 'beside-oidc', scopes: ['ACCOUNT_SELF'] } });
  assert.is(key.status, 201, key.text);
  secrets.add(key.json.key);
  const byKey = await api('GET', '/auth/me', { authorization: `Bearer ${key.json.key}` });
  assert.is(byKey.status, 200, byKey.text);
  assert.is(byKey.json.authMethod, 'api_key');
});

t('a token from another issuer, for another audience, or expired: each 401 and audited with its reason', async () => {
  const foreign = await token(other, accounts.alice.sub);
  const r1 = await api('GET', '/auth/me', { authorization: `Bearer ${foreign}` });
  assert.is(r1.status, 401, r1.text);
  assert.is(r1.json.context.reason, 'unknown issuer');
  await failureAudited('unknown issuer', 'bearer');

  const elsewhere = await token(provider, accounts.alice.sub, 'urn:other:api');
  const r2 = await api('GET', '/auth/me', { authorization: `Bearer ${elsewhere}` });
  assert.is(r2.status, 401, r2.text);
  assert.is(r2.json.context.reason, 'wrong audience');
  await failureAudited('wrong audience', 'bearer');
  // A flood of refused tokens is each refused but recorded once a minute per address and reason.
  for (let i = 0; i < 3; i++) assert.is((await api('GET', '/auth/me', { authorization: `Bearer ${elsewhere}` })).status, 401);
  await sleep(300);
  assert.is((await auditEntries('&status=failed')).filter((e) => e.reason === 'wrong audience').length, 1);

  provider.ttl.accessToken = 1;
  const short = await token(provider, accounts.alice.sub);
  provider.ttl.accessToken = 60;
  // 1 s of life plus the server's 2 s clock tolerance.
  await sleep(3_500);
  const r3 = await api('GET', '/auth/me', { authorization: `Bearer ${short}` });
  assert.is(r3.status, 401, r3.text);
  assert.is(r3.json.context.reason, 'expired token');
  await failureAudited('expired token', 'bearer');

  const forged = (await token(provider, accounts.bob.sub)).split('.');
  const claims = JSON.parse(Buffer.from(forged[1], 'base64url').toString());
  const r4 = await api('GET', '/auth/me', { authorization: `Bearer ${forged[0]}.${Buffer.from(JSON.stringify({ ...claims, groups: ['admins'] })).toString('base64url')}.${forged[2]}` });
  assert.is(r4.status, 401, 'a token with altered claims fails its signature');
  assert.is(r4.json.context.reason, 'bad token');
});

t('logout ends the session and says where to end the provider\'s session', async () => {
  const a = await signIn('alice');
  const out = await api('POST', '/auth/logout', { cookie: a.cookie!, 'x-requested-with': 'test' });
  assert.is(out.status, 200, out.text);
  assert.ok(out.json.endSessionUrl.startsWith(`${provider.issuer}/session/end`), out.json.endSessionUrl);
  assert.is((await api('GET', '/auth/me', { cookie: a.cookie! })).status, 401);
});

t('a wrong client secret gives a clear error at sign-in (502 OIDC_CLIENT_REJECTED), never a 500, audited', async () => {
  const wrong = await startServer({
    port: wrongSecretPort,
    env: {
      LNM_OIDC_ISSUER: provider.issuer, LNM_OIDC_CLIENT_ID: 'lnm', LNM_OIDC_CLIENT_SECRET: WRONG_SECRET,
      LNM_OIDC_REDIRECT_URL: `http://127.0.0.1:${wrongSecretPort}${callbackPath}`, LNM_OIDC_SCOPES: 'openid groups', LNM_OIDC_ROLE_MAP: 'admins=ADMIN',
    },
  });
  try {
    const { browser, callbackUrl } = await toCallback(wrong, 'alice');
    const res = await browser.request(callbackUrl);
    const text = await keep(res);
    assert.is(res.status, 502, text);
    assert.is(JSON.parse(text).code, 'OIDC_CLIENT_REJECTED');
    assert.match(JSON.parse(text).message, /LNM_OIDC_CLIENT_SECRET/);
    const log = await call(wrong.api, 'GET', '/audit-logs?status=failed&limit=50', { headers: adminAuth() });
    assert.ok(log.json.items.find((e: any) => e.reason === 'client rejected'), log.text);
    responses.push(log.text);
  } finally {
    await wrong.stop();
    responses.push(wrong.output());
  }
});

t('an unreachable issuer: the server starts (password login and API keys keep working) and sign-in answers 503 OIDC_UNAVAILABLE', async () => {
  const deadPort = await freePort();
  const down = await startServer({
    env: { LNM_OIDC_ISSUER: `http://127.0.0.1:${deadPort}`, LNM_OIDC_CLIENT_ID: 'lnm', LNM_OIDC_CLIENT_SECRET: LNM_SECRET, LNM_OIDC_REDIRECT_URL: 'http://127.0.0.1:1/api/v1/auth/oidc/callback' },
  });
  try {
    assert.match(down.output(), /OpenID provider not reachable at start/);
    const r = await call(down.api, 'GET', '/auth/oidc/login');
    assert.is(r.status, 503, r.text);
    assert.is(r.json.code, 'OIDC_UNAVAILABLE');
    assert.match(r.json.message, new RegExp(`127.0.0.1:${deadPort}.*cannot be reached`));
    assert.is((await call(down.api, 'GET', '/auth/me', { headers: adminAuth() })).status, 200);
    const jwtLike = await call(down.api, 'GET', '/auth/me', { headers: { authorization: 'Bearer eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJ4In0.c2ln' } });
    assert.is(jwtLike.status, 401, jwtLike.text);
  } finally {
    await down.stop();
    responses.push(down.output());
  }
  // A plain-http issuer off loopback is refused at start with a clear message.
  let startError = '';
  await startServer({ env: { LNM_OIDC_ISSUER: 'http://idp.example.org', LNM_OIDC_CLIENT_ID: 'lnm', LNM_OIDC_CLIENT_SECRET: LNM_SECRET, LNM_OIDC_REDIRECT_URL: 'http://127.0.0.1:1/cb' } }).catch((e: Error) => (startError = e.message));
  assert.match(startError, /LNM_OIDC_ISSUER must be an https URL/);
  assert.not.match(startError, new RegExp(LNM_SECRET));
});

t('key rotation at the provider: tokens and ID tokens signed with the new key are accepted without a restart', async () => {
  const oldKeys = provider.keys;
  const newKey = await signingKey();
  await provider.close();
  provider = await startProvider({ port: provider.port, keys: [newKey, ...oldKeys], accounts, clients: [lnmClient, cli], conformIdTokenClaims: false });
  // The server refetches the provider's keys on an unknown kid at most every 5 s.
  await sleep(5_500);
  const tk = await token(provider, accounts.alice.sub);
  assert.is(decodeProtectedHeader(tk).kid, newKey.kid);
  const me = await api('GET', '/auth/me', { authorization: `Bearer ${tk}` });
  assert.is(me.status, 200, me.text);
  assert.is(me.json.username, 'alice');
  const a = await signIn('alice');
  assert.is(a.res.status, 303, a.text);
  assert.is((await api('GET', '/auth/me', { cookie: a.cookie! })).json.username, 'alice');
});

t('sign-ins, refusals and role changes go out as webhooks; no secret (client secrets, codes, state, tokens, API keys) in the server\'s logs, its responses, audit entries, stored events or webhooks', async () => {
  const audit = JSON.stringify(await auditEntries());
  const db = new pg.Client({ connectionString: server.databaseUrl! });
  await db.connect();
  const events = JSON.stringify((await db.query('SELECT data, metadata FROM events')).rows);
  await db.end();
  // The webhooks: every public event of a sign-in, a refusal and a role change went out, signed.
  for (let i = 0; i < 100 && !['security.oidc.sign_in', 'security.oidc.sign_in_failed', 'security.user.role_changed', 'security.user.created'].every((n) => receiver.received.some((q) => q.json?.event === n)); i++) await sleep(100);
  const byEvent = (n: string) => receiver.received.filter((q) => q.json?.event === n).map((q) => q.json.data);
  assert.ok(byEvent('security.oidc.sign_in').some((d) => d.userName === 'alice' && d.issuer === provider.issuer && d.role === 'ADMIN'), JSON.stringify(byEvent('security.oidc.sign_in')));
  assert.ok(byEvent('security.oidc.sign_in_failed').some((d) => d.reason === 'code rejected' && d.stage === 'callback'));
  assert.ok(byEvent('security.oidc.sign_in_failed').some((d) => d.reason === 'expired token' && d.stage === 'bearer'));
  assert.ok(byEvent('security.user.role_changed').some((d) => d.userName === 'bob' && d.from === 'OPERATOR' && d.to === 'ADMIN'));
  assert.ok(receiver.received.every((q) => q.signatureValid === true));
  const webhooks = receiver.received.map((q) => q.raw.toString()).join('\n');
  const places: Record<string, string> = { 'server output': server.output(), responses: responses.join('\n'), 'audit log': audit, 'stored events': events, webhooks };
  assert.ok(secrets.size > 10, `secrets collected: ${secrets.size}`);
  const leaks: string[] = [];
  for (const [where, text] of Object.entries(places)) for (const s of secrets) if (s.length >= 8 && text.includes(s)) leaks.push(`${where} holds ${s.slice(0, 6)}...`);
  assert.equal(leaks, []);
  assert.match(server.output(), /OpenID provider discovered/);
});

t.run();
