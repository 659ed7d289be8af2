// Reading a directory tree back in tests: which files hold a given text (a secret that must not
// be there, a marker that must).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Every file under `dir` whose bytes hold `needle`. */
export function filesHolding(dir: string, needle: string): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && readFileSync(p).includes(needle)) found.push(p);
    }
  };
  walk(dir);
  return found;
}
