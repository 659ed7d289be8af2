// Sign-in through an OpenID provider left at OpenID Connect Core's defaults (issue 36, item 11):
// its ID token carries only sub and the protocol claims, and groups, preferred_username and
// email are served at userinfo. Before, every such user was refused 403 OIDC_NO_ROLE. Driven as
// a browser would (oidc.e2e's Browser), against the server as a child process; oidc.e2e runs the
// same flows against a provider that puts the claims in the ID token as well.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { adminAuth, call, startServer, type TestServer } from '../helpers/server.ts';
import { Browser, startProvider, type ProviderClient, type TestAccount, type TestProvider } from '../helpers/oidcProvider.ts';
import { freePort } from '../../adapters/postgres/embeddedPostgres.ts';

const t = suite('oidc sign-in with claims at userinfo');
const accounts: Record<string, TestAccount> = {
  dana: { sub: `dana-${randomUUID()}`, username: 'dana', email: 'dana@example.org', groups: ['admins'] },
  eve: { sub: `eve-${randomUUID()}`, username: 'eve', email: 'eve@example.org', groups: ['ops'] },
};
const SECRET = `lnm-client-secret-${randomUUID()}`;
const callbackPath = '/api/v1/auth/oidc/callback';
let provider: TestProvider;
let server: TestServer;
const seen: string[] = [];
const secrets = new Set<string>([SECRET]);

async function signIn(login: string) {
  const browser = new Browser();
  const start = await browser.request(`${server.api}/auth/oidc/login?returnTo=/console`);
  assert.is(start.status, 302, await start.text());
  const r = await browser.signIn(start.headers.get('location')!, accounts[login].sub, `${server.url}${callbackPath}`);
  assert.ok(r.stoppedAt, `the provider did not send the browser back: ${r.last.status} ${r.body.slice(0, 300)}`);
  for (const k of ['code', 'state']) secrets.add(new URL(r.stoppedAt!).searchParams.get(k)!);
  const res = await browser.request(r.stoppedAt!);
  const text = await res.text();
  seen.push(`${res.status} ${[...res.headers].map(([k, v]) => `${k}: ${v}`).join('\n')} ${text}`);
  return { res, text, cookie: browser.jar.has('lnm_session') ? `lnm_session=${browser.jar.get('lnm_session')}` : null };
}

async function audited(event: string, match: (e: any) => boolean) {
  for (let i = 0; i < 50; i++) {
    const r = await call(server.api, 'GET', '/audit-logs?limit=500', { headers: adminAuth() });
    seen.push(r.text);
    const found = (r.json.items as any[]).find((e) => e.event === event && match(e));
    if (found) return found;
    await new Promise((res) => setTimeout(res, 100));
  }
  assert.unreachable(`no audited ${event}`);
}

t.before(async () => {
  const serverPort = await freePort();
  const client: ProviderClient = { client_id: 'lnm', client_secret: SECRET, redirect_uris: [`http://127.0.0.1:${serverPort}${callbackPath}`] };
  provider = await startProvider({ accounts, clients: [client] }); // conformIdTokenClaims: its default, true
  server = await startServer({
    port: serverPort,
    env: {
      LNM_OIDC_ISSUER: provider.issuer,
      LNM_OIDC_CLIENT_ID: 'lnm',
      LNM_OIDC_CLIENT_SECRET: SECRET,
      LNM_OIDC_REDIRECT_URL: `http://127.0.0.1:${serverPort}${callbackPath}`,
      LNM_OIDC_SCOPES: 'openid profile email groups',
      LNM_OIDC_ROLE_CLAIM: 'groups',
      LNM_OIDC_ROLE_MAP: 'admins=ADMIN,ops=OPERATOR',
      LNM_OIDC_DEFAULT_ROLE: 'none',
      LOG_LEVEL: 'debug',
    },
  });
});

t.after(async () => {
  await server?.stop();
  await provider?.close();
});

t('users of a provider at its defaults sign in with the role, name and e-mail userinfo gives; each sign-in audited', async () => {
  const d = await signIn('dana');
  assert.is(d.res.status, 303, d.text);
  assert.ok(d.cookie, 'session cookie set');
  const me = await call(server.api, 'GET', '/auth/me', { headers: { cookie: d.cookie! } });
  assert.is(me.status, 200, me.text);
  assert.equal([me.json.username, me.json.role, me.json.email], ['dana', 'ADMIN', 'dana@example.org']);
  const e = await signIn('eve');
  assert.is(e.res.status, 303, e.text);
  const eveMe = await call(server.api, 'GET', '/auth/me', { headers: { cookie: e.cookie! } });
  assert.equal([eveMe.json.username, eveMe.json.role], ['eve', 'OPERATOR']);
  assert.ok(provider.requests.filter((p) => p === '/me').length >= 2, 'userinfo was read');
  await audited('security.oidc.sign_in', (x) => x.username === 'dana' && x.details.role === 'ADMIN');
});

t('a userinfo about another subject is refused 401 (bad userinfo), a userinfo that never answers 503 once its 10 s are up; both audited, no session, no secret in output or answers', async () => {
  provider.userinfoSub = `someone-else-${randomUUID()}`;
  try {
    const r = await signIn('dana');
    assert.is(r.res.status, 401, r.text);
    assert.equal([JSON.parse(r.text).code, JSON.parse(r.text).context.reason], ['OIDC_SIGN_IN_FAILED', 'bad userinfo']);
    assert.is(r.cookie, null);
  } finally {
    provider.userinfoSub = null;
  }
  await audited('security.oidc.sign_in_failed', (x) => x.reason === 'bad userinfo' && x.details?.stage === 'callback');
  provider.hold.add('/me');
  try {
    const r = await signIn('eve');
    assert.is(r.res.status, 503, r.text);
    assert.is(JSON.parse(r.text).code, 'OIDC_UNAVAILABLE');
    assert.match(JSON.parse(r.text).message, /userinfo/);
    assert.is(r.cookie, null);
  } finally {
    provider.hold.delete('/me');
  }
  await audited('security.oidc.sign_in_failed', (x) => x.reason === 'provider unreachable' && x.details?.stage === 'callback');
  // No client secret, code or state of any of these sign-ins in the server's output or its answers.
  const leaks: string[] = [];
  for (const [where, text] of Object.entries({ 'server output': server.output(), answers: seen.join('\n') })) for (const s of secrets) if (s && s.length >= 8 && text.includes(s)) leaks.push(`${where} holds ${s.slice(0, 6)}...`);
  assert.ok(secrets.size >= 5, `secrets collected: ${secrets.size}`);
  assert.equal(leaks, []);
});

t.run();
