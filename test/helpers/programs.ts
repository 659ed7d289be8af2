// Where the tests, the bench and .ci/docker.sh find the platforms' programs: the service's own
// rule (adapters/programs/programLocator.ts: LNM_FABRIC_BIN, else PATH; LNM_FABRIC_X_BIN, else
// PATH), with one addition for this repository's CI layout: Fabric's default configuration is
// LNM_FABRIC_CFG, else ../shared/fabric/config where it exists, else <bin>/../config.
//
//   fabricMissing            why the Fabric tests cannot run here (undefined: they can)
//   fabricProgram('peer')    absolute path of a Fabric program (only call it where fabricMissing is undefined)
//   fabricConfigDir()        the directory holding core.yaml and orderer.yaml
//   fabricServiceEnv()       LNM_FABRIC_BIN / LNM_FABRIC_CFG for a server or runtime the test starts
//   fabricXMissing, fabricXProgram('arma'), fabricXServiceEnv()   the same for Fabric-X
//   fabricReleaseOf('3.1')   the release of that line the service finds (LNM_FABRIC_RELEASES, LNM_FABRIC_BIN, PATH), or its absence's reason
//   gethMissing, gethServiceEnv()   the same for geth (LNM_GETH_BIN, else PATH)
//
// `tsx test/helpers/programs.ts --shell` prints the findings as shell assignments (.ci/docker.sh:
// the Fabric, Fabric-X and geth images).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FABRIC_BIN_VARIABLE, FABRIC_CFG_VARIABLE, findFabricBinary, findFabricConfigDir, type FabricProgram } from '../../adapters/consortium/fabricBinaries.ts';
import { FABRIC_RELEASES_VARIABLE, describeReleases, fabricReleases, releaseEnv, releaseLine, type FabricRelease } from '../../adapters/consortium/fabricReleases.ts';
import { FABRIC_X_BIN_VARIABLE, findFabricXProgram, type FabricXProgram } from '../../adapters/ledgerx/fabricXPrograms.ts';
import { findGeth, GETH_FAMILY } from '../../adapters/evm/gethLaunch.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const sharedFabricConfig = path.resolve(repoRoot, '..', 'shared', 'fabric', 'config');

/** The user's settings, with LNM_FABRIC_CFG defaulting to ../shared/fabric/config where that exists. */
function lookupEnv(): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { PATH: process.env.PATH, [FABRIC_BIN_VARIABLE]: process.env[FABRIC_BIN_VARIABLE], [FABRIC_X_BIN_VARIABLE]: process.env[FABRIC_X_BIN_VARIABLE], [FABRIC_RELEASES_VARIABLE]: process.env[FABRIC_RELEASES_VARIABLE] };
  env[FABRIC_CFG_VARIABLE] = process.env[FABRIC_CFG_VARIABLE] || (existsSync(path.join(sharedFabricConfig, 'core.yaml')) ? sharedFabricConfig : undefined);
  return env;
}

const fabricNames: FabricProgram[] = ['peer', 'orderer', 'osnadmin', 'configtxlator'];
const fabricFound = await Promise.all(fabricNames.map(async (p) => [p, await findFabricBinary(p, lookupEnv())] as const));
const fabricPaths = new Map(fabricFound.flatMap(([p, f]) => (f.ok ? [[p, f.path] as const] : [])));
const configFound = await findFabricConfigDir(lookupEnv(), 'orderer', fabricPaths.get('orderer'));
const peerConfig = configFound.ok ? await findFabricConfigDir({ ...lookupEnv(), [FABRIC_CFG_VARIABLE]: configFound.dir }, 'peer') : configFound;

/** Why Fabric's default configuration (core.yaml, orderer.yaml) is not to be had, or undefined. */
export const fabricConfigMissing: string | undefined = peerConfig.ok ? undefined : peerConfig.reason;

/** Why the Fabric tests cannot run here: the first program not found, or the configuration. */
export const fabricMissing: string | undefined = (() => {
  const absent = fabricFound.filter(([, f]) => !f.ok).map(([, f]) => (f as { reason: string }).reason);
  if (absent.length) return absent[0] + (absent.length > 1 ? ` (and ${absent.length - 1} more of ${fabricNames.join(', ')})` : '');
  return fabricConfigMissing;
})();

export function fabricProgram(program: FabricProgram): string {
  const found = fabricPaths.get(program);
  if (!found) throw new Error(`the Fabric program ${program} is not here (${fabricMissing}); this test should have been skipped`);
  return found;
}

export function fabricConfigDir(): string {
  if (!configFound.ok) throw new Error(`no Fabric configuration here (${configFound.reason}); this test should have been skipped`);
  return configFound.dir;
}

