// What node sharing needs from the outside: JWTs signed by a key that never leaves its key
// provider (the provider signs, the adapter assembles the JWS), verified with jose; and calls
// to another instance's sharing listener over TLS with that instance's certificate pinned.

/** Signs with the instance key in its provider: returns a DER ECDSA signature over SHA-256(data). */
export type DerSigner = (data: Buffer) => Promise<Buffer>;

export interface VerifiedJwt {
  payload: Record<string, unknown>;
  /** The public key the token was verified with (the embedded one, for invitations). */
  jwk: Record<string, string>;
}

export type JwtFailure = 'expired' | 'invalid';

export interface SharingTls {
  /** This instance's sharing listener: its URL and its self-signed certificate (pinned by peers). */
  url: string;
  certificatePem: string;
  /** SHA-256 of the certificate's DER, colon-separated upper-case hex (node's fingerprint256). */
  fingerprint: string;
}

export interface PinnedResponse {
  status: number;
  body: any;
}

export interface SharingDeps {
  /** Null when the sharing listener is not configured (LNM_SHARING_PORT). */
  tls: SharingTls | null;
  /** A compact ES256 JWT; `embedJwk` puts the public key in the header (invitations). */
  signJwt(claims: Record<string, unknown>, publicKeyPem: string, sign: DerSigner, embedJwk: boolean): Promise<string>;
  /** Verifies signature and expiry: with the key embedded in the header when `jwk` is absent. */
  verifyJwt(token: string, opts: { jwk?: Record<string, string>; audience: string }): Promise<VerifiedJwt | { failure: JwtFailure; reason: string }>;
  /** The public JWK of a public key PEM. */
  publicJwk(publicKeyPem: string): Promise<Record<string, string>>;
  /** RFC 7638 thumbprint of a public JWK (to compare keys). */
  thumbprint(jwk: Record<string, string>): Promise<string>;
  /** The fingerprint of a certificate PEM, as SharingTls.fingerprint. */
  fingerprintOf(certificatePem: string): string;
  /** POST JSON over TLS to a peer, trusting only the pinned certificate. */
  postPinned(url: string, certificatePem: string, path: string, body: unknown, bearer: string | null): Promise<PinnedResponse>;
}
