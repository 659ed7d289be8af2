// The Fabric releases this service runs side by side (2.5.x and 3.1.x at once), each found
// through configuration and known by the version its own programs print.
//
//   fabricReleases(env) -> { releases: FabricRelease[] (newest first), problems: string[] }
//       LNM_FABRIC_RELEASES: a ':'-separated list; each entry is a release's bin directory
//         (holding peer and orderer), a release directory holding bin/, or a directory of such
//         releases (one level down). LNM_FABRIC_BIN (one release) is read as well; with neither
//         set, the peer and orderer on the PATH are one release.
//       Each release's version is what `peer version` (else `orderer version`) prints
//       ("Version: 3.1.5"); two directories of the same version: the first listed is used.
//   releaseEnv(env, release) -> the env under which findFabricBinary finds that release's programs.
//   compareVersions(a, b)    -> numeric order of dotted versions.
//
// A node records the version it was created with (config.fabricVersion) and is always started
// from that release's programs. Fabric's default configuration differs between releases (Fabric
// 3.1's orderer refuses 2.5's orderer.yaml): a release of LNM_FABRIC_RELEASES laid out as the
// release archives are (bin/ and config/ side by side) uses its own config/, before
// LNM_FABRIC_CFG; others follow findFabricConfigDir's rule (LNM_FABRIC_CFG, else <bin>/../config).
import { execFile } from 'node:child_process';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { access, constants } from 'node:fs/promises';
import { isExecutableFile, type ProgramEnv } from '../programs/programLocator.ts';
import { FABRIC_BIN_VARIABLE, FABRIC_CFG_VARIABLE, findFabricBinary } from './fabricBinaries.ts';

const execFileAsync = promisify(execFile);

export const FABRIC_RELEASES_VARIABLE = 'LNM_FABRIC_RELEASES';

export interface FabricRelease {
  /** What the release's programs print, e.g. 2.5.12 or 3.1.5. */
  version: string;
  /** The directory holding its peer and orderer (and osnadmin, configtxlator). */
  binDir: string;
  /** Where it was configured: LNM_FABRIC_RELEASES, LNM_FABRIC_BIN or PATH. */
  source: string;
  /** Its own default configuration (core.yaml, orderer.yaml): the config/ beside its bin/ (LNM_FABRIC_RELEASES only); null: LNM_FABRIC_CFG's rule. */
  configDir: string | null;
}

export interface FabricReleases {
  releases: FabricRelease[];
  /** Entries that named no release (said, never silently dropped). */
  problems: string[];
}

export function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.-]/).map((p) => Number.parseInt(p, 10));
  const pb = b.split(/[.-]/).map((p) => Number.parseInt(p, 10));
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (Number.isNaN(pa[i]) ? -1 : (pa[i] ?? 0)) - (Number.isNaN(pb[i]) ? -1 : (pb[i] ?? 0));
    if (d) return d;
  }
  return 0;
}

/** The major.minor of a version: 3.1.5 -> 3.1. */
export const releaseLine = (version: string) => version.split('.').slice(0, 2).join('.');

const hasPrograms = async (dir: string) => (await isExecutableFile(path.join(dir, 'peer'))) || (await isExecutableFile(path.join(dir, 'orderer')));
const isDir = (dir: string) => stat(dir).then((s) => s.isDirectory(), () => false);

/** The bin directories an entry of LNM_FABRIC_RELEASES names. */
async function binDirsOf(entry: string): Promise<string[]> {
  const dir = path.resolve(entry);
  if (await hasPrograms(dir)) return [dir];
  if (await hasPrograms(path.join(dir, 'bin'))) return [path.join(dir, 'bin')];
  if (!(await isDir(dir))) return [];
  const out: string[] = [];
  for (const child of (await readdir(dir)).sort()) {
    const sub = path.join(dir, child);
    if (await hasPrograms(sub)) out.push(sub);
    else if (await hasPrograms(path.join(sub, 'bin'))) out.push(path.join(sub, 'bin'));
  }
  return out;
}

