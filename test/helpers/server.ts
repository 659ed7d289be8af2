// Starts the real server as a child process (`tsx bin/lnm.ts serve`) and drives it over HTTP,
// as a user would. By default it uses a fresh database on the shared test PostgreSQL; pass
// embedded: true to let the server start its own embedded PostgreSQL under DATA_DIR.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freshDatabase } from './postgres.ts';
import { freePort } from '../../adapters/postgres/embeddedPostgres.ts';
import { onGlobalTeardown } from './globalTeardown.ts';
import { call as httpCall } from './httpCall.ts';

export interface TestServer {
  url: string;
  api: string;
  port: number;
  dataDir: string;
  databaseUrl: string | null;
  child: ChildProcess;
  output: () => string;
  /** Graceful stop (SIGTERM). */
  stop(): Promise<void>;
  /** Hard kill (SIGKILL), like a crash. */
  kill(): Promise<void>;
  /** SIGKILL to every process the server left running from its data directory (nodes under the process engine); how many. */
  reapNodes(): number;
  env: Record<string, string>;
}

export const ADMIN = { username: 'admin', password: 'admin-password-for-tests' };

export interface StartOptions {
  env?: Record<string, string>;
  embedded?: boolean;
  dataDir?: string;
  databaseUrl?: string;
  port?: number;
  timeoutMs?: number;
  /** Extra node options for the server process (the benches pass --cpu-prof). */
  nodeArgs?: string[];
}

export async function startServer(opts: StartOptions = {}): Promise<TestServer> {
  const dataDir = opts.dataDir ?? mkdtempSync(path.join(tmpdir(), 'lnm-e2e-'));
  const databaseUrl = opts.embedded ? null : (opts.databaseUrl ?? (await freshDatabase()).url);
  const port = opts.port ?? (await freePort());
  const env: Record<string, string> = {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    ADMIN_USERNAME: ADMIN.username,
    ADMIN_PASSWORD: ADMIN.password,
    EDITION: 'pro',
    // Host load must not add resource alerts to a test's event log.
    LNM_RESOURCE_MONITOR: 'false',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...opts.env,
  };
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), '--import', 'tsx', path.resolve('bin/lnm.ts'), 'serve'], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  const url = `http://127.0.0.1:${port}`;
  // A cold start transpiles the whole server (tsx) and runs the migrations: about 5 s on a quiet
  // machine, past 60 s on 2 cores with the load of a full suite beside it. The generous default
  // only costs time when a start is really broken, and then the output says why.
  const deadline = Date.now() + (opts.timeoutMs ?? Number(process.env.LNM_TEST_SERVER_START_MS ?? 180_000));
  let exited = false;
  child.once('exit', () => (exited = true));
  for (;;) {
    if (exited) throw new Error(`server exited during start:\n${out.slice(-3000)}`);
    try {
      const r = await fetch(`${url}/api/v1/health`);
      if (r.status === 200) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server did not become healthy in time:\n${out.slice(-3000)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const waitExit = () => new Promise<void>((r) => (exited ? r() : child.once('exit', () => r())));
  const server: TestServer = {
    url,
    api: `${url}/api/v1`,
    port,
    dataDir,
    databaseUrl,
    child,
    env,
    output: () => out,
    async stop() {
      if (!exited) child.kill('SIGTERM');
      await waitExit();
    },
    async kill() {
      if (!exited) child.kill('SIGKILL');
      await waitExit();
    },
    reapNodes: () => reapProcessesUnder(dataDir),
  };
  onGlobalTeardown(async () => {
    await server.kill();
    // Nodes outlive the server by design (a restart finds them running); not the test run.
    reapProcessesUnder(dataDir);
    if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
  });
  return server;
}

/** SIGKILL to every process whose working directory or command line is inside `dir` (Linux /proc); how many. */
export function reapProcessesUnder(dir: string): number {
  let killed = 0;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p) && Number(p) !== process.pid);
  } catch {
    return 0;
  }
  for (const pid of pids) {
    let cwd = '';
    let cmdline = '';
    try {
      cwd = readlinkSync(`/proc/${pid}/cwd`);
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (cwd === dir || cwd.startsWith(`${dir}/`) || cmdline.includes(`${dir}/`)) {
      try {
        process.kill(Number(pid), 'SIGKILL');
        killed++;
      } catch {
        /* gone already */
      }
    }
  }
  return killed;
}

export function basic(username: string, password: string): string {
  return 'Basic ' + Buffer.from(`${username}:${password}`).toString('base64');
}

export const adminAuth = () => ({ authorization: basic(ADMIN.username, ADMIN.password) });

export { call } from './httpCall.ts';

/** The `total` of a list route (GET `p` as the admin): how many records it holds; any other answer than 200 fails. */
export async function listTotal(server: TestServer, p: string): Promise<number> {
  const r = await httpCall(server.api, 'GET', p, { headers: adminAuth() });
  if (r.status !== 200) throw new Error(`GET ${p}: ${r.status} ${r.text}`);
  return r.json.total as number;
}
