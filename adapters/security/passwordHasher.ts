// Password hashing with scrypt (memory-hard) from node:crypto.
//
//   createPasswordHasher(params?) -> PasswordHasher
//     hash(password)              -> 'scrypt$N$r$p$<salt>$<hash>' (base64url; fresh 16-byte salt)
//     verify(password, encoded)   -> true/false, constant-time compare; encoded null = unknown user
//     needsRehash(encoded)        -> true when stored parameters differ from the current ones
//   passwordPolicyIssues           re-exported from domain/users/passwordPolicy.ts
//
// The parameters travel inside each encoded hash, so raising N later only needs needsRehash()
// on login. N = 2^15, r = 8 uses 32 MiB per hash (128·N·r), about 50-100 ms on a server core:
// slow for guessing, fine for logins. Verifying an unknown user still runs one derivation, so
// response time does not tell whether a username exists. Stored parameters are bounded before
// use, so a corrupted row cannot make a login allocate gigabytes.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { normalizePassword } from '../../domain/users/passwordPolicy.ts';

export { passwordPolicyIssues, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../domain/users/passwordPolicy.ts';

export interface ScryptParams {
  N: number;
  r: number;
  p: number;
  saltBytes: number;
  keyBytes: number;
}

export const defaultScryptParams: ScryptParams = { N: 2 ** 15, r: 8, p: 1, saltBytes: 16, keyBytes: 32 };

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(password: string, encoded: string | null): Promise<boolean>;
  needsRehash(encoded: string): boolean;
}

const LIMITS = { maxN: 2 ** 20, maxR: 32, maxP: 16, maxBytes: 256 };

interface Decoded {
  N: number;
  r: number;
  p: number;
  salt: Buffer;
  hash: Buffer;
}

function derive(password: string, salt: Buffer, keyBytes: number, o: { N: number; r: number; p: number }): Promise<Buffer> {
  // maxmem must exceed 128·N·r (the default 32 MiB is exactly N = 2^15, r = 8 and is refused).
  const options: ScryptOptions = { N: o.N, r: o.r, p: o.p, maxmem: 256 * o.N * o.r + 1024 * 1024 };
  return new Promise((resolve, reject) =>
    scrypt(Buffer.from(normalizePassword(password), 'utf8'), salt, keyBytes, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

const isPowerOfTwo = (n: number) => Number.isInteger(n) && n > 1 && (n & (n - 1)) === 0;
const b64 = /^[A-Za-z0-9_-]+$/;

/** Parses a stored hash; null when it is not one this hasher can check. */
export function decodePasswordHash(encoded: string): Decoded | null {
  const parts = encoded.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return null;
  const [N, r, p] = parts.slice(1, 4).map((x) => (/^\d{1,8}$/.test(x) ? Number(x) : NaN));
  if (!isPowerOfTwo(N) || N > LIMITS.maxN || !(r >= 1 && r <= LIMITS.maxR) || !(p >= 1 && p <= LIMITS.maxP)) return null;
  if (!b64.test(parts[4]) || !b64.test(parts[5])) return null;
  const salt = Buffer.from(parts[4], 'base64url');
  const hash = Buffer.from(parts[5], 'base64url');
  if (salt.length < 1 || salt.length > LIMITS.maxBytes || hash.length < 16 || hash.length > LIMITS.maxBytes) return null;
  return { N, r, p, salt, hash };
}

export function createPasswordHasher(params: ScryptParams = defaultScryptParams): PasswordHasher {
  // Verified when the username is unknown, so the work done is the same as for a real user.
  let dummy: Promise<string> | null = null;
  const hasher: PasswordHasher = {
    async hash(password) {
      const salt = randomBytes(params.saltBytes);
      const key = await derive(password, salt, params.keyBytes, params);
      return ['scrypt', params.N, params.r, params.p, salt.toString('base64url'), key.toString('base64url')].join('$');
    },
    async verify(password, encoded) {
      if (encoded === null) {
        dummy ??= hasher.hash('unknown-user-placeholder');
        const d = decodePasswordHash(await dummy)!;
        await derive(password, d.salt, d.hash.length, d);
        return false;
      }
      const d = decodePasswordHash(encoded);
      if (!d) throw new Error('The stored password hash is not in the scrypt$N$r$p$salt$hash format.');
      const key = await derive(password, d.salt, d.hash.length, d);
      return timingSafeEqual(key, d.hash);
    },
    needsRehash(encoded) {
      const d = decodePasswordHash(encoded);
      return !d || d.N !== params.N || d.r !== params.r || d.p !== params.p || d.salt.length !== params.saltBytes || d.hash.length !== params.keyBytes;
    },
  };
  return hasher;
}
