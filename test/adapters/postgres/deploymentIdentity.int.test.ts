// The deployment id on a real PostgreSQL (migrations/1270_deployment_identity.sql): made once by the
// first start, the same for servers starting together on one database (one row, the first write
// wins), another on another database; carried by a backup's database part into the restored
// database; a backup made before it existed restores without one (the next start makes a new id).
import { mkdtempSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { freshDatabase, type FreshDatabase } from '../../helpers/postgres.ts';
import { migrate } from '../../../adapters/postgres/migrate.ts';
import { deploymentIdentity } from '../../../adapters/postgres/deploymentIdentity.ts';
import { exportDatabase, importDatabase } from '../../../adapters/backups/databaseExport.ts';

const test = suite('deployment identity');
const open: FreshDatabase[] = [];
const fresh = async () => {
  const db = await freshDatabase();
  open.push(db);
  await migrate(db.pool);
  return db;
};
test.after(async () => {
  for (const db of open) await db.close();
});

test('servers starting together on one database get one id, made once; another database gets another', async () => {
  const db = await fresh();
  const starts = await Promise.all(Array.from({ length: 6 }, () => deploymentIdentity(db.pool)));
  assert.is(new Set(starts.map((s) => s.id)).size, 1, JSON.stringify(starts));
  assert.is(starts.filter((s) => s.created).length, 1, 'one start made it');
  assert.match(starts[0].id, /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, 'a Kubernetes label value');
  const later = await deploymentIdentity(db.pool);
  assert.equal({ id: later.id, created: later.created }, { id: starts[0].id, created: false });
  assert.is((await db.pool.query('SELECT count(*)::int AS n FROM deployment_identity')).rows[0].n, 1);
  const other = await deploymentIdentity((await fresh()).pool);
  assert.is.not(other.id, starts[0].id);
});

test('a value that is no label value is refused by the table', async () => {
  const db = await fresh();
  const refused = await deploymentIdentity(db.pool, () => 'Not A Label!').then(() => null, (err: Error) => err);
  assert.match(refused?.message ?? '', /deployment_identity_deployment_id_check/);
  assert.is((await db.pool.query('SELECT count(*)::int AS n FROM deployment_identity')).rows[0].n, 0);
});

test('a backup carries the id into the restored database; one made before the id restores without it', async () => {
  const source = await fresh();
  const { id } = await deploymentIdentity(source.pool);
  const dir = mkdtempSync(path.join(tmpdir(), 'lnm-deployment-id-'));
  try {
    const manifest = await exportDatabase(source.pool, dir);
    assert.is(manifest.rows.deployment_identity, 1);
    const restored = await fresh();
    await importDatabase(restored.pool, dir);
    assert.equal(await deploymentIdentity(restored.pool).then((d) => [d.id, d.created]), [id, false], 'the restored database is the same deployment');

    unlinkSync(path.join(dir, 'deployment_identity.jsonl'));
    const older = await fresh();
    const counts = await importDatabase(older.pool, dir);
    assert.is(counts.deployment_identity, 0);
    const made = await deploymentIdentity(older.pool);
    assert.ok(made.created, 'the first start after restoring an older backup makes an id');
    assert.is.not(made.id, id);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
