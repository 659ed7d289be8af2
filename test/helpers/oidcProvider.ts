// A real OpenID provider (oidc-provider, a certified OP for Node.js) on loopback for the OIDC
// tests, with the test's users and groups, its own signing keys (replaceable: key rotation), and
// short token lifetimes. Sign-ins go through the provider's own interaction endpoints (its
// devInteractions login and consent forms), driven by `Browser`, a fetch with a cookie jar that
// follows redirects and submits forms the way a browser does.
import { createServer, type Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import Provider from 'oidc-provider';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import { freePort } from '../../adapters/postgres/embeddedPostgres.ts';
import { onGlobalTeardown } from './globalTeardown.ts';

export interface TestAccount {
  sub: string;
  username: string;
  email: string;
  groups: string[];
}

export interface ProviderClient {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
}

export interface ProviderOptions {
  port?: number;
  keys?: JWK[];
  accounts: Record<string, TestAccount>;
  clients: ProviderClient[];
  /** Read at every token issued: change it to mint a short-lived token. */
  ttl?: { accessToken: number; code: number };
  /**
   * oidc-provider's conformIdTokenClaims (default true, its own default and OpenID Connect Core's
   * rule): the ID token of the code flow carries only sub and the protocol claims, and what the
   * scopes release is served at userinfo. false puts the scopes' claims in the ID token too.
   */
  conformIdTokenClaims?: boolean;
}

export interface TestProvider {
  issuer: string;
  port: number;
  keys: JWK[];
  ttl: { accessToken: number; code: number };
  /** Paths of every request the provider got, in order (the relying party's JWKS fetches among them). */
  requests: string[];
  /** Paths (e.g. '/me', the userinfo endpoint) whose requests are held unanswered: a hanging provider. */
  hold: Set<string>;
  /** When set, every userinfo answer ('/me') says this sub instead of the account's (a provider that mixes up subjects). */
  userinfoSub: string | null;
  close(): Promise<void>;
}

export async function signingKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  return { ...(await exportJWK(privateKey)), kid: randomUUID(), alg: 'RS256', use: 'sig' };
}

export async function startProvider(opts: ProviderOptions): Promise<TestProvider> {
  const port = opts.port ?? (await freePort());
  const issuer = `http://127.0.0.1:${port}`;
  const keys = opts.keys ?? [await signingKey()];
  const ttl = opts.ttl ?? { accessToken: 60, code: 30 };
  const provider = new Provider(issuer, {
    clients: opts.clients.map((c) => ({ ...c, grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_basic' })),
    jwks: { keys },
    cookies: { keys: [randomUUID()] },
    async findAccount(_ctx: unknown, sub: string) {
      const a = Object.values(opts.accounts).find((x) => x.sub === sub) ?? opts.accounts[sub];
      if (!a) return undefined;
      return { accountId: a.sub, claims: async () => ({ sub: a.sub, preferred_username: a.username, email: a.email, email_verified: true, groups: [...a.groups] }) };
    },
    claims: { openid: ['sub'], profile: ['preferred_username'], email: ['email', 'email_verified'], groups: ['groups'] },
    scopes: ['openid', 'profile', 'email', 'groups', 'api'],
    conformIdTokenClaims: opts.conformIdTokenClaims ?? true,
    features: {
      devInteractions: { enabled: true },
      rpInitiatedLogout: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resource: string) => ({ scope: 'api', audience: resource, accessTokenTTL: ttl.accessToken, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'RS256' } } }),
      },
    },
    async extraTokenClaims(_ctx: unknown, token: { kind: string; accountId?: string }) {
      if (token.kind !== 'AccessToken' || !token.accountId) return undefined;
      const a = Object.values(opts.accounts).find((x) => x.sub === token.accountId);
      return a ? { groups: [...a.groups] } : undefined;
    },
    ttl: {
      AccessToken: () => ttl.accessToken,
      AuthorizationCode: () => ttl.code,
      IdToken: 60,
      Interaction: 120,
      Session: 600,
      Grant: 600,
    },
    pkce: { required: () => true },
  });
  // Errors the provider answers to clients (invalid_grant, invalid_client) are expected here.
  provider.on('server_error', (_ctx: unknown, err: Error) => console.error('oidc-provider server_error', err));
  const requests: string[] = [];
  const hold = new Set<string>();
  const out: TestProvider = { issuer, port, keys, ttl, requests, hold, userinfoSub: null, close: async () => {} };
  const handle = provider.callback();
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    requests.push(path);
    if (hold.has(path)) return; // never answered; closeAllConnections ends it
    if (path === '/me' && out.userinfoSub) {
      const sub = out.userinfoSub;
      const end = res.end.bind(res) as (...a: unknown[]) => typeof res;
      res.end = ((chunk?: unknown, ...rest: unknown[]) => {
        if ((typeof chunk === 'string' || Buffer.isBuffer(chunk)) && res.statusCode === 200 && !res.headersSent) {
          const body = JSON.stringify({ ...JSON.parse(String(chunk)), sub });
          res.setHeader('content-length', Buffer.byteLength(body));
          return end(body, ...rest);
        }
        return end(chunk, ...rest);
      }) as typeof res.end;
    }
    handle(req, res);
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  };
  onGlobalTeardown(close);
  out.close = close;
  return out;
}

