// One embedded PostgreSQL for the whole test run; every suite gets a fresh database on it.
import pg from 'pg';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { startEmbeddedPostgres, type EmbeddedPostgresHandle, type EmbeddedPostgresOptions } from '../../adapters/postgres/embeddedPostgres.ts';
import { onGlobalTeardown } from './globalTeardown.ts';

let shared: Promise<EmbeddedPostgresHandle> | null = null;

export function sharedPostgres(): Promise<EmbeddedPostgresHandle> {
  if (!shared) {
    const dir = mkdtempSync(path.join(tmpdir(), 'lnm-test-pg-'));
    shared = startEmbeddedPostgres({ dir });
    onGlobalTeardown(async () => {
      const h = await shared!;
      await h.stop();
      rmSync(dir, { recursive: true, force: true });
    });
  }
  return shared;
}

export interface FreshDatabase {
  pool: pg.Pool;
  url: string;
  name: string;
  /** Ends the pool (the database itself is dropped with the cluster at the end of the run). */
  close(): Promise<void>;
}

/** A new, empty database on the shared cluster. */
export async function freshDatabase(): Promise<FreshDatabase> {
  const h = await sharedPostgres();
  const name = 't_' + randomBytes(6).toString('hex');
  const admin = new pg.Client({ connectionString: h.url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = h.url.replace(/\/lnm$/, '/' + name);
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  // The shared cluster stops at the end of the run and terminates idle connections.
  pool.on('error', () => {});
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await pool.end();
  };
  onGlobalTeardown(close);
  return { pool, url, name, close };
}

/** The same pool, recording the text of every statement sent through it (to see which path code took). */
export function recordingPool(pool: pg.Pool, log: string[]): pg.Pool {
  return new Proxy(pool, {
    get(target, prop, receiver) {
      if (prop === 'query') return (text: string, ...rest: unknown[]) => (log.push(text), (target.query as (...a: unknown[]) => unknown).call(target, text, ...rest));
      return Reflect.get(target, prop, receiver);
    },
  });
}

export interface OwnPostgres extends EmbeddedPostgresHandle {
  /** Stops it (if running) and removes its directory. */
  remove(): Promise<void>;
}

/**
 * A PostgreSQL cluster of the calling test alone (to stop, to play a database outside the service,
 * or to serve pods of a cluster: `listenAddresses` and `allowFrom`), removed at the end of the run at the latest.
 */
export async function ownPostgres(opts: Pick<EmbeddedPostgresOptions, 'listenAddresses' | 'allowFrom'> = {}): Promise<OwnPostgres> {
  const dir = mkdtempSync(path.join(tmpdir(), 'lnm-test-own-pg-'));
  const h = await startEmbeddedPostgres({ dir, ...opts });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await h.stop();
  };
  const remove = async () => {
    await stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  };
  onGlobalTeardown(remove);
  return { ...h, stop, remove };
}
