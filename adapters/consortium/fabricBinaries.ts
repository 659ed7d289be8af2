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
import { access, constants, realpath } from 'node:fs/promises';
import path from 'node:path';
import { findProgram, type Found, type ProgramEnv, type ProgramFamily } from '../programs/programLocator.ts';

export type FabricProgram = 'peer' | 'orderer' | 'osnadmin' | 'configtxlator' | 'configtxgen';
export type FabricFound<K extends string> = Found<K>;

export const FABRIC_BIN_VARIABLE = 'LNM_FABRIC_BIN';
export const FABRIC_CFG_VARIABLE = 'LNM_FABRIC_CFG';

export const fabricPrograms: ProgramFamily = { binVariable: FABRIC_BIN_VARIABLE, release: 'a Fabric 2.5 release', noun: 'the Fabric program' };

export function findFabricBinary(program: FabricProgram, env: ProgramEnv): Promise<FabricFound<'path'>> {
  return findProgram(fabricPrograms, program, env);
}

/** The file of the config dir a role's launch starts from. */
export const fabricConfigFile = (role: 'peer' | 'orderer') => (role === 'peer' ? 'core.yaml' : 'orderer.yaml');

export async function findFabricConfigDir(env: ProgramEnv, role: 'peer' | 'orderer', binaryPath?: string): Promise<FabricFound<'dir'>> {
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