/** What a server or a runtime started by a test needs to find Fabric as the test does. */
export function fabricServiceEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  if (process.env[FABRIC_BIN_VARIABLE]) env[FABRIC_BIN_VARIABLE] = process.env[FABRIC_BIN_VARIABLE] as string;
  if (process.env[FABRIC_RELEASES_VARIABLE]) env[FABRIC_RELEASES_VARIABLE] = process.env[FABRIC_RELEASES_VARIABLE] as string;
  if (configFound.ok) env[FABRIC_CFG_VARIABLE] = configFound.dir;
  return env;
}

const fabricXNames: FabricXProgram[] = ['arma', 'committer'];
const fabricXFound = await Promise.all(fabricXNames.map(async (p) => [p, await findFabricXProgram(p, lookupEnv())] as const));
const fabricXPaths = new Map(fabricXFound.flatMap(([p, f]) => (f.ok ? [[p, f.path] as const] : [])));

/** Why the Fabric-X tests cannot run here, or undefined. */
export const fabricXMissing: string | undefined = fabricXFound.map(([, f]) => (f.ok ? undefined : f.reason)).find((r) => r !== undefined);

/** A Fabric-X program; the optional tools (loadgen, configtxlator, ...) are looked up on demand. */
export async function fabricXProgram(program: FabricXProgram): Promise<string | undefined> {
  const known = fabricXPaths.get(program);
  if (known) return known;
  const found = await findFabricXProgram(program, lookupEnv());
  return found.ok ? found.path : undefined;
}

export function fabricXServiceEnv(): Record<string, string> {
  return process.env[FABRIC_X_BIN_VARIABLE] ? { [FABRIC_X_BIN_VARIABLE]: process.env[FABRIC_X_BIN_VARIABLE] as string } : {};
}

const gethFound = await findGeth({ PATH: process.env.PATH, [GETH_FAMILY.binVariable]: process.env[GETH_FAMILY.binVariable] });

/** Why the geth (Clique) tests cannot run here, or undefined. */
export const gethMissing: string | undefined = gethFound.ok ? undefined : gethFound.reason;

/** What a server started by a test needs to find geth as the test does. */
export function gethServiceEnv(): Record<string, string> {
  const dir = process.env[GETH_FAMILY.binVariable];
  return dir ? { [GETH_FAMILY.binVariable]: dir } : {};
}

/** Why restic (Debian's, which the backup tests run) cannot run here, or undefined. */
export const resticMissing: string | undefined = (() => {
  try {
    execFileSync('restic', ['version'], { stdio: 'ignore' });
    return undefined;
  } catch {
    return 'restic is not installed';
  }
})();

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

const releasesFound = await fabricReleases(lookupEnv());

/** Each release found, with the configuration its images carry: its own config/, else LNM_FABRIC_CFG's rule. */
async function releaseImageSources(): Promise<string[]> {
  const out: string[] = [];
  for (const r of releasesFound.releases) {
    const env = releaseEnv(lookupEnv(), r);
    const cfg = await findFabricConfigDir(env, 'orderer', path.join(r.binDir, 'orderer'));
    if (cfg.ok && existsSync(path.join(r.binDir, 'peer')) && existsSync(path.join(r.binDir, 'orderer'))) out.push(`${r.version} ${r.binDir} ${cfg.dir}`);
  }
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url) && process.argv.includes('--shell')) {
  const lines = [
    ...fabricNames.map((p) => `fabric_${p}=${shellQuote(fabricPaths.get(p) ?? '')}`),
    `fabric_cfg=${shellQuote(configFound.ok ? configFound.dir : '')}`,
    `fabric_missing=${shellQuote(fabricMissing ?? '')}`,
    // One line per release: "<version> <bin dir> <config dir>" (.ci/docker.sh's images per release).
    `fabric_releases=${shellQuote((await releaseImageSources()).join('\n'))}`,
    ...fabricXNames.map((p) => `fabricx_${p}=${shellQuote(fabricXPaths.get(p) ?? '')}`),
    `fabricx_missing=${shellQuote(fabricXMissing ?? '')}`,
    `geth_path=${shellQuote(gethFound.ok ? gethFound.path : '')}`,
    `geth_missing=${shellQuote(gethMissing ?? '')}`,
  ];
  process.stdout.write(lines.join('\n') + '\n');
}

/** The newest release of a line ('2.5', '3.1') the service finds here, or why there is none. */
export function fabricReleaseOf(line: string): { ok: true; release: FabricRelease } | { ok: false; reason: string } {
  const release = releasesFound.releases.find((r) => releaseLine(r.version) === line);
  if (release) return { ok: true, release };
  return { ok: false, reason: `no Fabric ${line} release among those found (${describeReleases(releasesFound.releases)})${releasesFound.problems.length ? `; ${releasesFound.problems.join('; ')}` : ''}` };
}
