// A PostgreSQL event store as it was before migration 0600 (no stored event bodies): only the
// migrations below 0600 applied, events written the way the store wrote them then.
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { migrate, migrationsDir } from '../../adapters/postgres/migrate.ts';
import { canonicalEventText } from '../../domain/shared/eventChain.ts';

/** Applies the migrations below 0600 to `pool`'s empty database. */
export async function migrateBefore0600(pool: pg.Pool): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'lnm-pre0600-'));
  try {
    for (const f of readdirSync(migrationsDir).filter((f) => f.endsWith('.sql') && f < '0600')) copyFileSync(path.join(migrationsDir, f), path.join(dir, f));
    await migrate(pool, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** An append as the store made it before migration 0600: append_events() without stored bodies. */
export async function appendBefore0600(pool: pg.Pool, stream: string, events: Array<{ type: string; data: Record<string, unknown> }>, i: number): Promise<void> {
  const metadata = { timestamp: new Date(Date.UTC(2025, 5, 1, 0, 0, i)).toISOString(), requestId: randomUUID(), actor: { userId: i % 3, username: `u${i % 3}`, kind: 'session' } };
  const withIds = events.map((e) => ({ id: randomUUID(), ...e }));
  await pool.query('SELECT * FROM append_events($1, $2, $3::uuid[], $4::text[], $5::jsonb[], $6::jsonb, $7::text[])', [
    stream, -1, withIds.map((e) => e.id), withIds.map((e) => e.type), withIds.map((e) => JSON.stringify(e.data)), JSON.stringify(metadata),
    withIds.map((e) => canonicalEventText({ id: e.id, type: e.type, data: e.data as never, metadata })),
  ]);
}

/** `pairs` appends of two events each (a deposit with awkward values, and a note) over four streams. */
export async function seedBefore0600(pool: pg.Pool, pairs: number): Promise<void> {
  for (let i = 0; i < pairs; i++) {
    await appendBefore0600(pool, `acct-${i % 4}`, [
      { type: 'Deposited', data: { amount: i, note: `deposit ${i}`, tags: ['é', '\u{1F600}', i % 2 === 0 ? 'even' : 'odd'], big: 1e21, small: 1e-7, nested: { z: 1, a: [1.5, null, true] } } },
      { type: 'Noted', data: { n: i } },
    ], i);
  }
}
