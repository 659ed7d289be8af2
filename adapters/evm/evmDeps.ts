// Wiring of the evm ports (domain/evm/evmPorts.ts) for the composition root: the node
// runtime over the process and docker engines, validator and deployer keys in the database
// key provider (same key_material table and KEY_ENCRYPTION_KEY as the keys service, so the
// handles are that provider's own), and the key-provider-signed contract deployer.
//
// Environment: LNM_NODE_ENGINE (process | docker, default process), LNM_EVM_CLIENT
// (auto | besu | anvil, default auto).
import type { EvmDeps, EvmDefaults } from '../../domain/evm/evmPorts.ts';
import type { SqlQueryable } from '../keyProviders/databaseKeyProvider.ts';
import { createDatabaseKeyProvider } from '../keyProviders/databaseKeyProvider.ts';
import { verifyKeyEncryptionKey } from '../keyProviders/databaseKeyEncryptionCheck.ts';
import { resolveKeyEncryptionKey } from '../keyProviders/keyEncryptionKeyFile.ts';
import { createEvmNodeRuntime } from './evmNodeRuntime.ts';
import { createEvmKeyStore } from './evmKeyStore.ts';
import { createEvmContractDeployer } from './evmContractDeployer.ts';

export class EvmConfigError extends Error {}

export function evmDefaultsFromEnv(env: Record<string, string | undefined>): EvmDefaults {
  const engine = env.LNM_NODE_ENGINE?.trim() || 'process';
  const client = env.LNM_EVM_CLIENT?.trim() || 'auto';
  if (engine !== 'process' && engine !== 'docker') throw new EvmConfigError(`LNM_NODE_ENGINE must be process or docker, got ${engine}`);
  if (client !== 'auto' && client !== 'besu' && client !== 'anvil') throw new EvmConfigError(`LNM_EVM_CLIENT must be auto, besu or anvil, got ${client}`);
  return { engine, client };
}

export async function createEvmDeps(opts: { pool: SqlQueryable; dataDir: string; env?: Record<string, string | undefined> }): Promise<EvmDeps> {
  const env = opts.env ?? process.env;
  const defaults = evmDefaultsFromEnv(env);
  const kek = resolveKeyEncryptionKey({ env, dataDir: opts.dataDir });
  await verifyKeyEncryptionKey(opts.pool, kek.key);
  const provider = createDatabaseKeyProvider({ pool: opts.pool, keyEncryptionKey: kek.key });
  return {
    runtime: createEvmNodeRuntime({ dataDir: opts.dataDir, env }),
    keys: createEvmKeyStore(provider),
    contracts: createEvmContractDeployer(provider),
    defaults,
  };
}
