import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import path from 'node:path';

// tsc over the whole project takes about a minute on a quiet 2-core machine and passed 300 s under
// a CI run beside other CPU-heavy work (load 12 to 16): killed by its time limit, it failed a run
// whose code type-checked. The limit only guards against a hang; a kill says so.
const LIMIT_MS = 20 * 60_000;
const failure = (r: ReturnType<typeof spawnSync>) => (r.status === null ? `tsc did not finish: ${r.signal ?? r.error?.message} after at most ${LIMIT_MS / 60_000} min` : `tsc failed:\n${r.stdout}\n${r.stderr}`.slice(0, 8000));

test('the whole project type-checks under strict TypeScript', () => {
  const tsc = path.join('node_modules', 'typescript', 'bin', 'tsc');
  const r = spawnSync(process.execPath, [tsc, '--noEmit', '-p', 'tsconfig.json'], { encoding: 'utf8', timeout: LIMIT_MS });
  assert.is(r.status, 0, failure(r));
});

test('the web console type-checks under its own strict configuration (web/tsconfig.json)', () => {
  const tsc = path.join('node_modules', 'typescript', 'bin', 'tsc');
  const r = spawnSync(process.execPath, [tsc, '--noEmit', '-p', path.join('web', 'tsconfig.json')], { encoding: 'utf8', timeout: LIMIT_MS });
  assert.is(r.status, 0, failure(r));
});

test.run();
