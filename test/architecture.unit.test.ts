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

// Routes keep to validate, call one use case or command, shape the answer (docs/architecture.md).
// A handler that runs more than one command, runs one and also calls a use case of
// application/, or runs one and also calls a port that reaches outside (a node, a key provider,
// a peer instance), is a use case still in http/: it belongs in application/<context>/. (Calling
// one of two use cases by platform, or a lookup such as networkOr404, is thin.) Any not moved
// yet are listed here, each with why, so the list can only shrink: a new one fails this test,
// and so does a moved one still listed.
const thickRoutesNotYetMoved: Record<string, string> = {};

const portCall = /\b(evmOf|consortiumOf|sharingOf)\(|\bdeps\.(evm|consortium|sharing|keys|plugins|backups|metricsStack|notifier|outbound)\b/g;

/** The functions a route module imports from application/ (use cases), lookups and command running aside. */
function useCasesImported(src: string): string[] {
  const names: string[] = [];
  for (const m of src.matchAll(/import \{([^}]+)\} from '(?:\.\.\/)+application\/(?!commands\.ts)[^']+'/g)) {
    for (const part of m[1].split(',')) {
      const name = part.trim();
      if (name && !name.startsWith('type ') && !/(Or404|Of)$/.test(name)) names.push(name);
    }
  }
  return names;
}

/** Each route handler under http/routes/ that does the work of a use case itself. */
function thickRoutes(): string[] {
  const out: string[] = [];
  for (const file of files(path.join('http', 'routes'))) {
    const src = readFileSync(file, 'utf8');
    const useCases = useCasesImported(src);
    for (const block of src.split(/defineRoute\(\{/).slice(1)) {
      const m = block.match(/method: '(\w+)', path: '([^']+)'/);
      const handler = block.slice(block.indexOf('handler('));
      const commands = (handler.match(/\brunCommand\(/g) ?? []).length;
      const ports = (handler.match(portCall) ?? []).length;
      const calls = useCases.filter((name) => new RegExp(`\\b${name}\\(`).test(handler)).length;
      if (commands > 1 || (commands === 1 && (ports > 0 || calls > 0))) out.push(`${file.split(path.sep).join('/')} ${m?.[1]} ${m?.[2]}`);
    }
  }
  return out.sort();
}

test('route handlers stay thin: several commands, or a command with a use case or a port call, are a use case for application/', () => {
  const thick = thickRoutes();
  const listed = Object.keys(thickRoutesNotYetMoved).sort();
  const added = thick.filter((r) => !listed.includes(r));
  const moved = listed.filter((r) => !thick.includes(r));
  assert.equal(added, [], `move these handlers' work to application/<context>/:\n${added.join('\n')}`);
  assert.equal(moved, [], `these are thin now; take them off thickRoutesNotYetMoved:\n${moved.join('\n')}`);
});

test('no route calls another route\'s handler: only http/app.ts runs handlers', () => {
  const bad: string[] = [];
  for (const top of ['http', 'application', 'sagas', 'bin']) for (const file of files(top)) if (file !== path.join('http', 'app.ts') && /\.handler\(/.test(readFileSync(file, 'utf8'))) bad.push(file);
  assert.equal(bad, [], bad.join('\n'));
});

test('application/ imports nothing from http/ or adapters/: a command line or a saga can call a use case without the web server', () => {
  const bad = violations().filter((v) => v.startsWith(`application${path.sep}`));
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