// A program's version does not change while the service runs: read once per binary.
const versions = new Map<string, Promise<string | null>>();

/** The version a Fabric program prints with `<program> version`, or null. */
export function programVersion(file: string): Promise<string | null> {
  let known = versions.get(file);
  if (!known) {
    known = execFileAsync(file, ['version'], { timeout: 10_000, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } }).then(
      ({ stdout }) => /^\s*Version:\s*v?(\d+\.\d+\.\d+\S*)\s*$/m.exec(stdout)?.[1] ?? null,
      () => null,
    );
    versions.set(file, known);
    // A failed read is tried again next time (the file may be installed meanwhile).
    void known.then((v) => v === null && versions.delete(file));
  }
  return known;
}

/** The config/ beside a release's bin/ (not following symlinks: a release dir may link its bin/), when it holds both files. */
async function ownConfigDir(binDir: string): Promise<string | null> {
  const dir = path.join(path.dirname(binDir), 'config');
  for (const file of ['core.yaml', 'orderer.yaml']) {
    if (!(await access(path.join(dir, file), constants.R_OK).then(() => true, () => false))) return null;
  }
  return dir;
}

async function releaseAt(binDir: string, source: string): Promise<FabricRelease | string> {
  for (const program of ['peer', 'orderer']) {
    const file = path.join(binDir, program);
    if (!(await isExecutableFile(file))) continue;
    const version = await programVersion(file);
    if (version) return { version, binDir, source, configDir: source === FABRIC_RELEASES_VARIABLE ? await ownConfigDir(binDir) : null };
    return `${file} does not print its version (\`${program} version\`)`;
  }
  return `${binDir} holds no Fabric peer or orderer`;
}

export async function fabricReleases(env: ProgramEnv): Promise<FabricReleases> {
  const found: FabricRelease[] = [];
  const problems: string[] = [];
  const add = (r: FabricRelease | string) => {
    if (typeof r === 'string') problems.push(r);
    else if (!found.some((f) => f.version === r.version)) found.push(r);
  };
  const listed = (env[FABRIC_RELEASES_VARIABLE] ?? '').split(':').map((e) => e.trim()).filter(Boolean);
  for (const entry of listed) {
    const dirs = await binDirsOf(entry);
    if (!dirs.length) problems.push(`${FABRIC_RELEASES_VARIABLE} entry ${entry} is no Fabric release (no peer or orderer in it, in its bin/ or in its subdirectories)`);
    for (const dir of dirs) add(await releaseAt(dir, FABRIC_RELEASES_VARIABLE));
  }
  const single = env[FABRIC_BIN_VARIABLE]?.trim();
  if (single) {
    add(await releaseAt(path.resolve(single), FABRIC_BIN_VARIABLE));
  } else if (!listed.length) {
    for (const program of ['peer', 'orderer'] as const) {
      const onPath = await findFabricBinary(program, { PATH: env.PATH });
      if (onPath.ok) {
        add(await releaseAt(path.dirname(onPath.path), 'PATH'));
        break;
      }
    }
  }
  found.sort((a, b) => compareVersions(b.version, a.version));
  return { releases: found, problems };
}

/** The env under which findFabricBinary / findFabricConfigDir find this release's programs. */
export function releaseEnv(env: ProgramEnv, release: FabricRelease): ProgramEnv {
  return { ...env, [FABRIC_BIN_VARIABLE]: release.binDir, ...(release.configDir ? { [FABRIC_CFG_VARIABLE]: release.configDir } : {}) };
}

/** What is available, for a refusal: "3.1.5 (/dir), 2.5.12 (/dir)" or "none". */
export function describeReleases(releases: FabricRelease[]): string {
  return releases.length ? releases.map((r) => `${r.version} (${r.binDir})`).join(', ') : `none (set ${FABRIC_RELEASES_VARIABLE} or ${FABRIC_BIN_VARIABLE})`;
}
