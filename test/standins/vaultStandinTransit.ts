// The transit secrets engine of the Vault stand-in: asymmetric keys only (what the key provider
// uses), with the request checks and error texts of Vault's builtin/logical/transit.
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign as edSign, verify as edVerify, type KeyObject } from 'node:crypto';
import { unwrapImportedKey } from './vaultStandinImport.ts';
import {
  ecdsaSignDigest,
  ecdsaVerifyDigest,
  hashBytes,
  hashLength,
  rsaPkcs1SignDigest,
  rsaPkcs1VerifyDigest,
  rsaPssSignDigest,
  rsaPssVerifyDigest,
  rsaRawPkcs1Sign,
} from './vaultKmsDigestSigning.ts';

export interface EngineRequest {
  method: 'GET' | 'LIST' | 'POST' | 'DELETE';
  /** Path below the mount, without leading slash. */
  rel: string;
  body: Record<string, unknown>;
  query: URLSearchParams;
}
export interface EngineResponse {
  status: number;
  data?: unknown;
  errors?: string[];
}
export interface SecretsEngine {
  handle(req: EngineRequest): EngineResponse;
  /** Vault's existence check: decides whether a write needs `create` or `update`. */
  exists(rel: string): boolean;
  /** The engine's whole state as JSON, for the barrier of a stand-in with storage; restore() reads it back. */
  snapshot(): unknown;
  restore(state: unknown): void;
}

interface KeyVersion {
  privateKey: KeyObject;
  publicKey: KeyObject;
  creationTime: string;
}
interface TransitKey {
  type: string;
  versions: KeyVersion[];
  deletionAllowed: boolean;
  exportable: boolean;
  imported: boolean;
}

const generators: Record<string, () => { privateKey: KeyObject; publicKey: KeyObject }> = {
  'ecdsa-p256': () => generateKeyPairSync('ec', { namedCurve: 'prime256v1' }),
  'ecdsa-p384': () => generateKeyPairSync('ec', { namedCurve: 'secp384r1' }),
  'ecdsa-p521': () => generateKeyPairSync('ec', { namedCurve: 'secp521r1' }),
  'rsa-2048': () => generateKeyPairSync('rsa', { modulusLength: 2048 }),
  'rsa-3072': () => generateKeyPairSync('rsa', { modulusLength: 3072 }),
  'rsa-4096': () => generateKeyPairSync('rsa', { modulusLength: 4096 }),
  ed25519: () => generateKeyPairSync('ed25519'),
};
/** Real Vault key types this stand-in does not implement (symmetric): refused, but not as "unknown". */
const symmetricTypes = new Set(['aes128-gcm96', 'aes256-gcm96', 'chacha20-poly1305', 'hmac', 'aes128-cmac', 'aes256-cmac']);

/** Vault hash names to node:crypto names. */
const hashes: Record<string, string | null> = {
  sha1: 'sha1',
  'sha2-224': 'sha224',
  'sha2-256': 'sha256',
  'sha2-384': 'sha384',
  'sha2-512': 'sha512',
  'sha3-224': 'sha3-224',
  'sha3-256': 'sha3-256',
  'sha3-384': 'sha3-384',
  'sha3-512': 'sha3-512',
  none: null,
};

// framework.GenericNameRegex
const namePattern = /^\w(([\w.-]+)?\w)?$/;

const bad = (msg: string, status = 400): EngineResponse => ({ status, errors: [msg] });

