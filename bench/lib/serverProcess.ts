// Starts the real server as a child process (`node --import tsx bin/lnm.ts serve`, which is what
// `tsx bin/lnm.ts serve` runs, or with `npmStart` the way a user does: `npm start`, the server
// compiled at install) and times how long it takes to answer /api/v1/health with 200.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { freePort } from '../../adapters/postgres/embeddedPostgres.ts';
import { onCleanup } from './cleanup.ts';
import { msSince, now } from './stats.ts';

export const BENCH_ADMIN = { username: 'admin', password: 'admin-password-for-bench' };

export interface ServerProcess {
  url: string;
  api: string;
  child: ChildProcess;
  /** Milliseconds from spawn to the first 200 from /api/v1/health. */
  startMs: number;
  /** With logLevel info: milliseconds from spawn to each start-up log line (by message). */
  phases: Record<string, number>;
  output(): string;
  stop(): Promise<void>;
}

export async function spawnServer(opts: { dataDir: string; databaseUrl?: string; timeoutMs?: number; nodeArgs?: string[]; logLevel?: string; npmStart?: boolean }): Promise<ServerProcess> {
  const port = await freePort();
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: opts.dataDir,
    LOG_LEVEL: opts.logLevel ?? 'warn',
    ADMIN_USERNAME: BENCH_ADMIN.username,
    ADMIN_PASSWORD: BENCH_ADMIN.password,
    EDITION: 'pro',
    ...(opts.databaseUrl ? { DATABASE_URL: opts.databaseUrl } : {}),
  };
  const t0 = now();
  const spawnedAt = Date.now();
  // npm start runs in its own process group, so a stop reaches npm's child (the server) too.
  const child = opts.npmStart
    ? spawn('npm', ['start', '--silent'], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
    : spawn(process.execPath, [...(opts.nodeArgs ?? []), '--import', 'tsx', path.resolve('bin/lnm.ts'), 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const signal = (sig: NodeJS.Signals) => {
    if (exited) return;
    if (opts.npmStart && child.pid) {
      try {
        process.kill(-child.pid, sig);
      } catch {
        /* gone */
      }
    } else child.kill(sig);
  };
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out = (out + b.toString()).slice(-20_000)));
  child.stderr!.on('data', (b: Buffer) => (out = (out + b.toString()).slice(-20_000)));
  let exited = false;
  child.once('exit', () => (exited = true));
  const waitExit = () => new Promise<void>((r) => (exited ? r() : child.once('exit', () => r())));
  onCleanup(async () => {
    signal('SIGKILL');
    await waitExit();
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (opts.timeoutMs ?? 120_000);
  for (;;) {
    if (exited) throw new Error(`server exited during start:\n${out.slice(-3000)}`);
    try {
      const r = await fetch(`${url}/api/v1/health`);
      await r.arrayBuffer();
      if (r.status === 200) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error(`server did not become healthy in time:\n${out.slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 10));
  }
  const startMs = msSince(t0);
  const phases: Record<string, number> = {};
  for (const line of out.split('\n')) {
    try {
      const j = JSON.parse(line) as { time?: string; msg?: string };
      if (j.time && j.msg && !(j.msg in phases)) phases[j.msg.slice(0, 60)] = Date.parse(j.time) - spawnedAt;
    } catch {
      /* not a log line */
    }
  }
  return {
    phases,
    url,
    api: `${url}/api/v1`,
    child,
    startMs,
    output: () => out,
    async stop() {
      signal('SIGTERM');
      const t = setTimeout(() => signal('SIGKILL'), 15_000);
      await waitExit();
      clearTimeout(t);
    },
  };
}

export function basicAuth(username: string, password: string): string {
  return 'Basic ' + Buffer.from(`${username}:${password}`).toString('base64');
}

/** fetch + JSON for the bench's own set-up calls. */
export { call } from '../../test/helpers/httpCall.ts';
