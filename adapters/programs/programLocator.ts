// Where this service finds a platform's programs (Fabric's peer and orderer, Fabric-X's arma and
// committer, ...): one rule for every platform, so the service, the tests, the bench and
// .ci/docker.sh agree on what is installed.
//
//   findProgram(family, program, env) -> { ok, path } | { ok: false, reason }
//       <family.binVariable> (a directory) when set, and then only there; else the PATH.
//
// A configured directory is the whole answer: a user who names a release's bin/ must not get a
// different version that happens to be on the PATH.
import { access, constants, stat } from 'node:fs/promises';
import path from 'node:path';

export type Found<K extends string> = ({ ok: true } & Record<K, string>) | { ok: false; reason: string };
export type ProgramEnv = Record<string, string | undefined>;

export interface ProgramFamily {
  /** The variable naming the directory of the family's programs, e.g. LNM_FABRIC_BIN. */
  binVariable: string;
  /** What a user installs to get them, for the reason: "a Fabric 2.5 release". */
  release: string;
  /** What the programs are called as a group: "the Fabric program". */
  noun: string;
}

export async function isExecutableFile(file: string): Promise<boolean> {
  try {
    if (!(await stat(file)).isFile()) return false;
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export async function findProgram(family: ProgramFamily, program: string, env: ProgramEnv): Promise<Found<'path'>> {
  const binDir = env[family.binVariable]?.trim();
  if (binDir) {
    const file = path.resolve(binDir, program);
    if (await isExecutableFile(file)) return { ok: true, path: file };
    return { ok: false, reason: `${family.binVariable}=${binDir} has no executable ${program} (expected ${file}); point it at the bin directory of ${family.release}` };
  }
  for (const dir of (env.PATH ?? '').split(':').filter(Boolean)) {
    const file = path.resolve(dir, program);
    if (await isExecutableFile(file)) return { ok: true, path: file };
  }
  return { ok: false, reason: `${family.noun} ${program} is not on the PATH of this service; install ${family.release} or set ${family.binVariable} to its bin directory` };
}
