// `lnm restore`'s options for a ledgerX committer database given as a connection string: the key
// encryption key (its password's) from KEY_ENCRYPTION_KEY or a file, and --external-databases
// (or LNM_RESTORE_EXTERNAL_DATABASES) import by default, replace or keep; anything else refused.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseRestoreArgs, RestoreError } from '../../bin/restore.ts';

const t = suite('lnm restore arguments');
const dir = mkdtempSync(path.join(tmpdir(), 'lnm-restore-args-'));
t.after(() => rmSync(dir, { recursive: true, force: true }));
const base = ['--bucket', 'b', '--access-key', 'a', '--secret-key', 's', '--output-dir', '/tmp/x'];
const env = { LNM_RESTORE_PASSWORD: 'repository-password' };
const KEY = 'restore-args-key-encryption-key-0123456789';

t('no key and import by default; the key from KEY_ENCRYPTION_KEY or from a file (the file wins)', async () => {
  const plain = await parseRestoreArgs(base, env);
  assert.is(plain.keyEncryptionKey, null);
  assert.is(plain.externalDatabases, 'import');
  assert.is((await parseRestoreArgs(base, { ...env, KEY_ENCRYPTION_KEY: KEY })).keyEncryptionKey, KEY);
  const file = path.join(dir, 'key-encryption-key');
  writeFileSync(file, `${KEY}-file\n`);
  assert.is((await parseRestoreArgs([...base, '--key-encryption-key-file', file], { ...env, KEY_ENCRYPTION_KEY: KEY })).keyEncryptionKey, `${KEY}-file`);
});

t('--external-databases or LNM_RESTORE_EXTERNAL_DATABASES: import, replace, keep (the flag wins)', async () => {
  assert.is((await parseRestoreArgs([...base, '--external-databases', 'replace'], env)).externalDatabases, 'replace');
  assert.is((await parseRestoreArgs([...base, '--external-databases=keep'], { ...env, LNM_RESTORE_EXTERNAL_DATABASES: 'replace' })).externalDatabases, 'keep');
  assert.is((await parseRestoreArgs(base, { ...env, LNM_RESTORE_EXTERNAL_DATABASES: 'keep' })).externalDatabases, 'keep');
});

t('a wrong mode or a key too short is refused, the key not repeated', async () => {
  for (const [args, e, why] of [
    [[...base, '--external-databases', 'drop'], env, /--external-databases must be one of import, replace, keep, got drop/],
    [base, { ...env, KEY_ENCRYPTION_KEY: 'short-kek' }, /^KEY_ENCRYPTION_KEY: KEY_ENCRYPTION_KEY must be at least/],
  ] as const) {
    const err = await parseRestoreArgs([...args], { ...e }).then(() => null, (x: Error) => x);
    assert.instance(err, RestoreError);
    assert.match(err!.message, why);
    assert.not.match(err!.message, 'short-kek');
  }
});

t.run();
