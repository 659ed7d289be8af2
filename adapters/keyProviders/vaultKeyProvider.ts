// Key provider backed by Vault: private keys are transit keys (created inside Vault, never
// exportable), signing is transit/sign, certificates live in a KV version 2 engine.
// Handle = the transit key name. Key names follow Vault's rule for path names (letters, digits,
// "_", "-", "."), so a name is checked before it becomes part of a path.
// Creating a key whose name exists with the same type adopts it (a saga retrying a creation after
// a crash gets the same key); with another type it is a conflict. Importing uses transit's
// wrapped-key import (vaultImportWrapping.ts); a repeated import of the same key adopts it too.
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import type { GeneratedKey, HashName, KeyProvider, KeyProviderStatus, KeySpec, SignInput } from '../../domain/keys/keyProvider.ts';
import { AppError, ConflictError, ValidationError } from '../../domain/shared/errors.ts';
import { describeKeySpec, keySpecOfKey } from './signingAlgorithms.ts';
import { wrapForVaultImport } from './vaultImportWrapping.ts';
import { createVaultClient, isVaultUnreachable, mapVaultError, vaultUnreachable, type VaultClient } from './vaultClient.ts';
import type { VaultConnection } from './vaultConfig.ts';

export interface VaultKeyProvider extends KeyProvider {
  readonly type: 'VAULT';
  putCertificate(keyName: string, certificatePem: string): Promise<void>;
  /** null when no certificate was stored for the key. */
  getCertificate(keyName: string): Promise<string | null>;
  status(): Promise<VaultStatus>;
  /**
   * Whether the token's policy grants what this provider needs (sys/capabilities-self), so a
   * misconfigured token is reported when the provider is saved, not at the first signature.
   */
  checkTokenPolicy(): Promise<{ ok: boolean; missing: string[] }>;
}

export interface VaultStatus extends KeyProviderStatus {
  vault_reachable: boolean;
  vault_initialized: boolean;
  sealed: boolean;
}

const SUPPORT = 'RSA 2048 and 4096; EC P-256, P-384 and P-521 (Vault transit has no secp256k1; Ed25519 is not offered by this provider)';

const transitType = (spec: KeySpec): string | null => {
  if (spec.algorithm === 'RSA' && (spec.keySize === 2048 || spec.keySize === 4096)) return `rsa-${spec.keySize}`;
  if (spec.algorithm === 'EC' && spec.curve === 'P-256') return 'ecdsa-p256';
  if (spec.algorithm === 'EC' && spec.curve === 'P-384') return 'ecdsa-p384';
  if (spec.algorithm === 'EC' && spec.curve === 'P-521') return 'ecdsa-p521';
  return null;
};

const vaultHash: Record<HashName, string> = { sha256: 'sha2-256', sha384: 'sha2-384', sha512: 'sha2-512' };
const keyNamePattern = /^\w(([\w.-]+)?\w)?$/;
const CERT_PREFIX = 'lnm/keys';

