// Login throttling shared through PostgreSQL: failures recorded by two guards (two instances) on
// one database add up to one lockout, announced once; a success clears the username's count;
// concurrent failures are all counted (row locks, no lost update).
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { freshDatabase, type FreshDatabase } from '../../helpers/postgres.ts';
import { postgresLoginGuard } from '../../../adapters/postgres/loginGuard.ts';

const DDL = readFileSync(new URL('../../../migrations/1200_login_throttle.sql', import.meta.url), 'utf8');
const limits = { softLimit: 100, hardLimit: 4, windowMinutes: 10, lockoutMinutes: 5 };
let db: FreshDatabase;

test.before(async () => {
  db = await freshDatabase();
  await db.pool.query(DDL);
});
test.after(async () => db?.close());

test('failures on two instances add up to one lockout, announced once', async () => {
  const a = postgresLoginGuard(db.pool);
  const b = postgresLoginGuard(db.pool);
  const now = new Date();
  const lockouts = [];
  for (let i = 0; i < 4; i++) {
    const g = i % 2 ? b : a;
    assert.ok((await g.check('Alice', '10.0.0.1', now, limits)).allowed, `attempt ${i} allowed`);
    const f = await g.failure('Alice', '10.0.0.1', now, limits);
    if (f.lockout) lockouts.push(f.lockout);
  }
  assert.is(lockouts.length, 1);
  assert.is(lockouts[0].username, 'Alice');
  for (const g of [a, b]) {
    const c = await g.check('alice', '10.0.0.9', now, limits);
    assert.ok(!c.allowed && c.locked, 'locked on both instances, whatever the case of the name');
  }
});

test('a success clears the username; concurrent failures are all counted', async () => {
  const a = postgresLoginGuard(db.pool);
  const b = postgresLoginGuard(db.pool);
  const now = new Date();
  await a.failure('bob', '10.0.0.2', now, limits);
  await b.success('bob', '10.0.0.2', now);
  const r = await db.pool.query(`SELECT entry FROM login_throttle WHERE key = 'user:bob'`);
  assert.equal(r.rows[0].entry.failures, []);
  const results = await Promise.all(Array.from({ length: 4 }, (_, i) => (i % 2 ? a : b).failure('carol', '10.0.0.3', now, limits)));
  assert.is(results.filter((x) => x.lockout).length, 1, 'four concurrent failures reach the hard limit exactly once');
  assert.ok(!(await a.check('carol', '10.0.0.3', now, limits)).allowed);
});

test.run();
