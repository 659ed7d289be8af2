// Runs the restic program (Debian package `restic`) against a target's repository. Secrets go
// through the child's environment only (RESTIC_PASSWORD, AWS_*), never its arguments, and never
// into a message: restic's own error lines are passed through a scrubber that drops them.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const RESTIC = process.env.LNM_RESTIC_BIN || 'restic';

export interface ResticRepository {
  /** s3:https://host/bucket/path */
  repository: string;
  password: string;
  awsAccessKeyId: string | null;
  awsSecretAccessKey: string | null;
  awsSessionToken: string | null;
  region: string;
  forcePathStyle: boolean;
  /** PEM of a private CA of the endpoint. */
  caCertificate: string | null;
}

export interface ResticResult {
  code: number;
  stdout: string;
  stderr: string;
}

export class ResticError extends Error {
  constructor(message: string, readonly code: number) {
    super(message);
  }
}

/** Whether restic can run here: null, or why not. */
export async function resticUnavailable(): Promise<string | null> {
  try {
    const r = await exec(['version'], { env: {} });
    return r.code === 0 ? null : `restic did not run (exit ${r.code}): ${r.stderr.trim().slice(0, 200)}`;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT'
      ? 'restic is not installed: backups need the restic program on PATH (Debian/Ubuntu: apt-get install restic)'
      : `restic could not be started: ${(err as Error).message}`;
  }
}

interface ExecOptions {
  cwd?: string;
  onStdoutLine?: (line: string) => void;
  onStderrLine?: (line: string) => void;
  signal?: AbortSignal;
}

function exec(args: string[], opts: ExecOptions & { env: Record<string, string> }): Promise<ResticResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(RESTIC, args, {
      cwd: opts.cwd,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', RESTIC_CACHE_DIR: process.env.RESTIC_CACHE_DIR ?? path.join(tmpdir(), 'lnm-restic-cache'), ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      signal: opts.signal,
    });
    let stdout = '';
    let stderr = '';
    let pending = '';
    let pendingErr = '';
    child.stdout.on('data', (b: Buffer) => {
      const text = b.toString();
      stdout += text;
      if (stdout.length > 4_000_000) stdout = stdout.slice(-2_000_000);
      if (!opts.onStdoutLine) return;
      pending += text;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const l of lines) if (l.trim()) opts.onStdoutLine(l);
    });
    child.stderr.on('data', (b: Buffer) => {
      stderr += b.toString();
      if (opts.onStderrLine) {
        pendingErr += b.toString();
        const lines = pendingErr.split('\n');
        pendingErr = lines.pop() ?? '';
        for (const l of lines) if (l.trim()) opts.onStderrLine(l);
      }
      if (stderr.length > 200_000) stderr = stderr.slice(-100_000);
    });
    child.once('error', (err) => (err.name === 'AbortError' ? resolve({ code: 130, stdout, stderr: stderr + '\naborted' }) : reject(err)));
    child.once('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

/** restic's reason, in the words SPEC uses where it has them. */
export function resticFailure(r: ResticResult, secrets: Array<string | null>): string {
  const lines = r.stderr.split('\n').map((l) => l.trim()).filter(Boolean);
  let text = (lines.filter((l) => /^Fatal:|error|denied|does not exist|checksum|ciphertext/i.test(l)).slice(-3).join('; ') || lines.slice(-2).join('; ') || `exit code ${r.code}`).slice(0, 600);
  for (const s of secrets) if (s) text = text.split(s).join('[redacted]');
  if (/wrong password or no key found/i.test(text)) return `incorrect repository password (restic: ${text})`;
  if (/ciphertext verification failed|checksum|hash mismatch|does not match/i.test(text)) return `checksum error: the repository holds damaged data (restic: ${text})`;
  return text;
}

export interface ResticSession {
  run(args: string[], opts?: ExecOptions): Promise<ResticResult>;
  /** Runs and throws ResticError with restic's reason on a non-zero exit. */
  ok(args: string[], opts?: ExecOptions): Promise<ResticResult>;
  /** restic's reason for a failed run, with any secret of this session blanked out. */
  failure(r: ResticResult): string;
  close(): Promise<void>;
}

/** A session against one repository: the CA file lives as long as the session. */
export async function openResticSession(repo: ResticRepository): Promise<ResticSession> {
  const dir = await mkdtemp(path.join(tmpdir(), 'lnm-restic-'));
  const common: string[] = ['-r', repo.repository];
  if (repo.caCertificate) {
    const ca = path.join(dir, 'ca.pem');
    await writeFile(ca, repo.caCertificate, { mode: 0o600 });
    common.push('--cacert', ca);
  }
  if (repo.forcePathStyle) common.push('-o', 's3.bucket-lookup=path');
  const env: Record<string, string> = {
    RESTIC_PASSWORD: repo.password,
    AWS_DEFAULT_REGION: repo.region,
    ...(repo.awsAccessKeyId ? { AWS_ACCESS_KEY_ID: repo.awsAccessKeyId } : {}),
    ...(repo.awsSecretAccessKey ? { AWS_SECRET_ACCESS_KEY: repo.awsSecretAccessKey } : {}),
    ...(repo.awsSessionToken ? { AWS_SESSION_TOKEN: repo.awsSessionToken } : {}),
  };
  const secrets = [repo.password, repo.awsSecretAccessKey, repo.awsSessionToken];
  const session: ResticSession = {
    run: (args, opts = {}) => exec([...common, ...args], { env, ...opts }),
    async ok(args, opts = {}) {
      const r = await session.run(args, opts);
      if (r.code !== 0) throw new ResticError(resticFailure(r, secrets), r.code);
      return r;
    },
    failure: (r) => resticFailure(r, secrets),
    close: () => rm(dir, { recursive: true, force: true }),
  };
  return session;
}

/** Opens the repository, creating it when the location holds none yet (never over a wrong password). */
export async function ensureRepository(s: ResticSession): Promise<void> {
  // --no-lock: a probe writes nothing, not even a lock file, so it never races a running backup.
  const probe = await s.run(['cat', 'config', '--no-lock']);
  if (probe.code === 0) return;
  if (/wrong password|no key found/i.test(probe.stderr)) await s.ok(['cat', 'config', '--no-lock']);
  if (/unable to open config file|Is there a repository|does not exist|NoSuchKey|key does not exist/i.test(probe.stderr)) {
    await s.ok(['init']);
    return;
  }
  await s.ok(['cat', 'config', '--no-lock']);
}

/**
 * restic 0.14 does not skip stale locks when it takes one: a run that was stopped while the
 * storage was away leaves its lock behind and every later exclusive command (forget, prune)
 * fails on it. `unlock` removes only stale locks (dead process on this host, or older than 30
 * minutes), so running it first is safe; its own failure is left to the command that follows.
 */
export async function removeStaleLocks(s: ResticSession): Promise<void> {
  await s.run(['unlock']).catch(() => {});
}

export interface ResticSnapshot {
  id: string;
  short_id: string;
  time: string;
  tags?: string[];
  paths: string[];
}

export async function listSnapshots(s: ResticSession, tag?: string): Promise<ResticSnapshot[]> {
  const r = await s.ok(['snapshots', '--json', ...(tag ? ['--tag', tag] : [])]);
  return JSON.parse(r.stdout || '[]') as ResticSnapshot[];
}