/** fetch with a cookie jar (name -> value, as one host), following redirects and forms like a browser. */
export class Browser {
  readonly jar = new Map<string, string>();
  /** Every URL visited, in order. */
  readonly visited: string[] = [];

  cookieHeader(): string {
    return [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  store(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const i = pair.indexOf('=');
      const name = pair.slice(0, i).trim();
      const value = pair.slice(i + 1).trim();
      const expired = attrs.some((a) => /^\s*max-age=0\s*$/i.test(a) || (/^\s*expires=/i.test(a) && new Date(a.split('=')[1]).getTime() < Date.now()));
      if (expired || value === '') this.jar.delete(name);
      else this.jar.set(name, value);
    }
  }

  async request(url: string, init: RequestInit = {}): Promise<Response> {
    this.visited.push(url);
    const res = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string>), cookie: this.cookieHeader() } });
    this.store(res);
    return res;
  }

  /**
   * Follows redirects from `url` and fills the provider's forms (login as `login`, then consent),
   * until a redirect points at a URL starting with `stopAt` (not visited) or a page that is not
   * one of the provider's forms. Returns that URL or the last response.
   */
  async signIn(url: string, login: string, stopAt: string): Promise<{ stoppedAt: string | null; last: Response; body: string }> {
    let next: { url: string; init?: RequestInit } | null = { url };
    for (let hops = 0; hops < 20 && next; hops++) {
      if (next.url.startsWith(stopAt)) return { stoppedAt: next.url, last: new Response(null), body: '' };
      const res = await this.request(next.url, next.init);
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location) {
        next = { url: new URL(location, next.url).href };
        continue;
      }
      const body = await res.text();
      const form = /<form[^>]*action="([^"]+)"[^>]*method="post"/i.exec(body);
      const prompt = /name="prompt" value="([^"]+)"/.exec(body)?.[1];
      if (res.status !== 200 || !form || !prompt) return { stoppedAt: null, last: res, body };
      const fields = new URLSearchParams(prompt === 'login' ? { prompt, login, password: 'any' } : { prompt });
      next = { url: new URL(form[1].replace(/&amp;/g, '&'), next.url).href, init: { method: 'POST', body: fields.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } } };
    }
    throw new Error(`sign-in did not finish: ${this.visited.slice(-5).join(' -> ')}`);
  }
}

/** An access token for `resource` from the provider for `login`, as a machine client (the
 * `cli` client) would get it: the code flow with PKCE at the provider, then its token endpoint. */
export async function accessTokenFor(p: { issuer: string }, client: ProviderClient, login: string, resource: string): Promise<string> {
  const { createHash, randomBytes } = await import('node:crypto');
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const redirect = client.redirect_uris[0];
  const auth = new URL(`${p.issuer}/auth`);
  for (const [k, v] of Object.entries({ client_id: client.client_id, response_type: 'code', scope: 'openid api', redirect_uri: redirect, code_challenge: challenge, code_challenge_method: 'S256', resource, state: randomUUID(), nonce: randomUUID() })) auth.searchParams.set(k, v);
  const browser = new Browser();
  const { stoppedAt, body } = await browser.signIn(auth.href, login, redirect);
  if (!stoppedAt) throw new Error(`no code from the provider: ${body.slice(0, 300)}`);
  const code = new URL(stoppedAt).searchParams.get('code');
  if (!code) throw new Error(`no code from the provider: ${stoppedAt}`);
  const r = await fetch(`${p.issuer}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: 'Basic ' + Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64') },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirect, code_verifier: verifier, resource }).toString(),
  });
  const json = (await r.json()) as { access_token?: string; error?: string; error_description?: string };
  if (!json.access_token) throw new Error(`token endpoint: ${r.status} ${json.error} ${json.error_description}`);
  return json.access_token;
}
