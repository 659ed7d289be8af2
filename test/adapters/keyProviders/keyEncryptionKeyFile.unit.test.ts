import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadOrCreateKeyEncryptionKey, resolveKeyEncryptionKey } from '../../../adapters/keyProviders/keyEncryptionKeyFile.ts';
import { KeyEncryptionKeyError } from '../../../adapters/keyProviders/keyEncryption.ts';

function scratch(): string {
  return mkdtempSync(path.join(tmpdir(), 'lnm-kek-'));
}

test('first start generates a 32-byte key in <dataDir>/key-encryption-key, owner-only, and later starts reuse it', () => {
  const root = scratch();
  try {
    const dataDir = path.join(root, 'data', 'nested');
    const first = loadOrCreateKeyEncryptionKey(dataDir);
    assert.is(first.created, true);
    assert.is(first.path, path.join(dataDir, 'key-encryption-key'));
    assert.match(first.key, /^[0-9a-f]{64}$/);
    assert.is(statSync(first.path).mode & 0o777, 0o600);
    assert.is(readFileSync(first.path, 'utf8').trim(), first.key);

    const second = loadOrCreateKeyEncryptionKey(dataDir);
    assert.is(second.created, false);
    assert.is(second.key, first.key);
    assert.is.not(loadOrCreateKeyEncryptionKey(path.join(root, 'other')).key, first.key);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('a key file readable by others is tightened back to 0600 and still used', () => {
  const dir = scratch();
  try {
    const { key, path: file } = loadOrCreateKeyEncryptionKey(dir);
    chmodSync(file, 0o644);
    assert.is(loadOrCreateKeyEncryptionKey(dir).key, key);
    assert.is(statSync(file).mode & 0o777, 0o600);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an empty key file stops the start with a clear error instead of silently making a new key', () => {
  const dir = scratch();
  try {
    writeFileSync(path.join(dir, 'key-encryption-key'), '\n', { mode: 0o600 });
    assert.throws(() => loadOrCreateKeyEncryptionKey(dir), (err: unknown) => err instanceof KeyEncryptionKeyError && /is empty/.test((err as Error).message));
    assert.is(readFileSync(path.join(dir, 'key-encryption-key'), 'utf8'), '\n', 'file left untouched');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('KEY_ENCRYPTION_KEY from the environment wins and no file is written', () => {
  const dir = scratch();
  try {
    const fromEnv = resolveKeyEncryptionKey({ env: { KEY_ENCRYPTION_KEY: 'operator-chosen-key-0123456789' }, dataDir: dir });
    assert.equal(fromEnv, { key: 'operator-chosen-key-0123456789', source: 'env' });
    assert.throws(() => statSync(path.join(dir, 'key-encryption-key')));

    const generated = resolveKeyEncryptionKey({ env: {}, dataDir: dir });
    assert.is(generated.source, 'generated');
    assert.is(resolveKeyEncryptionKey({ env: { KEY_ENCRYPTION_KEY: '' }, dataDir: dir }).source, 'file');
    assert.throws(() => resolveKeyEncryptionKey({ env: { KEY_ENCRYPTION_KEY: 'tooshort' }, dataDir: dir }), /at least 16 characters/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
