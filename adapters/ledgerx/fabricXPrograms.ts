// Where this service finds Hyperledger Fabric-X's programs (the ledgerX platform): the orderer's
// `arma` (roles router, batcher, consensus, assembler), the committer's `committer` (sidecar,
// coordinator, vc, verifier, query) and fabric-x-common's tools. Same rule as Fabric's:
// LNM_FABRIC_X_BIN when set, and then only there; else the PATH. Fabric-X's configtxlator has
// the name of Fabric's own, so a host with both sets the bin variables rather than trust the PATH.
import { findProgram, type Found, type ProgramEnv, type ProgramFamily } from '../programs/programLocator.ts';

export type FabricXProgram = 'arma' | 'committer' | 'loadgen' | 'configtxlator' | 'configtxgen' | 'armageddon';

export const FABRIC_X_BIN_VARIABLE = 'LNM_FABRIC_X_BIN';

export const fabricXPrograms: ProgramFamily = {
  binVariable: FABRIC_X_BIN_VARIABLE,
  release: 'Fabric-X (fabric-x-orderer 1.0, fabric-x-committer 1.0, fabric-x-common 0.2)',
  noun: 'the Fabric-X program',
};

export function findFabricXProgram(program: FabricXProgram, env: ProgramEnv): Promise<Found<'path'>> {
  return findProgram(fabricXPrograms, program, env);
}