export function createTransitEngine(): SecretsEngine {
  const keys = new Map<string, TransitKey>();

  function keyData(name: string, k: TransitKey) {
    const versions: Record<string, unknown> = {};
    k.versions.forEach((v, i) => {
      const isEd = k.type === 'ed25519';
      versions[String(i + 1)] = {
        creation_time: v.creationTime,
        name: k.type.startsWith('ecdsa-') ? `P-${k.type.slice(7)}` : k.type,
        public_key: isEd
          ? v.publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64')
          : (v.publicKey.export({ format: 'pem', type: 'spki' }) as string),
      };
    });
    return {
      name,
      type: k.type,
      keys: versions,
      latest_version: k.versions.length,
      min_available_version: 0,
      min_decryption_version: 1,
      min_encryption_version: 0,
      deletion_allowed: k.deletionAllowed,
      exportable: k.exportable,
      allow_plaintext_backup: false,
      derived: false,
      imported_key: k.imported,
      auto_rotate_period: 0,
      supports_signing: true,
      supports_encryption: k.type.startsWith('rsa-'),
      supports_decryption: k.type.startsWith('rsa-'),
      supports_derivation: k.type === 'ed25519',
    };
  }

  function newVersion(type: string): KeyVersion {
    const pair = generators[type]();
    return { ...pair, creationTime: new Date().toISOString() };
  }

  function createKey(name: string, body: Record<string, unknown>): EngineResponse {
    const type = typeof body.type === 'string' && body.type !== '' ? body.type : 'aes256-gcm96';
    const existing = keys.get(name);
    if (existing) return { status: 200, data: keyData(name, existing) }; // Vault leaves an existing key as it is
    if (symmetricTypes.has(type)) return bad(`stand-in: key type ${type} exists in Vault but this stand-in implements asymmetric keys only`);
    if (!generators[type]) return bad(`unknown key type ${type}`);
    const k: TransitKey = { type, versions: [newVersion(type)], deletionAllowed: false, exportable: body.exportable === true, imported: false };
    keys.set(name, k);
    return { status: 200, data: keyData(name, k) };
  }

  // Vault's wrapping key for "bring your own key" imports (path_import.go), made on first use.
  let wrappingKey: { privateKey: KeyObject; publicKey: KeyObject } | null = null;
  const wrapping = () => (wrappingKey ??= generateKeyPairSync('rsa', { modulusLength: 4096 }));
  function importKey(name: string, body: Record<string, unknown>): EngineResponse {
    const type = typeof body.type === 'string' && body.type ? body.type.toLowerCase() : 'aes256-gcm96';
    if (symmetricTypes.has(type)) return bad(`stand-in: importing ${type} keys is not implemented`);
    if (!generators[type]) return bad(`unknown key type: ${type}`);
    const out = unwrapImportedKey(type, body, keys.has(name), () => wrapping().privateKey);
    if ('status' in out) return out;
    keys.set(name, {
      type, deletionAllowed: false, exportable: body.exportable === true, imported: true,
      versions: [{ privateKey: out.privateKey, publicKey: createPublicKey(out.privateKey), creationTime: new Date().toISOString() }],
    });
    return { status: 204 };
  }

  function parseSignRequest(k: TransitKey, body: Record<string, unknown>, urlHash: string | undefined) {
    const hashName = urlHash || (body.hash_algorithm as string) || (body.algorithm as string) || 'sha2-256';
    if (!(hashName in hashes)) return { error: bad(`invalid hash algorithm "${hashName}"`) };
    const prehashed = body.prehashed === true;
    const sigAlg = (body.signature_algorithm as string) || 'pss';
    const marshaling = (body.marshaling_algorithm as string) || 'asn1';
    if (marshaling !== 'asn1' && marshaling !== 'jws') return { error: bad(`invalid marshaling type "${marshaling}"`) };
    if (k.type.startsWith('rsa-') && sigAlg !== 'pss' && sigAlg !== 'pkcs1v15') return { error: bad(`unsupported rsa signature algorithm ${sigAlg}`) };
    if (hashName === 'none' && (!prehashed || sigAlg !== 'pkcs1v15' || !k.type.startsWith('rsa-'))) {
      return { error: bad('hash_algorithm=none requires both prehashed=true and signature_algorithm=pkcs1v15') };
    }
    if (typeof body.input !== 'string') return { error: bad('missing input to process') };
    const input = Buffer.from(body.input, 'base64');
    if (input.toString('base64').replace(/=+$/, '') !== body.input.replace(/=+$/, '')) return { error: bad('unable to decode input as base64: illegal base64 data') };
    return { hash: hashes[hashName], hashName, prehashed, sigAlg, marshaling, input };
  }

  function signWith(k: TransitKey, v: KeyVersion, p: Exclude<ReturnType<typeof parseSignRequest>, { error: EngineResponse }>, body: Record<string, unknown>): Buffer | EngineResponse {
    if (k.type === 'ed25519') {
      if (p.prehashed) return bad('stand-in: prehashed Ed25519 (Ed25519ph) is not implemented');
      return edSign(null, p.input, v.privateKey);
    }
    const digest = p.prehashed || p.hash === null ? p.input : hashBytes(p.hash, p.input);
    if (k.type.startsWith('ecdsa-')) return ecdsaSignDigest(v.privateKey, digest, p.marshaling === 'jws' ? 'p1363' : 'der');
    if (p.hash === null) return rsaRawPkcs1Sign(v.privateKey, digest);
    // Go's rsa.SignPKCS1v15 / SignPSS refuse a "digest" of the wrong length.
    if (digest.length !== hashLength(p.hash)) return bad('1 error occurred:\n\t* crypto/rsa: input must be hashed message\n\n', 500);
    if (p.sigAlg === 'pkcs1v15') return rsaPkcs1SignDigest(v.privateKey, p.hash, digest);
    const salt = body.salt_length === undefined || body.salt_length === 'auto' ? -1 : body.salt_length === 'hash' ? digest.length : Number(body.salt_length);
    return rsaPssSignDigest(v.privateKey, p.hash, digest, salt);
  }

  function sign(name: string, urlHash: string | undefined, body: Record<string, unknown>): EngineResponse {
    const k = keys.get(name);
    if (!k) return bad('signing key not found'); // older Vault versions say "encryption key not found"
    const p = parseSignRequest(k, body, urlHash);
    if ('error' in p) return p.error as EngineResponse;
    const version = body.key_version === undefined || body.key_version === 0 ? k.versions.length : Number(body.key_version);
    const v = k.versions[version - 1];
    if (!v) return bad('requested version for signing does not exist');
    const sig = signWith(k, v, p, body);
    if (!Buffer.isBuffer(sig)) return sig;
    const encoded = p.marshaling === 'jws' ? sig.toString('base64url') : sig.toString('base64');
    return { status: 200, data: { signature: `vault:v${version}:${encoded}`, key_version: version } };
  }

  function verify(name: string, urlHash: string | undefined, body: Record<string, unknown>): EngineResponse {
    const k = keys.get(name);
    if (!k) return bad('encryption key not found');
    const p = parseSignRequest(k, body, urlHash);
    if ('error' in p) return p.error as EngineResponse;
    const m = typeof body.signature === 'string' ? /^vault:v(\d+):(.+)$/.exec(body.signature) : null;
    if (!m) return bad('invalid signature: no prefix');
    const v = k.versions[Number(m[1]) - 1];
    if (!v) return bad('invalid signature: key version does not exist');
    const sig = Buffer.from(m[2], p.marshaling === 'jws' ? 'base64url' : 'base64');
    let valid: boolean;
    if (k.type === 'ed25519') valid = edVerify(null, p.input, v.publicKey, sig);
    else {
      const digest = p.prehashed || p.hash === null ? p.input : hashBytes(p.hash, p.input);
      if (k.type.startsWith('ecdsa-')) valid = ecdsaVerifyDigest(v.publicKey, digest, sig, p.marshaling === 'jws' ? 'p1363' : 'der');
      else if (p.sigAlg === 'pkcs1v15') valid = rsaPkcs1VerifyDigest(v.publicKey, p.hash, digest, sig);
      else valid = p.hash !== null && rsaPssVerifyDigest(v.publicKey, p.hash, digest, sig);
    }
    return { status: 200, data: { valid } };
  }

  function configure(name: string, body: Record<string, unknown>): EngineResponse {
    const k = keys.get(name);
    if (!k) return bad(`no existing key named ${name} could be found`);
    if (typeof body.deletion_allowed === 'boolean') k.deletionAllowed = body.deletion_allowed;
    if (body.exportable === false && k.exportable) return bad('exportability cannot be disabled after enabling');
    if (body.exportable === true) k.exportable = true;
    return { status: 200, data: keyData(name, k) };
  }

  function remove(name: string): EngineResponse {
    const k = keys.get(name);
    if (!k) return bad(`error deleting policy ${name}: could not delete key; not found`);
    if (!k.deletionAllowed) return bad(`error deleting policy ${name}: deletion is not allowed for this key`);
    keys.delete(name);
    return { status: 204 };
  }

  function handle(req: EngineRequest): EngineResponse {
    const parts = req.rel.split('/');
    const [op, name, extra, ...rest] = parts;
    const noRoute = { status: 404, errors: [`no handler for route "${req.rel}". route entry not found.`] };
    if (op === 'keys' && !name && req.method === 'LIST') {
      return keys.size ? { status: 200, data: { keys: [...keys.keys()].sort() } } : { status: 404, errors: [] };
    }
    if (op === 'wrapping_key' && name === undefined && req.method === 'GET') {
      return { status: 200, data: { public_key: wrapping().publicKey.export({ format: 'pem', type: 'spki' }) } };
    }
    if (name === undefined || !namePattern.test(name) || rest.length) return noRoute;
    if (op === 'keys' && extra === undefined) {
      if (req.method === 'GET') {
        const k = keys.get(name);
        return k ? { status: 200, data: keyData(name, k) } : { status: 404, errors: [] };
      }
      if (req.method === 'POST') return createKey(name, req.body);
      if (req.method === 'DELETE') return remove(name);
    }
    if (op === 'keys' && extra === 'config' && req.method === 'POST') return configure(name, req.body);
    if (op === 'keys' && extra === 'import' && req.method === 'POST') return importKey(name, req.body);
    if (op === 'keys' && extra === 'rotate' && req.method === 'POST') {
      const k = keys.get(name);
      if (!k) return bad(`key not found`);
      k.versions.push(newVersion(k.type));
      return { status: 200, data: keyData(name, k) };
    }
    if (op === 'sign' && req.method === 'POST') return sign(name, extra, req.body);
    if (op === 'verify' && req.method === 'POST') return verify(name, extra, req.body);
    return noRoute;
  }

  const pem = (k: KeyObject) => k.export({ format: 'pem', type: 'pkcs8' }) as string;
  const pair = (privatePem: string) => {
    const privateKey = createPrivateKey(privatePem);
    return { privateKey, publicKey: createPublicKey(privateKey) };
  };
  interface Snapshot {
    keys: [string, Omit<TransitKey, 'versions'> & { versions: { privateKey: string; creationTime: string }[] }][];
    wrapping: string | null;
  }

  return {
    handle,
    // Vault asks for "create" vs "update" only where a path has an existence check: transit has
    // one on keys/<name>; sign, verify, export and the rest are plain update operations.
    exists: (rel) => {
      const [op, name] = rel.split('/');
      return op === 'keys' ? keys.has(name ?? '') : true;
    },
    snapshot: (): Snapshot => ({
      keys: [...keys].map(([name, k]) => [name, { ...k, versions: k.versions.map((v) => ({ privateKey: pem(v.privateKey), creationTime: v.creationTime })) }]),
      wrapping: wrappingKey ? pem(wrappingKey.privateKey) : null,
    }),
    restore(state) {
      const s = state as Snapshot;
      keys.clear();
      for (const [name, k] of s.keys) keys.set(name, { ...k, versions: k.versions.map((v) => ({ ...pair(v.privateKey), creationTime: v.creationTime })) });
      wrappingKey = s.wrapping ? pair(s.wrapping) : null;
    },
  };
}

