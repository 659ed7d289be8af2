import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

// The import directions of DESIGN.md, enforced here rather than by hope.
const allowed: Record<string, string[]> = {
  domain: ['domain'],
  projections: ['projections', 'domain'],
  adapters: ['adapters', 'domain'],
  // Use cases reach adapters only through the ports in AppDeps, wired by bin/.
  application: ['application', 'domain', 'projections'],
  sagas: ['sagas', 'domain', 'adapters', 'application'],
  http: ['http', 'domain', 'projections', 'application'],
};

// The layers whose files take part in the import graph checked for circles (bin/ too: the
// composition root must not be imported back).
const layers = [...Object.keys(allowed), 'bin'];

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

const importPattern = /(?:from\s+|import\s*\(\s*|import\s+)['"](\.[^'"]+)['"]/g;

function relativeImports(file: string): string[] {
  const src = readFileSync(file, 'utf8');
  return [...src.matchAll(importPattern)].map((m) => path.normalize(path.join(path.dirname(file), m[1])));
}

/** Every elementary circle found by a depth-first search over the relative-import graph, each
 * listed once, starting from its alphabetically first file. */
function importCircles(): string[][] {
  const graph = new Map<string, string[]>();
  for (const top of layers) for (const file of files(top)) graph.set(file, relativeImports(file).filter((t) => t.endsWith('.ts')));
  const circles = new Map<string, string[]>();
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === 'open') {
        const circle = stack.slice(stack.indexOf(next));
        const first = circle.indexOf([...circle].sort()[0]);
        const rotated = [...circle.slice(first), ...circle.slice(0, first)];
        circles.set(rotated.join(' -> '), rotated);
      } else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of [...graph.keys()].sort()) if (!state.has(file)) visit(file);
  return [...circles.values()];
}

function violations(): string[] {
  const bad: string[] = [];
  for (const [top, ok] of Object.entries(allowed)) {
    for (const file of files(top)) {
      for (const target of relativeImports(file)) {
        const targetTop = target.split(path.sep)[0];
        if (!ok.includes(targetTop)) bad.push(`${file} imports ${target} (${targetTop}/ is not allowed from ${top}/)`);
      }
    }
  }
  return bad;
}

test('domain, projections, adapters, application, sagas and http import only what DESIGN.md allows', () => {
  const bad = violations();
  assert.equal(bad, [], bad.join('\n'));
});

test('no import circle anywhere outside test/', () => {
  const circles = importCircles().map((c) => [...c, c[0]].join(' -> '));
  assert.equal(circles, [], `import circles:\n${circles.join('\n')}`);
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
