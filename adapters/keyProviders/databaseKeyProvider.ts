// The built-in key provider: key pairs made by node:crypto, private keys kept in PostgreSQL table
// key_material (migrations/0100_key_material.sql), encrypted at rest (keyEncryption.ts).
//
//   createDatabaseKeyProvider({ pool, keyEncryptionKey, kdfIterations? }) -> KeyProvider
//     pool: anything with pg's query(text, values); handle = the row's uuid.
//     Call verifyKeyEncryptionKey (databaseKeyEncryptionCheck.ts) once at start-up first.
//
// Supports EC P-256, P-384, P-521, secp256k1; RSA 2048, 4096; Ed25519. Decrypted keys are cached
// per handle for the life of the process, so only the first use of a key after a start pays
// the PBKDF2 cost and sign() runs at node:crypto speed. The node-key reads at the end of this
// file (a Fabric node's key files, a besu validator's key) take a key from that cache when the
// provider holds it, and decrypt it otherwise.
import { createHash, createPrivateKey, createPublicKey, generateKeyPair, randomUUID, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import type { GeneratedKey, KeyProvider, KeySpec, SignInput } from '../../domain/keys/keyProvider.ts';
import { NotFoundError, ValidationError } from '../../domain/shared/errors.ts';
import { createKeyEncryption } from './keyEncryption.ts';
import { parsePrivateKeyPem } from './privateKeyPem.ts';
import { describeKeySpec, openSslCurveName, sameKeySpec, supportedKeySpecsText } from './signingAlgorithms.ts';
import { signWithKeyObject } from './signingWithKeyObject.ts';

const generateKeyPairAsync = promisify(generateKeyPair);

export interface SqlQueryable {
  query(text: string, values?: unknown[]): Promise<{ rows: any[]; rowCount: number | null }>;
}

export interface DatabaseKeyProviderOptions {
  pool: SqlQueryable;
  keyEncryptionKey: string;
  /** PBKDF2 iterations for newly stored keys (default 600,000; see keyEncryption.ts). */
  kdfIterations?: number;
}

interface LoadedKey {
  privateKey: KeyObject;
  spec: KeySpec;
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The decrypted-key caches of this process's database providers, per database (the pool) and
 * KEY_ENCRYPTION_KEY (by its SHA-256). Each provider fills its own cache (a key it made, imported
 * or first used for signing); the node-key reads below only look into them. A node's identity and
 * TLS keys are made a moment before its first start, which reads both back for the node's files:
 * each read paid PBKDF2 again (0.1-0.3 s of CPU per key; five nodes asked for at once, ten on two
 * cores).
 */
const providerCaches = new WeakMap<object, Map<string, Set<Map<string, Promise<LoadedKey>>>>>();

function cachesOf(pool: SqlQueryable, keyEncryptionKey: string): Set<Map<string, Promise<LoadedKey>>> {
  let byKek = providerCaches.get(pool);
  if (!byKek) providerCaches.set(pool, (byKek = new Map()));
  const kek = createHash('sha256').update(keyEncryptionKey, 'utf8').digest('hex');
  let caches = byKek.get(kek);
  if (!caches) byKek.set(kek, (caches = new Set()));
  return caches;
}

/** A key some provider of this pool and KEK holds decrypted, or null. */
async function heldKey(options: DatabaseKeyProviderOptions, handle: string): Promise<KeyObject | null> {
  for (const cache of cachesOf(options.pool, options.keyEncryptionKey)) {
    const held = await cache.get(handle.toLowerCase())?.catch(() => null);
    if (held) return held.privateKey;
  }
  return null;
}

/** The additional data binding a ciphertext to its row. */
export function keyMaterialContext(handle: string): string {
  return `key_material:${handle.toLowerCase()}`;
}

export function createDatabaseKeyProvider(options: DatabaseKeyProviderOptions): KeyProvider {
  const { pool } = options;
  const encryption = createKeyEncryption(options.keyEncryptionKey, { iterations: options.kdfIterations });
  const cache = new Map<string, Promise<LoadedKey>>();
  cachesOf(pool, options.keyEncryptionKey).add(cache);

  function supports(spec: KeySpec): boolean {
    if (spec.algorithm === 'EC') return spec.curve !== undefined && spec.curve in openSslCurveName;
    if (spec.algorithm === 'RSA') return spec.keySize === 2048 || spec.keySize === 4096;
    return spec.algorithm === 'ED25519';
  }

  async function store(name: string, spec: KeySpec, privateKey: KeyObject): Promise<GeneratedKey> {
    const handle = randomUUID();
    const publicKeyPem = createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString();
    const der = privateKey.export({ type: 'pkcs8', format: 'der' });
    const sealed = await encryption.encrypt(der, keyMaterialContext(handle));
    der.fill(0);
    await pool.query(
      `INSERT INTO key_material (id, name, algorithm, curve, key_size, public_key_pem, kdf_iterations, salt, iv, ciphertext, auth_tag)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [handle, name, spec.algorithm, spec.curve ?? null, spec.keySize ?? null, publicKeyPem, sealed.iterations, sealed.salt, sealed.iv, sealed.ciphertext, sealed.authTag],
    );
    cache.set(handle, Promise.resolve({ privateKey, spec }));
    return { handle, publicKeyPem };
  }

  async function load(handle: string): Promise<LoadedKey> {
    if (!uuidPattern.test(handle)) throw new NotFoundError('Key', handle);
    const { rows } = await pool.query(
      'SELECT algorithm, curve, key_size, kdf_iterations, salt, iv, ciphertext, auth_tag FROM key_material WHERE id = $1',
      [handle],
    );
    const row = rows[0];
    if (!row) throw new NotFoundError('Key', handle);
    const der = await encryption.decrypt(
      { salt: row.salt, iv: row.iv, ciphertext: row.ciphertext, authTag: row.auth_tag, iterations: row.kdf_iterations },
      keyMaterialContext(handle),
    );
    try {
      const privateKey = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
      const spec: KeySpec = { algorithm: row.algorithm, ...(row.curve ? { curve: row.curve } : {}), ...(row.key_size ? { keySize: row.key_size } : {}) };
      return { privateKey, spec };
    } finally {
      der.fill(0);
    }
  }

  function loaded(handle: string): Promise<LoadedKey> {
    const key = handle.toLowerCase();
    let entry = cache.get(key);
    if (!entry) {
      entry = load(key);
      cache.set(key, entry);
      // A failure (missing row, tampered ciphertext) is not cached: the next call looks again.
      entry.catch(() => cache.delete(key));
    }
    return entry;
  }

  return {
    type: 'DATABASE',

    describeSupport: () => `The database key provider supports ${supportedKeySpecsText}.`,

    supports,

    async generateKey(name, spec) {
      if (!supports(spec)) {
        throw new ValidationError(`The database key provider cannot create ${describeKeySpec(spec)} keys; it supports ${supportedKeySpecsText}.`, [
          { field: spec.algorithm === 'EC' ? 'curve' : spec.algorithm === 'RSA' ? 'keySize' : 'algorithm', message: 'not supported by the database key provider' },
        ]);
      }
      const privateKey =
        spec.algorithm === 'EC'
          ? (await generateKeyPairAsync('ec', { namedCurve: openSslCurveName[spec.curve!] })).privateKey
          : spec.algorithm === 'RSA'
            ? (await generateKeyPairAsync('rsa', { modulusLength: spec.keySize!, publicExponent: 0x10001 })).privateKey
            : (await generateKeyPairAsync('ed25519')).privateKey;
      return store(name, spec, privateKey);
    },

    async importKey(name, privateKeyPem) {
      const { privateKey, spec } = parsePrivateKeyPem(privateKeyPem, 'privateKey');
      return store(name, spec, privateKey);
    },

    async sign(handle, spec, input: SignInput) {
      const key = await loaded(handle);
      if (!sameKeySpec(spec, key.spec)) {
        throw new ValidationError(`Key ${handle} is ${describeKeySpec(key.spec)}, not ${describeKeySpec(spec)}.`, [
          { field: 'algorithm', message: `key is ${describeKeySpec(key.spec)}` },
        ]);
      }
      return signWithKeyObject(key.privateKey, key.spec, input);
    },

    async deleteKey(handle) {
      cache.delete(handle.toLowerCase());
      // Idempotent: sagas may retry a delete that already happened.
      if (uuidPattern.test(handle)) await pool.query('DELETE FROM key_material WHERE id = $1', [handle]);
    },

    async status() {
      try {
        const { rows } = await pool.query('SELECT count(*)::int AS keys FROM key_material');
        return { reachable: true, keyCount: rows[0].keys as number };
      } catch (err) {
        return { reachable: false, detail: `PostgreSQL query failed: ${(err as Error).message}` };
      }
    },
  };
}

/**
 * The 32-byte private scalar of a secp256k1 key held by the database provider, for the evm node
 * runtime only (adapters/evm): besu reads its node key from a file (--node-private-key-file), so
 * a besu validator can run only if its key leaves the provider once, into the node directory.
 * Deliberately not a KeyProvider method: the port's rule is that private keys never cross it
 * (Vault and KMS keys cannot be exported at all, and no route may ever reach this). The caller
 * writes the scalar to a 0600 file and drops it; nothing here logs it or adds it to the
 * provider's cache of decrypted keys (a key the provider holds is taken from there).
 */
/**
 * The PKCS#8 PEM ("PRIVATE KEY") of an EC key held by the database provider, for the consortium
 * node runtime only (adapters/consortium): a Fabric peer or orderer reads its signing and TLS
 * keys from files (msp/keystore, tls/server.key), and Fabric's BCCSP takes PKCS#8 PEM of P-256
 * or P-384 keys. Not a KeyProvider method, for the reason given at databaseSecp256k1PrivateKey:
 * the caller writes it to a 0600 file in the node directory and drops it; nothing here logs it
 * or adds it to the provider's cache (a key the provider holds is taken from there), and no
 * route may ever reach it.
 */
export async function databasePrivateKeyPem(options: DatabaseKeyProviderOptions, handle: string): Promise<string> {
  if (!uuidPattern.test(handle)) throw new NotFoundError('Key', handle);
  const { rows } = await options.pool.query('SELECT algorithm, curve, kdf_iterations, salt, iv, ciphertext, auth_tag FROM key_material WHERE id = $1', [handle.toLowerCase()]);
  const row = rows[0];
  if (!row) throw new NotFoundError('Key', handle);
  if (row.algorithm !== 'EC' || (row.curve !== 'P-256' && row.curve !== 'P-384')) {
    const what = row.algorithm === 'EC' ? `an EC ${row.curve} key` : `an ${row.algorithm} key`;
    throw new ValidationError(`Key ${handle} is ${what}; Fabric nodes need an EC P-256 or P-384 key.`, [{ field: 'keyHandle', message: 'not an EC P-256 or P-384 key' }]);
  }
  // Re-encoded rather than wrapped as stored, so what Fabric reads is always plain PKCS#8.
  return (await nodeKeyObject(options, handle, row)).export({ type: 'pkcs8', format: 'pem' }).toString();
}

/** The key of a row read for a node: the provider's decrypted copy when this process holds one, else decrypted here and not kept. */
async function nodeKeyObject(options: DatabaseKeyProviderOptions, handle: string, row: { kdf_iterations: number; salt: Buffer; iv: Buffer; ciphertext: Buffer; auth_tag: Buffer }): Promise<KeyObject> {
  const held = await heldKey(options, handle);
  if (held) return held;
  const encryption = createKeyEncryption(options.keyEncryptionKey, { iterations: options.kdfIterations });
  const der = await encryption.decrypt(
    { salt: row.salt, iv: row.iv, ciphertext: row.ciphertext, authTag: row.auth_tag, iterations: row.kdf_iterations },
    keyMaterialContext(handle.toLowerCase()),
  );
  try {
    return createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  } finally {
    der.fill(0);
  }
}

export async function databaseSecp256k1PrivateKey(options: DatabaseKeyProviderOptions, handle: string): Promise<Uint8Array> {
  if (!uuidPattern.test(handle)) throw new NotFoundError('Key', handle);
  const { rows } = await options.pool.query('SELECT algorithm, curve, kdf_iterations, salt, iv, ciphertext, auth_tag FROM key_material WHERE id = $1', [handle.toLowerCase()]);
  const row = rows[0];
  if (!row) throw new NotFoundError('Key', handle);
  if (row.algorithm !== 'EC' || row.curve !== 'secp256k1') {
    throw new ValidationError(`Key ${handle} is not a secp256k1 key.`, [{ field: 'keyHandle', message: 'not a secp256k1 key' }]);
  }
  const jwk = (await nodeKeyObject(options, handle, row)).export({ format: 'jwk' });
  const d = Buffer.from(jwk.d ?? '', 'base64url');
  if (d.length > 32 || d.length === 0) throw new ValidationError(`Key ${handle} has no 32-byte secp256k1 scalar.`, [{ field: 'keyHandle', message: 'malformed key' }]);
  // JWK "d" is the fixed-length scalar already; pad defensively all the same.
  const out = new Uint8Array(32);
  out.set(d, 32 - d.length);
  d.fill(0);
  return out;
}
