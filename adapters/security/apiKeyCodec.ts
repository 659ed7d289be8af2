// API keys: `lnm_` + 43 base62 characters of randomness (32 bytes) + 6 base62 characters of
// CRC-32 over those 43, e.g. `lnm_3hK9...Qz0aB1c2` (53 characters in all).
//
//   generateApiKey()               -> { key, hash, displayPrefix }: show `key` once, store the rest
//   parseApiKey(raw)               -> { ok: true, key, displayPrefix } | { ok: false, reason }
//   hashApiKey(key)                -> SHA-256 hex of the whole key (what the store keeps and indexes)
//   apiKeyMatchesHash(key, hash)   -> constant-time comparison against a stored hash
//
// Why base62: no `-` or `_` in the random part, so the underscore after the prefix is the only one
// and a double-click selects the whole key. Why a checksum: a mistyped, truncated or invented key is
// rejected by parseApiKey without hashing or a database lookup (and secret scanners can recognise
// real keys by it). Why plain SHA-256 and no salt or scrypt: the random part has 256 bits of
// entropy, so no dictionary or precomputed table applies and a fast hash is as strong as a slow
// one; being deterministic, the hash can be the lookup key of an index, so authenticating a
// request costs one SHA-256, not one scrypt. The display prefix (`lnm_` + first 8 random
// characters, about 48 bits) lets listings tell keys apart and leaves over 200 bits secret.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';

export const API_KEY_PREFIX = 'lnm_';
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_BYTES = 32;
const RANDOM_CHARS = 43; // ceil(256 / log2(62))
const CHECK_CHARS = 6; // 62^6 > 2^32
export const API_KEY_LENGTH = API_KEY_PREFIX.length + RANDOM_CHARS + CHECK_CHARS;
const DISPLAY_CHARS = 8;
const SHAPE = new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{${RANDOM_CHARS + CHECK_CHARS}}$`);

export interface GeneratedApiKey {
  /** The secret: shown to the user once, never stored. */
  key: string;
  /** SHA-256 hex of `key`: stored and looked up. */
  hash: string;
  /** Non-secret, for listings: `lnm_` + the first 8 random characters. */
  displayPrefix: string;
}

export type ParsedApiKey =
  | { ok: true; key: string; displayPrefix: string }
  | { ok: false; reason: 'prefix' | 'length' | 'characters' | 'checksum' };

function base62(n: bigint, width: number): string {
  let out = '';
  for (let i = 0; i < width; i++) {
    out = ALPHABET[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out;
}

const checksum = (randomPart: string) => base62(BigInt(crc32(randomPart)), CHECK_CHARS);

export const hashApiKey = (key: string): string => createHash('sha256').update(key, 'utf8').digest('hex');

export function generateApiKey(): GeneratedApiKey {
  const randomPart = base62(BigInt(`0x${randomBytes(RANDOM_BYTES).toString('hex')}`), RANDOM_CHARS);
  const key = `${API_KEY_PREFIX}${randomPart}${checksum(randomPart)}`;
  return { key, hash: hashApiKey(key), displayPrefix: key.slice(0, API_KEY_PREFIX.length + DISPLAY_CHARS) };
}

/** Checks shape and checksum only (cheap, no secrets involved); the caller then looks up hashApiKey(key). */
export function parseApiKey(raw: string): ParsedApiKey {
  const key = raw.trim();
  if (!key.startsWith(API_KEY_PREFIX)) return { ok: false, reason: 'prefix' };
  if (key.length !== API_KEY_LENGTH) return { ok: false, reason: 'length' };
  if (!SHAPE.test(key)) return { ok: false, reason: 'characters' };
  const randomPart = key.slice(API_KEY_PREFIX.length, API_KEY_PREFIX.length + RANDOM_CHARS);
  if (key.slice(-CHECK_CHARS) !== checksum(randomPart)) return { ok: false, reason: 'checksum' };
  return { ok: true, key, displayPrefix: key.slice(0, API_KEY_PREFIX.length + DISPLAY_CHARS) };
}

/** Constant-time: compares SHA-256 digests, which always have the same length. */
export function apiKeyMatchesHash(key: string, storedHashHex: string): boolean {
  const wellFormed = /^[0-9a-f]{64}$/i.test(storedHashHex);
  const stored = wellFormed ? Buffer.from(storedHashHex, 'hex') : Buffer.alloc(32);
  return timingSafeEqual(createHash('sha256').update(key, 'utf8').digest(), stored) && wellFormed;
}
