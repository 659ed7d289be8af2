import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import {
  API_KEY_LENGTH,
  API_KEY_PREFIX,
  apiKeyMatchesHash,
  generateApiKey,
  hashApiKey,
  parseApiKey,
} from '../../../adapters/security/apiKeyCodec.ts';

test('a key is the fixed prefix, an underscore and 49 base62 characters, with no other underscore', () => {
  const { key } = generateApiKey();
  assert.is(API_KEY_PREFIX, 'lnm_');
  assert.match(key, /^lnm_[0-9A-Za-z]{49}$/);
  assert.is(key.length, API_KEY_LENGTH);
  assert.is(key.split('_').length, 2);
});

test('keys are unique and their random parts use the whole alphabet', () => {
  const keys = Array.from({ length: 2000 }, () => generateApiKey().key);
  assert.is(new Set(keys).size, keys.length);
  const chars = new Set(keys.flatMap((k) => [...k.slice(4, 47)]));
  assert.is(chars.size, 62);
});

test('the stored hash is the SHA-256 hex of the whole key and reveals nothing of it', () => {
  const g = generateApiKey();
  assert.is(g.hash, createHash('sha256').update(g.key).digest('hex'));
  assert.is(hashApiKey(g.key), g.hash);
  assert.not.ok(g.hash.includes(g.key.slice(4, 12)));
});

test('the display prefix is the prefix plus the first 8 random characters, and parsing gives the same', () => {
  const g = generateApiKey();
  assert.is(g.displayPrefix, g.key.slice(0, 12));
  const p = parseApiKey(g.key);
  assert.ok(p.ok);
  if (p.ok) {
    assert.is(p.displayPrefix, g.displayPrefix);
    assert.is(p.key, g.key);
  }
});

test('a generated key parses, also with surrounding whitespace from a copied header', () => {
  const { key } = generateApiKey();
  assert.ok(parseApiKey(key).ok);
  assert.ok(parseApiKey(` ${key}\n`).ok);
});

test('malformed keys are rejected with the reason, before any lookup', () => {
  const { key } = generateApiKey();
  const flip = (k: string, i: number) => k.slice(0, i) + (k[i] === 'a' ? 'b' : 'a') + k.slice(i + 1);
  assert.equal(parseApiKey('sk_' + key.slice(4)), { ok: false, reason: 'prefix' });
  assert.equal(parseApiKey(''), { ok: false, reason: 'prefix' });
  assert.equal(parseApiKey(key.slice(0, -1)), { ok: false, reason: 'length' });
  assert.equal(parseApiKey(key + 'x'), { ok: false, reason: 'length' });
  assert.equal(parseApiKey(key.slice(0, 20) + '-' + key.slice(21)), { ok: false, reason: 'characters' });
  assert.equal(parseApiKey(flip(key, 10)), { ok: false, reason: 'checksum' }, 'one changed random character');
  assert.equal(parseApiKey(flip(key, key.length - 1)), { ok: false, reason: 'checksum' }, 'one changed checksum character');
  assert.equal(parseApiKey('lnm_' + 'A'.repeat(49)), { ok: false, reason: 'checksum' }, 'an invented key');
});

test('a key matches its own stored hash only', () => {
  const a = generateApiKey();
  const b = generateApiKey();
  assert.ok(apiKeyMatchesHash(a.key, a.hash));
  assert.ok(apiKeyMatchesHash(a.key, a.hash.toUpperCase()));
  assert.not.ok(apiKeyMatchesHash(a.key, b.hash));
  assert.not.ok(apiKeyMatchesHash(b.key, a.hash));
  assert.not.ok(apiKeyMatchesHash(a.key, a.hash.slice(0, 63)), 'a malformed stored hash never matches');
  assert.not.ok(apiKeyMatchesHash(a.key, ''));
});

test.run();
