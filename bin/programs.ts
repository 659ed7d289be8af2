// `lnm programs`: where this service finds each platform's programs, with the same lookup the
// node runtimes use (adapters/programs/programLocator.ts), so an operator can check a host before
// creating nodes on it.
import { findFabricBinary, findFabricConfigDir, type FabricProgram } from '../adapters/consortium/fabricBinaries.ts';
import { fabricReleases } from '../adapters/consortium/fabricReleases.ts';
import { findFabricXProgram, type FabricXProgram } from '../adapters/ledgerx/fabricXPrograms.ts';
import type { ProgramEnv } from '../adapters/programs/programLocator.ts';
import { findGeth } from '../adapters/evm/gethLaunch.ts';

const fabric: FabricProgram[] = ['peer', 'orderer'];
const fabricX: FabricXProgram[] = ['arma', 'committer'];

export async function describePrograms(env: ProgramEnv): Promise<string> {
  const lines: string[] = [];
  const row = (platform: string, program: string, found: { ok: true; path?: string; dir?: string } | { ok: false; reason: string }) =>
    lines.push(`${platform.padEnd(11)} ${program.padEnd(15)} ${found.ok ? (found.path ?? found.dir) : `missing: ${found.reason}`}`);
  let peerPath: string | undefined;
  for (const p of fabric) {
    const found = await findFabricBinary(p, env);
    if (p === 'peer' && found.ok) peerPath = found.path;
    row('consortium', p, found);
  }
  row('consortium', 'config', await findFabricConfigDir(env, 'peer', peerPath));
  // Every release found (LNM_FABRIC_RELEASES, LNM_FABRIC_BIN or PATH), newest first: the default of a new node.
  const { releases, problems } = await fabricReleases(env);
  releases.forEach((r, i) => lines.push(`${'consortium'.padEnd(11)} ${`fabric ${r.version}`.padEnd(15)} ${r.binDir} (${r.source}${i === 0 ? '; the default for new nodes' : ''})`));
  for (const p of problems) lines.push(`${'consortium'.padEnd(11)} ${'fabric'.padEnd(15)} missing: ${p}`);
  for (const p of fabricX) row('ledgerx', p, await findFabricXProgram(p, env));
  row('evm', 'geth', await findGeth(env));
  return lines.join('\n') + '\n';
}
