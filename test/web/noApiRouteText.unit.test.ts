// The console offers the button or link that does a thing; it never tells its user to call an
// API route ("POST /metrics/deploy first"). Comments may name routes; text shown may not.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.tsx') || (p.endsWith('.ts') && !p.endsWith('.d.ts')) ? [p] : [];
  });
}

/** The source without its comments (line and block), strings kept. */
const withoutComments = (src: string) => src.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

test('no text of the console tells its user to call an API route', () => {
  const found: string[] = [];
  for (const f of files('web/src')) {
    withoutComments(readFileSync(f, 'utf8')).split('\n').forEach((line, i) => {
      if (/\b(GET|POST|PUT|DELETE|PATCH) \/[a-z]/.test(line)) found.push(`${f}:${i + 1}: ${line.trim()}`);
    });
  }
  assert.equal(found, []);
});

test.run();
