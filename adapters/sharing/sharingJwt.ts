// ES256 JWTs for node sharing with jose. The private key stays in its key provider: the provider
// signs SHA-256(header.payload) and returns DER, turned here into JOSE's r||s form. jose then
// verifies the result as any ES256 token (signature, exp, aud).
import { EmbeddedJWK, calculateJwkThumbprint, errors, exportJWK, importJWK, jwtVerify, type JWK } from 'jose';
import { createPublicKey } from 'node:crypto';
import type { DerSigner, JwtFailure, VerifiedJwt } from '../../domain/sharing/sharingPorts.ts';
import { derToRs } from '../keyProviders/signingEcdsa.ts';

const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');

export async function publicJwkOf(publicKeyPem: string): Promise<Record<string, string>> {
  const { kty, crv, x, y } = (await exportJWK(createPublicKey(publicKeyPem))) as Record<string, string>;
  return { kty, crv, x, y };
}

export async function signJwt(claims: Record<string, unknown>, publicKeyPem: string, sign: DerSigner, embedJwk: boolean): Promise<string> {
  const header = { alg: 'ES256', typ: 'JWT', ...(embedJwk ? { jwk: await publicJwkOf(publicKeyPem) } : {}) };
  const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
  const { r, s } = derToRs(await sign(Buffer.from(input)), 'P-256');
  return `${input}.${b64url(Buffer.from(r + s, 'hex'))}`;
}

export async function verifyJwt(token: string, opts: { jwk?: Record<string, string>; audience: string }): Promise<VerifiedJwt | { failure: JwtFailure; reason: string }> {
  try {
    const r = opts.jwk
      ? await jwtVerify(token, await importJWK(opts.jwk as JWK, 'ES256'), { audience: opts.audience, algorithms: ['ES256'] })
      : await jwtVerify(token, EmbeddedJWK, { audience: opts.audience, algorithms: ['ES256'] });
    const jwk = opts.jwk ?? (r.protectedHeader.jwk as Record<string, string>);
    return { payload: r.payload as Record<string, unknown>, jwk };
  } catch (err) {
    if (err instanceof errors.JWTExpired) return { failure: 'expired', reason: 'the token has expired' };
    const reason = err instanceof errors.JWSSignatureVerificationFailed ? 'the signature does not verify' : err instanceof errors.JOSEError ? `${err.code}: ${err.message}` : 'not a JWT';
    return { failure: 'invalid', reason };
  }
}

export const thumbprint = (jwk: Record<string, string>) => calculateJwkThumbprint(jwk as JWK, 'sha256');
