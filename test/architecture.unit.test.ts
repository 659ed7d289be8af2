import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

// The import directions of DESIGN.md, enforced here rather than by hope.
const allowed: Record<string, string[]> = {
  domain: ['domain'],
  projections: ['projections', 'domain'],
  adapters: ['adapters', 'domain'],
  sagas: ['sagas', 'domain', 'adapters'],
  http: ['http', 'domain', 'projections'],
};

function files(dir: string): string[] {
  let out: string[] = [];
  let entries: string[] = [];
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const e of entries) {
    const p = path.join(dir, e);
    if (statSync(p).isDirectory()) out = out.concat(files(p));
    else if (p.endsWith('.ts')) out.push(p);
  }
  return out;
}

function violations(): string[] {
  const bad: string[] = [];
  for (const [top, ok] of Object.entries(allowed)) {
    for (const file of files(top)) {
      const src = readFileSync(file, 'utf8');
      for (const m of src.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)['"](\.[^'"]+)['"]/g)) {
        const target = path.normalize(path.join(path.dirname(file), m[1]));
        const targetTop = target.split(path.sep)[0];
        if (!ok.includes(targetTop)) bad.push(`${file} imports ${m[1]} (${targetTop}/ is not allowed from ${top}/)`);
      }
    }
  }
  return bad;
}

test('domain, projections, adapters, sagas and http import only what DESIGN.md allows', () => {
  const bad = violations();
  assert.equal(bad, [], bad.join('\n'));
});

test('domain/ imports no I/O modules', () => {
  const bad: string[] = [];
  for (const file of files('domain')) {
    const src = readFileSync(file, 'utf8');
    for (const m of src.matchAll(/from\s+['"](node:)?(fs|net|http|https|child_process|dgram|pg|dockerode)['"]/g)) bad.push(`${file}: ${m[0]}`);
  }
  assert.equal(bad, [], bad.join('\n'));
});

test.run();
