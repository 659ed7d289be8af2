import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import path from 'node:path';

test('the whole project type-checks under strict TypeScript', () => {
  const tsc = path.join('node_modules', 'typescript', 'bin', 'tsc');
  const r = spawnSync(process.execPath, [tsc, '--noEmit', '-p', 'tsconfig.json'], { encoding: 'utf8', timeout: 300_000 });
  assert.is(r.status, 0, `tsc failed:\n${r.stdout}\n${r.stderr}`.slice(0, 8000));
});

test('the web console type-checks under its own strict configuration (web/tsconfig.json)', () => {
  const tsc = path.join('node_modules', 'typescript', 'bin', 'tsc');
  const r = spawnSync(process.execPath, [tsc, '--noEmit', '-p', path.join('web', 'tsconfig.json')], { encoding: 'utf8', timeout: 300_000 });
  assert.is(r.status, 0, `tsc failed:\n${r.stdout}\n${r.stderr}`.slice(0, 8000));
});

test.run();
