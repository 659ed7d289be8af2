// Wiring of the evm ports (domain/evm/evmPorts.ts) for the composition root: the node
// runtime over the process and docker engines, and the contract deployer that signs with the
// key provider holding the deployer key (validator keys are ordinary keys of the key services).
//
// Environment: LNM_NODE_ENGINE (process | docker, default process), LNM_EVM_CLIENT
// (auto | besu | anvil, default auto).
import type { EvmDeps, EvmDefaults } from '../../domain/evm/evmPorts.ts';
import type { KeyServices } from '../../domain/keys/keyServices.ts';
import type { SqlQueryable } from '../keyProviders/databaseKeyProvider.ts';
import { createEvmNodeRuntime } from './evmNodeRuntime.ts';
import { createEvmContractDeployer } from './evmContractDeployer.ts';

export class EvmConfigError extends Error {}

export function evmDefaultsFromEnv(env: Record<string, string | undefined>): EvmDefaults {
  const engine = env.LNM_NODE_ENGINE?.trim() || 'process';
  const client = env.LNM_EVM_CLIENT?.trim() || 'auto';
  if (engine !== 'process' && engine !== 'docker') throw new EvmConfigError(`LNM_NODE_ENGINE must be process or docker, got ${engine}`);
  if (client !== 'auto' && client !== 'besu' && client !== 'anvil') throw new EvmConfigError(`LNM_EVM_CLIENT must be auto, besu or anvil, got ${client}`);
  return { engine, client };
}

export async function createEvmDeps(opts: { pool: SqlQueryable; dataDir: string; keys: KeyServices; env?: Record<string, string | undefined> }): Promise<EvmDeps> {
  const env = opts.env ?? process.env;
  return {
    runtime: createEvmNodeRuntime({ dataDir: opts.dataDir, env }),
    contracts: createEvmContractDeployer((providerId) => opts.keys.providers.get(providerId)),
    defaults: evmDefaultsFromEnv(env),
  };
}
