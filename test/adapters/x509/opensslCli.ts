// Runs the openssl command line on PEM texts written to a scratch directory, so tests check our
// certificates and CRLs with a verifier we did not write.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface OpensslResult {
  ok: boolean;
  output: string;
}

/** `files` maps names used in `args` to their contents; every arg equal to a file name becomes its path. */
export function openssl(args: string[], files: Record<string, string>): OpensslResult {
  const dir = mkdtempSync(path.join(tmpdir(), 'lnm-openssl-'));
  try {
    for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
    const resolved = args.map((a) => (a in files ? path.join(dir, a) : a));
    const run = spawnSync('openssl', resolved, { encoding: 'utf8' });
    if (run.error) throw run.error;
    return { ok: run.status === 0, output: `${run.stdout}${run.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
