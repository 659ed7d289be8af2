// AWS Signature Version 4, checked the way AWS checks it: parse the Authorization header,
// find the access key, rebuild the canonical request from the signed headers and the body,
// recompute the signature with the secret, compare; then the credential scope (date, region,
// service) and the clock skew. Errors use AWS's codes and wording so the SDK surfaces them as
// it would against AWS.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

export interface SigV4Principal {
  accessKeyId: string;
  secretAccessKey: string;
  /** When set, requests must carry it in X-Amz-Security-Token (temporary credentials). */
  sessionToken?: string;
}

export type SigV4Result<P> = { ok: true; principal: P } | { ok: false; type: string; message: string };

const sha256hex = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();

/** RFC 3986 encoding as SigV4 wants it (unreserved characters kept, each path segment encoded). */
function uriEncode(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
}

function canonicalQuery(search: URLSearchParams): string {
  return [...search.entries()]
    .map(([k, v]) => [uriEncode(k), uriEncode(v)])
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  if (v === undefined) return undefined;
  return (Array.isArray(v) ? v.join(',') : String(v)).trim().replace(/\s+/g, ' ');
}

function parseAmzDate(s: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(s);
  return m ? Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]) : NaN;
}

export function verifySigV4<P extends SigV4Principal>(
  req: { method: string; url: string; headers: IncomingHttpHeaders; body: Buffer },
  opts: { principals: P[]; region: string; service: string; maxSkewMs?: number; now?: number },
): SigV4Result<P> {
  const auth = headerValue(req.headers, 'authorization');
  if (!auth) return { ok: false, type: 'MissingAuthenticationTokenException', message: 'Missing Authentication Token' };
  const m = /^AWS4-HMAC-SHA256 Credential=([^,]+),\s*SignedHeaders=([^,]+),\s*Signature=([0-9a-f]{64})$/.exec(auth);
  if (!m) return { ok: false, type: 'IncompleteSignatureException', message: `Authorization header requires 'Credential', 'SignedHeaders' and 'Signature' parameters.` };
  const [accessKeyId, date, region, service, terminator] = m[1].split('/');
  const signedHeaders = m[2].split(';');
  const principal = opts.principals.find((p) => p.accessKeyId === accessKeyId);
  if (!principal) return { ok: false, type: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.' };
  if (principal.sessionToken !== undefined && headerValue(req.headers, 'x-amz-security-token') !== principal.sessionToken) {
    return { ok: false, type: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.' };
  }

  const amzDate = headerValue(req.headers, 'x-amz-date') ?? '';
  const url = new URL(req.url, 'http://standin');
  const canonicalHeaders = signedHeaders.map((h) => `${h}:${headerValue(req.headers, h) ?? ''}\n`).join('');
  const payloadHash = headerValue(req.headers, 'x-amz-content-sha256') ?? sha256hex(req.body);
  const canonicalUri = url.pathname.split('/').map((seg) => uriEncode(decodeURIComponent(seg))).join('/') || '/';
  const canonicalRequest = [req.method, canonicalUri, canonicalQuery(url.searchParams), canonicalHeaders, signedHeaders.join(';'), payloadHash].join('\n');
  const scope = `${date}/${region}/${service}/${terminator}`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256hex(canonicalRequest)].join('\n');
  const kDate = hmac('AWS4' + principal.secretAccessKey, date);
  const kSigning = hmac(hmac(hmac(kDate, region), service), 'aws4_request');
  const expected = createHmac('sha256', kSigning).update(stringToSign, 'utf8').digest();
  const given = Buffer.from(m[3], 'hex');
  if (!signedHeaders.includes('host') || given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return {
      ok: false,
      type: 'InvalidSignatureException',
      message: 'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.',
    };
  }
  // AWS checks the scope only once the signature itself is right.
  if (terminator !== 'aws4_request' || date !== amzDate.slice(0, 8)) return { ok: false, type: 'InvalidSignatureException', message: 'Credential should be scoped to a valid date.' };
  if (region !== opts.region) return { ok: false, type: 'InvalidSignatureException', message: `Credential should be scoped to a valid region. ` };
  if (service !== opts.service) return { ok: false, type: 'InvalidSignatureException', message: `Credential should be scoped to correct service: '${opts.service}'. ` };
  const now = opts.now ?? Date.now();
  const at = parseAmzDate(amzDate);
  const skew = opts.maxSkewMs ?? 5 * 60_000;
  if (!Number.isFinite(at) || Math.abs(now - at) > skew) {
    return { ok: false, type: 'InvalidSignatureException', message: `Signature expired: ${amzDate} is now earlier than the allowed window (5 min.)` };
  }
  return { ok: true, principal };
}
