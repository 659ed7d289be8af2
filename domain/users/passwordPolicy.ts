// Password rules, shared by user creation, password reset and change-password. Pure, so the
// HTTP layer can validate before any hashing happens.
//
//   passwordPolicyIssues(password, { username, field }) -> FieldIssue[] (empty when acceptable)
//   PASSWORD_MIN_LENGTH, PASSWORD_MAX_LENGTH
//
// 12 characters minimum: longer than NIST SP 800-63B's floor of 8 because passwords here are a
// single factor guarding key material and signing. 1024 maximum: long passphrases are welcome,
// but an unbounded input would let one request burn CPU in the key-derivation step. Length is
// counted in Unicode code points after NFKC normalisation, which is also what gets hashed.
import type { FieldIssue } from '../shared/errors.ts';

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 1024;

/** The form that is measured and hashed, so visually equal inputs give equal hashes. */
export const normalizePassword = (password: string): string => password.normalize('NFKC');

export function passwordPolicyIssues(
  password: unknown,
  opts: { username?: string; field?: string } = {},
): FieldIssue[] {
  const field = opts.field ?? 'password';
  if (typeof password !== 'string') return [{ field, message: 'must be a string' }];
  const normalized = normalizePassword(password);
  const length = [...normalized].length;
  const issues: FieldIssue[] = [];
  if (length < PASSWORD_MIN_LENGTH) issues.push({ field, message: `must be at least ${PASSWORD_MIN_LENGTH} characters` });
  if (length > PASSWORD_MAX_LENGTH) issues.push({ field, message: `must be at most ${PASSWORD_MAX_LENGTH} characters` });
  if (length > 0 && normalized.trim() === '') issues.push({ field, message: 'must not be only whitespace' });
  if (opts.username && normalized.toLowerCase() === opts.username.normalize('NFKC').toLowerCase()) {
    issues.push({ field, message: 'must not be the username' });
  }
  if (length >= PASSWORD_MIN_LENGTH && new Set(normalized).size === 1) issues.push({ field, message: 'must not repeat a single character' });
  return issues;
}
