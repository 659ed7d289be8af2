// Puts an executable named `besu` into a fresh directory, to be placed first on the PATH of the
// server under test: it runs the besu stand-in (besuStandin.ts), or the real besu when one is
// given. While refuseStarts(true), it adds an option besu does not have, so besu (real or
// stand-in) exits at once with "Unknown option" - a node that cannot start, on demand. A marker
// file rather than an environment variable: the process engine passes nodes only a few
// environment variables (PATH, HOME, ...).
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const REFUSED_OPTION = '--no-such-option=standin-refusal';

export interface InstalledBesu {
  /** Directory holding `besu`: put it first on PATH. */
  binDir: string;
  /** The real besu this wrapper runs, or null for the stand-in. */
  real: string | null;
  refuseStarts(on: boolean): void;
  remove(): void;
}

const sh = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export function installBesu(opts: { real?: string | null } = {}): InstalledBesu {
  const binDir = mkdtempSync(path.join(tmpdir(), 'lnm-besu-bin-'));
  const marker = path.join(binDir, 'refuse-start');
  const standin = fileURLToPath(new URL('./besuStandin.ts', import.meta.url));
  const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  const run = opts.real ? `exec ${sh(opts.real)} "$@"` : `exec ${sh(process.execPath)} --import ${sh(tsxLoader)} ${sh(standin)} "$@"`;
  writeFileSync(
    path.join(binDir, 'besu'),
    `#!/bin/sh\n# besu for tests (${opts.real ? 'the real besu' : 'the stand-in'})\nif [ -e ${sh(marker)} ]; then set -- "$@" ${REFUSED_OPTION}; fi\n${run}\n`,
  );
  chmodSync(path.join(binDir, 'besu'), 0o755);
  return {
    binDir,
    real: opts.real ?? null,
    refuseStarts(on) {
      if (on) writeFileSync(marker, '');
      else rmSync(marker, { force: true });
    },
    remove() {
      rmSync(binDir, { recursive: true, force: true });
    },
  };
}