export function createVaultKeyProvider(conn: VaultConnection, opts: { timeoutMs?: number } = {}): VaultKeyProvider {
  const client: VaultClient = createVaultClient({ address: conn.address, token: conn.token, namespace: conn.namespace, caCertPem: conn.caCertPem, timeoutMs: opts.timeoutMs });
  const t = conn.transitPath;
  const kv = conn.kvPath;

  async function call<T>(path: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw mapVaultError(err, { address: conn.address, path, transitPath: t, kvPath: kv });
    }
  }

  function checkName(name: string): void {
    if (!keyNamePattern.test(name) || name.length > 200) {
      throw new ValidationError(`Key name "${name}" cannot be a Vault transit key name: use letters, digits, "_", "-" and "." (not at the ends).`, [
        { field: 'name', message: 'letters, digits, "_", "-", "." only' },
      ]);
    }
  }

  function unsupported(spec: KeySpec): ValidationError {
    const field = spec.algorithm === 'EC' ? 'curve' : 'algorithm';
    return new ValidationError(`The Vault key provider cannot hold ${describeKeySpec(spec)} keys. Supported: ${SUPPORT}.`, [
      { field, message: `${describeKeySpec(spec)} is not supported by Vault transit` },
    ]);
  }

  async function readPublicKey(name: string, expectedType?: string): Promise<string> {
    const path = `${t}/keys/${name}`;
    const res = await call(path, () => client.read(path));
    const data = res?.data ?? {};
    if (expectedType && data.type !== expectedType) {
      throw new ConflictError(`A Vault transit key named ${name} already exists with type ${data.type}, not ${expectedType}.`, { name, type: data.type });
    }
    const latest = data.keys?.[String(data.latest_version)];
    if (!latest?.public_key) throw new ConflictError(`Vault transit key ${name} (type ${data.type}) has no public key.`, { name });
    return createPublicKey(latest.public_key).export({ format: 'pem', type: 'spki' }) as string;
  }

  async function generateKey(name: string, spec: KeySpec): Promise<GeneratedKey> {
    const type = transitType(spec);
    if (!type) throw unsupported(spec);
    checkName(name);
    const path = `${t}/keys/${name}`;
    await call(path, () => client.write(path, { type, exportable: false, allow_plaintext_backup: false }));
    return { handle: name, publicKeyPem: await readPublicKey(name, type) };
  }

  function parsePrivateKey(pem: string): KeyObject {
    try {
      return createPrivateKey(pem);
    } catch {
      // Never echo the input: it is a private key.
      throw new ValidationError('privateKey is not a PEM private key (PKCS#8, SEC1 or PKCS#1).', [{ field: 'privateKey', message: 'not a PEM private key' }]);
    }
  }

  async function importKey(name: string, privateKeyPem: string): Promise<GeneratedKey> {
    const key = parsePrivateKey(privateKeyPem);
    const spec = keySpecOfKey(key);
    const type = transitType(spec);
    if (!type) throw unsupported(spec);
    checkName(name);
    const ours = createPublicKey(key).export({ format: 'pem', type: 'spki' }) as string;
    const existing = await existingPublicKey(name, type);
    if (existing !== null) {
      if (existing === ours) return { handle: name, publicKeyPem: existing };
      throw new ConflictError(`A different Vault transit key named ${name} already exists.`, { name });
    }
    const wrappingPath = `${t}/wrapping_key`;
    const wrapping = await call(wrappingPath, () => client.read(wrappingPath));
    const ciphertext = wrapForVaultImport(String(wrapping?.data?.public_key ?? ''), key);
    const path = `${t}/keys/${name}/import`;
    await call(path, () => client.write(path, { type, ciphertext, hash_function: 'SHA256', exportable: false, allow_plaintext_backup: false }));
    return { handle: name, publicKeyPem: await readPublicKey(name, type) };
  }

  /** The key's public key, or null when no transit key has that name. */
  async function existingPublicKey(name: string, type: string): Promise<string | null> {
    try {
      await client.read(`${t}/keys/${name}`);
    } catch (err) {
      const status = (err as { response?: { statusCode?: number; body?: { errors?: unknown[] } } })?.response;
      if (status?.statusCode === 404 && Array.isArray(status.body?.errors) && status.body.errors.length === 0) return null;
      throw mapVaultError(err, { address: conn.address, path: `${t}/keys/${name}`, transitPath: t, kvPath: kv });
    }
    return readPublicKey(name, type);
  }

  function signRequest(spec: KeySpec, input: SignInput): Record<string, unknown> {
    const body: Record<string, unknown> = { marshaling_algorithm: 'asn1' };
    if (spec.algorithm === 'RSA') body.signature_algorithm = 'pkcs1v15';
    if ('data' in input) {
      body.input = input.data.toString('base64');
      body.hash_algorithm = vaultHash[input.hash];
      return body;
    }
    if (input.hash === 'keccak256') {
      // PKCS#1 v1.5 needs a DigestInfo OID; keccak-256 has none. ECDSA signs any digest as given.
      if (spec.algorithm === 'RSA') throw new ValidationError('RSA keys cannot sign keccak-256 digests; use an EC key.', [{ field: 'hash', message: 'keccak256 needs an EC key' }]);
      body.hash_algorithm = 'sha2-256';
    } else body.hash_algorithm = vaultHash[input.hash];
    body.input = input.digest.toString('base64');
    body.prehashed = true;
    return body;
  }

  async function sign(handle: string, spec: KeySpec, input: SignInput): Promise<Buffer> {
    if (!transitType(spec)) throw unsupported(spec);
    checkName(handle);
    const path = `${t}/sign/${handle}`;
    const res = await call(path, () => client.write(path, signRequest(spec, input))).catch((err) => {
      // Vault answers 400 "signing key not found" (older: "encryption key not found").
      if (err instanceof ValidationError && /key not found/.test(err.message)) {
        throw new AppError(404, 'KEY_NOT_FOUND', `Vault transit key ${handle} was not found under ${t}/ at ${conn.address}.`, { extra: { key: handle } });
      }
      throw err;
    });
    const m = /^vault:v\d+:(.+)$/.exec(String(res?.data?.signature ?? ''));
    if (!m) throw mapVaultError(new Error('the answer had no signature'), { address: conn.address, path });
    return Buffer.from(m[1], 'base64');
  }

  async function deleteKey(handle: string): Promise<void> {
    checkName(handle);
    const gone = (err: unknown) => err instanceof ValidationError && /not found|no existing key/i.test(err.message);
    try {
      const config = `${t}/keys/${handle}/config`;
      await call(config, () => client.write(config, { deletion_allowed: true }));
      const path = `${t}/keys/${handle}`;
      await call(path, () => client.delete(path));
    } catch (err) {
      if (!gone(err)) throw err;
    }
    const meta = `${kv}/metadata/${CERT_PREFIX}/${handle}`;
    await call(meta, () => client.delete(meta));
  }

  async function putCertificate(keyName: string, certificatePem: string): Promise<void> {
    checkName(keyName);
    const path = `${kv}/data/${CERT_PREFIX}/${keyName}`;
    await call(path, () => client.write(path, { data: { certificate: certificatePem } }));
  }

  async function getCertificate(keyName: string): Promise<string | null> {
    checkName(keyName);
    const path = `${kv}/data/${CERT_PREFIX}/${keyName}`;
    try {
      const res = await client.read(path);
      return (res?.data?.data?.certificate as string | undefined) ?? null;
    } catch (err) {
      const status = (err as { response?: { statusCode?: number } })?.response?.statusCode;
      const errors = (err as { response?: { body?: { errors?: unknown[] } } })?.response?.body?.errors;
      // Vault answers a missing secret with 404 and an empty error list (a missing mount has a message).
      if (status === 404 && Array.isArray(errors) && errors.length === 0) return null;
      throw mapVaultError(err, { address: conn.address, path, transitPath: t, kvPath: kv });
    }
  }

  async function checkTokenPolicy(): Promise<{ ok: boolean; missing: string[] }> {
    const probe = 'lnm-capability-probe';
    const needs: Record<string, string[]> = {
      [`${t}/keys/${probe}`]: ['create', 'read', 'update', 'delete'],
      [`${t}/keys/${probe}/config`]: ['update'],
      [`${t}/keys/${probe}/import`]: ['update'],
      [`${t}/sign/${probe}`]: ['update'],
      [`${t}/wrapping_key`]: ['read'],
      [`${kv}/data/${CERT_PREFIX}/${probe}`]: ['create', 'read', 'update'],
      [`${kv}/metadata/${CERT_PREFIX}/${probe}`]: ['delete'],
    };
    const paths = Object.keys(needs);
    const res = await call('sys/capabilities-self', () => client.write('sys/capabilities-self', { paths }));
    const missing: string[] = [];
    for (const path of paths) {
      const granted: string[] = res?.data?.[path] ?? res?.[path] ?? [];
      if (granted.includes('root')) continue;
      // "create or update" is what a write needs; Vault picks one by whether the target exists.
      const lacking = needs[path].filter((c) => !granted.includes(c));
      for (const c of lacking) missing.push(`${c} on ${path.replace(probe, '*')}`);
    }
    return { ok: missing.length === 0, missing };
  }

  async function status(): Promise<VaultStatus> {
    try {
      const h = await client.health({ standbyok: true });
      const initialized = h?.initialized === true;
      const sealed = h?.sealed === true;
      const detail = !initialized ? 'Vault is not initialized.' : sealed ? 'Vault is sealed.' : undefined;
      return { reachable: true, vault_reachable: true, vault_initialized: initialized, sealed, ...(detail ? { detail } : {}) };
    } catch (err) {
      const detail = isVaultUnreachable(err) ? vaultUnreachable(conn.address, err).message : mapVaultError(err, { address: conn.address, path: 'sys/health' }).message;
      return { reachable: false, vault_reachable: false, vault_initialized: false, sealed: false, detail };
    }
  }

  return {
    type: 'VAULT',
    describeSupport: () => SUPPORT,
    supports: (spec) => transitType(spec) !== null,
    generateKey,
    importKey,
    sign,
    deleteKey,
    status,
    putCertificate,
    getCertificate,
    checkTokenPolicy,
  };
}
