// The key provider port: where private keys live and how they sign. Private key material
// never crosses this port outwards (only public keys and signatures do).
// Adapters: adapters/keyProviders/database* (built in), vault*, awsKms*.

export type KeyProviderType = 'DATABASE' | 'VAULT' | 'AWS_KMS';
export type KeyAlgorithm = 'EC' | 'RSA' | 'ED25519';
export type EcCurve = 'P-256' | 'P-384' | 'P-521' | 'secp256k1';
export type HashName = 'sha256' | 'sha384' | 'sha512';

export interface KeySpec {
  algorithm: KeyAlgorithm;
  /** EC only */
  curve?: EcCurve;
  /** RSA only: 2048 or 4096 */
  keySize?: 2048 | 4096;
}

export interface GeneratedKey {
  /** Opaque reference the provider understands (database row id, transit key name, KMS key id). Not secret. */
  handle: string;
  /** SubjectPublicKeyInfo, PEM. */
  publicKeyPem: string;
}

/**
 * What to sign. `data` is hashed by the provider with `hash` (ignored for Ed25519, which signs the
 * message itself); `digest` is an already computed hash (ECDSA/RSA only), used for Ethereum-style
 * signatures over keccak-256 digests.
 */
export type SignInput = { data: Buffer; hash: HashName } | { digest: Buffer; hash: HashName | 'keccak256' };

export interface KeyProviderStatus {
  reachable: boolean;
  detail?: string;
  [key: string]: unknown;
}

export interface KeyProvider {
  readonly type: KeyProviderType;
  /** Human-readable list of what this provider supports, used in 400 messages. */
  describeSupport(): string;
  supports(spec: KeySpec): boolean;
  generateKey(name: string, spec: KeySpec): Promise<GeneratedKey>;
  /** Import an existing private key (PEM, PKCS#8 or SEC1/PKCS#1). Providers that cannot import throw a ValidationError. */
  importKey(name: string, privateKeyPem: string): Promise<GeneratedKey>;
  /**
   * Sign. Returns: ECDSA -> DER-encoded ECDSA-Sig-Value; RSA -> PKCS#1 v1.5 signature bytes;
   * Ed25519 -> 64 raw bytes.
   */
  sign(handle: string, spec: KeySpec, input: SignInput): Promise<Buffer>;
  deleteKey(handle: string): Promise<void>;
  status(): Promise<KeyProviderStatus>;
}
