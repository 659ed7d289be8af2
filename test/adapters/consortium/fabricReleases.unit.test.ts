// Fabric releases side by side (adapters/consortium/fabricReleases.ts) over the real 2.5 and 3.1
// releases this machine has (LNM_FABRIC_RELEASES; a counted skip without both): each is known by
// the version its own peer prints, newest first, whichever form the setting takes (the bin
// directories, a directory of releases), LNM_FABRIC_BIN counts as one more, and `lnm programs`
// lists each with its version.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { compareVersions, fabricReleases, releaseEnv } from '../../../adapters/consortium/fabricReleases.ts';
import { findFabricBinary } from '../../../adapters/consortium/fabricBinaries.ts';
import { describePrograms } from '../../../bin/programs.ts';
import { fabricReleaseOf } from '../../helpers/programs.ts';
import { requires } from '../../helpers/requirements.ts';

const r25 = fabricReleaseOf('2.5');
const r31 = fabricReleaseOf('3.1');
const missing = !r25.ok ? r25.reason : !r31.ok ? r31.reason : undefined;
const it = requires(test, 'fabric-releases', missing);
const dir25 = r25.ok ? r25.release.binDir : '';
const dir31 = r31.ok ? r31.release.binDir : '';
let scratch = '';

test('versions are ordered by number, not as text', () => {
  assert.ok(compareVersions('3.1.5', '2.5.12') > 0);
  assert.ok(compareVersions('2.5.12', '2.5.9') > 0);
  assert.is(compareVersions('3.1.5', '3.1.5'), 0);
});

it('the bin directories of LNM_FABRIC_RELEASES, each known by the version its peer prints, newest first', async () => {
  const { releases, problems } = await fabricReleases({ LNM_FABRIC_RELEASES: `${dir25}:${dir31}`, PATH: '' });
  assert.equal(problems, []);
  assert.equal(releases.map((r) => [r.version, r.binDir]), [[r31.ok && r31.release.version, dir31], [r25.ok && r25.release.version, dir25]]);
  assert.match(releases[0].version, /^3\.1\.\d+$/);
  assert.match(releases[1].version, /^2\.5\.\d+$/);
  // A release's env finds that release's own programs.
  const orderer = await findFabricBinary('orderer', releaseEnv({ PATH: '' }, releases[1]));
  assert.equal(orderer, { ok: true, path: path.join(dir25, 'orderer') });
});

it('a directory of releases (each holding bin/), LNM_FABRIC_BIN as one more, and entries that name nothing said', async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'lnm-releases-'));
  await mkdir(path.join(scratch, 'all', 'fabric-3.1'), { recursive: true });
  await symlink(dir31, path.join(scratch, 'all', 'fabric-3.1', 'bin'));
  await mkdir(path.join(scratch, 'empty'));
  const { releases, problems } = await fabricReleases({ LNM_FABRIC_RELEASES: `${path.join(scratch, 'all')}:${path.join(scratch, 'empty')}`, LNM_FABRIC_BIN: dir25, PATH: '' });
  assert.equal(releases.map((r) => [r.version.slice(0, 3), r.source]), [['3.1', 'LNM_FABRIC_RELEASES'], ['2.5', 'LNM_FABRIC_BIN']]);
  assert.is(releases[0].binDir, path.join(scratch, 'all', 'fabric-3.1', 'bin'));
  assert.is(problems.length, 1);
  assert.match(problems[0], `${path.join(scratch, 'empty')} is no Fabric release`);
  // The same release listed twice is one release.
  const twice = await fabricReleases({ LNM_FABRIC_RELEASES: `${dir31}:${dir31}`, PATH: '' });
  assert.is(twice.releases.length, 1);
});

it('lnm programs lists each release with its version, the newest as the default for new nodes', async () => {
  const text = await describePrograms({ LNM_FABRIC_RELEASES: `${dir25}:${dir31}`, PATH: '' });
  const lines = text.split('\n').filter((l) => /consortium\s+fabric \d/.test(l));
  assert.is(lines.length, 2, text);
  assert.match(lines[0], new RegExp(`fabric 3\\.1\\.\\d+\\s+${dir31} \\(LNM_FABRIC_RELEASES; the default for new nodes\\)`));
  assert.match(lines[1], new RegExp(`fabric 2\\.5\\.\\d+\\s+${dir25} \\(LNM_FABRIC_RELEASES\\)`));
});

test.after(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

test.run();
