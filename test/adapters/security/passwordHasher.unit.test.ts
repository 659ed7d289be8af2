import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  createPasswordHasher,
  decodePasswordHash,
  defaultScryptParams,
  passwordPolicyIssues,
} from '../../../adapters/security/passwordHasher.ts';

const hasher = createPasswordHasher();
// Cheaper parameters where a test needs many hashes or a parameter change.
const light = createPasswordHasher({ ...defaultScryptParams, N: 2 ** 10 });

test('a hash is scrypt$N$r$p$salt$hash with N = 2^15, r = 8, p = 1, a 16-byte salt and a 32-byte key', async () => {
  const encoded = await hasher.hash('correct horse battery staple');
  const parts = encoded.split('$');
  assert.equal(parts.slice(0, 4), ['scrypt', '32768', '8', '1']);
  assert.is(Buffer.from(parts[4], 'base64url').length, 16);
  assert.is(Buffer.from(parts[5], 'base64url').length, 32);
  assert.not.ok(encoded.includes('correct horse'));
});

test('the same password hashes differently each time, and both hashes verify', async () => {
  const a = await hasher.hash('correct horse battery staple');
  const b = await hasher.hash('correct horse battery staple');
  assert.is.not(a, b);
  assert.ok(await hasher.verify('correct horse battery staple', a));
  assert.ok(await hasher.verify('correct horse battery staple', b));
});

test('a wrong password fails, including one differing in case or by a trailing space', async () => {
  const h = await light.hash('correct horse battery staple');
  for (const wrong of ['Correct horse battery staple', 'correct horse battery staple ', '', 'correct horse battery stapl']) {
    assert.is(await light.verify(wrong, h), false, JSON.stringify(wrong));
  }
});

test('verification matches the RFC 7914 scrypt test vector (password / NaCl, N=1024, r=8, p=16)', async () => {
  const salt = Buffer.from('NaCl').toString('base64url');
  const key = Buffer.from(
    'fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640',
    'hex',
  ).toString('base64url');
  const encoded = `scrypt$1024$8$16$${salt}$${key}`;
  assert.ok(await hasher.verify('password', encoded));
  assert.is(await hasher.verify('passwore', encoded), false);
});

test('passwords are compared after NFKC normalisation (composed and decomposed forms are one password)', async () => {
  const h = await light.hash('caf\u00e9 au lait, s\u2019il vous pla\u00eet');
  assert.ok(await light.verify('cafe\u0301 au lait, s\u2019il vous pla\u00eet', h));
});

test('an unknown user (no stored hash) never verifies', async () => {
  assert.is(await hasher.verify('anything at all here', null), false);
});

test('needsRehash is true when the stored parameters differ from the current ones', async () => {
  const old = await light.hash('correct horse battery staple');
  assert.ok(hasher.needsRehash(old));
  assert.not.ok(light.needsRehash(old));
  assert.not.ok(hasher.needsRehash(await hasher.hash('correct horse battery staple')));
  assert.ok(hasher.needsRehash('$2b$10$abcdefghijklmnopqrstuv'), 'a foreign format needs rehashing');
});

test('stored hashes with absurd or malformed parameters are refused rather than computed', async () => {
  const salt = Buffer.alloc(16, 1).toString('base64url');
  const key = Buffer.alloc(32, 2).toString('base64url');
  for (const bad of [`scrypt$${2 ** 24}$8$1$${salt}$${key}`, `scrypt$1000$8$1$${salt}$${key}`, `scrypt$1024$8$1$${salt}`, `scrypt$1024$8$1$!!$${key}`, 'plain']) {
    assert.is(decodePasswordHash(bad), null, bad);
    try {
      await hasher.verify('whatever password', bad);
      assert.unreachable('verify should refuse ' + bad);
    } catch (e) {
      assert.match((e as Error).message, /format/);
      assert.not.ok((e as Error).message.includes('whatever password'));
    }
  }
});

test('the policy wants 12 to 1024 characters, not the username, not blank, not one repeated character', () => {
  assert.equal(passwordPolicyIssues('correct horse battery staple', { username: 'alice' }), []);
  assert.equal(passwordPolicyIssues('short', { username: 'alice' }), [{ field: 'password', message: 'must be at least 12 characters' }]);
  assert.equal(passwordPolicyIssues('x'.repeat(1025)).map((i) => i.message), ['must be at most 1024 characters', 'must not repeat a single character']);
  assert.equal(passwordPolicyIssues('Alice.Example', { username: 'alice.example' }), [{ field: 'password', message: 'must not be the username' }]);
  assert.equal(passwordPolicyIssues('            ').map((i) => i.message), ['must not be only whitespace', 'must not repeat a single character']);
  assert.equal(passwordPolicyIssues(42, { field: 'new_password' }), [{ field: 'new_password', message: 'must be a string' }]);
  // code points, not UTF-16 units: twelve emoji are twelve characters
  assert.equal(passwordPolicyIssues('\u{1F511}\u{1F512}'.repeat(6)), []);
  assert.equal(passwordPolicyIssues('\u{1F511}'.repeat(6)).map((i) => i.message), ['must be at least 12 characters']);
});

test.run();
