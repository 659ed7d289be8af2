// The OpenID Connect relying party: openid-client (a certified RP library) for discovery and the
// authorization code flow with PKCE, state and nonce; jose's remote key set for the provider's
// JWKS, which checks the ID token of every sign-in and the JWT access tokens machine clients
// send as Bearer. The key set refetches when a token names a kid it does not hold (key
// rotation), at most once per KEY_REFETCH_COOLDOWN_MS, and in any case every 10 minutes.
//
// Plain http is accepted only for an issuer on a loopback address (a provider on the same
// host); anything else must be https.
import * as client from 'openid-client';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { createRemoteJWKSet, decodeJwt, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { OidcFailure } from '../../domain/users/oidc.ts';
import type { OidcPublicSettings, OidcRelyingParty, PendingOidcLogin } from '../../domain/users/ports.ts';

export interface OidcClientConfig extends OidcPublicSettings {
  clientSecret: string;
  /** 32 bytes that seal the pending-login cookie (bin/ derives them from KEY_ENCRYPTION_KEY with HKDF). */
  sealingKey: Buffer;
}

const SEAL_AAD = Buffer.from('lnm oidc pending login v1');

/** An unknown kid makes the key set refetch the provider's JWKS, at most this often. */
export const KEY_REFETCH_COOLDOWN_MS = 5_000;
const KEY_MAX_AGE_MS = 10 * 60_000;
const LOGIN_TTL_MS = 10 * 60_000;
const HTTP_TIMEOUT_S = 10;
/** Leeway for exp/nbf/iat between this host's clock and the provider's. */
const CLOCK_TOLERANCE_S = 2;

const isLoopback = (u: URL) => ['127.0.0.1', 'localhost', '[::1]', '::1'].includes(u.hostname);

/** A failure description without any token, code or secret: only the library's error kind and the OAuth error name. */
function oauthError(err: unknown): { code: string | null; error: string | null } {
  const e = err as { code?: unknown; error?: unknown; cause?: unknown };
  let error = typeof e?.error === 'string' ? e.error : null;
  // A 401 from the token endpoint arrives as a WWW-Authenticate challenge.
  if (!error && Array.isArray(e?.cause)) {
    const p = (e.cause[0] as { parameters?: { error?: unknown } } | undefined)?.parameters?.error;
    if (typeof p === 'string') error = p;
  }
  return { code: typeof e?.code === 'string' ? e.code : null, error };
}

/** A network failure (refused, unknown host, timeout) anywhere in the error's cause chain. */
const unreachable = (err: unknown): boolean => {
  for (let e = err as { name?: string; code?: string; message?: string; cause?: unknown } | undefined, depth = 0; e && depth < 6; e = e.cause as typeof e, depth++) {
    if (e.name === 'AbortError' || e.name === 'TimeoutError' || (e.name === 'TypeError' && /fetch failed/i.test(e.message ?? ''))) return true;
    if (/ECONNREFUSED|ENOTFOUND|ETIMEDOUT|ECONNRESET|EAI_AGAIN|EHOSTUNREACH|UND_ERR/.test(String(e.code ?? ''))) return true;
  }
  return false;
};

export function createOidcRelyingParty(cfg: OidcClientConfig): OidcRelyingParty {
  const issuerUrl = new URL(cfg.issuer);
  if (issuerUrl.protocol !== 'https:' && !(issuerUrl.protocol === 'http:' && isLoopback(issuerUrl))) {
    throw new Error(`LNM_OIDC_ISSUER must be an https URL (plain http only on a loopback address), got ${issuerUrl.origin}`);
  }
  let discovered: Promise<{ config: client.Configuration; jwks: ReturnType<typeof createRemoteJWKSet> }> | null = null;

  const discover = () => {
    discovered ??= (async () => {
      const config = await client.discovery(issuerUrl, cfg.clientId, { redirect_uris: [cfg.redirectUrl], response_types: ['code'] }, client.ClientSecretBasic(cfg.clientSecret), {
        timeout: HTTP_TIMEOUT_S,
        ...(issuerUrl.protocol === 'http:' ? { execute: [client.allowInsecureRequests] } : {}),
      });
      const meta = config.serverMetadata();
      if (!meta.jwks_uri) throw new Error('the provider\'s discovery document has no jwks_uri');
      const jwks = createRemoteJWKSet(new URL(meta.jwks_uri), { cooldownDuration: KEY_REFETCH_COOLDOWN_MS, cacheMaxAge: KEY_MAX_AGE_MS, timeoutDuration: HTTP_TIMEOUT_S * 1000 });
      return { config, jwks };
    })();
    // A failed discovery is tried again at the next sign-in rather than cached.
    discovered.catch(() => (discovered = null));
    return discovered;
  };

  const ready = async () => {
    try {
      return await discover();
    } catch (err) {
      const why = unreachable(err) ? 'cannot be reached' : 'did not answer with a usable discovery document';
      throw new OidcFailure('provider unreachable', `The OpenID provider ${issuerUrl.origin} ${why} (${issuerUrl.href.replace(/\/$/, '')}/.well-known/openid-configuration).`);
    }
  };

  /** Checks signature (with a refetch on an unknown kid), issuer and audience, and maps jose's errors to reasons. */
  async function verifyJwt(token: string, audience: string, kind: 'ID token' | 'access token'): Promise<JWTPayload> {
    const { jwks } = await ready();
    let unverified: JWTPayload;
    try {
      unverified = decodeJwt(token);
    } catch {
      throw new OidcFailure(kind === 'ID token' ? 'bad id token' : 'bad token', `The ${kind} is not a JWT.`);
    }
    if (unverified.iss !== cfg.issuer) throw new OidcFailure('unknown issuer', `The ${kind} was issued by ${JSON.stringify(String(unverified.iss ?? '')).slice(0, 200)}, not by the configured provider.`);
    try {
      const { payload } = await jwtVerify(token, jwks, { issuer: cfg.issuer, audience, clockTolerance: CLOCK_TOLERANCE_S, requiredClaims: ['sub', 'exp'] });
      return payload;
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) throw new OidcFailure(kind === 'ID token' ? 'bad id token' : 'expired token', `The ${kind} has expired.`);
      if (err instanceof joseErrors.JWTClaimValidationFailed && err.claim === 'aud') throw new OidcFailure(kind === 'ID token' ? 'bad id token' : 'wrong audience', `The ${kind} is not meant for ${audience}.`);
      if (err instanceof joseErrors.JWKSNoMatchingKey) throw new OidcFailure(kind === 'ID token' ? 'bad id token' : 'bad token', `The ${kind} is signed with a key the provider does not publish.`);
      if (err instanceof joseErrors.JOSEError && /JWKS|fetch|timeout/i.test(err.code) && !(err instanceof joseErrors.JWSSignatureVerificationFailed)) {
        throw new OidcFailure('provider unreachable', `The provider's keys could not be fetched (${err.code}).`);
      }
      if (unreachable(err)) throw new OidcFailure('provider unreachable', 'The provider\'s keys could not be fetched.');
      const what = err instanceof joseErrors.JOSEError ? err.code : 'ERR_INVALID';
      throw new OidcFailure(kind === 'ID token' ? 'bad id token' : 'bad token', `The ${kind} did not verify (${what}).`);
    }
  }

  /** The userinfo claims for `subject` ({} when the provider has no userinfo endpoint); throws OidcFailure. */
  async function userInfo(config: client.Configuration, accessToken: string | undefined, subject: string): Promise<Record<string, unknown>> {
    if (!config.serverMetadata().userinfo_endpoint) return {};
    if (!accessToken) throw new OidcFailure('bad userinfo', 'The provider sent no access token to read the userinfo endpoint with.');
    try {
      // fetchUserInfo refuses an answer whose sub is not the ID token's (OpenID Connect Core 5.3.2).
      return { ...(await client.fetchUserInfo(config, accessToken, subject)) };
    } catch (err) {
      // Never the error's cause: it holds the answer's claims.
      const { code, error } = oauthError(err);
      if (code === 'OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED') throw new OidcFailure('bad userinfo', 'The provider\'s userinfo answer is about another subject than the ID token.');
      if (unreachable(err)) throw new OidcFailure('provider unreachable', `The provider's userinfo endpoint cannot be reached or did not answer within ${HTTP_TIMEOUT_S} s.`);
      throw new OidcFailure('bad userinfo', `The provider's userinfo endpoint refused the sign-in's access token or answered badly (${code ?? (err as Error)?.name ?? 'error'}${error ? `: ${error}` : ''}).`);
    }
  }

  return {
    settings: {
      issuer: cfg.issuer, clientId: cfg.clientId, redirectUrl: cfg.redirectUrl, scopes: cfg.scopes,
      roleClaim: cfg.roleClaim, roleMap: cfg.roleMap, defaultRole: cfg.defaultRole, audience: cfg.audience,
    },
    async ready() {
      await ready();
    },
    async beginLogin(returnTo, now) {
      const { config } = await ready();
      const codeVerifier = client.randomPKCECodeVerifier();
      const state = client.randomState();
      const nonce = client.randomNonce();
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: cfg.redirectUrl,
        scope: cfg.scopes.join(' '),
        code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
        state,
        nonce,
      });
      return { url: url.href, pending: { state, nonce, codeVerifier, expiresAt: now.getTime() + LOGIN_TTL_MS, returnTo } };
    },
    async completeLogin(callbackUrl, pending) {
      const { config } = await ready();
      let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
      try {
        tokens = await client.authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: pending.codeVerifier, expectedState: pending.state, expectedNonce: pending.nonce, idTokenExpected: true });
      } catch (err) {
        const { code, error } = oauthError(err);
        if (code === 'OAUTH_AUTHORIZATION_RESPONSE_ERROR') throw new OidcFailure('provider error', `The provider refused the sign-in: ${error ?? 'error'}.`);
        if (error === 'invalid_grant') throw new OidcFailure('code rejected', 'The provider refused the authorization code: it has expired, was used already, or was not issued for this login.');
        if (error === 'invalid_client' || error === 'unauthorized_client') throw new OidcFailure('client rejected', 'The provider refused this server\'s client credentials: check LNM_OIDC_CLIENT_ID and LNM_OIDC_CLIENT_SECRET.');
        if (code === 'OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED' || /state/i.test((err as Error)?.message ?? '')) throw new OidcFailure('bad state', 'The callback\'s state does not match this login.');
        if (code === 'OAUTH_JWT_CLAIM_COMPARISON_FAILED' || code === 'OAUTH_JWT_TIMESTAMP_CHECK_FAILED') throw new OidcFailure('bad id token', `The ID token did not check out (${code}).`);
        if (unreachable(err)) throw new OidcFailure('provider unreachable', 'The provider\'s token endpoint cannot be reached.');
        throw new OidcFailure('provider error', `The provider's token response was refused (${code ?? (err as Error)?.name ?? 'error'}${error ? `: ${error}` : ''}).`);
      }
      const idToken = tokens.id_token;
      if (!idToken) throw new OidcFailure('bad id token', 'The provider sent no ID token.');
      // openid-client checked nonce, issuer, audience and times; the signature is checked here
      // against the provider's keys, with the same rotation handling as bearer tokens.
      const claims = await verifyJwt(idToken, cfg.clientId, 'ID token');
      // A provider at OpenID Connect Core's defaults puts in the ID token of the code flow only
      // sub and the protocol claims; what the scopes release (groups, preferred_username,
      // email) is served at the userinfo endpoint. So it is read there, for the ID token's
      // subject, and merged under the ID token's own claims (those are signed, and win).
      const userinfo = await userInfo(config, tokens.access_token, String(claims.sub));
      return { ...userinfo, ...claims } as Record<string, unknown>;
    },
    async verifyAccessToken(token) {
      if (!cfg.audience) throw new OidcFailure('wrong audience', 'Bearer tokens of the OpenID provider are not accepted: LNM_OIDC_AUDIENCE is not set.');
      return (await verifyJwt(token, cfg.audience, 'access token')) as Record<string, unknown>;
    },
    sealPending(pending) {
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', cfg.sealingKey, iv).setAAD(SEAL_AAD);
      const body = Buffer.concat([c.update(JSON.stringify(pending), 'utf8'), c.final()]);
      return Buffer.concat([iv, c.getAuthTag(), body]).toString('base64url');
    },
    openPending(sealed) {
      try {
        const raw = Buffer.from(sealed, 'base64url');
        if (raw.length < 29 || raw.length > 4096) return null;
        const d = createDecipheriv('aes-256-gcm', cfg.sealingKey, raw.subarray(0, 12)).setAAD(SEAL_AAD);
        d.setAuthTag(raw.subarray(12, 28));
        const p = JSON.parse(Buffer.concat([d.update(raw.subarray(28)), d.final()]).toString('utf8')) as PendingOidcLogin;
        const ok = typeof p?.state === 'string' && typeof p.nonce === 'string' && typeof p.codeVerifier === 'string' && typeof p.expiresAt === 'number' && typeof p.returnTo === 'string';
        return ok ? p : null;
      } catch {
        return null;
      }
    },
    async endSessionUrl(postLogoutRedirect) {
      const { config } = await ready();
      if (!config.serverMetadata().end_session_endpoint) return null;
      return client.buildEndSessionUrl(config, { client_id: cfg.clientId, ...(postLogoutRedirect ? { post_logout_redirect_uri: postLogoutRedirect } : {}) }).href;
    },
  };
}
