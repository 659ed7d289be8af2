// The bench's own embedded PostgreSQL (the same binaries and flags the server uses, fsync on),
// with a fresh database per benchmark.
import pg from 'pg';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from '../../adapters/postgres/embeddedPostgres.ts';
import { migrate } from '../../adapters/postgres/migrate.ts';
import { onCleanup } from './cleanup.ts';

let cluster: Promise<EmbeddedPostgresHandle> | null = null;

export function benchCluster(): Promise<EmbeddedPostgresHandle> {
  if (!cluster) {
    const dir = mkdtempSync(path.join(tmpdir(), 'lnm-bench-pg-'));
    cluster = startEmbeddedPostgres({ dir });
    onCleanup(async () => {
      await (await cluster!).stop();
      rmSync(dir, { recursive: true, force: true });
    });
  }
  return cluster;
}

export interface BenchDatabase {
  pool: pg.Pool;
  url: string;
}

/** A new migrated database; the pool has 20 connections like the server's. */
export async function freshMigratedDatabase(label: string): Promise<BenchDatabase> {
  const h = await benchCluster();
  const name = `bench_${label}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: h.url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = h.url.replace(/\/lnm$/, '/' + name);
  const pool = new pg.Pool({ connectionString: url, max: 20 });
  pool.on('error', () => {});
  await migrate(pool);
  onCleanup(() => pool.end());
  return { pool, url };
}
