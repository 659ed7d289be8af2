// A suite made through requires/requiresAll (test/helpers/requirements.ts) fails each of its tests
// with the error its before hook threw, where uvu alone drops that error (the tests then count as
// neither passed nor failed). Each case runs a small suite in a child process, as uvu runs one.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const helpers = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'helpers', 'requirements.ts');
const root = path.resolve(path.dirname(helpers), '..', '..');

function runSuite(body: string): Promise<{ code: number; out: string }> {
  const dir = mkdtempSync(path.join(root, 'test', 'harness', '.requirements-'));
  const file = path.join(dir, 'suite.ts');
  writeFileSync(file, `import { suite } from 'uvu';\nimport { requiresAll } from ${JSON.stringify(helpers)};\n${body}\n`);
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', file], { cwd: root, env: { ...process.env, FORCE_COLOR: '0' } }, (err, stdout, stderr) => {
      rmSync(dir, { recursive: true, force: true });
      resolve({ code: typeof err?.code === 'number' ? err.code : 0, out: stdout + stderr });
    });
  });
}

test('a before hook that throws fails each test with its error', async () => {
  const r = await runSuite(`
const t = requiresAll(suite('set-up fails'), ['docker', undefined]);
let reached = 0;
t.before(async () => { throw new Error('the engine would not start: no socket'); });
t('first', () => { reached++; });
t('second', () => { reached++; });
t.after(() => console.log('reached ' + reached));
t.run();`);
  assert.match(r.out, /\(0 \/ 2\)/, r.out);
  assert.match(r.out, /the engine would not start: no socket/, r.out);
  assert.match(r.out, /reached 0/, r.out);
  assert.is.not(r.code, 0, r.out);
});

test('a before hook that succeeds leaves the tests, their context and their own before.each as they were', async () => {
  const r = await runSuite(`
const t = requiresAll(suite('set-up works', { n: 1 }), ['docker', undefined]);
t.before((ctx) => { ctx.n = 41; });
t.before.each((ctx) => { ctx.n++; });
t('sees the context', (ctx) => { if (ctx.n !== 42) throw new Error('n is ' + ctx.n); });
t.run();`);
  assert.match(r.out, /\(1 \/ 1\)/, r.out);
  assert.is(r.code, 0, r.out);
});

test.run();
