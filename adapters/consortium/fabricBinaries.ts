// Where this service finds Hyperledger Fabric's programs and their default configuration.
//
//   findFabricBinary(program, env)        -> { ok, path } | { ok: false, reason }
//       LNM_FABRIC_BIN (a directory) when set, and then only there; else the PATH.
//   findFabricConfigDir(env, binaryPath?) -> { ok, dir } | { ok: false, reason }
//       LNM_FABRIC_CFG when set; else <dir of the real binary>/../config, the layout of Fabric's
//       release archives (bin/ and config/ side by side).
//
// The config dir holds Fabric's own core.yaml and orderer.yaml of the same release: the launch
// files start from them (every setting Fabric knows, with its documented default) and change
// only what a node of this service needs.
import { access, constants, realpath, stat } from 'node:fs/promises';
import path from 'node:path';

export type FabricProgram = 'peer' | 'orderer' | 'osnadmin' | 'configtxlator';
export type FabricFound<K extends string> = ({ ok: true } & Record<K, string>) | { ok: false; reason: string };

export const FABRIC_BIN_VARIABLE = 'LNM_FABRIC_BIN';
export const FABRIC_CFG_VARIABLE = 'LNM_FABRIC_CFG';

async function executable(file: string): Promise<boolean> {
  try {
    if (!(await stat(file)).isFile()) return false;
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export async function findFabricBinary(program: FabricProgram, env: Record<string, string | undefined>): Promise<FabricFound<'path'>> {
  const binDir = env[FABRIC_BIN_VARIABLE]?.trim();
  if (binDir) {
    const file = path.resolve(binDir, program);
    if (await executable(file)) return { ok: true, path: file };
    return { ok: false, reason: `${FABRIC_BIN_VARIABLE}=${binDir} has no executable ${program} (expected ${file}); point it at the bin directory of a Fabric 2.5 release` };
  }
  for (const dir of (env.PATH ?? '').split(':').filter(Boolean)) {
    const file = path.resolve(dir, program);
    if (await executable(file)) return { ok: true, path: file };
  }
  return { ok: false, reason: `the Fabric program ${program} is not on the PATH of this service; install the Fabric 2.5 binaries or set ${FABRIC_BIN_VARIABLE} to their bin directory` };
}

/** The file of the config dir a role's launch starts from. */
export const fabricConfigFile = (role: 'peer' | 'orderer') => (role === 'peer' ? 'core.yaml' : 'orderer.yaml');

export async function findFabricConfigDir(env: Record<string, string | undefined>, role: 'peer' | 'orderer', binaryPath?: string): Promise<FabricFound<'dir'>> {
  const file = fabricConfigFile(role);
  const configured = env[FABRIC_CFG_VARIABLE]?.trim();
  let dir: string;
  if (configured) dir = path.resolve(configured);
  else if (binaryPath) {
    // A binary reached through a symlink (/usr/local/bin/peer) still sits in its release.
    const real = await realpath(binaryPath).catch(() => binaryPath);
    dir = path.resolve(path.dirname(real), '..', 'config');
  } else {
    return { ok: false, reason: `no Fabric config directory: set ${FABRIC_CFG_VARIABLE} to a directory holding Fabric 2.5's ${file}` };
  }
  try {
    await access(path.join(dir, file), constants.R_OK);
    return { ok: true, dir };
  } catch {
    const how = configured ? `${FABRIC_CFG_VARIABLE}=${configured}` : `the release layout (<bin>/../config)`;
    return { ok: false, reason: `Fabric's default ${file} is not readable at ${path.join(dir, file)} (from ${how}); set ${FABRIC_CFG_VARIABLE} to the config directory of a Fabric 2.5 release` };
  }
}
