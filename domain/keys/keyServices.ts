// What the organization and key use cases need from the outside, beyond the event store: key
// providers by id, X.509 issuing and parsing, CRLs, and sign-data. Implemented by
// adapters/keyProviders/registryKeyServices.ts; the private key never crosses this port.
import type { KeyProvider, KeySpec } from './keyProvider.ts';
import type { ManagedVaultControl } from '../keyProviders/managedVault.ts';

export interface KeyRef {
  providerId: number;
  handle: string;
  spec: KeySpec;
  publicKeyPem: string;
}

export interface CertificateDetails {
  pem: string;
  subject: string;
  commonName: string | null;
  issuer: string;
  serialNumber: string;
  notBefore: string;
  notAfter: string;
  isCA: boolean;
  fingerprintSha256: string;
  subjectAltNames: string[];
  publicKeyPem: string;
}

export interface CertificateRequest {
  commonName: string;
  organization?: string;
  organizationalUnits?: string[];
  country?: string;
  province?: string;
  locality?: string;
  dnsNames?: string[];
  ipAddresses?: string[];
  keyUsages?: string[];
  extendedKeyUsages?: string[];
  /** Fabric's attribute extension (OID 1.2.3.4.5.6.7.8.1): {"attrs":{name: value}} as JSON, as Fabric CA writes it. */
  attributes?: Record<string, string>;
  isCa: boolean;
  notBefore: Date;
  notAfter: Date;
}

export interface RevokedEntry {
  serialNumber: string;
  revokedAt: Date;
  reason?: string;
}

export interface ProviderStatusView {
  reachable: boolean;
  detail?: string;
  [key: string]: unknown;
}

export interface PreparedProviderConfig {
  /** Safe to store in clear and to show (secrets removed). */
  publicConfig: Record<string, unknown>;
  /** The whole configuration, encrypted under KEY_ENCRYPTION_KEY. */
  sealedConfig: string;
  /** CREATE mode of Vault needs a managed container; null when the config imports an existing server. */
  operation: 'IMPORT' | 'CREATE';
}

export interface KeyProviderRegistry extends ManagedVaultControl {
  /** The provider with this id; NotFoundError when there is none. */
  get(providerId: number): Promise<KeyProvider>;
  /** Validates a VAULT or AWS_KMS body (both spellings) and seals its secrets. */
  prepare(type: 'VAULT' | 'AWS_KMS', body: { vaultConfig?: unknown; awsKmsConfig?: unknown; config?: unknown }): Promise<PreparedProviderConfig>;
  /** Connects with a prepared config and reports what the provider reports (checked before saving). */
  probe(type: 'VAULT' | 'AWS_KMS', sealedConfig: string): Promise<ProviderStatusView>;
  forget(providerId: number): void;
}

export interface ImportedCaKey {
  handle: string;
  publicKeyPem: string;
  spec: KeySpec;
  certificate: CertificateDetails;
}

export interface SignDataRequestView {
  data: string;
  hash?: 'sha256' | 'sha384' | 'sha512';
  ethereum?: 'keccak256' | 'personal';
}

export interface KeyServices {
  providers: KeyProviderRegistry;
  selfSignedCa(key: KeyRef, request: Omit<CertificateRequest, 'isCa'>): Promise<CertificateDetails>;
  issueCertificate(subjectPublicKeyPem: string, request: CertificateRequest, issuer: { key: KeyRef; certificatePem: string }): Promise<CertificateDetails>;
  buildCrl(issuer: { key: KeyRef; certificatePem: string }, request: { thisUpdate: Date; nextUpdate: Date; crlNumber: number; revoked: RevokedEntry[] }): Promise<string>;
  parseCertificate(pem: string, field?: string): CertificateDetails;
  /** Validates a CA certificate and key pair (400 naming every problem) and stores the key in the provider. */
  importCa(providerId: number, name: string, input: { certificate: unknown; privateKey: unknown }, now: Date): Promise<ImportedCaKey>;
  signData(key: KeyRef, request: SignDataRequestView): Promise<Record<string, unknown>>;
  ethereumAddress(publicKeyPem: string): string;
  /** What a PEM private key is (400 naming `field` for anything unreadable; never echoes the key). */
  privateKeySpec(privateKeyPem: unknown, field: string): KeySpec;
}
