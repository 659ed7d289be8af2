// .ci/apt.sh: CI's apt-get waits for a package lock another apt process holds (a fresh machine's
// own update, say) instead of giving up, as plain `apt-get update` does; other failures are not
// retried. Driven with a stand-in apt-get on PATH that answers as apt does while the lists' lock is held.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const aptSh = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../.ci/apt.sh');
let dir = '';
test.before.each(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'lnm-apt-'));
});
test.after.each(() => rmSync(dir, { recursive: true, force: true }));

/** An apt-get that fails `lockedFor` times with `message`, then succeeds; it counts its calls. */
function fakeAptGet(lockedFor: number, message: string): void {
  const script = `#!/bin/sh
n=$(cat "${dir}/calls" 2>/dev/null || echo 0); n=$((n + 1)); echo $n >"${dir}/calls"
echo "$*" >>"${dir}/args"
if [ $n -le ${lockedFor} ]; then echo "${message}" >&2; exit 100; fi
echo "updated"
`;
  writeFileSync(path.join(dir, 'apt-get'), script);
  chmodSync(path.join(dir, 'apt-get'), 0o755);
}

function run(setE: boolean, wait = 30) {
  const r = spawnSync('bash', ['--norc', '-c', `${setE ? 'set -euo pipefail; ' : ''}. "${aptSh}"; apt_get update -qq; echo "rc=$?"`], {
    env: { PATH: `${dir}:/usr/bin:/bin`, LNM_APT_LOCK_EVERY: '1', LNM_APT_LOCK_WAIT: String(wait) },
    encoding: 'utf8',
    timeout: 30_000,
  });
  const calls = Number(readFileSync(path.join(dir, 'calls'), 'utf8'));
  return { status: r.status, out: r.stdout, err: r.stderr, calls };
}

const lists = 'E: Could not get lock /var/lib/apt/lists/lock. It is held by process 4242 (apt-get)';

test('a held lists lock is waited for, also under set -e as .ci/run runs it', () => {
  for (const setE of [false, true]) {
    rmSync(path.join(dir, 'calls'), { force: true });
    fakeAptGet(3, lists);
    const r = run(setE);
    assert.is(r.status, 0, r.err);
    assert.is(r.calls, 4, 'three refusals, then the update');
    assert.match(r.out, 'rc=0');
    assert.match(r.err, 'waiting');
  }
  assert.match(readFileSync(path.join(dir, 'args'), 'utf8'), '-o DPkg::Lock::Timeout=600 update -qq');
});

test('the wait is bounded: a lock never let go fails with apt\'s message', () => {
  fakeAptGet(1000, lists);
  const r = run(false, 2);
  assert.match(r.out, /rc=100/);
  assert.match(r.err, 'still held');
  assert.match(r.err, 'Could not get lock');
  assert.ok(r.calls >= 2 && r.calls <= 4, `${r.calls} calls`);
});

test('another failure is not retried', () => {
  fakeAptGet(1000, 'E: Unable to locate package no-such-package');
  const r = run(false);
  assert.match(r.out, /rc=100/);
  assert.is(r.calls, 1);
  assert.match(r.err, 'Unable to locate package');
});

test.run();
